"""Scenario tests for combined attacks (rulebook BATTLE PHASE: "Heroes may combine attacks against
a single hex"; ALLIES: "Allies may combine attacks"). Small hand-set positions."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle, battle_flow, make_game
from tabletop_arena.envs.warbah.actions import (
    BATTLE_ACCEPT,
    BATTLE_DECLINE,
    BATTLE_JOIN0,
    BATTLE_START,
    CALL_OFF,
    CAPITOL_AUTO,
    CASUALTY0,
    LOSS_SP0,
)
from tabletop_arena.envs.warbah.state import Battle, Hero
from tabletop_arena.envs.warbah.tables import TERRAINS


def _hero(seat, cell, troops, abil=()):
    return Hero(seat, cell, np.array(troops, np.int64), 9, list(abil), attacks_left=1)


def arena(n=2, allies=False, rules=None, seed=0):
    """An interior hex T with six clear land neighbours; the lead Hero (seat 0) stands at the
    neighbour in direction 0 of T. Returns (game, state, T, neighbours of T)."""
    g = make_game(num_players=n, allies=allies, rules=rules)
    st = g.new_initial_state(np.random.default_rng(seed))
    for _ in range(n):
        st.apply(CAPITOL_AUTO)
    t = next(c for c in range(g.n_cells) if all(m >= 0 for m in st.neighbours[c]))
    ring = list(st.neighbours[t])
    for c in [t] + ring:
        st.land[c], st.explored[c] = True, True
        st.terrain[c], st.settle[c] = TERRAINS.index("clear"), -1
        st.encounter[c], st.owner[c], st.garrison[c] = 0, -1, 0
        st.fleets.ships[c], st.fleets.owner[c] = 0, -1
    st.rivers.clear()
    st.capitol[:] = -1  # no elimination side effects in these positions
    st.heroes = [_hero(0, ring[0], [3, 0, 0, 0])]
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    st._mask = None
    return g, st, t, ring


def _dir(st, cell, to):
    return st.neighbours[cell].index(to)


def _piece(g, obs, name):
    """The named piece of the flat observation (WarbahGame.observation_layout)."""
    at = 0
    for key, shape in g.observation_layout:
        size = int(np.prod(shape))
        if key == name:
            return obs[at:at + size].reshape(shape)
        at += size
    raise KeyError(name)


def test_battle_phase_combined_attack_declare_join_start():
    """BATTLE PHASE: Heroes may combine attacks against a single hex: the attack is declared,
    own Heroes next to the target are added one at a time, then the battle starts."""
    g, st, t, ring = arena()
    st.heroes.append(_hero(1, t, [5, 0, 0, 0]))             # the target: an enemy Hero
    st.heroes.append(_hero(0, ring[2], [4, 0, 0, 0]))       # a friend next to the target
    st.heroes.append(_hero(0, ring[4], [2, 0, 0, 0]))       # another friend
    lead = st.heroes[0]
    d = _dir(st, lead.cell, t)
    assert st.legal_actions_mask()[d]
    st.apply(d)
    assert st.phase == "join" and st.current_player == 0 and st.battle is None
    mask = st.legal_actions_mask()
    assert mask[BATTLE_START] and mask[BATTLE_JOIN0 + 2] and mask[BATTLE_JOIN0 + 4]
    assert mask.sum() == 3  # only the two friends and the start
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(BATTLE_JOIN0 + 1)  # nobody there
    assert st.declared_attack == before.declared_attack and st.phase == "join"
    st.apply(BATTLE_JOIN0 + 2)
    assert st.declared_attack.members == [2]
    assert not st.legal_actions_mask()[BATTLE_JOIN0 + 2]  # already in
    st.apply(BATTLE_START)
    assert st.declared_attack is None
    assert st.heroes[2].attacks_left == 0 and st.heroes[3].attacks_left == 1
    b = st.battle
    if b is not None:  # still running (casualty choice or call-off)
        assert [m.hero for m in b.members] == [2]


def test_battle_phase_lone_attack_starts_at_once():
    """BATTLE PHASE: with nobody able to join, the attack starts without the join step; a
    friend without an attack left, a delayed one (Agent Success 6) or one not next to the
    target cannot join."""
    g, st, t, ring = arena()
    st.heroes.append(_hero(1, t, [5, 0, 0, 0]))
    tired = _hero(0, ring[2], [4, 0, 0, 0])
    tired.attacks_left = 0
    delayed = _hero(0, ring[3], [4, 0, 0, 0])
    delayed.delayed_turn = st.turn
    far = next(m for m in st.neighbours[ring[4]] if m >= 0 and m != t and m not in ring)
    st.land[far], st.explored[far] = True, True
    st.heroes += [tired, delayed, _hero(0, far, [4, 0, 0, 0])]
    st.apply(_dir(st, st.heroes[0].cell, t))
    assert st.phase != "join" and st.declared_attack is None


def test_battle_combined_force_attacks_together_walls_negate_once_per_round():
    """BATTLE / BATTLE ROUND SEQUENCE: the joiners' troops attack too (with their own Hero's
    abilities); the target's walls negate one kill per rank per round against the whole force."""
    rules = {"designed": {"wall_break_chance": 0},
             "encounters": {6: {"monster": {"init": 1, "kill": 0, "hits": 20}}}}
    g, st, t, ring = arena(rules=rules)
    st.terrain[t] = TERRAINS.index("hills")  # 2 wall ranks
    st.encounter[t] = 6  # a monster that never kills
    lead = st.heroes[0]
    lead.troops[:] = 0
    lead.abilities = [("leadership", 4)] * 10  # the lead Hero always hits (1 kill per round)
    friend = _hero(0, ring[3], [0, 5, 0, 0], [("leadership", 1)] * 10 + [("leadership", 4)] * 10)
    # the friend: 5 sure archer kills and 1 sure kill by his Hero
    st.heroes.append(friend)
    st.apply(_dir(st, lead.cell, t))
    st.apply(BATTLE_JOIN0 + 3)
    st.apply(BATTLE_START)
    assert st.phase == "call_off" and st.current_player == 0  # the lead's player decides
    b = st.battle
    assert b.sides[1].monster[2] == 20 - (7 - 2)  # 7 kills, 2 negated by the walls
    st.apply(CALL_OFF)
    assert st.battle is None and lead.alive and friend.alive
    assert friend.troops.tolist() == [0, 5, 0, 0] and friend.attacks_left == 0
    assert st.encounter[t] == 6  # not defeated: it remains


def test_battle_combined_kills_shared_in_turn_heroes_fall_last():
    """BATTLE: the Hero is the last unit killed: kills on a combined force are dealt in turn to
    the armies that still have troops; the joiners' Heroes fall before the lead's."""
    g, st, t, ring = arena()
    st.heroes.append(_hero(1, t, [5, 0, 0, 0]))
    st.heroes.append(_hero(0, ring[2], [5, 0, 0, 0]))
    st.heroes.append(_hero(0, ring[4], [1, 0, 0, 0]))
    st.heroes[0].troops[:] = [2, 0, 0, 0]
    st.battle = None
    st.declared_attack = None
    b = Battle([battle.hero_army(st, 0), battle.neutral_army([9, 0, 0, 0, 0])], "hero", t,
               members=[battle.hero_army(st, 2), battle.hero_army(st, 3)], member_kills=[0, 0])
    k0, mk = battle_flow._share(st, b, 7, 0)
    assert (k0, mk) == (2, [4, 1])  # lead, friend, other, lead, friend, friend, friend
    b.sides[0].counts[0] = 0
    b.members[0].counts[0] = 0
    b.members[1].counts[0] = 0
    b.next_share = 0
    k0, mk = battle_flow._share(st, b, 2, 0)
    assert (k0, mk) == (0, [1, 1])  # only Heroes left: the joiners' first
    k0, mk = battle_flow._share(st, b, 3, 0)
    assert k0 == 1  # the lead's Hero takes what the joiners' Heroes could not


def test_battle_combined_joiner_chooses_own_casualties():
    """BATTLE ROUND SEQUENCE: the defending player decides which of his troops are killed: in a
    combined attack each joining army's owner picks among its own troops."""
    g, st, t, ring = arena()
    st.heroes.append(_hero(1, t, [40, 0, 0, 0], [("leadership", 0)] * 10))  # all hits
    st.heroes.append(_hero(0, ring[2], [3, 3, 0, 0]))
    st.heroes[0].troops[:] = [0, 0, 0, 0]
    st.apply(_dir(st, st.heroes[0].cell, t))
    st.apply(BATTLE_JOIN0 + 2)
    st.apply(BATTLE_START)
    seen = False
    while st.battle is not None and st.phase == "casualty":
        b = st.battle
        if b.member_choosing >= 0:
            seen = True
            mask = st.legal_actions_mask()
            side = b.members[b.member_choosing]
            for x in range(4):
                assert mask[CASUALTY0 + x] == (side.counts[x] > 0)
            vb = _piece(g, st.observation(0), "vector_b")
            assert vb[75] == 1 and vb[66] == vb[67] == 0
            assert np.allclose(vb[70:74] * 40, side.counts[:4]) and vb[74] == 0.25
            assert _piece(g, st.observation(1), "vector_b")[75] == 0
            st.apply(CASUALTY0 + 1)  # archers first
        else:
            st.apply(int(np.flatnonzero(st.legal_actions_mask())[0]))
    assert seen
    assert not st.heroes[2].alive and not st.heroes[0].alive  # 40 sure kills
    foe = st.heroes[1]  # one XP per enemy Hero killed (2 XP become an ability in recovery)
    assert foe.xp + 2 * (len(foe.abilities) - 10) == 2


def test_battle_combined_victory_advance_and_xp():
    """RECOVERY / BATTLE: when the target is destroyed the lead advances into an empty hex and
    every Hero of the combined attack earns the XP for the enemy Hero killed."""
    g, st, t, ring = arena()
    st.heroes.append(_hero(1, t, [0, 0, 0, 0]))
    st.heroes.append(_hero(0, ring[2], [5, 0, 0, 0]))
    joiner = battle.hero_army(st, 2)
    joiner.ships = 0
    st.battle = Battle([battle.hero_army(st, 0), battle.hero_army(st, 1)], "hero", t, round=1,
                       members=[joiner], member_kills=[0])
    st.battle.sides[1].counts[4] = 0  # the enemy Hero has fallen
    battle_flow.finish(st)
    assert not st.heroes[1].alive
    assert st.heroes[0].cell == t and st.heroes[2].cell == ring[2]
    assert st.heroes[0].xp == 1 and st.heroes[2].xp == 1


def test_allies_combine_attacks_ally_answers():
    """ALLIES: allies may combine attacks: an allied Hero next to the target is called, its
    player accepts or declines; a declined Hero is not asked again."""
    g, st, t, ring = arena(n=3, allies=True)
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    st.heroes.append(_hero(2, t, [5, 0, 0, 0]))
    st.heroes.append(_hero(1, ring[2], [4, 0, 0, 0]))       # allied Hero
    st.heroes.append(_hero(1, ring[3], [4, 0, 0, 0]))       # another allied Hero
    st.apply(_dir(st, st.heroes[0].cell, t))
    assert st.phase == "join"
    st.apply(BATTLE_JOIN0 + 2)
    assert st.phase == "join_answer" and st.current_player == 1
    mask = st.legal_actions_mask()
    assert mask[BATTLE_ACCEPT] and mask[BATTLE_DECLINE] and mask.sum() == 2
    st.apply(BATTLE_DECLINE)
    assert st.phase == "join" and st.current_player == 0
    assert not st.legal_actions_mask()[BATTLE_JOIN0 + 2]
    st.apply(BATTLE_JOIN0 + 3)
    st.apply(BATTLE_ACCEPT)
    assert st.declared_attack.members == [3] and st.declared_attack.declined == [2]
    obs = st.observation(0)
    assert obs.shape == (sum(int(np.prod(s)) for _, s in g.observation_layout),)
    plane = _piece(g, obs, "board_b")[6].reshape(-1)
    vb = _piece(g, obs, "vector_b")
    assert plane[t] == 1 and plane[ring[3]] == 0.5 and plane[ring[0]] == 0.25
    assert vb[66] == 1 and vb[68] == 0.25
    st.apply(BATTLE_START)
    assert st.heroes[3].attacks_left == 0 and st.heroes[2].attacks_left == 1


def test_allies_not_allied_heroes_cannot_join():
    """ALLIES: only allied Heroes join; without an alliance the other player's Hero is not
    offered (and a 2-player game has none)."""
    g, st, t, ring = arena(n=3, allies=True)
    st.heroes.append(_hero(2, t, [5, 0, 0, 0]))
    st.heroes.append(_hero(1, ring[2], [4, 0, 0, 0]))
    st.apply(_dir(st, st.heroes[0].cell, t))
    assert st.phase != "join"


def test_battle_combined_random_playouts_with_joins():
    """Random play through declared, joined and started attacks stays consistent: every mask
    has a legal action and illegal join actions are refused."""
    seen = 0
    for seed in range(4):
        g, st, t, ring = arena(seed=seed)
        st.heroes.append(_hero(1, t, [8, 2, 0, 0]))
        st.heroes.append(_hero(0, ring[1], [3, 2, 1, 0]))
        st.heroes.append(_hero(0, ring[5], [2, 0, 4, 0]))
        rng = np.random.default_rng(seed)
        st.apply(_dir(st, st.heroes[0].cell, t))
        while st.phase not in ("battle", "over") or st.battle is not None:
            mask = st.legal_actions_mask()
            legal = np.flatnonzero(mask)
            assert len(legal)
            if st.phase == "join":
                seen += 1
            a = int(rng.choice(legal))
            if st.phase == "casualty":
                assert a in range(CASUALTY0, CASUALTY0 + 4) or a >= LOSS_SP0
            st.apply(a)
        assert all(h.troops.min() >= 0 for h in st.heroes)
    assert seen
