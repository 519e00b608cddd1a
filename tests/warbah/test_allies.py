"""Scenario tests for Warbah alliances (option ``allies=True``; rulebook ALLIES)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.game import ConfigError, restore
from tabletop_arena.envs.warbah import battle_flow, espionage, heroes, make_game
from tabletop_arena.envs.warbah.actions import (
    ALLY_ACCEPT,
    ALLY_BREAK0,
    ALLY_DECLINE,
    ALLY_GOLD0,
    ALLY_PROPOSE0,
    CAPITOL_AUTO,
    DONE,
    GIVE0,
    TARGET0,
)
from tabletop_arena.envs.warbah.state import Item
from tabletop_arena.envs.warbah.tables import TERRAINS


def diplomacy_state(n=3, seed=0):
    g = make_game(num_players=n, allies=True)
    st = g.new_initial_state(np.random.default_rng(seed))
    for _ in range(n):
        st.apply(CAPITOL_AUTO)
    guard = 0
    while st.phase != "diplomacy" and guard < 500:
        st.apply(DONE if st.legal_actions_mask()[DONE] else st.legal_actions()[0])
        guard += 1
    assert st.phase == "diplomacy"
    return g, st


def test_allies_option_needs_three_players():
    """ALLIES: in a multiplayer game (designed: 3-4 players)."""
    with pytest.raises(ConfigError):
        make_game(num_players=2, allies=True)
    assert make_game(num_players=3, allies=True).options()["allies"] is True
    assert "allies" not in make_game(num_players=3).options()


def test_form_alliance_by_offer_and_acceptance():
    """ALLIES: two players may form an alliance (offer, then the other player accepts)."""
    g, st = diplomacy_state()
    me = st.current_player
    other = (me + 1) % 3
    st.apply(ALLY_PROPOSE0)
    assert st.phase == "ally_answer" and st.current_player == other
    assert st.observation(other)[-1] is not None
    st.apply(ALLY_ACCEPT)
    assert st.diplomacy.allied[me, other] and st.diplomacy.allied[other, me]
    assert st.current_player == me and not st.legal_actions_mask()[ALLY_PROPOSE0]
    gold = st.gold.copy()
    st.gold[me] = 3
    st._mask = None
    st.apply(ALLY_GOLD0)  # allies may trade gold
    assert st.gold[me] == 2 and st.gold[other] == gold[other] + 1
    st.apply(ALLY_BREAK0)  # ... or declare the alliance over
    assert not st.diplomacy.allied[me, other]


def test_declined_offer_and_one_offer_per_turn():
    """ALLIES (designed): a declined offer cannot be repeated in the same turn."""
    g, st = diplomacy_state()
    me = st.current_player
    st.apply(ALLY_PROPOSE0)
    st.apply(ALLY_DECLINE)
    assert not st.diplomacy.allied.any() and st.current_player == me
    assert not st.legal_actions_mask()[ALLY_PROPOSE0]


def test_attacking_an_ally_ends_the_alliance():
    """ALLIES: an alliance ends as soon as one ally attacks the other."""
    g, st = diplomacy_state()
    a, b = st.heroes[0], st.heroes[1]
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x]))
    st.explored[cell], st.terrain[cell], st.settle[cell], st.encounter[cell] = True, 0, -1, 0
    b.cell = cell
    battle_flow.on_attack(st, 0, cell)
    assert not st.diplomacy.allied[0, 1]


def test_allied_heroes_exchange_troops_and_no_spying_on_allies():
    """ALLIES: allies may trade troops (adjacent Heroes); allies are not espionage targets."""
    g, st = diplomacy_state()
    a, b = st.heroes[0], st.heroes[1]
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x]))
    st.explored[cell], st.terrain[cell], st.settle[cell], st.encounter[cell] = (
        True, TERRAINS.index("clear"), -1, 0)
    b.cell, a.mp, a.scout_moves, a.abilities = cell, 3, 0, []
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0)], 0, 0, None
    d = [int(x) for x in st.neighbours[a.cell]].index(cell)
    assert st.legal_actions_mask()[GIVE0 + 4 * d]
    st.espionage.contact[0, 1] = st.espionage.contact[1, 0] = True
    st.espionage.mission = espionage.SpyMission(0, 0, stage="delay")
    assert espionage.targets(st) == []
    _ = TARGET0


@pytest.mark.parametrize("n", [3, 4])
def test_allies_random_playouts_consistent(n):
    """Conformance-style check for the allies option: masks match apply, clones and
    serialisation round-trip, determinize keeps each seat's observation."""
    g = envs.make_game("warbah_v0", num_players=n, allies=True)
    drng = np.random.default_rng(5)
    for seed in range(4):
        st = g.new_initial_state(np.random.default_rng(seed))
        st.seed = seed
        rng = np.random.default_rng(seed)
        while not st.is_terminal():
            mask = st.legal_actions_mask()
            legal = np.flatnonzero(mask)
            assert len(legal)
            if rng.random() < 0.05:
                for a in legal[:10]:
                    st.clone().apply(int(a))
                r = restore(g, st.serialize())
                assert np.array_equal(r.legal_actions_mask(), mask)
                for seat in range(n):
                    assert np.array_equal(st.determinize(seat, drng).observation(seat),
                                          st.observation(seat))
            st.apply(int(legal[rng.integers(len(legal))]))
        assert st.returns().sum() == pytest.approx(0)


def test_allies_pettingzoo_api():
    """The allies option goes through envs.make and passes PettingZoo's api_test."""
    from pettingzoo.test import api_test
    api_test(envs.make("warbah_v0", num_players=3, allies=True), num_cycles=200)


def test_allies_trade_settlements_and_heroes():
    """ALLIES: allies may trade settlements and Heroes (designed: the acting Hero cedes the
    settlement he stands on, or goes over to the ally with his army and items)."""
    from tabletop_arena.envs.warbah.actions import CEDE0, HERO_TO0
    from tabletop_arena.envs.warbah.tables import SETTLEMENTS
    g, st = diplomacy_state()
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    a = st.heroes[0]
    c = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0))
    st.explored[c], st.terrain[c] = True, TERRAINS.index("settlement")
    st.settle[c], st.owner[c], st.encounter[c] = SETTLEMENTS.index("town"), 0, 0
    a.cell, a.mp, a.scout_moves = c, 3, 0
    extra = replace(a.clone(), troops=a.troops.copy(), abilities=[], cell=st.capitol[0], id=9)
    st.heroes.append(extra)
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0), (0, 3)], 0, 0, None
    mask = st.legal_actions_mask()
    assert mask[CEDE0] and mask[HERO_TO0] and not mask[CEDE0 + 1]  # only toward the ally
    st.apply(CEDE0)
    assert st.owner[c] == 1
    st.apply(HERO_TO0)
    assert a.seat == 1 and st.queue[st.queue_pos] == (0, 3)


def test_allies_trade_magic_items():
    """ALLIES: allies may trade magic items: an acting Hero hands an item (and the ability it
    grants) to an adjacent allied Hero; not to a Hero of a player he is not allied with."""
    from tabletop_arena.envs.warbah.actions import GIVE_ITEM0
    g, st = diplomacy_state()
    a, b = st.heroes[0], st.heroes[1]
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x]))
    st.explored[cell], st.terrain[cell], st.settle[cell], st.encounter[cell] = (
        True, TERRAINS.index("clear"), -1, 0)
    b.cell, a.mp, a.scout_moves, a.abilities, b.abilities = cell, 3, 0, [], []
    a.items = [Item("ability", ability=("defense", 0))]
    a.abilities.append(("defense", 0))
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0)], 0, 0, None
    d = [int(x) for x in st.neighbours[a.cell]].index(cell)
    assert not st.legal_actions_mask()[GIVE_ITEM0 + d]  # not allied yet
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    st._mask = None
    assert st.legal_actions_mask()[GIVE_ITEM0 + d]
    st.apply(GIVE_ITEM0 + d)
    assert not a.items and b.items[0].ability == ("defense", 0)
    assert heroes.ability(st, a, "defense") == 0 and heroes.ability(st, b, "defense") == 1
