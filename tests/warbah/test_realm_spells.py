"""Scenario tests for Warbah realm magic: wizards, the Realm phase, realm spells,
Disaster magic and magic items (Treasure table, recovery). Battle spells are in
test_spells.py. Each test names the rulebook section it checks."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.warbah import battle_spells, fleets, heroes, hexes, magic, observe_magic, realm_spells, turn
from tabletop_arena.envs.warbah.actions import CELL0, DONE, REALM0, RECRUIT_WIZARD, TSEAT0
from tabletop_arena.envs.warbah.state import Army, Battle, Item
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS
from tests.warbah.test_rules import setup_state
from tests.warbah.test_spells import G2, R, two_heroes

TOWER = SETTLEMENTS.index("tower")


# ------------------------------------------------------------------------------------------
# Wizards, Realm phase, realm spells (REALM PHASE, REALM SPELLS CARD LIST, DISASTER MAGIC)
# ------------------------------------------------------------------------------------------
def test_recruit_wizard_at_tower():
    """RECRUIT TROOPS: a Tower's one Wizard joins a hero there for 5 gold; killed, he returns."""
    g, st = setup_state()
    h = st.heroes[0]
    c = h.cell
    st.settle[c] = TOWER
    st.gold[0] = 7
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, c)], 0, None
    assert st.legal_actions_mask()[RECRUIT_WIZARD]
    st.apply(RECRUIT_WIZARD)
    assert h.wizard == c + 1 and st.gold[0] == 2
    assert not magic.tower_wizard_home(st, c)
    magic.kill_wizard(st, 0)
    assert magic.tower_wizard_home(st, c) and not magic.has_wizard(h)


def test_realm_phase_discard_and_draw_up_to_towers():
    """REALM PHASE: discard any, then draw until holding as many as Towers (+1 per Temple)."""
    g, st = setup_state()
    own = [c for c in np.flatnonzero(st.land) if st.owner[c] < 0][:3]
    st.settle[own[0]] = st.settle[own[1]] = TOWER
    st.owner[own[0]] = st.owner[own[1]] = 0
    st.variant[own[2]], st.owner[own[2]] = "temple", 0
    assert magic.hand_limit(st, 0) == 3 and magic.hand_limit(st, 1) == 0
    st.magic.hands[0] = [R["fly"], R["view"]]
    st.magic.realm_deck = [k for k in st.magic.realm_deck if k not in (R["fly"], R["view"])]
    st.order = [0, 1]
    turn.begin_turn(st)
    turn.advance(st)
    assert st.phase == "realm" and st.magic.window == "discard" and st.current_player == 0
    st.apply(REALM0 + R["fly"])
    assert st.magic.hands[0] == [R["view"]] and st.magic.realm_discard == [R["fly"]]
    st.apply(DONE)
    assert len(st.magic.hands[0]) == 3 and R["view"] in st.magic.hands[0]
    assert st.magic.hands[1] == []


def test_decks_seeded_from_env_rng():
    """MAP, CARDS: spell decks are shuffled from the env seed (same seed, same decks)."""
    a = G2.new_initial_state(np.random.default_rng(4))
    b = G2.new_initial_state(np.random.default_rng(4))
    c = G2.new_initial_state(np.random.default_rng(5))
    assert a.magic.realm_deck == b.magic.realm_deck and a.magic.battle_deck == b.magic.battle_deck
    assert a.magic.realm_deck != c.magic.realm_deck or a.magic.battle_deck != c.magic.battle_deck


def realm_ready(spell, seed=0):
    g, st, a, b, d, cell = two_heroes(seed)
    a.wizard = -1
    st.magic.hands[0] = [R[spell]]
    return g, st, a, b, d, cell


def test_one_realm_spell_per_wizard_per_turn():
    """REALM SPELLS NOTES: a wizard can only cast one realm spell per turn."""
    g, st, a, b, d, cell = realm_ready("fly")
    st.magic.hands[0].append(R["animate_dead"])
    assert realm_spells.castable(st, 0, 0, "move") == [R["fly"], R["animate_dead"]]
    realm_spells.cast_realm(st, 0, 0, R["fly"], None)
    assert realm_spells.castable(st, 0, 0, "move") == []


def test_move_window_flow_fly():
    """REALM SPELLS: Fly (Move phase), cast through the move-phase window: MP +5."""
    g, st = setup_state()
    st.heroes[0].wizard = -1
    st.magic.hands[0] = [R["fly"]]
    while st.phase == "recruit":
        st.apply(DONE)
    while st.phase not in ("realm", "move"):
        st.apply(st.legal_actions()[0])
    assert st.phase == "realm" and st.magic.window == "move"
    seat = st.current_player
    h = st.heroes[st.queue[st.queue_pos][1]]
    mp = h.mp
    st.apply(REALM0 + R["fly"])
    assert h.mp == mp + 5 and st.magic.hands[seat] == []


def test_gust_of_wind_at_sea():
    """REALM SPELLS: Gust of Wind, ships move +2 (only for a hero at sea)."""
    g, st, a, b, d, cell = realm_ready("gust_of_wind")
    assert realm_spells.realm_targets(st, 0, 0, R["gust_of_wind"]) == []
    m = next(int(x) for x in range(g.n_cells) if not st.land[x])
    a.cell = m
    st.fleets.ships[m], st.fleets.owner[m] = 1, 0
    assert realm_spells.realm_targets(st, 0, 0, R["gust_of_wind"]) == [None]
    realm_spells.cast_realm(st, 0, 0, R["gust_of_wind"], None)
    base = st.game.cfg["sea"]["sea_moves"] + heroes.ability(st, a, "navigation")
    assert fleets.sea_moves_left(st, a) == base + 2


def test_teleport():
    """REALM SPELLS: Teleport moves the wizard to another friendly hero without one."""
    g, st, a, b, d, cell = realm_ready("teleport")
    assert realm_spells.realm_targets(st, 0, 0, R["teleport"]) == []
    b.seat = 0
    tg = realm_spells.realm_targets(st, 0, 0, R["teleport"])
    assert tg == [CELL0 + cell]
    realm_spells.cast_realm(st, 0, 0, R["teleport"], tg[0])
    assert magic.has_wizard(b) and not magic.has_wizard(a)


def test_dimension_door():
    """REALM SPELLS: Dimension Door moves the hero to any hex its player controls."""
    g, st, a, b, d, cell = realm_ready("dimension_door")
    c = next(int(x) for x in np.flatnonzero(st.land) if heroes.hero_at(st, int(x)) < 0
             and st.encounter[x] == 0)
    st.owner[c] = 0
    tg = realm_spells.realm_targets(st, 0, 0, R["dimension_door"])
    assert CELL0 + c in tg and CELL0 + a.cell not in tg
    realm_spells.cast_realm(st, 0, 0, R["dimension_door"], CELL0 + c)
    assert a.cell == c


def test_blizzard():
    """REALM SPELLS: Blizzard, an adjacent army can neither move nor attack."""
    g, st, a, b, d, cell = realm_ready("blizzard")
    b.mp, b.attacks_left = 3, 1
    assert realm_spells.realm_targets(st, 0, 0, R["blizzard"]) == [d]
    realm_spells.cast_realm(st, 0, 0, R["blizzard"], d)
    assert b.mp == 0 and b.attacks_left == 0


@pytest.mark.parametrize("name,razed", [("firestorm", True), ("stone_rain", True),
                                        ("earthquake", True), ("flood", False),
                                        ("pestilence", False), ("plague", False)])
def test_settlement_disasters(name, razed):
    """REALM SPELLS + NOTES: razing / decimating disasters: no income next turn, the army or
    garrison there loses 1D10 troops, a razed settlement loses its walls."""
    g, st, a, b, d, cell = realm_ready(name)
    b.alive = False
    st.terrain[cell], st.settle[cell] = TERRAINS.index("settlement"), SETTLEMENTS.index("city")
    st.owner[cell] = 1
    st.garrison[cell] = [20, 0, 0, 0]
    assert realm_spells.realm_targets(st, 0, 0, R[name]) == [d]
    realm_spells.cast_realm(st, 0, 0, R[name], d)
    assert 10 <= st.garrison[cell, 0] <= 19
    assert hexes.walls(st, cell, cell) == (0 if razed else 3)
    st.turn += 1
    assert magic.blighted(st, cell)
    gold = st.gold[1]
    turn.collect_gold(st)
    assert st.gold[1] - gold < 3 + 4  # the city earns nothing (only the capitol pays)


def test_animate_dead():
    """REALM SPELLS: Animate Dead, 1D10 warriors join."""
    g, st, a, b, d, cell = realm_ready("animate_dead")
    w = int(a.troops[0])
    realm_spells.cast_realm(st, 0, 0, R["animate_dead"], None)
    assert w + 1 <= a.troops[0] <= w + 10


def test_death_spell():
    """REALM SPELLS: Death Spell, an adjacent army loses 2D10 troops."""
    g, st, a, b, d, cell = realm_ready("death_spell")
    b.troops[:] = [10, 10, 10, 10]
    realm_spells.cast_realm(st, 0, 0, R["death_spell"], d)
    assert 20 <= b.troops.sum() <= 38


def test_research():
    """REALM SPELLS: Research, one roll of 1D5+5 on the Treasure table (6-10)."""
    g, st, a, b, d, cell = realm_ready("research")
    before = (int(a.troops[0]), magic.has_wizard(a), len(a.items or []), len(a.abilities))
    realm_spells.cast_realm(st, 0, 0, R["research"], None)
    after = (int(a.troops[0]), magic.has_wizard(a), len(a.items or []), len(a.abilities))
    assert after != before  # followers, or a magic item (the hero already has a wizard)


def test_summon_avatar():
    """REALM SPELLS: Summon Avatar, one more hero (on the capitol if it is free)."""
    g, st, a, b, d, cell = realm_ready("summon_avatar")
    n = len(st.heroes)
    b.alive = False
    a.cell = cell  # the caster steps off the capitol: it is free now
    realm_spells.cast_realm(st, 0, 0, R["summon_avatar"], None)
    assert len(st.heroes) == n + 1 and st.heroes[-1].cell == st.capitol[0]


def test_banish():
    """REALM SPELLS: Banish destroys an adjacent encounter and its treasure."""
    g, st, a, b, d, cell = realm_ready("banish")
    b.alive = False
    st.encounter[cell] = -1
    assert realm_spells.realm_targets(st, 0, 0, R["banish"]) == [d]
    realm_spells.cast_realm(st, 0, 0, R["banish"], d)
    assert st.encounter[cell] == 0 and TERRAINS[st.terrain[cell]] == "clear"


def test_whirlpool():
    """REALM SPELLS: Whirlpool sinks one ship on an adjacent water hex."""
    g, st, a, b, d, cell = realm_ready("whirlpool")
    b.alive = False
    st.land[cell] = False
    st.fleets.ships[cell], st.fleets.owner[cell] = 2, 1
    assert realm_spells.realm_targets(st, 0, 0, R["whirlpool"]) == [d]
    realm_spells.cast_realm(st, 0, 0, R["whirlpool"], d)
    assert st.fleets.ships[cell] == 1


def test_prosperity():
    """REALM SPELLS: Prosperity, 1D10 gold."""
    g, st, a, b, d, cell = realm_ready("prosperity")
    gold = int(st.gold[0])
    realm_spells.cast_realm(st, 0, 0, R["prosperity"], None)
    assert gold + 1 <= st.gold[0] <= gold + 10


def test_sanctuary():
    """REALM SPELLS: Sanctuary, the target hex cannot be attacked this turn."""
    g, st, a, b, d, cell = realm_ready("sanctuary")
    assert hexes.is_target(st, 0, cell)
    realm_spells.cast_realm(st, 0, 0, R["sanctuary"], CELL0 + cell)
    assert not hexes.is_target(st, 0, cell)


def test_stone_walls():
    """REALM SPELLS: Stone Walls, the wizard's hex has Walls +3 for the rest of the turn."""
    g, st, a, b, d, cell = realm_ready("stone_walls")
    w = hexes.walls(st, a.cell, a.cell)
    realm_spells.cast_realm(st, 0, 0, R["stone_walls"], None)
    assert hexes.walls(st, a.cell, a.cell) == w + 3


def test_curse():
    """REALM SPELLS: Curse, an opponent makes 1D10 less gold this turn."""
    g, st, a, b, d, cell = realm_ready("curse")
    assert realm_spells.realm_targets(st, 0, 0, R["curse"]) == [TSEAT0]
    realm_spells.cast_realm(st, 0, 0, R["curse"], TSEAT0)
    cur = st.magic.curse[1]
    assert 1 <= cur <= 10
    gold = int(st.gold[1])
    turn.collect_gold(st)
    assert st.gold[1] - gold == max(0, 4 - cur)


@pytest.mark.parametrize("name", ["heal", "cure_wounds"])
def test_heal_spells(name):
    """REALM SPELLS: Heal / Cure Wounds recover 1D10 troops killed in battle this turn."""
    g, st, a, b, d, cell = realm_ready(name)
    a.troops_lost = 0
    assert realm_spells.realm_targets(st, 0, 0, R[name]) == []
    a.troops_lost = 4
    w = int(a.troops[0])
    realm_spells.cast_realm(st, 0, 0, R[name], None)
    assert 1 <= a.troops[0] - w <= 4 and a.troops_lost == 4 - (a.troops[0] - w)


def test_fortell():
    """REALM SPELLS: Fortell negates an espionage result (the hook pays for it; the victim's
    choice is tested in test_magic_fortell.py)."""
    g, st, a, b, d, cell = realm_ready("fortell")
    assert realm_spells.use_fortell(st, 0) and st.magic.hands[0] == []
    assert not realm_spells.use_fortell(st, 0)


def test_view():
    """REALM SPELLS: View explores a cluster of 4 hexes anywhere."""
    g, st, a, b, d, cell = realm_ready("view")
    tg = realm_spells.realm_targets(st, 0, 0, R["view"])
    c = tg[0] - CELL0
    assert not st.explored[c]
    n = int(st.explored.sum())
    realm_spells.cast_realm(st, 0, 0, R["view"], tg[0])
    assert st.explored[c] and 1 <= st.explored.sum() - n <= 4


def test_scry_shows_and_freezes_hidden_info():
    """REALM SPELLS: Scry shows enemy realm hands and the next 5 cards; determinize keeps them."""
    g, st, a, b, d, cell = realm_ready("scry")
    st.magic.hands[1] = [R["plague"]]
    o0 = st.observation(0)
    realm_spells.cast_realm(st, 0, 0, R["scry"], None)
    o1 = st.observation(0)
    assert not np.array_equal(o0, o1)
    dd = st.determinize(0, np.random.default_rng(0))
    assert dd.magic.hands[1] == [R["plague"]] and dd.magic.realm_deck[-5:] == st.magic.realm_deck[-5:]
    assert np.array_equal(dd.observation(0), o1)


def test_disaster_window_target_substep():
    """DISASTER MAGIC PHASE: wizards cast Disaster spells after moving; the target is a sub-step."""
    g, st = setup_state()
    a = st.heroes[0]
    a.wizard = -1
    st.magic.hands[0] = [R["death_spell"]]
    b = st.heroes[1]
    d = next(d for d in range(6) if st.neighbours[a.cell][d] >= 0 and st.land[st.neighbours[a.cell][d]])
    b.cell = int(st.neighbours[a.cell][d])
    st.phase, st.queue, st.queue_pos = "move", [], 0
    st.magic.opened = {"move"}
    turn.advance(st)
    assert st.phase == "realm" and st.magic.window == "disaster" and st.current_player == 0
    st.apply(REALM0 + R["death_spell"])
    assert st.phase == "realm_target" and st.legal_actions_mask()[d]
    total = int(b.troops.sum())
    st.apply(d)
    assert b.troops.sum() < total or total == 0
    assert st.magic.hands[0] == []


def test_realm_target_cancel_keeps_card():
    """AEC sub-steps: DONE at the target step cancels the spell and keeps the card."""
    g, st = setup_state()
    a = st.heroes[0]
    a.wizard = -1
    st.magic.hands[0] = [R["sanctuary"]]
    st.phase, st.queue, st.queue_pos = "recruit", [], 0
    st.magic.opened = set()
    turn.advance(st)
    while st.phase != "realm":
        st.apply(st.legal_actions()[0])
    assert st.magic.window == "move"
    st.apply(REALM0 + R["sanctuary"])
    assert st.phase == "realm_target"
    st.apply(DONE)
    assert st.phase == "realm" and st.magic.hands[0] == [R["sanctuary"]]


# ------------------------------------------------------------------------------------------
# Magic items (TREASURE TABLE, RECOVERY PHASE), Temple
# ------------------------------------------------------------------------------------------
def test_treasure_wandering_mage_and_items():
    """TREASURE TABLE 7-10: Wandering Mage (wizard, else realm item), ability item, battle item."""
    g, st = setup_state()
    h = st.heroes[0]
    realm_spells.apply_treasure(st, 0, 7)
    assert h.wizard == -1
    realm_spells.apply_treasure(st, 0, 7)
    assert h.items[-1].kind == "realm"
    n = len(h.abilities)
    realm_spells.apply_treasure(st, 0, 8)
    assert h.items[-1].kind == "ability" and len(h.abilities) == n + 1
    realm_spells.apply_treasure(st, 0, 10)
    assert h.items[-1].kind == "battle"


def test_realm_item_cast_without_wizard_once_per_turn():
    """TREASURE 7: a realm-spell item is usable once per turn."""
    g, st = setup_state()
    h = st.heroes[0]
    h.items = [Item("realm", spell=R["prosperity"])]
    assert realm_spells.castable(st, 0, 0, "collect") == [R["prosperity"]]
    realm_spells.cast_realm(st, 0, 0, R["prosperity"], None)
    assert realm_spells.castable(st, 0, 0, "collect") == []
    st.turn += 1
    assert realm_spells.castable(st, 0, 0, "collect") == [R["prosperity"]]


def test_victor_takes_enemy_items():
    """RECOVERY PHASE: a hero who defeats an enemy hero takes all his magic items."""
    g, st, a, b, d, cell = two_heroes()
    b.items = [Item("battle", spell=1),
                  Item("ability", ability=("command", 0))]
    b.abilities = [("command", 0)]
    b.wizard = -1
    b.alive = False
    st.battle = Battle([Army(np.zeros(5, np.int64), hero=0), Army(np.zeros(5, np.int64), hero=1)], "hero", 0)
    battle_spells.end_battle(st)
    assert len(a.items) == 2 and ("command", 0) in a.abilities and not magic.has_wizard(b)


def test_observation_shows_own_hand_only():
    """Hidden information: my realm hand is in my observation, the enemy's only as a count."""
    g, st = setup_state()
    st.magic.hands[0] = [R["fly"]]
    st.magic.hands[1] = [R["plague"]]
    o = st.observation(0)
    mag = o[-observe_magic.MAGIC_VECTOR:]
    assert mag[13 + R["fly"]] > 0 and mag[13 + R["plague"]] == 0
    assert mag[152] > 0
    d = st.determinize(0, np.random.default_rng(1))
    assert d.magic.hands[0] == [R["fly"]]


def test_give_item_to_adjacent_friend_once_per_turn():
    """MOVE & EXPLORE: adjacent friendly heroes exchange magic items, each once per turn."""
    from tabletop_arena.envs.warbah.actions import GIVE_ITEM0
    g, st, a, b, d, cell = two_heroes()
    b.seat = 0
    a.items = [Item("ability", ability=("defense", 0))]
    a.abilities = [("defense", 0)]
    a.mp = 3
    st.phase, st.queue, st.queue_pos, st._mask = "move", [(0, 0), (0, 1)], 0, None
    assert st.legal_actions_mask()[GIVE_ITEM0 + d]
    st.apply(GIVE_ITEM0 + d)
    assert a.items == [] and a.abilities == [] and ("defense", 0) in b.abilities
    assert len(b.items) == 1 and a.mp == 0
    while st.queue[st.queue_pos] != (0, 1):
        st.apply(DONE)
    mask = st.legal_actions_mask()
    assert not mask[GIVE_ITEM0:GIVE_ITEM0 + 6].any()  # it already changed hands this turn


def test_teleport_item_without_wizard_not_castable():
    """REALM SPELLS: Teleport moves a wizard, so a hero without one cannot use a Teleport item."""
    g, st, a, b, d, cell = two_heroes()
    b.seat = 0
    a.items = [Item("realm", spell=R["teleport"])]
    assert realm_spells.castable(st, 0, 0, "move") == []
