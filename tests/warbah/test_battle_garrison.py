"""Scenario tests for special units in garrisons. Rulebook: RECRUIT TROOPS (garrison units are of
the type the settlement recruits), CASTLE VARIANT TYPES (1-3 Recruit Knights), MOVE & EXPLORE
(drop-off of the right type, garrison troops into the army), BATTLE (garrisons defend)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle, hexes, movement, turn
from tabletop_arena.envs.warbah.actions import (
    CALL_OFF,
    DROP_OFF,
    DROP_ONE0,
    DROP_SPECIAL,
    RECRUIT,
    RECRUIT_SP,
    TAKE_GARRISON,
    TAKE_SPECIAL,
)
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, SPECIALS, TERRAINS
from tests.warbah.test_battle_combined import arena

KNI = SPECIALS.index("knights")


def _castle(st, c, owner, knights=True):
    st.terrain[c], st.settle[c] = TERRAINS.index("settlement"), SETTLEMENTS.index("castle")
    st.variant[c] = "recruit_knights" if knights else ""
    st.owner[c] = owner


def test_recruit_knights_castle_recruits_knights_into_garrison():
    """RECRUIT TROOPS / CASTLE VARIANT TYPES: a Knights castle recruits knights (2 gold), and
    what a settlement recruits goes into its garrison; a plain castle recruits cavalry."""
    g, st, t, ring = arena()
    _castle(st, t, 0)
    st.heroes[0].cell = t  # a Hero there gets no direct knights recruit (RECRUIT_SP)
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, t)], 0, None
    st.gold[0] = 5
    mask = st.legal_actions_mask()
    assert mask[RECRUIT] and not mask[RECRUIT_SP]
    st.apply(RECRUIT)
    st.apply(RECRUIT)
    assert st.garrison_specials[t, KNI] == 2 and st.gold[0] == 1 and st.garrison[t].sum() == 0
    assert st.recruited[t] == 2
    assert not st.legal_actions_mask()[RECRUIT]  # 1 gold left: a knight costs 2
    g, st, t, ring = arena()
    _castle(st, t, 0, knights=False)
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, t)], 0, None
    st.gold[0] = 5
    st.apply(RECRUIT)
    assert st.garrison[t, 2] == 1 and st.garrison_specials[t].sum() == 0 and st.gold[0] == 4


def _hero_on_castle(knights=True):
    g, st, t, ring = arena()
    _castle(st, t, 0, knights)
    h = st.heroes[0]
    h.cell, h.mp, h.scout_moves = t, 3, 0
    h.troops[:] = [2, 0, 3, 0]
    h.specials[KNI] = 3
    st.phase, st.queue, st.queue_pos, st._mask = "move", [(0, 0)], 0, None
    return g, st, t, h


def test_move_drop_off_and_pick_up_knights_one_at_a_time():
    """MOVE & EXPLORE: a Hero drops off troops of the right type (at a Knights castle: knights,
    not cavalry) and adds garrison troops to his army, here one at a time."""
    g, st, t, h = _hero_on_castle()
    mask = st.legal_actions_mask()
    assert mask[DROP_SPECIAL] and not mask[DROP_ONE0 + 2] and not mask[TAKE_SPECIAL]
    st.apply(DROP_SPECIAL)
    assert st.garrison_specials[t, KNI] == 1 and h.specials[KNI] == 2
    assert not st.legal_actions_mask()[TAKE_SPECIAL]   # one direction per turn and hex
    st.turn += 1   # a later turn
    st._mask = None
    assert st.legal_actions_mask()[TAKE_SPECIAL]
    st.apply(TAKE_SPECIAL)
    assert st.garrison_specials[t, KNI] == 0 and h.specials[KNI] == 3


def test_move_drop_off_all_and_take_whole_garrison_with_knights():
    """MOVE & EXPLORE: the whole-garrison actions (DROP_OFF 31, TAKE_GARRISON 8) carry the
    settlement's special units too."""
    g, st, t, h = _hero_on_castle()
    st.apply(DROP_OFF)
    assert st.garrison_specials[t, KNI] == 3 and h.specials[KNI] == 0 and h.troops[2] == 3
    st.garrison[t, 0] = 2
    st.turn += 1   # a later turn (dropping off then taking back in one turn is not allowed)
    st._mask = None
    st.apply(TAKE_GARRISON)
    assert st.garrison_specials[t].sum() == 0 and st.garrison[t].sum() == 0
    assert h.specials[KNI] == 3 and h.troops[0] == 4


def test_move_knights_not_dropped_at_a_plain_castle():
    """RECRUIT TROOPS: garrison units are of the settlement's type: knights cannot be dropped at
    a castle that recruits cavalry (illegal, state unchanged)."""
    g, st, t, h = _hero_on_castle(knights=False)
    mask = st.legal_actions_mask()
    assert not mask[DROP_SPECIAL] and mask[DROP_ONE0 + 2] and mask[DROP_OFF]
    before = (st.garrison_specials.copy(), h.specials.copy())
    with pytest.raises(IllegalActionError):
        st.apply(DROP_SPECIAL)
    assert np.array_equal(st.garrison_specials, before[0]) and np.array_equal(h.specials, before[1])
    st.apply(DROP_OFF)
    assert st.garrison[t, 2] == 3 and h.specials[KNI] == 3


def test_battle_knights_garrison_blocks_and_defends():
    """MOVE & EXPLORE / BATTLE: an enemy garrison of knights blocks entry and is a target; it
    defends with the knights (Init 2, Kill 6) behind the castle walls; losses stay recorded."""
    g, st, t, ring = arena()
    _castle(st, t, 1)
    st.garrison_specials[t, KNI] = 50
    h = st.heroes[0]
    assert hexes.enterable(st, 0, h, t) == 0 and hexes.is_target(st, 0, t)
    h.troops[:] = [20, 0, 0, 0]
    # warriors: Initiative 3 (before the knights), always hit; the Hero always hits
    h.abilities = [("tactics", 0)] * 2 + [("leadership", 0)] * 10 + [("leadership", 4)] * 10
    st._mask = None
    st.apply(st.neighbours[h.cell].index(t))
    assert st.phase == "call_off"
    d = st.battle.sides[1]
    assert d.counts[battle.FIRST_SPECIAL + KNI] == 50 - (20 - 4) - 1  # 4 castle wall ranks
    st.apply(CALL_OFF)
    assert st.garrison_specials[t, KNI] == 33 and st.owner[t] == 1
    assert st.battle is None


def test_recovery_castle_kept_by_its_knights():
    """RECOVERY ("A Hero may remove an enemy control marker in the hex he occupies") with MOVE &
    EXPLORE ("Heroes cannot move into hexes that contain ... enemy garrison"): a Hero standing on
    an enemy Knights castle whose knights still stand does not take it (issue 42: before, the
    knights vanished unfought); once they are beaten, he puts down his marker."""
    g, st, t, ring = arena()
    _castle(st, t, 1)
    st.garrison_specials[t, KNI] = 4
    st.heroes[0].cell = t
    st.order = [0, 1]
    turn.recovery(st)
    assert st.owner[t] == 1 and st.garrison_specials[t, KNI] == 4
    st.garrison_specials[t, KNI] = 0  # the knights beaten in battle
    turn.recovery(st)
    assert st.owner[t] == 0 and st.garrison_specials[t].sum() == 0


def test_move_garrison_transfers_go_one_way_per_turn():
    """MOVE & EXPLORE, garrison pick-up and drop-off (designed limit, RULES.md): in one turn at one
    hex a Hero either takes from the garrison or drops into it. Without the limit a policy could
    drop and take the same warrior forever and the move phase would never end (found by a trained
    PPO policy that stalled every game at turn 1)."""
    from tabletop_arena.envs.warbah.actions import TAKE_ONE0
    g, st, t, h = _hero_on_castle()
    st.garrison[t, 2] = 2
    st._mask = None
    assert st.legal_actions_mask()[TAKE_ONE0 + 2]
    st.apply(TAKE_ONE0 + 2)                       # took a cavalry: no drop-off this turn here
    mask = st.legal_actions_mask()
    assert not mask[DROP_OFF] and not mask[DROP_SPECIAL] and not any(mask[DROP_ONE0:DROP_ONE0 + 4])
    assert mask[TAKE_ONE0 + 2]                    # more of the same direction is fine
    before = st.garrison.copy(), h.troops.copy()
    with pytest.raises(IllegalActionError):
        st.apply(DROP_SPECIAL)
    assert np.array_equal(st.garrison, before[0]) and np.array_equal(h.troops, before[1])


def test_move_garrison_cycling_policy_still_ends_the_turn():
    """A policy that always picks a garrison transfer when it can (the stalling PPO policy) still
    reaches the next turn: the lock bounds the transfers of a move phase."""
    from tabletop_arena.envs.warbah import make_game
    st = make_game(num_players=2).new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(0)
    transfers = set(movement.GARRISON_TAKES + movement.GARRISON_DROPS)
    for _ in range(400):
        if st.is_terminal() or st.turn >= 3:
            break
        legal = np.flatnonzero(st.legal_actions_mask()).tolist()
        pick = [a for a in legal if a in transfers]
        st.apply(pick[0] if pick else legal[rng.integers(len(legal))])
    assert st.turn >= 3 or st.is_terminal()
