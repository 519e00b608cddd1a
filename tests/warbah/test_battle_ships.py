"""Scenario tests for capturing ships (rulebook RECRUIT: control tokens on ships and fleets;
MOVE & EXPLORE: a Hero boards an adjacent Fleet, fleets without a Hero may not attack; RECOVERY:
a Hero replaces the enemy control marker in the hex he occupies). Designed reading: a Hero who
boards an enemy fleet with no Hero on board, or sails into its hex, takes it."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle, battle_flow, fleets, sea
from tabletop_arena.envs.warbah.actions import FLEET0
from tabletop_arena.envs.warbah.state import Battle
from tests.warbah.test_sea import _at_sea, dir_to, sea_world


def _water_next_to(st, c):
    return [int(x) for x in st.neighbours[c] if x >= 0 and not st.land[x]]


def test_move_board_captures_undefended_enemy_fleet():
    """MOVE & EXPLORE: a Hero may spend 1 MP to board an adjacent Fleet; an enemy fleet with no
    Hero on board cannot resist: boarding it takes it (its control token becomes his)."""
    g, st, h = sea_world()
    m = _water_next_to(st, h.cell)[0]
    st.fleets.ships[m], st.fleets.owner[m] = 1, 1
    st.fleets.moves[m] = (st.turn, 1)
    d = dir_to(st, h.cell, m)
    assert st.legal_actions_mask()[d]
    st.apply(d)
    assert h.cell == m and st.fleets.owner[m] == 0 and st.fleets.ships[m] == 1
    assert h.mp == 2 and m not in st.fleets.moves
    assert st.fleets.captures == [(st.turn, 0, 1, m, 1)]
    assert st.phase == "sea_loss"  # 20 troops on 1 ship: the owner picks what disbands


def test_move_cannot_board_a_manned_enemy_fleet():
    """MOVE & EXPLORE: no entry into a hex with another Hero: a fleet with an enemy Hero on
    board is not boarded (it must be fought at sea)."""
    g, st, h = sea_world()
    m = _water_next_to(st, h.cell)[0]
    st.fleets.ships[m], st.fleets.owner[m] = 2, 1
    o = st.heroes[1]
    o.alive, o.cell = True, m
    st._mask = None
    d = dir_to(st, h.cell, m)
    assert not st.legal_actions_mask()[d]
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(d)
    assert st.fleets.owner[m] == 1 and h.cell == before.heroes[0].cell


def test_allies_fleets_are_not_captured():
    """ALLIES: an ally's unmanned fleet is not taken (it is not an enemy)."""
    g, st, h = sea_world(n=3)
    m = _water_next_to(st, h.cell)[0]
    st.fleets.ships[m], st.fleets.owner[m] = 2, 1
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    st._mask = None
    assert not fleets.capturable(st, 0, m)
    assert not st.legal_actions_mask()[dir_to(st, h.cell, m)]
    st.diplomacy.allied[:] = False
    assert fleets.capturable(st, 0, m)


def test_sea_move_into_unmanned_enemy_fleet_captures_it():
    """MOVE at sea: sailing into the hex of an enemy fleet without a Hero takes it; the fleets
    merge under the Hero's control token (then the sea encounter roll follows as usual)."""
    g, st, h, nxt = _at_sea([10] * 5, troops=(2, 2, 2, 2), ships=1)
    st.fleets.ships[nxt], st.fleets.owner[nxt] = 3, 1
    st._mask = None
    d = dir_to(st, h.cell, nxt)
    assert st.legal_actions_mask()[d]
    st.apply(d)
    assert h.cell == nxt and st.fleets.ships[nxt] == 4 and st.fleets.owner[nxt] == 0
    assert st.fleets.captures and st.fleets.captures[-1][1:] == (0, 1, nxt, 3)


def test_battle_fleet_of_a_slain_hero_left_unmanned_then_taken():
    """BATTLE at sea: when a Hero at sea falls, his surviving ships stay as his player's fleet
    without a Hero; the victor (or any enemy Hero) may then take it by sailing in."""
    g, st, h, nxt = _at_sea([10] * 5, troops=(9, 0, 0, 0), ships=2)
    o = st.heroes[1]
    o.alive, o.cell, o.troops[:], o.abilities = True, nxt, [0, 0, 0, 0], []
    st.fleets.ships[nxt], st.fleets.owner[nxt] = 2, 1
    sides = [battle.hero_army(st, 0), battle.hero_army(st, 1)]
    sides[1].counts[4] = 0  # the enemy Hero has fallen; his ships were not sunk
    st.battle = Battle(sides, "hero", nxt, round=1)
    battle_flow.finish(st)
    assert not o.alive and st.fleets.ships[nxt] == 2 and st.fleets.owner[nxt] == 1
    assert h.cell != nxt  # the victor of a sea battle does not advance
    assert fleets.capturable(st, 0, nxt)
    st.phase, st.queue, st.queue_pos, st._mask = "move", [(0, 0)], 0, None
    h.sea_moves, h.sea_moves_turn = 3, st.turn
    st.apply(dir_to(st, h.cell, nxt))
    assert st.fleets.owner[nxt] == 0 and st.fleets.ships[nxt] == 4


def test_unmanned_fleets_do_not_capture():
    """MOVE: fleets without a Hero may move but may not attack, so they take nothing."""
    g, st, h = sea_world()
    water = [c for c in range(g.n_cells) if not st.land[c]]
    a = next(c for c in water if any(x >= 0 and not st.land[x] for x in st.neighbours[c]))
    b = next(int(x) for x in st.neighbours[a] if x >= 0 and not st.land[x])
    st.fleets.ships[a], st.fleets.owner[a] = 1, 0
    st.fleets.ships[b], st.fleets.owner[b] = 1, 1
    mask = np.zeros(g.num_actions, np.int8)
    sea.fleet_mask(st, 0, mask)
    k = fleets.unmanned_fleets(st, 0).index(a)
    assert not mask[FLEET0 + 6 * k + dir_to(st, a, b)]
