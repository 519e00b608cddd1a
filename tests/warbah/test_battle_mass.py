"""Scenario tests for the designer's mass-battle shortcut (rulebook GAME DESIGNERS NOTES:
((1D10)/5)(# of troops)(Kill rank/10) = enemy troops killed, rounded to the nearest whole
number), offered as the option ``rules={"mass_formula": True}`` (default off)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import ConfigError
from tabletop_arena.envs.warbah import battle, make_game
from tabletop_arena.envs.warbah.state import Army, ArmyMagic
from tabletop_arena.envs.warbah.tables import NUM_SPECIALS, SPECIALS


class Dice:
    """Scripted d10 rolls (single draws only: the formula rolls one die per group)."""

    def __init__(self, values):
        self.values = list(values)
        self.calls = 0

    def integers(self, lo, hi=None, size=None):
        assert size is None, "the formula rolls one die per group"
        self.calls += 1
        return self.values.pop(0)


@pytest.mark.parametrize("d,n,k,want", [
    (7, 10, 5, 7),     # 7/5 * 10 * 5/10 = 7
    (3, 5, 3, 1),      # 0.9 -> 1
    (5, 5, 5, 3),      # 2.5 -> 3 (a half rounds up, designed)
    (1, 1, 6, 0),      # 0.12 -> 0
    (5, 1, 6, 1),      # a lone Hero: 0.6 -> 1 (hits on 5-10, as 1D10 <= 6 hits on 6 of 10)
    (10, 10, 6, 12),   # Kill 6 on a 10: more kills than attackers, as the formula says
    (10, 4, 0, 0),     # Kill rank 0 (Weakness, Fog) kills nothing
])
def test_designers_notes_formula_values(d, n, k, want):
    """GAME DESIGNERS NOTES: ((1D10)/5)(# of troops)(Kill rank/10), rounded to nearest."""
    assert battle.mass_kills(Dice([d]), n, k) == want


def test_designers_notes_option_default_off_and_checked():
    """The segment battles (one die per unit) stay the default; the option must be a bool."""
    assert make_game().cfg["mass_formula"] is False
    assert make_game(rules={"mass_formula": True}).cfg["mass_formula"] is True
    with pytest.raises(ConfigError):
        make_game(rules={"mass_formula": 2})
    side = Army(counts=np.array([1000, 0, 0, 0, 0]), monster=None, init_mod=[0] * 5, kill_mod=[0] * 5)
    kills = battle.attacks(make_game(), side, battle.segment_of(1), np.random.default_rng(0))
    assert 400 < kills < 600 and kills != 500  # one die per unit


def test_designers_notes_one_die_per_group_in_each_segment():
    """BATTLE ROUND SEQUENCE with the shortcut: each group attacking in the segment rolls one
    die for the whole group (Prowess' extra attack adds to the group); a monster is a group of
    one."""
    g = make_game(rules={"mass_formula": True})
    side = Army(counts=np.array([10, 6, 4, 2, 1]), monster=None, init_mod=[0] * 5, kill_mod=[0] * 5, extra_attacks=[1, 0, 0, 0, 0])
    dice = Dice([6, 9])  # warriors (11 attacks, Kill 5), then the Hero (Kill 6): both Init 1
    assert battle.attacks(g, side, battle.segment_of(1), dice) == (6 * 11 * 5 + 25) // 50 + 1
    assert dice.calls == 2
    dice = Dice([10])
    assert battle.attacks(g, side, battle.segment_of(3), dice) == 4  # archers: 10/5 * 6 * 3/10 = 3.6
    mon = Army(counts=np.zeros(5, np.int64), monster=[1, 3, 5], init_mod=[0] * 5, kill_mod=[0] * 5)
    assert battle.attacks(g, mon, battle.segment_of(1), Dice([9])) == 1  # 9/5 * 3/10 = 0.54 -> 1
    assert battle.attacks(g, mon, battle.segment_of(1), Dice([8])) == 0  # 0.48 -> 0


def test_designers_notes_with_spells_precision_and_blessing():
    """Battle spells under the shortcut: Precision still hits with every attack; Blessing rolls
    the missed attacks (the group minus its kills) again as one group."""
    mg = ArmyMagic(False, [], [], auto_hit=[False] * 19, blessed=True, ranged_shield=0)
    assert battle.magic_hits(mg, 0, 10, 5, Dice([2, 10]), True) == 2 + 8  # 2 kills, 8 missed: 8
    mg.auto_hit[0] = True
    assert battle.magic_hits(mg, 0, 10, 5, Dice([]), True) == 10


def test_designers_notes_special_units_and_ships():
    """The shortcut covers special-unit groups and ships (Init 2, Kill 3) too."""
    g = make_game(rules={"mass_formula": True})
    st = g.new_initial_state(np.random.default_rng(0))
    side = Army(counts=np.zeros(5 + NUM_SPECIALS, np.int64))
    side.counts[5 + SPECIALS.index("knights")] = 5  # Init 2, Kill 6
    st.rng = Dice([7])
    assert battle.special_attacks(st, side, battle.segment_of(2)) == (7 * 5 * 6 + 25) // 50
    st.rng = Dice([4])
    assert battle.hits(g, st.rng, 3, 3) == (4 * 3 * 3 + 25) // 50


def test_designers_notes_random_games_run_to_the_end():
    """Whole games with the shortcut on stay consistent (random legal play to the end)."""
    g = make_game(num_players=2, rules={"mass_formula": True,
                                        "designed": {"turn_cap_per_player": 2}})
    for seed in range(3):
        st = g.new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while not st.is_terminal():
            legal = np.flatnonzero(st.legal_actions_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
        assert abs(st.returns().sum()) < 1e-9
