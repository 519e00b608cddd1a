"""Scenario tests for Warbah fleets and the sea; each names the rulebook section."""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.warbah import battle, battle_flow, fleets, make_game, turn
from tabletop_arena.envs.warbah.actions import (
    CALL_OFF,
    CAPITOL_AUTO,
    CASUALTY0,
    CONTINUE,
    DONE,
    FLEET0,
    KEEP_ROLL,
    REROLL,
    SHIP0,
)
from tabletop_arena.envs.warbah.board import generate_map, neighbour_table
from tabletop_arena.envs.warbah.state import Battle
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS


class ScriptRng:
    """Returns scripted d10 values first, then falls back to a seeded Generator."""

    def __init__(self, values, seed=0):
        self.values, self.rng = list(values), np.random.default_rng(seed)

    def integers(self, lo, hi=None, size=None):
        if self.values and size is None:
            return self.values.pop(0)
        if self.values:
            out = [self.values.pop(0) if self.values else int(self.rng.integers(lo, hi))
                   for _ in range(size)]
            return np.array(out)
        return self.rng.integers(lo, hi, size=size)

    def random(self):
        return self.rng.random()

    def permutation(self, n):
        return self.rng.permutation(n)


def sea_world(n=2, seed=0):
    """Row 0-2 land, rows 3-6 water (a 7x9 map); seat 0's hero on (2, 4) and set to move."""
    g = make_game(num_players=n)
    st = g.new_initial_state(np.random.default_rng(seed))
    for _ in range(n):
        st.apply(CAPITOL_AUTO)
    st.land[:] = np.arange(g.n_cells) < 3 * g.w
    st.explored[:] = st.land
    st.terrain[:] = np.where(st.land, TERRAINS.index("clear"), -1)
    st.settle[:] = -1
    st.owner[:] = -1
    st.encounter[:] = 0
    st.variant = [""] * g.n_cells
    st.rivers.clear()
    st.garrison[:] = 0
    for h in st.heroes[1:]:
        h.alive = False
    h = st.heroes[0]
    h.cell, h.abilities, h.troops[:] = 2 * g.w + 4, [], [5, 5, 5, 5]
    h.mp, h.scout_moves = 3, 0
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0)], 0, 0, None
    return g, st, h


def dir_to(st, a, b):
    return [int(x) for x in st.neighbours[a]].index(b)


def test_recruit_ships_at_coastal_settlements():
    """RECRUIT TROOPS: settlements (except mines) next to water recruit ships (2 gold) into an
    adjacent water hex; the ship counts against the settlement's 5 recruits."""
    g, st, h = sea_world()
    c = 2 * g.w + 1
    st.settle[c], st.terrain[c], st.owner[c] = SETTLEMENTS.index("village"), 1, 0
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, c)], 0, None
    st.gold[0] = 3
    water = [d for d in range(6) if st.neighbours[c][d] >= 0 and not st.land[st.neighbours[c][d]]]
    mask = st.legal_actions_mask()
    assert water and all(mask[SHIP0 + d] for d in water)
    assert not any(mask[SHIP0 + d] for d in range(6) if d not in water)
    st.apply(SHIP0 + water[0])
    m = int(st.neighbours[c][water[0]])
    assert st.fleets.ships[m] == 1 and st.fleets.owner[m] == 0 and st.gold[0] == 1
    assert st.recruited[c] == 1
    st.settle[c] = SETTLEMENTS.index("mine")
    st.gold[0], st._mask = 10, None
    st.queue, st.queue_pos = [(0, c)], 0
    assert not st.legal_actions_mask()[SHIP0:SHIP0 + 6].any()  # mines build no ships


def test_boarding_costs_one_mp_and_capacity_ten_per_ship():
    """MOVE & EXPLORE: boarding an adjacent fleet costs 1 MP; a ship holds ten land units and
    the excess disbands (the owner chooses which, sub-steps)."""
    g, st, h = sea_world()
    m = h.cell + g.w  # a water hex below (odd-r: row 3)
    m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and not st.land[x]))
    st.fleets.ships[m], st.fleets.owner[m] = 1, 0
    d = dir_to(st, h.cell, m)
    assert st.legal_actions_mask()[d]
    st.apply(d)
    assert h.cell == m and h.mp == 2
    assert st.phase == "sea_loss" and st.current_player == 0  # 20 troops, room for 10
    for _ in range(10):
        st.apply(CASUALTY0 + 3 if st.legal_actions_mask()[CASUALTY0 + 3] else
                 st.legal_actions()[0])
    assert st.phase == "move" and h.troops.sum() == 10


def test_sea_movement_four_hexes_and_navigation():
    """MOVE & EXPLORE: a Hero at sea moves up to four hexes; Navigation adds one."""
    for nav, expect in ((0, 4), (1, 5)):
        g, st, h = sea_world()
        st.rng = ScriptRng([10] * 40)  # no sea encounters
        h.abilities = [("navigation", 0)] * nav
        h.troops[:] = [2, 2, 2, 2]
        m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and not st.land[x]))
        st.fleets.ships[m], st.fleets.owner[m] = 1, 0
        st.apply(dir_to(st, h.cell, m))
        moves, turn = 0, st.turn
        while st.turn == turn and st.phase == "move":
            mask = st.legal_actions_mask()
            ds = [d for d in range(6) if mask[d] and st.neighbours[h.cell][d] >= 0
                  and not st.land[st.neighbours[h.cell][d]]
                  and int(st.neighbours[h.cell][d]) // g.w >= h.cell // g.w]
            if not ds:
                break
            st.apply(ds[0])
            moves += 1
        assert moves == expect
        assert st.fleets.ships[h.cell] == 1 and st.fleets.ships.sum() == 1  # the fleet moved with him


def _at_sea(rolls, troops=(2, 2, 2, 2), ships=2, abil=()):
    g, st, h = sea_world()
    st.rng = ScriptRng(rolls)
    h.abilities = list(abil)
    h.troops[:] = troops
    m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and not st.land[x]))
    st.fleets.ships[m], st.fleets.owner[m] = ships, 0
    st.apply(dir_to(st, h.cell, m))
    nxt = int(next(x for x in st.neighbours[m] if x >= 0 and not st.land[x] and x > m))
    return g, st, h, nxt


def test_sea_encounter_good_winds_and_becalmed():
    """SEA ENCOUNTER TABLE 3 / 5: Good Winds move +1, Becalmed move -1."""
    g, st, h, nxt = _at_sea([3])
    st.apply(dir_to(st, h.cell, nxt))
    assert h.sea_moves == 4  # 4 - 1 + 1
    g, st, h, nxt = _at_sea([5])
    st.apply(dir_to(st, h.cell, nxt))
    assert h.sea_moves == 2


def test_sea_encounter_storm_sinks_a_ship():
    """SEA ENCOUNTER TABLE 2: Storm: no more moves; a ship sinks on 1-5 (excess troops go)."""
    g, st, h, nxt = _at_sea([2, 3], troops=(5, 5, 5, 0), ships=2)
    st.apply(dir_to(st, h.cell, nxt))
    assert st.fleets.ships[nxt] == 1 and h.sea_moves == 0
    assert st.phase == "sea_loss"
    while st.phase == "sea_loss":
        st.apply(st.legal_actions()[0])
    assert h.troops.sum() == 10
    assert st.turn == 2  # no sea moves left: the only Hero's move ended, the turn rolled over
    g, st, h, nxt = _at_sea([2, 6])
    st.apply(dir_to(st, h.cell, nxt))
    assert st.fleets.ships[nxt] == 2 and st.turn == 2  # 6: no ship lost, but the move is over


def test_sea_encounter_sea_monster_attacks_ships():
    """SEA ENCOUNTER TABLE 1: Sea Monster (Init 2, Kill 2) attacks ships; killed 4 times."""
    g, st, h, nxt = _at_sea([1], troops=(10, 0, 0, 0), ships=3)
    st.apply(dir_to(st, h.cell, nxt))
    assert st.fleets.encounter_log[-1][3] == "monster"
    while st.battle is not None:
        st.apply(CONTINUE if st.phase == "call_off" else st.legal_actions()[0])
    assert st.phase in ("move", "sea_loss")
    # the monster only ever sank ships: troops were never its casualties
    assert h.troops[0] == 10 or not h.alive or st.fleets.ships[nxt] < 1
    assert h.troops[0] <= 10


def test_sea_monster_kills_go_to_ships():
    """SEA ENCOUNTER TABLE 1 / BATTLE: "attacks ships": the monster's kills sink ships."""
    g, st, h, nxt = _at_sea([10])
    st.apply(dir_to(st, h.cell, nxt))
    me = battle.hero_army(st, 0)
    me.ships = 2
    foe = battle.neutral_army(np.zeros(5, np.int64), [2, 10, 4], 0)
    foe.ships, foe.hits_ships = 0, True
    kd = battle.attacks(g, foe, battle.segment_of(2), np.random.default_rng(0))
    assert kd == 0 and foe.ship_kills == 1
    ka, kd = battle.ship_attacks(st, me, foe, battle.segment_of(2), 0, kd)
    assert me.ships == 1 and kd == 0


def test_sea_encounter_pirates_battle_and_treasure():
    """SEA ENCOUNTER TABLE 4: Pirates (1 ship and 1D10 warriors) fight; 1 treasure if beaten."""
    g, st, h, nxt = _at_sea([4, 1], troops=(30, 0, 0, 0), ships=3)
    st.apply(dir_to(st, h.cell, nxt))
    assert st.fleets.encounter_log[-1][3] == "pirates"
    while st.battle is not None:
        st.apply(CONTINUE if st.phase == "call_off" else st.legal_actions()[0])
    if h.alive and st.battle is None:
        assert st.pending_treasure and st.pending_treasure[-1] == (0, 1)
        assert h.xp == 1


def test_sea_encounter_none():
    """SEA ENCOUNTER TABLE 6-0: no encounter."""
    g, st, h, nxt = _at_sea([7])
    st.apply(dir_to(st, h.cell, nxt))
    assert h.sea_moves == 3 and st.battle is None and st.phase == "move"


def test_luck_rerolls_the_sea_encounter_roll():
    """RARE ABILITY TABLE 4, Luck: one die roll per turn rerolled (here a storm)."""
    g, st, h, nxt = _at_sea([2, 7, 3], abil=[("luck", 0)])
    st.apply(dir_to(st, h.cell, nxt))
    assert st.phase == "luck" and st.legal_actions() == [REROLL, KEEP_ROLL]
    st.apply(REROLL)
    assert st.phase == "move" and h.sea_moves == 3 and st.fleets.ships[nxt] == 2
    nxt2 = int(next(x for x in st.neighbours[nxt] if x >= 0 and not st.land[x] and x > nxt))
    st.rng = ScriptRng([7])
    st.apply(dir_to(st, h.cell, nxt2))
    assert st.phase == "move"  # once per turn: no second offer


def test_landing_ends_the_move_and_leaves_the_fleet():
    """MOVE & EXPLORE (designed): landing from the sea ends the Hero's move; the fleet stays."""
    g, st, h, nxt = _at_sea([10] * 5)
    m = h.cell
    land = int(next(x for x in st.neighbours[m] if x >= 0 and st.land[x]))
    st.apply(dir_to(st, m, land))
    assert h.cell == land and st.fleets.ships[m] == 2 and st.fleets.owner[m] == 0
    legal = st.legal_actions()  # the Hero's move is over; only its empty fleet may still sail
    assert DONE in legal and all(a == DONE or FLEET0 <= a < FLEET0 + 24 for a in legal)


def test_unmanned_fleet_moves_without_attacking():
    """MOVE & EXPLORE: fleets without a Hero on board may move (designed: 4 hexes a turn)."""
    g, st, h, nxt = _at_sea([10] * 5)
    m = h.cell
    land = int(next(x for x in st.neighbours[m] if x >= 0 and st.land[x]))
    st.apply(dir_to(st, m, land))
    assert fleets.unmanned_fleets(st, 0) == [m]
    c = m
    for _ in range(4):
        d = int(np.flatnonzero(st.legal_actions_mask()[FLEET0:FLEET0 + 6])[0])
        st.apply(FLEET0 + d)
        c = int(st.neighbours[c][d])
        assert st.fleets.ships[c] == 2 and st.fleets.owner[c] == 0
    # four hexes used: nothing left to decide, so the turn rolled over
    assert st.turn == 2 or not st.legal_actions_mask()[FLEET0:FLEET0 + 24].any()


def test_heroes_at_sea_fight_each_other():
    """BATTLE: ships can be attacked by other ships; Heroes at sea attack Heroes at sea."""
    g, st, h, nxt = _at_sea([10] * 5)
    o = st.heroes[1]
    o.alive, o.cell, o.troops[:], o.abilities = True, nxt, [3, 0, 0, 0], []
    st.fleets.ships[nxt], st.fleets.owner[nxt] = 1, 1
    st.phase, st.queue, st.queue_pos, h.attacks_left, st._mask = "battle", [(0, 0)], 0, 1, None
    d = dir_to(st, h.cell, nxt)
    assert st.legal_actions_mask()[d]
    st.apply(d)
    while st.battle is not None:
        st.apply(CONTINUE if st.phase == "call_off" else st.legal_actions()[0])
    assert st.fleets.ships[h.cell] + st.fleets.ships[nxt] <= 3
    if not o.alive:
        assert h.cell != nxt  # no advancing onto the enemy fleet


def test_call_off_keeps_fleet():
    """BATTLE: calling off a fight with a sea monster returns to the move phase."""
    g, st, h, nxt = _at_sea([1], troops=(10, 0, 0, 0), ships=5)
    st.apply(dir_to(st, h.cell, nxt))
    while st.battle is not None:
        st.apply(CALL_OFF if st.phase == "call_off" else st.legal_actions()[0])
    assert st.phase in ("move", "sea_loss")


def test_map_islands_reproducible_and_capitols_on_main_land():
    """MAP (designed): islands of 2+ hexes are kept with fleets; candidates on the main mass."""
    found = 0
    for seed in range(60):
        land, rivers, cand, nb = generate_map(np.random.default_rng(seed), 9, 11, 8, 2)
        land2, *_ = generate_map(np.random.default_rng(seed), 9, 11, 8, 2)
        assert np.array_equal(land, land2)
        nbt = neighbour_table(9, 11)
        seen, stack = {cand[0]}, [cand[0]]
        while stack:
            c = stack.pop()
            for m in nbt[c]:
                if m >= 0 and land[m] and int(m) not in seen:
                    seen.add(int(m))
                    stack.append(int(m))
        assert all(c in seen for c in cand)  # every capitol reachable on foot
        found += land.sum() > len(seen)
    assert found > 0


def test_attacking_an_unmanned_fleet_sinks_it():
    """BATTLE / MOVE: fleets without a Hero may not attack; designed: a Hero at sea attacking
    an adjacent enemy fleet with no Hero on board sinks it (one of his attacks)."""
    g, st, h, nxt = _at_sea([10] * 5)
    st.fleets.ships[nxt], st.fleets.owner[nxt] = 3, 1
    st.phase, st.queue, st.queue_pos, h.attacks_left, st._mask = "battle", [(0, 0)], 0, 1, None
    d = dir_to(st, h.cell, nxt)
    assert st.legal_actions_mask()[d]
    st.apply(d)
    assert st.fleets.ships[nxt] == 0 and st.fleets.owner[nxt] == -1 and h.cell != nxt


def test_followers_at_sea_beyond_capacity_disband_in_recovery():
    """TREASURE 6 at sea / MOVE: a ship holds ten units; followers that do not fit disband."""
    g, st, h, nxt = _at_sea([10] * 5, troops=(2, 2, 2, 2), ships=1)
    h.troops[0] += 7  # 15 troops on one ship
    st.order = [0, 1]
    turn.recovery(st)
    assert h.troops.sum() == 10 and h.troops[0] == 4


def test_a_drowned_army_is_destroyed_with_its_summoned_monster():
    """BATTLE at sea: a Hero whose last ship sinks is lost with his army (designed), and a monster
    his wizard summoned (Summon Monster) goes down with it, so the side counts as destroyed and
    the Hero cannot stay alive at sea without ships (found by a fuzz game, 3p mass formula seed
    32847: the attacker called off, the defender's fleet had sunk, his monster kept him alive)."""
    g, st, h = sea_world()
    h.cell = 3 * g.w + 4
    st.fleets.ships[h.cell], st.fleets.owner[h.cell] = 1, 0
    me = battle.hero_army(st, 0)
    me.ships, me.monster = 0, [2, 4, 5]
    foe = battle.neutral_army(np.zeros(5, np.int64), None, 0)
    battle_flow._finish_ships(st, Battle([foe, me], "hero", h.cell))
    assert battle.destroyed(me) and me.monster is None
    assert st.fleets.ships[h.cell] == 0 and st.fleets.owner[h.cell] == -1
