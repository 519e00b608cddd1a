"""Whole-game invariants of the Peacekeepers engine, over random games of every variant.

- Cube conservation: the 100 cubes are always somewhere (bag, hands, reserve, discard, capture
  piles, board, under an eruption), each exactly once: no cubes from nowhere, none lost.
- Board sanity: no two incompatible colours share an edge after any placement a rule checked;
  no volcano touches a volcano; every Giant on the board has a Giant neighbour after hordes and
  eruptions resolve (or a Temple, in puzzles); mountains never disappear.
- Masks: the bitboard placement mask agrees with a plain per-cell recomputation of the rules.

``violations(st)`` bundles the checks that need no history, for ``python -m tests.fuzz``.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers.board import (
    BLACK,
    COMPAT,
    EMPTY,
    ERUPTED,
    MOUNTAIN,
    NEIGHBOURS,
    PLACEABLE,
    YELLOW,
)
from tests.random_play import play_checking

VARIANTS = envs.variants("peacekeepers_v0")


def all_cubes(st) -> list[int]:
    return (list(st.bag) + [c for h in st.hands for c, _ in h] + [c for c, _ in st.reserve]
            + list(st.discard) + [c for pile in st.captured for c in pile]
            + [int(c) for c in st.board_cube if c >= 0] + list(st.on_volcanoes))


def play(game, seed, check):
    """A random game from ``seed`` (actions seeded alike), ``check(st)`` asserting at every state."""
    st = game.new_initial_state(seed)
    play_checking(st, np.random.default_rng(seed), lambda s: check(s) or [], f"seed {seed}")
    return st


def cube_problems(st) -> list[str]:
    return [] if sorted(all_cubes(st)) == list(range(100)) else ["the 100 cubes are not each once"]


def neighbour_problems(st) -> list[str]:
    """Outside puzzles and mid-placement sub-steps: the colour wheel holds on the whole board,
    no volcano touches a volcano, every Giant has a Giant neighbour."""
    if st.game.puzzle or st.phase in ("troll_chase", "giant2"):
        return []  # mid-placement: the Troll's victim / the second Giant is still to come
    out = []
    b = st.board
    for cell in range(100):
        code = int(b[cell])
        if code < 0 or code == MOUNTAIN:
            continue
        colour = BLACK if code == ERUPTED else code
        for z in NEIGHBOURS[cell]:
            if not COMPAT[colour, b[z] + 1]:
                out.append(f"{cell}:{code} next to {z}:{b[z]}")
        if code == YELLOW and not any(b[z] == YELLOW for z in NEIGHBOURS[cell]):
            out.append(f"a lone Giant stayed on {cell}")
    return out


def violations(st) -> list[str]:
    """What is wrong with this position (an empty list when nothing is): the checks of this
    module that need no history (used by ``python -m tests.fuzz``)."""
    return (cube_problems(st) + neighbour_problems(st) + mask_problems(st)
            + bitboard_problems(st) + observation_problems(st) + allowance_problems(st))


def allowance_problems(st) -> list[str]:
    """End phases: a player never places more cubes than allowed (the allowance counts cubes, a
    Giant pair is two), so what is left of an allowance is never below zero. Random games reach
    a Giant pair on an allowance of one too rarely to test it here (0 of 200 seeds before issue
    42's fix); the scenarios are in test_endgame.py, and ``python -m tests.fuzz`` checks this."""
    return [f"seat {s} placed {-a} cube(s) over its end-phase allowance"
            for s, a in enumerate(st.allot) if a < 0]


@pytest.mark.parametrize("vname", list(VARIANTS))
def test_cubes_are_conserved(vname):
    game = envs.make_game("peacekeepers_v0", **VARIANTS[vname])

    def check(st):
        assert not cube_problems(st)

    for seed in range(15):
        play(game, seed, check)


@pytest.mark.parametrize("vname", [v for v in VARIANTS if not v.startswith("puzzle")])
def test_board_never_breaks_neighbour_rules(vname):
    """Outside puzzles every cube on the board was placed by a checked rule, so the whole board
    must satisfy the colour wheel at all times (removals cannot create a conflict)."""
    game = envs.make_game("peacekeepers_v0", **VARIANTS[vname])
    state = {"mountains": 0}

    def check(st):
        assert not neighbour_problems(st)
        b = st.board
        peaks = int((b == MOUNTAIN).sum())
        assert peaks >= state["mountains"], "a mountain disappeared"
        state["mountains"] = peaks

    for seed in range(15):
        state["mountains"] = 0
        play(game, seed, check)


def _reference_place_mask(st, seat):
    """A slow, direct reading of the placement rules for races, volcanoes and temples on empty
    cells (the colours whose legality is pure neighbour logic)."""
    out = {}
    # a first cube, or the field emptied by hordes / eruptions (RULES.md, restart_on_empty_board):
    # an outer edge of one's own zone, no neighbour needed
    emptied = not any(0 <= x < MOUNTAIN for x in st.board.tolist())
    area_first = not st.first_done[seat] or (emptied and st.game.rules["restart_on_empty_board"])
    counts = st.hand_counts(seat)
    edge_free = any(st.board[c] == EMPTY and st.zone[c] == seat and (c < 10 or c >= 90 or c % 10 in (0, 9))
                    for c in range(100))
    for colour in PLACEABLE:
        if colour == YELLOW or not counts[colour] or colour == 1:  # Giants/Trolls have extra rules
            continue
        cells = []
        for cell in range(100):
            if st.board[cell] != EMPTY or not st.active[cell]:
                continue
            if not all(COMPAT[colour, st.board[z] + 1] for z in NEIGHBOURS[cell]):
                continue
            if st.game.puzzle:
                cells.append(cell)
                continue
            if area_first:
                on_edge = cell < 10 or cell >= 90 or cell % 10 in (0, 9)
                if st.zone[cell] == seat and (on_edge or not edge_free):
                    cells.append(cell)
                continue
            if any(0 <= st.board[z] < MOUNTAIN for z in NEIGHBOURS[cell]):
                cells.append(cell)
        out[colour] = cells
    return out


def mask_problems(st) -> list[str]:
    """In the play phase: the placement mask equals the direct per-cell reading."""
    if st.phase != "play":
        return []
    mask = st.placement_mask(st.cur)
    return [f"placement mask of colour {colour}"
            for colour, cells in _reference_place_mask(st, st.cur).items()
            if sorted(np.flatnonzero(mask[colour]).tolist()) != cells]


@pytest.mark.parametrize("vname", ["competitive_2p", "competitive_4p", "solo_hand3", "puzzle_easy"])
def test_bitboard_mask_matches_direct_reading(vname):
    game = envs.make_game("peacekeepers_v0", **VARIANTS[vname])

    def check(st):
        assert not mask_problems(st)

    # seed 3033 (competitive_2p): hordes empty the field at step 12, so a cube starts again
    for seed in list(range(6)) + [3033]:
        play(game, seed, check)


@pytest.mark.parametrize("vname", list(VARIANTS))
def test_incremental_bitboards_match_the_board(vname):
    """The per-code bitboards and observation planes kept up to date by every board write equal a
    fresh reading of the board."""
    game = envs.make_game("peacekeepers_v0", **VARIANTS[vname])

    def check(st):
        assert not bitboard_problems(st)

    for seed in range(6):
        play(game, seed, check)


def bitboard_problems(st) -> list[str]:
    """The incrementally kept per-code bitboards and planes equal a fresh reading of the board."""
    if st._codes is None:
        return []
    out = []
    for j, bits in enumerate(st._codes):
        cells = [c for c in range(100) if (bits >> c) & 1]
        if cells != np.flatnonzero(st.board == j - 1).tolist():
            out.append(f"bitboard of code {j - 1}")
    from tabletop_arena.envs.peacekeepers.state import _PLANE_CODE
    if not np.array_equal(st._planes, np.equal(st.board, _PLANE_CODE)):
        out.append("observation code planes")
    return out


def observation_problems(st) -> list[str]:
    """Every seat's observation equals the direct reading of the observation table."""
    out = []
    for seat in range(st.game.num_seats):
        ref = _reference_observation(st, seat)
        got = st.observation(seat)
        if not np.allclose(got, ref, atol=1e-6):
            out.append(f"observation of seat {seat} at {np.flatnonzero(~np.isclose(got, ref))[:5].tolist()}")
    return out


def _reference_observation(st, seat):
    """The observation table of ``observe.py`` read straight from the state, one entry at a time."""
    g = st.game
    n = g.num_seats
    planes = np.zeros((18, 100), np.float32)
    plane_of = {-1: 11, 0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 9, 9: 8, 10: 10}
    for cell in range(100):
        planes[plane_of[int(st.board[cell])], cell] = 1.0
        if g.puzzle and not st.active[cell]:
            planes[11, cell] = 0.0
            planes[17, cell] = 1.0
        if g.competitive and st.zone[0] >= 0:
            planes[12 + (int(st.zone[cell]) - seat) % n, cell] = 1.0
    if st.pending_cell >= 0:
        planes[16, st.pending_cell] = 1.0
    v = np.zeros(84, np.float32)
    scores = st.scores()
    for rel in range(n):
        s = (seat + rel) % n
        if rel == 0 or not g.hidden_information:
            for colour in range(10):
                v[rel * 10 + colour] = min(1.0, sum(f == colour for _, f in st.hands[s]) / 10)
        v[40 + rel] = min(1.0, len(st.hands[s]) / 20)
        v[47 + rel] = len(st.captured[s]) / 100
        v[61 + rel] = st.first_done[s]
        v[65 + rel] = st.out[s]
        v[69 + rel] = min(1.0, st.allot[s] / 10)
        v[75 + rel] = np.clip(scores[s] / 100, -1, 1)
        v[80 + rel] = st.peaks[s] / 30
    v[44] = len(st.reserves[seat])
    v[45], v[46] = len(st.bag) / 100, len(st.discard) / 100
    from tabletop_arena.envs.peacekeepers.tables import PHASES
    v[51 + PHASES.index(st.phase)] = 1.0
    v[60] = st.ranges[0] / 6 if st.ranges else 0.0
    v[73], v[74] = st.end_phase == "zone", st.end_phase == "stuck"
    # a sub-step, or a Wizard's extra turn (play phase, more than one player), may be declined
    v[79] = st.pending_optional or (st.bonus_turn and st.phase == "play" and n > 1)
    return np.concatenate([planes.reshape(-1), v])


@pytest.mark.parametrize("vname", list(VARIANTS))
def test_fast_observation_matches_reference(vname):
    """The template-based observation equals a direct reading of the state, for every seat."""
    game = envs.make_game("peacekeepers_v0", **VARIANTS[vname])

    def check(st):
        assert not observation_problems(st)

    for seed in range(3):
        play(game, seed, check)
