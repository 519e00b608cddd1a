"""Solo Game Play and the Puzzle Solver modes."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import (
    BLACK,
    BROWN,
    COMPAT,
    EMPTY,
    GRAY,
    GREEN,
    NEIGHBOURS,
    RED,
    WHITE,
    YELLOW,
)
from tabletop_arena.envs.peacekeepers.puzzle import field_cells, generate

from .helpers import cell, make_state

# --------------------------------------------------------------------------------- solo -----


def test_solo_score_and_end_when_stuck():
    """Solo Game Play: the game ends when the player can no longer play; 'subtracting the number of
    empty spaces on the board from 100. If you have any cubes remaining in your hand ... subtract
    that number'. Temple + Dwarf on the board, hand Dwarf + lone Giant, empty bag: after the Dwarf
    the lone Giant cannot be placed: 100 - 97 empty - 1 in hand = 2."""
    st = make_state("WR", origin=(5, 5), mode="solo", hands=["RY"], hand_size=3, bag=[])
    st.apply(A.place(RED, cell(5, 7)))
    assert st.is_terminal()
    assert st.scores() == [2.0]
    assert st.returns()[0] == pytest.approx(0.02)


def test_solo_hand_refilled_after_each_placement():
    """Solo Game Play: 'replace and roll new cubes as you play cubes from your hand' (hand of 3)."""
    st = make_state("W", origin=(5, 5), mode="solo", hands=["RRR"], hand_size=3)
    bag = len(st.bag)
    st.apply(A.place(RED, cell(5, 6)))
    assert len(st.hands[0]) == 3 and len(st.bag) == bag - 1
    assert st.cur == 0 and st.phase == "play"


def test_solo_reserve_giant():
    """Solo Game Play, hand of 1: 'if you roll a yellow Giant you may place it in reserve and draw and
    roll another cube.'"""
    st = make_state("W", origin=(4, 4), mode="solo", hands=["Y"], hand_size=1)
    m = st.legal_actions_mask()
    assert m[A.RESERVE] == 1
    assert not m[A.place(YELLOW, 0):A.place(YELLOW, 0) + 100].any()   # a lone Giant cannot go
    giant = st.hands[0][0][0]
    bag = len(st.bag)
    st.apply(A.RESERVE)
    assert st.reserve == [(giant, YELLOW)]
    assert len(st.hands[0]) == 1 and len(st.bag) == bag - 1
    assert st.legal_actions_mask()[A.RESERVE] == 0          # one Giant in reserve at most


def test_solo_two_giants_must_be_played():
    """Solo Game Play, hand of 1: 'Once you have two yellow Giant cubes you must play the Giants.'
    Reserve Giant + rolled Giant: only Giant placements, and the second one is mandatory."""
    st = make_state("W", origin=(4, 4), mode="solo", hands=["Y"], reserve="Y", hand_size=1)
    m = st.legal_actions_mask()
    allowed = {int(a) for a in np.flatnonzero(m)}
    assert allowed and all(A.place(YELLOW, 0) <= a < A.place(YELLOW, 100) for a in allowed)
    st.apply(A.place(YELLOW, cell(4, 5)))
    assert st.phase == "giant2" and st.legal_actions_mask()[A.PASS] == 0
    st.apply(A.cell_target(cell(4, 6)))
    assert st.board[cell(4, 5)] == YELLOW and st.board[cell(4, 6)] == YELLOW
    assert st.reserve == [] and len(st.hands[0]) == 1


def test_solo_elf_rerolls_reserved_giant():
    """Solo Game Play, hand of 1: 'If you play a green Elf you may reroll a yellow Giant that is in
    reserve and then play it.'"""
    st = make_state("W", origin=(4, 4), mode="solo", hands=["G"], reserve="Y", hand_size=1)
    giant = st.reserve[0][0]
    st.apply(A.place(GREEN, cell(4, 5)))
    assert st.phase == "elf"
    assert st.legal_actions_mask()[A.reroll(0, YELLOW)] == 1
    st.apply(A.reroll(0, YELLOW))
    assert st.reserve == []
    assert len(st.hands[0]) == 1 and st.hands[0][0][0] == giant
    assert st.hands[0][0][1] in st.game.faces[giant]


def test_collaborative_reserve_belongs_to_its_player():
    """Solo Game Play (hand of 1), applied per player in Multi-Player Collaborative (RULES.md: 'as solo
    with several hands'): 'if you roll a yellow Giant you may place it in reserve ... Once you have two
    yellow Giant cubes you must play the Giants' -- the reserve is that player's. Seat 0 holds a
    reserved Giant; seat 1, holding one Giant with no Giant on the board, may not play a pair with
    seat 0's reserved cube."""
    st = make_state("W", origin=(4, 4), mode="collaborative", num_players=2, hands=["R", "Y"],
                    reserve="Y", hand_size=1)
    reserved = st.reserve[0][0]
    st.apply(A.place(RED, cell(4, 5)))
    assert st.cur == 1
    m = st.legal_actions_mask()
    assert not m[A.place(YELLOW, 0):A.place(YELLOW, 0) + 100].any()
    assert reserved in [c for c, _ in st.reserve]


def test_collaborative_stuck_player_passes_game_ends_when_all_stuck():
    """Multi-Player Collaborative (RULES.md): a player who cannot place passes; the game ends when
    every player in a row cannot place; the score is shared."""
    st = make_state("WR", origin=(5, 5), mode="collaborative", num_players=2, hands=["R", "Y"],
                    hand_size=1, bag=[])
    st.apply(A.place(RED, cell(5, 7)))
    assert st.is_terminal()
    assert st.scores() == [100.0 - 97 - 1] * 2


# ------------------------------------------------------------------------------- puzzle -----

def _fits(board, x, colour):
    return all(COMPAT[colour, board[z] + 1] for z in NEIGHBOURS[x])


def test_puzzle_generator_reading_order_first_fit():
    """Solo Puzzle Solver - Create Your Own Puzzle: starting at the top-left corner each drawn cube
    goes 'in the first space horizontally where it can be placed without contradicting the rules',
    wrapping row by row; skipped spaces are the puzzle's holes. Checked on the generator's output:
    every cube fits the cubes before it, and did not fit any hole between it and the previous cube
    (as the board stood when it was drawn)."""
    g = envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="easy")
    cells = field_cells(6)
    total_holes = 0
    for seed in range(15):
        st = g.new_initial_state(np.random.default_rng(seed))
        board, cubes, bag = generate(st)
        outside = np.ones(100, bool)
        outside[cells] = False
        assert (board[outside] == EMPTY).all()
        assert not (board == GRAY).any()
        assert board[0] != EMPTY                               # the first cube: top-left corner
        placed = [x for x in cells if board[x] != EMPTY]
        ids = [int(cubes[x]) for x in placed]
        assert len(set(ids)) == len(ids) and sorted(ids + list(bag)) == list(range(100))
        prev = -1
        for i, x in enumerate(cells):
            if board[x] == EMPTY:
                continue
            colour = int(board[x])
            assert colour in g.faces[int(cubes[x])]
            then = board.copy()
            then[cells[i:]] = EMPTY                            # the board when this cube was drawn
            assert _fits(then, x, colour), (seed, x)
            for h in cells[prev + 1:i]:
                assert board[h] == EMPTY
                assert not _fits(then, h, colour), (seed, h, colour)
            prev = i
        total_holes += sum(board[x] == EMPTY for x in cells)
    assert total_holes > 0


def _solve_with_stock(board, holes, stock_counts):
    b = board.copy()
    counts = dict(stock_counts)

    def lonely(x):
        return not any(b[z] in (YELLOW, WHITE) for z in NEIGHBOURS[x])

    giants_at_setup = [int(x) for x in np.flatnonzero(board == YELLOW)]

    def rec(i):
        if i == len(holes):
            # every Giant needs company at the end, the lone set-up Giants included
            return not any(lonely(int(x)) for x in list(holes) + giants_at_setup if b[x] == YELLOW)
        x = holes[i]
        for colour in list(counts):
            if counts[colour] and _fits(b, x, colour):
                b[x] = colour
                counts[colour] -= 1
                if rec(i + 1):
                    return True
                counts[colour] += 1
                b[x] = EMPTY
        return False

    return {x: int(b[x]) for x in holes} if rec(0) else None


def _standard(seed):
    g = envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="standard")
    st = g.new_initial_state(np.random.default_rng(seed))
    holes = [x for x in field_cells(6) if st.board[x] == EMPTY]
    return st, holes, Counter(f for _, f in st.hands[0])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_puzzle_standard_stock_solves_the_puzzle(seed):
    """Solo Puzzle Solver - Standard: 'start with the cubes listed, and see if you can complete the
    puzzle by placing all the cubes'. The stock has one cube per hole and its colours fill the holes
    legally (found here by an independent search: colour wheel, Giants next to a Giant or Temple);
    playing that solution through the engine completes the field, which gives return +1."""
    st, holes, stock = _standard(seed)
    assert len(holes) == st.puzzle_holes > 0
    assert sum(stock.values()) == len(holes)
    for cube, face in st.hands[0]:
        assert face in st.game.faces[cube]
    plan = _solve_with_stock(st.board, holes, stock)
    assert plan is not None
    for _ in range(3 * len(holes)):
        if st.is_terminal():
            break
        if st.phase == "elf":
            st.apply(A.PASS)                 # keep the listed stock as it is
            continue
        if st.phase == "giant2":
            nxt = [x for x in holes if st.board[x] == EMPTY and plan[x] == YELLOW
                   and st.legal_actions_mask()[A.cell_target(x)]]
            st.apply(A.cell_target(nxt[0]) if nxt else A.PASS)
            continue
        m = st.legal_actions_mask()
        todo = [x for x in holes if st.board[x] == EMPTY and m[A.place(plan[x], x)]]
        assert todo, "no hole of the plan is playable"
        st.apply(A.place(plan[todo[0]], todo[0]))
    assert st.is_terminal() and st.solved
    assert list(st.returns()) == [1.0]


def test_puzzle_standard_stock_always_solvable():
    """Solo Puzzle Solver - Standard: the listed stock must complete the puzzle. Over 16 generated
    puzzles the stock colours must fill the holes with every Giant next to a Giant or Temple (the
    engine's own placement mask demands that company, see test_lone_giant_needs_company).

    Regression test: the engine's solver once counted the always-empty cells outside the field as
    possible Giant company, so a stock could hold a Giant that fits only on the field's edge with no
    company (seed 0 then: Giants forced onto F1 and A6, F1's free neighbour G1 off the field)."""
    unsolvable = []
    for seed in range(16):
        st, holes, stock = _standard(seed)
        if _solve_with_stock(st.board, holes, stock) is None:
            unsolvable.append(seed)
    assert unsolvable == []


def test_puzzle_easy_takes_any_face_from_the_stockpile():
    """Solo Puzzle Solver - Easy: 'simply take cubes as needed from the stockpile' -- any face of any
    cube still in the bag may be placed; that cube leaves the bag."""
    g = envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="easy")
    faces = g.faces
    # two bag cubes: one with a red face, one without
    with_red = next(c for c in range(100) if RED in faces[c] and BLACK not in faces[c])
    without_red = next(c for c in range(100) if RED not in faces[c] and BLACK not in faces[c]
                       and GREEN in faces[c])
    st = make_state("......\n" * 6, mode="puzzle", puzzle_level="easy", hands=[""],
                    bag=[with_red, without_red])
    m = st.legal_actions_mask()
    assert m[A.place(RED, 0)] == 1 and m[A.place(GREEN, 0)] == 1
    assert not m[A.place(BLACK, 0):A.place(BLACK, 0) + 100].any()
    available = set(faces[with_red]) | set(faces[without_red])
    for colour in (0, 1, 3, 4, 5, 6, 7):       # every placeable colour but the Giants
        assert bool(m[A.place(colour, 14)]) == (colour in available), colour
    st.apply(A.place(RED, 0))
    assert st.board[0] == RED and int(st.board_cube[0]) == with_red
    assert st.bag == [without_red]


def test_puzzle_challenge_draws_and_rolls():
    """Solo Puzzle Solver - Challenge: 'draw cubes from the bag and roll them ... keep a hand of 2 or
    3 cubes and replace and roll new cubes as you play cubes from your hand'."""
    g = envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="challenge", hand_size=2)
    for seed in range(5):
        st = g.new_initial_state(np.random.default_rng(seed))
        assert len(st.hands[0]) == 2
        for cube, face in st.hands[0]:
            assert face in g.faces[cube] and cube not in st.bag
    st = make_state("W.....\n" + "......\n" * 5, mode="puzzle", puzzle_level="challenge",
                    hand_size=2, hands=["RR"])
    bag = len(st.bag)
    st.apply(A.place(RED, 1))
    assert st.board[1] == RED
    assert len(st.hands[0]) == 2 and len(st.bag) <= bag - 1
    new_cube, new_face = st.hands[0][-1]
    assert new_face in st.game.faces[new_cube] and new_cube not in st.bag


def test_puzzle_challenge_hazard_resolved_at_once():
    """Solo Puzzle Solver - Challenge: 'If you play with Goblin Hordes or Volcanoes, resolve those
    cubes immediately upon rolling them' -- with a horde in hand only horde targets are legal."""
    st = make_state("""
    GG....
    ......
    ......
    ......
    ......
    ......
    """, mode="puzzle", puzzle_level="challenge", hand_size=2, hands=["NR"])
    m = st.legal_actions_mask()
    allowed = {int(a) for a in np.flatnonzero(m)}
    assert allowed == {A.place(BROWN, 2), A.place(BROWN, 10), A.place(BROWN, 11)}


def test_puzzle_challenge_hazard_without_target_discarded():
    """Solo Puzzle Solver - Challenge (RULES.md): a rolled horde with nothing to attack is discarded
    and another cube drawn. Multi-player puzzle: seat 1 holds a horde while the field holds only a
    Temple and Faerie."""
    st = make_state("WP....\n" + "......\n" * 5, mode="puzzle", puzzle_level="challenge",
                    num_players=2, hand_size=2, hands=["WW", "NR"])
    horde = st.hands[1][0][0]
    st.apply(A.place(WHITE, 5))
    assert st.cur == 1 and st.phase == "play"
    assert horde in st.discard
    assert len(st.hands[1]) == 2
    assert not any(f in (BROWN, GRAY) for _, f in st.hands[1]) or not st.bag


def test_puzzle_completed_field_returns_plus_one():
    """Solo Puzzle Solver: completing the field solves the puzzle: the game ends, return +1."""
    full = "\n".join(["GGGGGG"] * 5 + ["GGGGG."])
    st = make_state(full, mode="puzzle", hands=["G"])
    assert st.puzzle_holes == 1
    st.apply(A.place(GREEN, cell(5, 5)))
    assert st.is_terminal() and st.solved
    assert list(st.returns()) == [1.0]


def test_puzzle_deal_nobody_can_place_first_player_passes():
    """Multi-Player Puzzle Solver (RULES.md, "a deal nobody can place"): seed 10 deals both players
    a Wizard with no hole that takes it. The game does not end at set-up: the first player's only
    action is PASS; after it the other player cannot place either and the puzzle ends unsolved."""
    g = envs.make_game("peacekeepers_v0", **envs.variants("peacekeepers_v0")["puzzle_challenge_2p"])
    st = g.new_initial_state(np.random.default_rng(10))
    assert not st.is_terminal() and st.phase == "play" and st.cur == 0
    assert st.legal_actions() == [A.PASS]
    st.apply(A.PASS)
    assert st.is_terminal() and not st.solved


def test_puzzle_first_player_stuck_at_setup_passes_then_play_goes_on():
    """The explicit pass at set-up changes nothing else: a first player who cannot place passes
    by PASS and the next player who can place plays on (the same as the automatic pass later)."""
    g = envs.make_game("peacekeepers_v0", **envs.variants("peacekeepers_v0")["puzzle_challenge_2p"])
    for seed in range(300):
        st = g.new_initial_state(np.random.default_rng(seed))
        if st.stuck_pass:
            st.apply(A.PASS)
            if not st.is_terminal():
                break
    else:
        pytest.fail("no deal with only the first player stuck in 300 seeds")
    assert st.cur == 1 and st.phase == "play" and not st.stuck_pass
    assert any(a < A.CELL for a in st.legal_actions())


# ------------------------------------------------ Create Your Own Puzzle: lone set-up Giants -----

def test_create_your_own_puzzle_lone_setup_giant_survives_a_far_hazard():
    """Solo Puzzle Solver - Create Your Own Puzzle: Giants may stand alone after set-up; they need a
    Giant or Temple beside them at some point while the puzzle is solved. A Goblin Horde or an
    eruption elsewhere does not make them solitary, so they stay; a Giant whose companion the
    hazard removes is a solitary Giant and leaves (Yellow: remove solitary Giants after hordes and
    eruptions)."""
    board = """
    Y...YY
    .....O
    ......
    ......
    ......
    ......
    """
    st = make_state(board, mode="puzzle", hands=["N"])
    st.apply(A.place(BROWN, cell(2, 5)))       # takes the Troll and the Giant at A6
    assert st.board[cell(0, 5)] == EMPTY and st.board[cell(1, 5)] == EMPTY
    assert st.board[cell(0, 4)] == EMPTY       # its companion was chased: solitary, removed
    assert st.board[cell(0, 0)] == YELLOW      # alone since set-up, untouched by the horde
    st = make_state("Y.....\n......\n....K.", mode="puzzle", hands=["A"])
    st.apply(A.place(GRAY, cell(2, 4)))
    assert st.board[cell(0, 0)] == YELLOW


def test_create_your_own_puzzle_lone_setup_giant_needs_company_to_solve():
    """Solo Puzzle Solver - Create Your Own Puzzle: a set-up Giant left alone 'will need a Giant or
    Temple placed next to them': a full field with such a Giant is not solved (each lone Giant
    counts against the puzzle score like an open cell); giving it a Giant solves the puzzle."""
    full = "\n".join(["YGGGGG"] + ["GGGGGG"] * 4 + ["GGGGG."])
    st = make_state(full, mode="puzzle", hands=["G"])
    assert st.scores() == [-2.0]               # one hole left, one lonely Giant
    st.apply(A.place(GREEN, cell(5, 5)))
    assert st.is_terminal() and not st.solved
    assert list(st.returns()) == [0.0]
    full = "\n".join(["Y.GGGG"] + ["GGGGGG"] * 5)
    st = make_state(full, mode="puzzle", hands=["Y"])
    st.apply(A.place(YELLOW, cell(0, 1)))
    assert st.is_terminal() and st.solved and list(st.returns()) == [1.0]
