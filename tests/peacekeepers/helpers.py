"""Scenario fixtures for the Peacekeepers rule tests: build a position from a small ASCII board.

Board letters (``envs/peacekeepers/board.py``)::

    .  empty            R Dwarves (red)     O Trolls (orange)   Y Giants (yellow)
    G  Elves (green)    B Wizards (blue)    P Faerie (purple)   K Volcano (black)
    W  Temple (white)   N brown block       *  erupted volcano  ^  mountain peak

Rows may be written with or without spaces (``"R . Y"`` or ``"R.Y"``); short rows and missing rows
are padded with empty cells, and ``origin=(row, col)`` shifts the drawing on the 10x10 field.
Cells are ``row * 10 + col`` (see ``cell()``).

Every cube put on the board or in a hand gets its own cube id, taken from a cube that really has
that face (so re-rolls and bag accounting stay meaningful); whatever is left is the bag unless
``bag=`` says otherwise.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers.board import CELLS, EMPTY, ERUPTED, GRAY, LETTERS, MOUNTAIN, SIZE

CODES = {".": EMPTY, "*": ERUPTED, "^": MOUNTAIN}
CODES.update({ch: i for i, ch in enumerate(LETTERS[:9])})  # R O Y G B P K W N -> 0..8
GLYPHS = {v: k for k, v in CODES.items()}
COLOUR = {ch: i for i, ch in enumerate(LETTERS)}  # hand letters, including A (gray eruption)


def cell(r: int, c: int) -> int:
    return r * SIZE + c


def parse_board(board_ascii: str, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """int8[100] board codes from an ASCII drawing (blank lines ignored)."""
    board = np.full(CELLS, EMPTY, np.int8)
    rows = [ln.replace(" ", "").replace("\t", "") for ln in board_ascii.strip("\n").splitlines()]
    rows = [ln for ln in rows if ln]
    r0, c0 = origin
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            if ch not in CODES:
                raise ValueError(f"unknown board letter {ch!r}")
            r, c = r0 + i, c0 + j
            if not (0 <= r < SIZE and 0 <= c < SIZE):
                raise ValueError(f"drawing leaves the board at row {r}, col {c}")
            board[cell(r, c)] = CODES[ch]
    return board


def board_str(board: np.ndarray) -> str:
    """The 10x10 board as 10 lines of glyphs (the inverse of ``parse_board``)."""
    return "\n".join("".join(GLYPHS[int(board[cell(r, c)])] for c in range(SIZE)) for r in range(SIZE))


def parse_zones(zones, num_players: int, mode: str) -> np.ndarray:
    """Zone owner per cell. None: 2 players top half = seat 0, bottom half = seat 1;
    4 players NW 0, NE 1, SE 2, SW 3. A string draws the owners as digits (10 x 10)."""
    if zones is None:
        if not mode.startswith("competitive"):
            return np.full(CELLS, -1, np.int8)
        r, c = np.divmod(np.arange(CELLS), SIZE)
        if num_players == 2:
            return np.where(r < 5, 0, 1).astype(np.int8)
        quad = np.where(r < 5, np.where(c < 5, 0, 1), np.where(c < 5, 3, 2))
        return quad.astype(np.int8)
    if isinstance(zones, str):
        rows = [ln.replace(" ", "") for ln in zones.strip().splitlines() if ln.strip()]
        assert len(rows) == SIZE and all(len(r) == SIZE for r in rows), "zones need 10 rows of 10"
        return np.array([int(ch) for row in rows for ch in row], np.int8)
    return np.asarray(zones, np.int8).copy()


class _CubePool:
    """Hands out distinct cube ids, preferring cubes that carry the wanted face."""

    def __init__(self, faces: np.ndarray, reserved: Iterable[int] = ()):
        self.faces = faces
        self.free = [c for c in range(len(faces)) if c not in set(reserved)]

    def take(self, colour: int) -> int:
        for i, cube in enumerate(self.free):
            if colour in self.faces[cube]:
                return self.free.pop(i)
        if not self.free:
            raise ValueError("scenario needs more than 100 cubes")
        return self.free.pop(0)


def _hand(spec, pool: _CubePool) -> list[tuple[int, int]]:
    if isinstance(spec, str):
        return [(pool.take(COLOUR[ch]), COLOUR[ch]) for ch in spec.replace(" ", "")]
    return [(int(c), int(f)) for c, f in spec]


def make_state(board_ascii: str = "", hands: Sequence | None = None, mode: str = "competitive",
               num_players: int | None = None, zones=None, rules: dict | None = None, cur: int = 0,
               first_done=True, phase: str = "play", bag=None, hand_size: int | None = None,
               puzzle_level: str = "standard", reserve: str = "", end_phase: str | None = None,
               allot: Sequence[int] | None = None, filler: int = -1,
               out: Sequence[bool] | None = None, origin: tuple[int, int] = (0, 0),
               ranges: Sequence[int] | None = None, peaks: Sequence[int] | None = None,
               seed: int = 0, game_kwargs: dict | None = None):
    """Build ``envs.make_game("peacekeepers_v0", mountains="none", ...)`` and overwrite its initial
    state with the scenario. Returns the state (``state.game`` is the game).

    hands: per seat a string of colour letters (``"RRY"``) or a list of (cube, face) pairs.
    bag: None = every cube not on the board / in a hand; an int n = the first n of those; a list
    of cube ids = exactly those.
    """
    if num_players is None:
        num_players = {"solo": 1, "puzzle": 1}.get(mode, 2)
    kwargs = dict(mode=mode, num_players=num_players, mountains="none", rules=rules or {})
    if mode == "puzzle":
        kwargs["puzzle_level"] = puzzle_level
    if hand_size is not None:
        kwargs["hand_size"] = hand_size
    kwargs.update(game_kwargs or {})
    game = envs.make_game("peacekeepers_v0", **kwargs)
    st = game.new_initial_state(np.random.default_rng(seed))
    n = game.num_seats

    board = parse_board(board_ascii, origin)
    explicit_bag = list(bag) if isinstance(bag, (list, tuple)) else None
    pool = _CubePool(game.faces, explicit_bag or ())
    board_cube = np.full(CELLS, -1, np.int16)
    on_volcanoes = []
    for x in range(CELLS):
        code = int(board[x])
        if 0 <= code <= 8:
            board_cube[x] = pool.take(code)
        elif code == ERUPTED:
            board_cube[x] = pool.take(6)            # the volcano cube underneath
            on_volcanoes.append(pool.take(GRAY))    # the gray cube resting on it
    hands = list(hands) if hands is not None else [""] * n
    hands += [""] * (n - len(hands))
    st.hands = [_hand(h, pool) for h in hands]
    st.reserve = _hand(reserve, pool)
    if explicit_bag is not None:
        st.bag = explicit_bag
    elif isinstance(bag, int):
        st.bag = pool.free[:bag]
    else:
        st.bag = list(pool.free)

    st.board = board
    st.board_cube = board_cube
    st.on_volcanoes = on_volcanoes
    if mode != "puzzle":
        st.active = np.ones(CELLS, bool)
    else:
        st.puzzle_holes = int(((board == EMPTY) & st.active).sum())
    st.zone = parse_zones(zones, n, mode) if game.competitive else np.full(CELLS, -1, np.int8)
    st.discard = []
    st.captured = [[] for _ in range(n)]
    st.first_done = list(first_done) if isinstance(first_done, (list, tuple)) else [bool(first_done)] * n
    st.out = list(out) if out is not None else [False] * n
    st.phase = phase
    st.cur = cur
    st.end_phase = end_phase
    st.filler = filler
    st.allot = list(allot) if allot is not None else [0] * n
    st.penalty = [0] * n
    st.phase_penalty = [0] * n
    st.eliminated_order = []
    st.stuck_streak = 0
    st.solved = False
    st.pending_cell = -1
    st.pending_optional = False
    st.pending_first = False
    st.extra_turn = False
    st.ranges = list(ranges or [])
    st.peaks = list(peaks) if peaks is not None else [0] * n
    st._returns = None
    st._cache = None
    st._codes = None
    st._mlab = None
    st._mountain_cache = None
    return st


def mask(state) -> np.ndarray:
    return state.legal_actions_mask()


def legal(state, action: int) -> bool:
    return bool(state.legal_actions_mask()[action])


def cube_at(state, x: int) -> int:
    return int(state.board_cube[x])


def faces_in_hand(state, seat: int) -> str:
    return "".join(sorted(LETTERS[f] for _, f in state.hands[seat]))


def all_cubes_accounted(state) -> bool:
    """Every one of the 100 cubes is in exactly one place (bag, board, hands, piles)."""
    where = list(state.bag) + list(state.discard) + [c for p in state.captured for c in p] \
        + [c for h in state.hands for c, _ in h] + [c for c, _ in state.reserve] \
        + list(state.on_volcanoes) + [int(c) for c in state.board_cube if c >= 0]
    return sorted(where) == list(range(100))
