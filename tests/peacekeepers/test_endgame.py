"""Multi-Player Competitive: refills, the two end phases, scoring; the No Points variant.

Default zones: seat 0 owns rows 1-5 (cells 0..49), seat 1 rows 6-10 (cells 50..99).
"""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import BROWN, EMPTY, GREEN, PURPLE, WHITE, YELLOW

from .helpers import cell, make_state

TOP_FULL_BUT_ONE = "\n".join(["GGGGGGGGGG"] * 4 + ["GGGGGGGGG."])


def _empty_in_zone(st, seat):
    return int(((st.zone == seat) & (st.board == EMPTY)).sum())


# ------------------------------------------------------------------------------ refill ------

def test_refill_choice_at_two_cubes():
    """Multi-Player Competitive: 'When a player gets down to 2 or less cubes in their hand they may
    draw ... to bring their hand up to 10' -- at the start of their turn they choose DRAW or PASS."""
    st = make_state("G", origin=(4, 4), hands=["GGG", "GG"])
    st.apply(A.place(GREEN, cell(4, 5)))
    st.apply(A.PASS)                         # no Elf re-roll
    assert st.cur == 1 and st.phase == "refill"
    m = st.legal_actions_mask()
    assert {int(a) for a in np.flatnonzero(m)} == {A.DRAW, A.PASS}
    bag = len(st.bag)
    draw = st.clone()
    draw.apply(A.DRAW)
    assert len(draw.hands[1]) == 10 and len(draw.bag) == bag - 8 and draw.phase == "play"
    for cube, face in draw.hands[1]:
        assert face in draw.game.faces[cube]
    st.apply(A.PASS)
    assert len(st.hands[1]) == 2 and len(st.bag) == bag and st.phase == "play"


def test_no_refill_with_three_cubes():
    """Competitive refill: only at 2 cubes or fewer; with 3 the turn starts straight in play."""
    st = make_state("G", origin=(4, 4), hands=["GGG", "GGG"])
    st.apply(A.place(GREEN, cell(4, 5)))
    st.apply(A.PASS)
    assert st.cur == 1 and st.phase == "play" and len(st.hands[1]) == 3


def test_refill_automatic_without_choice_and_short_bag():
    """Competitive refill with ``refill_choice: false``: the player draws at once; 'If there are not
    enough cubes left to complete a hand of 10 they draw whatever cubes are remaining.'"""
    st = make_state("G", origin=(4, 4), hands=["GGG", "G"], bag=5,
                    rules={"refill_choice": False})
    st.apply(A.place(GREEN, cell(4, 5)))
    st.apply(A.PASS)
    assert st.cur == 1 and st.phase == "play"
    assert len(st.hands[1]) == 6 and st.bag == []


# ------------------------------------------------------------------------ zone filled -------

def test_zone_filled_other_player_one_more_cube_then_game_ends():
    """Competitive end: 'If one player fills their zone each remaining player may place one
    additional cube. If the initial player's zone remains filled the game ends.' Scoring: captured -
    empty cells in own zone (+5 for a completed zone)."""
    st = make_state(TOP_FULL_BUT_ONE + "\nG.........", hands=["GGG", "GGG"])
    st.apply(A.place(GREEN, cell(4, 9)))
    st.apply(A.PASS)                                   # Elf: no re-roll
    assert st.end_phase == "zone" and st.filler == 0
    assert st.cur == 1 and st.phase == "play"
    assert st.legal_actions_mask()[A.PASS] == 1        # the extra cube is optional
    st.apply(A.place(GREEN, cell(5, 1)))
    st.apply(A.PASS)
    assert st.is_terminal()
    assert _empty_in_zone(st, 1) == 48
    assert st.scores() == [5.0, -48.0]
    assert list(st.returns()) == [1.0, -1.0]


def test_zone_filled_extra_cube_passed_counts_as_unplaced():
    """Competitive end + Scoring: the extra cube is one 'allowed to be placed'; declining it (PASS)
    costs one point when the game ends."""
    st = make_state(TOP_FULL_BUT_ONE + "\nG.........", hands=["GGG", "GGG"])
    st.apply(A.place(GREEN, cell(4, 9)))
    st.apply(A.PASS)
    st.apply(A.PASS)                                   # seat 1 declines its extra cube
    assert st.is_terminal()
    assert st.scores() == [5.0, -49.0 - 1.0]


def test_zone_filled_then_broken_play_resumes():
    """Competitive end: if the extra cube breaks the filled zone (a Goblin Horde), the game does not
    end; play resumes with the next player and nothing counts as unplaced."""
    st = make_state(TOP_FULL_BUT_ONE + "\nG.........", hands=["GGGG", "NGG"])
    st.apply(A.place(GREEN, cell(4, 9)))
    st.apply(A.PASS)
    assert st.end_phase == "zone"
    st.apply(A.place(BROWN, cell(5, 5)))               # hits E5, F5, G5 and F4 in seat 0's zone
    assert not st.is_terminal()
    assert st.end_phase is None and st.cur == 0 and st.phase == "play"
    assert _empty_in_zone(st, 0) > 0
    assert len(st.captured[1]) == _empty_in_zone(st, 0)
    assert st.phase_penalty == [0, 0] and st.allot == [0, 0]


def test_zone_filled_other_player_cannot_place_extra_cube():
    """Competitive end + Scoring: after seat 0 fills its zone, seat 1 is allowed one more cube but
    has none that fits (a lone Giant and two eruptions with no volcano on the board). Its
    allowed-but-unplaced pieces are that one cube ('unplaced pieces are only those that are allowed
    to be placed'), not its whole hand; the filled zone remains filled, so the game ends at once
    (the filler is not handed extra placements). Regression test: the engine once treated this
    player as 'stuck' (-3 and three more placements for seat 0)."""
    st = make_state(TOP_FULL_BUT_ONE, hands=["GGG", "YAA"], bag=[])
    st.apply(A.place(GREEN, cell(4, 9)))
    st.apply(A.PASS)
    assert st.is_terminal()
    assert st.scores() == [5.0, -50.0 - 1.0]


# --------------------------------------------------------------------------- stuck ----------

def test_stuck_player_out_others_place_up_to_that_many():
    """Competitive end: 'If one player cannot place any more cubes that player is out of the game and
    each player may place up to as many cubes as were remaining in the 'out' player's hand.' Seat 1
    is stuck with 3 cubes (a Giant and two hordes, Faerie-only board); seat 0 places 2 and stops
    (PASS): it loses 1 point, seat 1 loses 3 (Scoring)."""
    st = make_state("PPP", origin=(4, 3), hands=["PPPPPP", "YNN"], bag=[])
    st.apply(A.place(PURPLE, cell(4, 6)))
    assert st.out == [False, True] and st.end_phase == "stuck"
    assert st.cur == 0 and st.allot[0] == 3
    assert st.legal_actions_mask()[A.PASS] == 1
    st.apply(A.place(PURPLE, cell(4, 7)))
    assert st.cur == 0 and st.allot[0] == 2
    st.apply(A.place(PURPLE, cell(4, 8)))
    st.apply(A.PASS)
    assert st.is_terminal()
    empty0, empty1 = _empty_in_zone(st, 0), _empty_in_zone(st, 1)
    assert (empty0, empty1) == (50 - 6, 50)
    assert st.scores() == [-empty0 - 1.0, -empty1 - 3.0]


def test_stuck_allotment_used_up_ends_game():
    """Competitive end: when every remaining player has placed their allowed cubes, the game ends
    and nothing more is subtracted."""
    st = make_state("PPP", origin=(4, 3), hands=["PPPPPP", "YN"], bag=[])
    st.apply(A.place(PURPLE, cell(4, 6)))
    assert st.allot[0] == 2
    st.apply(A.place(PURPLE, cell(4, 7)))
    st.apply(A.place(PURPLE, cell(4, 8)))
    assert st.is_terminal()
    assert st.scores() == [-(50 - 6) + 0.0, -50.0 - 2.0]
    # seat 1's turn (stuck), then seat 0's two End Phase turns; a rulebook ending
    assert st.final_info()["ended_by"] == "rules" and st.final_info()["turns"] == 3


def _giant_cells(st) -> set[int]:
    m = st.legal_actions_mask()
    return {int(x) for x in np.flatnonzero(m[A.place(YELLOW, 0):A.place(YELLOW, 0) + 100])}


def test_end_phase_allowance_counts_cubes_a_giant_pair_is_two():
    """Multi-Player Competitive Game Play, End Phase: 'each player may place up to as many cubes
    as were remaining in the 'out' player's hand'; Scoring: 'If Mike was only able to place two
    more of his allotted 3 additional pieces he would have to subtract 1 point.' The allowance
    counts cubes: a Giant pair is two of them. Seat 1 is stuck with three cubes (a lone Giant and
    two hordes on a board of Temples); seat 0 places a Giant pair (3 -> 1 left), then stops: it
    loses one point, not two (issue 42: the pair counted as one placement)."""
    st = make_state("W", origin=(4, 4), hands=["WYYYY", "YNN"], bag=[])
    st.apply(A.place(WHITE, cell(4, 5)))
    assert st.out == [False, True] and st.end_phase == "stuck" and st.allot == [3, 0]
    st.apply(A.place(YELLOW, cell(3, 4)))
    assert st.phase == "giant2"
    st.apply(A.cell_target(cell(3, 5)))                 # the pair: two cubes of the three
    assert st.cur == 0 and st.allot == [1, 0]
    st.apply(A.PASS)                                    # the third allotted cube is not placed
    assert st.is_terminal()
    assert st.penalty == [1, 3]
    assert st.scores() == [-(50 - 4) - 1.0, -50.0 - 3.0]


def test_end_phase_allowance_of_one_cube_offers_no_giant_pair():
    """Multi-Player Competitive Game Play, End Phase: 'each player may place up to as many cubes
    as were remaining in the 'out' player's hand' -- with one cube left to place, a Giant pair
    from hand (two cubes) cannot be placed: the mask offers no Giant that would need a partner
    from hand, and a Giant beside a Giant already on the board goes alone (no partner sub-step).
    Every offered choice has a legal completion."""
    st = make_state("W", origin=(4, 4), hands=["YYW", "YNN"], bag=[], end_phase="stuck",
                    allot=[1, 0], out=[False, True])
    assert _giant_cells(st) == set()                    # the old code forced a pair here
    assert st.legal_actions_mask()[A.place(WHITE, cell(4, 5))] == 1
    st = make_state("YW", origin=(4, 3), hands=["YYW", "YNN"], bag=[], end_phase="stuck",
                    allot=[1, 0], out=[False, True])
    assert _giant_cells(st) == {cell(3, 3), cell(5, 3), cell(4, 2)}  # beside the board Giant only
    st.apply(A.place(YELLOW, cell(3, 3)))
    assert st.is_terminal()                             # no partner step: the allowance is used
    assert st.penalty == [0, 0] and sum(1 for f in st.hands[0] if f[1] == YELLOW) == 1


def test_zone_filled_one_additional_cube_is_not_a_giant_pair():
    """Multi-Player Competitive Game Play: 'If one player fills their zone each remaining player
    may place one additional cube.' One cube: a Giant pair from hand is not offered, a single
    cube is (the allowance counts cubes, as in the End Phase)."""
    st = make_state(TOP_FULL_BUT_ONE + "\nG.........", hands=["GGG", "YYG"])
    st.apply(A.place(GREEN, cell(4, 9)))
    st.apply(A.PASS)                                    # Elf: no re-roll
    assert st.end_phase == "zone" and st.cur == 1 and st.allot == [0, 1]
    assert _giant_cells(st) == set()
    st.apply(A.place(GREEN, cell(5, 1)))
    st.apply(A.PASS)
    assert st.is_terminal() and st.penalty == [0, 0]


def test_rulebook_scoring_example_four_players():
    """Competitive end / Scoring, the rulebook's example: 'Tom gets stuck and can't place any of his
    three cubes ... Mike, Sam, and Julie may continue taking turns to place up to 3 more cubes
    each'; Tom subtracts 3; 'If Mike was only able to place two more of his allotted 3 additional
    pieces he would have to subtract 1 point.' Seats: 0 Julie, 1 Tom, 2 Mike, 3 Sam (quadrants
    NW, NE, SE, SW)."""
    st = make_state("""
    ..........
    ..........
    ..........
    ..........
    ..........
    PPPPPPPPPP
    """, mode="competitive", num_players=4, hands=["PPPP", "YNN", "PPPP", "PPPP"], bag=[])
    free_row = [cell(6, c) for c in range(10)] + [cell(4, c) for c in range(10)]

    def put(seat):
        assert st.cur == seat
        for x in free_row:
            if st.legal_actions_mask()[A.place(PURPLE, x)]:
                st.apply(A.place(PURPLE, x))
                return
        raise AssertionError("no free cell")

    put(0)                                   # Julie's normal turn
    assert st.out[1] and st.allot == [3, 0, 3, 3]  # Tom is out with 3 cubes
    put(2); put(3); put(0)
    put(2); put(3); put(0)
    assert st.cur == 2
    st.apply(A.PASS)                         # Mike stops after two of his three
    put(3); put(0)
    assert st.is_terminal()
    empty = [_empty_in_zone(st, s) for s in range(4)]
    assert st.penalty == [0, 3, 1, 0]
    assert st.scores() == [-empty[0], -empty[1] - 3.0, -empty[2] - 1.0, -empty[3]]


def test_scoring_captures_and_completed_zone_bonus():
    """Scoring: 'count the number of captured cubes and subtract from that the number of empty spaces
    in their zone ... if a player completes their zone they get 5 bonus points.'"""
    st = make_state(TOP_FULL_BUT_ONE + "\nG.........", hands=["GGG", "GGG"])
    st.captured[0] = [st.bag.pop(), st.bag.pop()]
    st.captured[1] = [st.bag.pop()]
    assert st.scores() == [2.0 - 1.0, 1.0 - 49.0]
    st.apply(A.place(GREEN, cell(4, 9)))
    assert st.scores() == [2.0 + 5.0, 1.0 - 49.0]


# ----------------------------------------------------------------------- no points ----------

def test_no_points_last_player_able_to_place_wins():
    """Rules Variants - No Points: 'If a player cannot place a cube ... they are out of the game. If
    only two players are playing the game is over and the other player has won.'"""
    st = make_state("PPP", origin=(4, 3), mode="competitive_no_points", hands=["PPPP", "YNN"],
                    bag=[])
    st.apply(A.place(PURPLE, cell(4, 6)))
    assert st.is_terminal()
    assert list(st.returns()) == [1.0, -1.0]


def test_no_points_eliminated_cubes_return_to_bag_play_continues():
    """Rules Variants - No Points: with more than two players play continues with the others;
    'Players return their remaining cubes to the stock pile as they are eliminated'."""
    st = make_state("PPPPPPPPPP", origin=(5, 0), mode="competitive_no_points", num_players=4,
                    hands=["PPPP", "YNN", "PPPP", "PPPP"], bag=[])
    toms = [c for c, _ in st.hands[1]]
    st.apply(A.place(PURPLE, cell(4, 0)))
    assert st.out == [False, True, False, False]
    assert st.hands[1] == [] and sorted(st.bag) == sorted(toms)
    assert not st.is_terminal() and st.cur == 2
