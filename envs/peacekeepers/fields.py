"""The fields of a Peacekeepers position, declared with their types in one place (numpy + stdlib
only; nothing here runs but the class statement).

``PeacekeepersState`` (state.py) sets every field; its mixins ``MaskMixin`` (masks.py) and
``HazardMixin`` (hazards.py) read and write them. All three derive from ``PeacekeepersFields``,
so the type checker knows the shape of the position in each module, and the few methods of the
state that the mixins call are declared here too (checked against their definitions in state.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from ..core.game import State
from .tables import EndPhase, Phase

if TYPE_CHECKING:   # for the type checker only: these modules import this one
    from .game import PeacekeepersGame
    from .masks import PositionCache

#: why a cube leaves the board (``_remove``): what decides whether it is captured
RemovalCause = Literal["troll", "horde", "eruption"]


class PeacekeepersFields(State):
    """The position's fields (set in ``PeacekeepersState.__init__``; a clone copies each one)."""

    game: PeacekeepersGame
    # -- the board (int8 / int16 / bool [CELLS] arrays) ------------------------------------------
    board: np.ndarray            # board code per cell (board.py: EMPTY, a colour, MOUNTAIN...)
    board_cube: np.ndarray       # the cube on each cell, -1: none
    active: np.ndarray           # the field of play (puzzle: a corner square)
    zone: np.ndarray             # zone owner per cell (competitive), -1: none
    # -- cubes ---------------------------------------------------------------------------------
    bag: list[int]
    discard: list[int]
    captured: list[list[int]]    # per seat
    hands: list[list[tuple[int, int]]]      # per seat: (cube, face up)
    reserves: list[list[tuple[int, int]]]   # per seat: the hand-of-one Giant reserve
    on_volcanoes: list[int]      # gray cubes resting on erupted volcanoes
    # -- players -------------------------------------------------------------------------------
    out: list[bool]
    first_done: list[bool]       # has placed a first cube (competitive: on an edge of its zone)
    peaks: list[int]             # mountain peaks placed by each seat
    allot: list[int]             # cubes each seat may still place in an end phase
    penalty: list[int]           # unplaced cubes that count against the score
    phase_penalty: list[int]
    eliminated_order: list[int]
    # -- turn flow -----------------------------------------------------------------------------
    ranges: list[int]            # mountain ranges (lengths) still to place, largest first
    phase: Phase
    cur: int                     # seat to move, -1 once the game is over
    pending_cell: int            # the cell of the cube whose sub-step is running, -1: none
    pending_optional: bool
    pending_first: bool
    placed_colour: int
    extra_turn: bool
    #: the turn running is a Wizard's extra turn: the player may decline it (PASS) and is not
    #: out when it has nothing to place on it
    bonus_turn: bool
    end_phase: EndPhase | None   # None, "zone" (a zone filled) or "stuck"
    filler: int                  # the seat that filled its zone, -1: none
    stuck_streak: int
    #: a set-up that leaves the first player unable to place (non-competitive modes): that
    #: player's pass is an explicit PASS action, so no game is decided before anyone acts
    stuck_pass: bool
    solved: bool
    puzzle_holes: int
    turns_done: int              # turns begun (a Wizard's extra turn included), for final_info
    _setting_up: bool
    # -- caches (None: not computed for this position yet) -------------------------------------
    _returns: np.ndarray | None
    _cache: PositionCache | None          # masks, scores and bitboards of this position
    _codes: list[int] | None              # bitboard per board code (see _set / _code_bits)
    _planes: np.ndarray | None            # the matching observation planes
    _mlab: np.ndarray | None              # mountain components (board.obstacle_labels)
    _mountain_cache: np.ndarray | None
    _stock_counts: tuple[bytes, tuple[int, ...]] | None   # puzzle easy: counts per bag content

    if TYPE_CHECKING:
        # the methods of PeacekeepersState (state.py) that the mixins call
        def hand_counts(self, seat: int) -> list[int]: ...

        def _code_bits(self) -> list[int]: ...

        def _set(self, cell: int, code: int) -> None: ...

        def _remove(self, cell: int, by: int, cause: RemovalCause) -> None: ...
