"""The fields of a Gorgasali position, declared with their types in one place (numpy + stdlib only;
nothing here runs but the class statement).

``GorgasaliState`` (state.py) sets every field. Its mixins are layered on ``GorgasaliFields``,
each on the ones it calls: ``CombatMixin`` (combat.py) on the fields, ``DuoMixin`` (duo.py) and
``MovementMixin`` (movement.py) on combat, ``MaskMixin`` (masks.py) on movement and duo, and the
state on the masks; so the type checker knows the shape of the position in every module. The few
methods of the state that the mixins call are declared here too (checked against their
definitions in state.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import State
from .board import WalkMemo
from .tables import CardKind, CardType, CrossKind, Phase

if TYPE_CHECKING:   # for the type checker only: game.py imports the state, which imports this
    from .game import GorgasaliGame

#: a banner on the map: (kind, squares, owner, the round it expires)
Banner = tuple[CardKind, tuple[int, ...], int, int]
#: the walk's context (``MovementMixin._walk_context``): cost to enter each square, the occupied
#: squares and the unopened chests (bitboards), and the memo of walk states known to finish
WalkContext = tuple[tuple[int, ...], int, int, WalkMemo]


class GorgasaliFields(State):
    """The position's fields (set in ``GorgasaliState.__init__``; a clone copies each one but the
    caches that ``state._NOT_CLONED`` names)."""

    game: GorgasaliGame
    # -- turn flow -----------------------------------------------------------------------------
    phase: Phase
    cur: int                     # the player acting now, -1 once the game is over
    turn_seat: int               # the player whose turn it is
    first: int                   # the first player (Setup: a d6)
    react_queue: tuple[int, ...]   # the players still to decide in the reaction window
    round: int
    turn_count: int              # turns begun
    zones_out: int               # zones gone inactive (0..4)
    capped: bool                 # the game ended at the round cap
    return_phase: Phase          # the phase to go back to once the cards waiting are placed
    return_phase_after_target: Phase   # ... once a sub-step's target is chosen
    last_event: str              # what the last action did (render)
    # -- players (one entry per seat) ----------------------------------------------------------
    char: list[int]              # character index (tables.CHARACTERS), -1 until chosen
    pos: list[int]               # square, -1 once out
    alive: list[bool]
    health: list[int]
    cooldown: list[int]
    held: list[int]              # Octor's copied ability, -1: none
    held_cd: list[int]
    mat: list[list[int]]         # card id per mat position (actions.MAT_LAYOUT), -1: empty
    loaded: list[list[bool]]     # per weapon slot: face up
    extra_chests: list[int]
    chest_turn: list[int]        # the turn in which each player last opened an extra chest
    frozen: list[bool]
    frozen_by: list[int]
    burned: list[int]
    skipped_last: list[bool]
    out_time: list[int]          # turn_count at elimination, -1: alive
    fallen_at: list[int]         # duo: the fallen player's banner square, -1: none
    sector: list[int]            # start sector
    # -- the map and the cards -----------------------------------------------------------------
    chests: set[int]             # squares of the unopened chests
    banners: list[Banner]
    weapon_deck: list[int]
    support_deck: list[int]
    discard: list[int]
    loot: list[tuple[int, int]]  # (seat, card) waiting for a slot, in order
    cross: set[CrossKind]        # crossing cards in use this turn
    # -- this turn (reset by state._TURN_FLAGS at every turn) ----------------------------------
    used_consumable: bool
    used_throwable: bool
    used_defensive: bool
    used_extra_chest: bool
    main_done: bool
    revived: bool
    dice: tuple[int, int]
    copies: int                  # Octor's copies this turn
    move_points: int
    extension: CardType | None   # the extension card played for the next shot
    bonus_move: bool             # the six shooter's extra move is pending
    pending_target: int          # Ebue's / Varas' target, -1: none
    swap_back: tuple[int, int, int] | None   # Kruber's swap: (the other seat, his square, theirs)
    teleport_range: int
    path: tuple[int, ...]        # the walk: the squares covered, the start first
    walk_bits: int               # the same as a bitboard
    walk_left: int               # points left
    # -- caches (None: not computed for this position yet) -------------------------------------
    _walk_cache: tuple[tuple[int, ...], int, list[int], int] | None   # (path, left, steps, end)
    _walk_ctx: WalkContext | None
    _mask: np.ndarray | None
    _clear_cache: dict[int, bool]   # line of sight to each seat, within one mask computation
    # not cloned (keyed by the identity of this state's objects):
    _chest_bits_cache: tuple[set[int], int, int] | None          # (chests, size, bitboard)
    _chest_cache: tuple[set[int], int, np.ndarray] | None        # (chests, size, plane)
    _walk_obs: tuple[WalkContext | None, int, np.ndarray] | None   # (walk, seat, observation)

    if TYPE_CHECKING:
        # the methods of GorgasaliState (state.py) that the mixins call
        def name(self, seat: int) -> str: ...

        def may_open_extra_chest(self, s: int) -> bool: ...

        def _check_over(self) -> None: ...
