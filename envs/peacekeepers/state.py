"""Peacekeepers of Jar-Zabonia: the pure rules engine (numpy + stdlib only).

A mutable ``PeacekeepersState`` with a cheap ``clone()``: set-up, cubes, applying actions, turn
flow and scoring here; legality in ``masks.py``, hordes and eruptions in ``hazards.py``. Section names in comments refer to the
rulebook (../shared/rulebooks/peacekeepers-of-jar-zabonia.txt); RULES.md maps each one to code and
tests and lists every designed value and interpretation.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..core.game import State, copy_generator, owned_copy, rank_returns
from . import actions as A
from .board import (
    BLACK,
    BLUE,
    BROWN,
    CELLS,
    EMPTY,
    ERUPTED,
    FULL,
    GRAY,
    GREEN,
    MOUNTAIN,
    MOUNTAIN_CANDIDATES,
    NEIGHBOURS,
    ORANGE,
    SIZE,
    WHITE,
    YELLOW,
    add_mountains,
    dilate,
)
from .fields import RemovalCause
from .hazards import HazardMixin
from .masks import MaskMixin, _active_bits, _zone_bits
from .observe import build_observation
from .puzzle import setup_puzzle
from .render import render_rgb, render_text
from .tables import ZoneKind

if TYPE_CHECKING:   # for the type checker only: game.py imports this module
    from .game import PeacekeepersGame

#: board code + 1 -> one-hot column (12 codes x 12) used to split the board into bitboards
_ONEHOT_T = np.eye(12, dtype=bool)
#: board code + 1 -> its observation plane (see observe.py); plane p shows code _PLANE_CODE[p]
_CODE_PLANE = (11, 0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 10)
_PLANE_CODE = np.empty((12, 1), np.int8)
_PLANE_CODE[list(_CODE_PLANE), 0] = np.arange(-1, 11)


@functools.lru_cache(maxsize=64)
def _zone_layout(zone_kind: ZoneKind, k: int, chooser: int, n: int) -> np.ndarray:
    """The seat owning each cell once ``chooser`` picks zone choice ``k`` (read-only)."""
    r, c = np.divmod(np.arange(CELLS), SIZE)
    half = SIZE // 2
    quad = np.where(r < half, np.where(c < half, 0, 1), np.where(c < half, 3, 2))  # NW NE SE SW
    other = (chooser + 1) % n
    zone = np.full(CELLS, -1, np.int8)
    if zone_kind == "halves":
        side = [r < half, r >= half, c < half, c >= half][k]
        zone[:] = np.where(side, chooser, other)
    elif zone_kind == "quadrants2":
        mine = (0, 2) if k == 0 else (1, 3)
        zone[:] = np.where(np.isin(quad, mine), chooser, other)
    else:
        for step in range(n):
            zone[quad == (k + step) % 4] = (chooser + step) % n
    zone.flags.writeable = False
    return zone


class PeacekeepersState(MaskMixin, HazardMixin, State):
    """One position of a Peacekeepers game (its fields are declared in fields.py)."""

    def __init__(self, game: PeacekeepersGame, rng: np.random.Generator, _blank: bool = False):
        self.game = game
        self.rng = rng
        if _blank:
            return
        n = game.num_seats
        self.history = []
        self.seed = None
        self.board = np.full(CELLS, EMPTY, np.int8)
        self.board_cube = np.full(CELLS, -1, np.int16)
        self.active = np.ones(CELLS, bool)      # the field of play (puzzle: a corner square)
        self.zone = np.full(CELLS, -1, np.int8)  # zone owner per cell (competitive)
        self.bag = list(range(100))
        self.discard = []
        self.captured = [[] for _ in range(n)]
        self.hands = [[] for _ in range(n)]      # (cube, face up)
        self.reserves = [[] for _ in range(n)]   # hand-of-one Giant reserve
        self.out = [False] * n
        self.first_done = [not game.competitive] * n
        self.peaks = [0] * n
        self.ranges = []
        self.phase = "mountain"
        self.cur = 0
        self.pending_cell = -1      # the cell of the cube whose sub-step is running
        self.pending_optional = False
        self.extra_turn = False
        self.bonus_turn = False     # a Wizard's extra turn (fields.py)
        self.end_phase = None       # None | "zone" (a zone filled) | "stuck"
        self.filler = -1
        self.allot = [0] * n
        self.penalty = [0] * n      # unplaced cubes that count against the score
        self.phase_penalty = [0] * n
        self.eliminated_order = []
        self.stuck_streak = 0
        self.solved = False
        self.puzzle_holes = 0
        self.on_volcanoes = []      # gray cubes resting on erupted volcanoes
        self.pending_first = False
        self.placed_colour = -1
        self._returns = None
        self._cache = None
        self._codes = None          # bitboard per board code (see _set / _code_bits)
        self._planes = None         # the matching observation planes
        self._mlab = None           # mountain components (board.obstacle_labels), kept up to date
        self._mountain_cache = None
        self._stock_counts = None   # puzzle easy: the stock's counts per bag content
        self.stuck_pass = False     # the first player's set-up pass (fields.py)
        self.turns_done = 0         # turns begun (a Wizard's extra turn included), for final_info
        self._setting_up = True
        self._setup()
        self._setting_up = False

    @property
    def reserve(self) -> list[tuple[int, int]]:
        """Every reserved Giant (a flat view; each player's own list is ``reserves[seat]``)."""
        return [x for r in self.reserves for x in r]

    @reserve.setter
    def reserve(self, cubes: Iterable[tuple[int, int]]) -> None:
        self.reserves[max(self.cur, 0)] = list(cubes)

    # ------------------------------------------------------------------ cloning -------------
    def clone(self) -> "PeacekeepersState":
        """A state that owns copies of every field (the memo in ``_cache`` included: its entries
        are this position's, so the copy starts with them, and from then on each state writes
        only its own)."""
        s = PeacekeepersState(self.game, copy_generator(self.rng), _blank=True)
        d = s.__dict__
        for k, v in self.__dict__.items():
            if k not in ("game", "rng"):
                d[k] = owned_copy(v)
        return s

    def _determinize(self, observer: int, rng: np.random.Generator) -> "PeacekeepersState":
        """Resample what ``observer`` cannot see: future draws, and with hidden hands the other
        players' cubes (same hand sizes, drawn from the cubes the observer cannot account for)."""
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        s._cache = None
        if self.game.hidden_information:
            others = [seat for seat in range(self.game.num_seats) if seat != observer]
            pool = list(s.bag) + [c for seat in others for c, _ in s.hands[seat]]
            order = [pool[i] for i in s.rng.permutation(len(pool))]
            partner = None
            if self.phase == "giant2" and self.cur != observer and not self.reserves[self.cur]:
                # what everyone sees: a player in the middle of a Giant pair holds a cube showing
                # Yellow for the partner (Giants); the sample deals one such cube to that hand
                faces = self.game.face_sets
                partner = order.pop(next(i for i, c in enumerate(order) if YELLOW in faces[c]))
            for seat in others:
                k = len(s.hands[seat]) - (seat == self.cur and partner is not None)
                hand = [(c, int(self.game.faces[c][s.rng.integers(6)])) for c in order[:k]]
                if seat == self.cur and partner is not None:   # anywhere in the hand
                    hand.insert(int(s.rng.integers(k + 1)), (partner, YELLOW))
                s.hands[seat] = hand
                order = order[k:]
            s.bag = order
            s._cache = None
        return s

    # ------------------------------------------------------------------ set-up --------------
    def _setup(self):
        g = self.game
        if g.puzzle:
            setup_puzzle(self)
            return
        if g.mountains != "none":
            # Setup: toss the 7 tokens; ranges with those peak counts are placed, largest first
            self.ranges = sorted((int(t[self.rng.integers(2)]) for t in g.tokens), reverse=True)
        self._skip_impossible_ranges()
        if g.mountains == "random":
            while self.ranges:
                legal = np.flatnonzero(self._mountain_mask())
                self._place_mountain(int(legal[self.rng.integers(len(legal))]), seat=None)
                self._skip_impossible_ranges()
        if self.ranges:
            self.phase, self.cur = "mountain", 0
        else:
            self._after_mountains()

    def _after_mountains(self):
        g = self.game
        if g.competitive:
            # Setup: each player draws and rolls 10 cubes, no re-rolls
            for s in range(g.num_seats):
                self._draw(s, g.hand_cap)
            low = min(self.peaks)
            tied = [s for s in range(g.num_seats) if self.peaks[s] == low]
            self.cur = tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]
            self.phase = "zone"
        else:
            self.cur = 0
            self.phase = "start_temple"

    def _deal_non_competitive(self):
        """Solo/Collaborative set-up: each player draws and rolls; gray and brown are re-rolled."""
        for s in range(self.game.num_seats):
            self._draw(s, self.game.hand_size, reroll=(GRAY, BROWN))

    # ------------------------------------------------------------------ cubes ---------------
    def _roll(self, cube: int, reroll: tuple[int, ...] = ()) -> int:
        g = self.game
        faces = g.face_tuples[cube]
        banned = g.always_reroll.union(reroll) if reroll else g.always_reroll
        if banned and g.face_sets[cube] <= banned:
            return -1   # every side is re-rolled: the cube cannot be used
        while True:
            f = faces[self.rng.integers(6)]
            if f not in banned:
                return f

    def _draw(self, seat: int, count: int, reroll: tuple[int, ...] = ()) -> None:
        """Draw ``count`` cubes from the bag and roll them into ``seat``'s hand."""
        hand = self.hands[seat]
        for _ in range(count):
            while self.bag:
                cube = self.bag.pop(int(self.rng.integers(len(self.bag))))
                face = self._roll(cube, reroll)
                if face >= 0:
                    hand.append((cube, face))
                    break
                self.discard.append(cube)  # a cube with only banned faces cannot be used
            else:
                return

    def _take_from_hand(self, seat: int, colour: int) -> int:
        hand = self.hands[seat]
        for i, (cube, face) in enumerate(hand):
            if face == colour:
                del hand[i]
                return cube
        if self.reserves[seat] and colour == YELLOW:
            return self.reserves[seat].pop()[0]
        if self._easy_stock():
            for i, cube in enumerate(self.bag):
                if colour in self.game.face_sets[cube]:
                    return self.bag.pop(i)
        raise AssertionError("cube not in hand (mask and apply disagree)")

    def _easy_stock(self) -> bool:
        return self.game.puzzle and self.game.puzzle_level == "easy"

    def hand_counts(self, seat: int) -> list[int]:
        """Number of cubes per face colour the seat may play (reserve and easy stock included)."""
        if self._easy_stock():
            # the whole bag is the stock: counted once per bag content (a step asks several times)
            key = bytes(self.bag)
            c = self._stock_counts
            if c is None or c[0] != key:
                counts = self.game.face_present[self.bag].sum(axis=0)
                if not self.game.rules["puzzle_hazards"]:
                    counts[[BLACK, WHITE, BROWN, GRAY]] = 0
                c = self._stock_counts = (key, tuple(counts.tolist()))
            return list(c[1])
        counts = [0] * 10
        for _, f in self.hands[seat]:
            counts[f] += 1
        if self.reserves[seat]:
            counts[YELLOW] += len(self.reserves[seat])
        return counts

    def _remove(self, cell: int, by: int, cause: RemovalCause) -> None:
        """Take the cube off ``cell``: captured, discarded or back to the bag (see RULES.md)."""
        cube = int(self.board_cube[cell])
        self._set(cell, EMPTY)
        self.board_cube[cell] = -1
        if cube < 0:
            return
        g = self.game
        if g.competitive:
            owner = int(self.zone[cell])
            capture = cause in ("troll", "horde") or (cause == "eruption" and g.rules["eruption_captures"])
            if capture and owner != by and owner >= 0:
                self.captured[by].append(cube)
            else:
                self.discard.append(cube)
        elif cause == "horde" and g.rules["solo_horde_to_bag"]:
            self.bag.append(cube)
        else:
            self.discard.append(cube)

    def _put(self, cell: int, colour: int, cube: int) -> None:
        self._set(cell, colour)
        self.board_cube[cell] = cube

    def _set(self, cell: int, code: int) -> None:
        """Write one board cell, keeping the per-code bitboards in step (every engine write goes
        through here; code that writes ``board`` directly must reset ``_codes`` to None)."""
        codes = self._codes
        if codes is not None:
            bit = 1 << cell
            old = int(self.board[cell])
            codes[old + 1] &= ~bit
            codes[code + 1] |= bit
            planes = self._planes
            assert planes is not None   # built together with the codes (_code_bits)
            planes[_CODE_PLANE[old + 1], cell] = 0.0
            planes[_CODE_PLANE[code + 1], cell] = 1.0
        self.board[cell] = code
        self._cache = None

    def _code_bits(self) -> list[int]:
        """``codes[j]``: the cells holding board code ``j - 1`` (rebuilt only after bulk writes)."""
        codes = self._codes
        if codes is None:
            packed = np.packbits(_ONEHOT_T[:, self.board + 1], axis=1, bitorder="little").tobytes()
            k = (CELLS + 7) // 8
            codes = self._codes = [int.from_bytes(packed[j * k:(j + 1) * k], "little") for j in range(12)]
            self._planes = np.equal(self.board, _PLANE_CODE).astype(np.float32)
        return codes

    def code_planes(self) -> np.ndarray:
        """float32 (12, cells): observation planes 0..11, one per board code (kept up to date)."""
        self._code_bits()
        planes = self._planes
        assert planes is not None   # built together with the codes
        return planes

    # ------------------------------------------------------------------ apply ---------------
    def _apply(self, action: int) -> None:
        kind, *args = A.decode(action)
        ph = self.phase
        if ph == "mountain":
            self._place_mountain(action - A.MOUNTAIN, seat=self.cur)
            self._skip_impossible_ranges()
            if self.ranges:
                self.cur = (self.cur + 1) % self.game.num_seats  # players alternate
            else:
                self._after_mountains()
        elif ph == "zone":
            self._choose_zone(args[0])
        elif ph == "start_temple":
            # Setup (Solo and Collaborative): a cube with a white side starts the field
            whites = [c for c in self.bag if WHITE in self.game.face_sets[c]]
            cube = whites[int(self.rng.integers(len(whites)))]
            self.bag.remove(cube)
            self._put(args[0], WHITE, cube)
            self._deal_non_competitive()
            self._begin_turn(0)
        elif ph == "refill":
            if kind == "draw":
                self._draw(self.cur, self.game.hand_cap - len(self.hands[self.cur]))
            self._start_play()
        elif ph == "play":
            if kind == "reserve":
                self.reserves[self.cur].append(self.hands[self.cur].pop())
                self._draw(self.cur, 1)
                self._start_play()
            elif kind == "pass" and self.stuck_pass:
                self.stuck_pass = False
                self._stuck()
            elif kind == "pass" and self.bonus_turn:
                # Blue: the Wizard's extra turn is declined; play passes on (an end-phase
                # allotment is kept for the player's next turn)
                self.bonus_turn = False
                self._next_turn()
            elif kind == "pass":
                self.phase_penalty[self.cur] += self.allot[self.cur]
                self.allot[self.cur] = 0
                self._next_turn()
            else:
                self._place(*args)
        elif ph == "giant2":
            if kind == "cell":
                cube = self._take_from_hand(self.cur, YELLOW)
                self._put(args[0], YELLOW, cube)
            self._finish_placement(cubes=2 if kind == "cell" else 1)
        elif ph == "troll_chase":
            if kind == "cell":
                self._remove(args[0], self.cur, "troll")
                self._cache = None
            self._finish_placement()
        elif ph == "elf":
            if kind == "reroll":
                self._reroll(*args)
            self._finish_placement()

    def _place_mountain(self, idx: int, seat: int | None) -> None:
        length = self.ranges.pop(0)
        cells = MOUNTAIN_CANDIDATES[length][idx]
        assert cells is not None, "a range off the board is never in the mask"
        for cell in cells:
            self._set(cell, MOUNTAIN)
        if self._mlab is not None:
            add_mountains(self._mlab, cells)
        if seat is not None:
            self.peaks[seat] += length
        self._cache = None
        self._mountain_cache = None

    def _skip_impossible_ranges(self) -> None:
        """A range with no legal spot left is set aside (never happens on an open board)."""
        while self.ranges and not self._mountain_mask().any():
            self.ranges.pop(0)
            self._mountain_cache = None

    def _choose_zone(self, k: int) -> None:
        """Multi-Player Competitive: the player with the fewest peaks picks a side or quadrant."""
        self.zone[:] = _zone_layout(self.game.zone_kind, k, self.cur, self.game.num_seats)
        self._cache = None
        self._begin_turn(self.cur)

    def _place(self, colour: int, cell: int) -> None:
        seat = self.cur
        cube = self._take_from_hand(seat, colour)
        self.extra_turn = False
        self.bonus_turn = False
        self.pending_cell = cell
        self.placed_colour = colour
        if colour in (BROWN, GRAY):
            # solitary Giants are removed after the hazard; Giants already alone before it
            # (lone puzzle set-up Giants still waiting for company) are not its doing
            alone_before = self._lonely_giants()
            if colour == BROWN:
                self._horde(cell, seat)
                self.discard.append(cube)
            else:
                # Resolving a Volcanic Eruption: the gray cube sits on the erupting volcano
                self._set(cell, ERUPTED)
                self.on_volcanoes.append(cube)
                self._eruption(cell, seat)
            self._remove_solitary_giants(spared=alone_before)
            return self._finish_placement()
        replaced = self.board[cell] != EMPTY
        self.pending_first = not self.first_done[seat]
        if replaced:  # a Troll replaces the cube on the cell
            self._remove(cell, seat, "troll")
        self._put(cell, colour, cube)
        self.first_done[seat] = True
        if colour == YELLOW:
            partners = self._giant_partner_cells(cell)
            has_company = any(self.board[z] == YELLOW for z in NEIGHBOURS[cell] if z != cell)
            if self.game.puzzle:
                has_company = has_company or any(self.board[z] == WHITE for z in NEIGHBOURS[cell])
            if self.game.rules["giant_pairs_only"]:
                has_company = False
            # End Phase: a partner from hand is a second cube of the allowance
            may_pair = self.end_phase is None or self.allot[seat] >= 2
            if self.hand_counts(seat)[YELLOW] and partners and may_pair:
                self.pending_optional = has_company
                self.phase = "giant2"
                return
        elif colour == ORANGE and not replaced and not self.game.puzzle:
            targets, legal_now = self._troll_chase_targets(cell)
            if targets:
                self.phase = "troll_chase"
                return
        elif colour == GREEN:
            if self._reroll_targets():
                self.phase = "elf"
                return
        elif colour == BLUE:
            self.extra_turn = True
        self._finish_placement()

    def _reroll(self, rel: int, colour: int) -> None:
        """Elves: re-roll one cube showing ``colour`` in the hand ``rel`` seats after the mover."""
        seat = (self.cur + rel) % self.game.num_seats
        hand = self.hands[seat]
        if rel and self.game.hidden_information:
            cube = hand[colour][0]
            hand[colour] = (cube, self._roll(cube))
            return
        for i, (cube, face) in enumerate(hand):
            if face == colour:
                hand[i] = (cube, self._roll(cube))
                return
        if rel == 0 and self.reserves[seat] and colour == YELLOW:
            cube, _ = self.reserves[seat].pop()
            hand.append((cube, self._roll(cube)))  # the re-rolled reserve Giant is played next

    # ------------------------------------------------------------------ turn flow -----------
    def _finish_placement(self, cubes: int = 1) -> None:
        """After a placement of ``cubes`` cubes (a Giant pair is two)."""
        g = self.game
        seat = self.cur
        self.pending_cell = -1
        self.pending_optional = False
        if not g.competitive:
            if not g.puzzle or g.puzzle_level == "challenge":
                self._draw(seat, g.hand_size - len(self.hands[seat]))
            if g.puzzle and not (self.board[self.active] == EMPTY).any():
                # the field is full: solved unless a set-up Giant never got its company
                self.solved = not self._lonely_giants()
                return self._game_over()
        if self.end_phase is not None:
            self.allot[seat] -= cubes   # the allowance counts cubes, not placements
        if g.points and self.end_phase is None:
            for s in range(g.num_seats):
                if not self.out[s] and self._zone_full(s):
                    # one player filled their zone: every other player places one more cube
                    # (this ends normal play at once, a Wizard's extra turn included)
                    self.end_phase, self.filler = "zone", s
                    self.allot = [0 if (t == s or self.out[t]) else 1 for t in range(g.num_seats)]
                    self.phase_penalty = [0] * g.num_seats
                    break
        if self.extra_turn and self.end_phase != "zone" and (self.end_phase is None or self.allot[seat] > 0):
            self.extra_turn = False  # Blue Wizards: the player may take another turn
            return self._begin_turn(seat, bonus=True)
        self.extra_turn = False
        self._next_turn()

    def _zone_full(self, seat: int) -> bool:
        zones = _zone_bits(self.zone.tobytes(), self.game.num_seats)
        return not (zones[seat] & self._code_bits()[EMPTY + 1])

    def _next_turn(self) -> None:
        g = self.game
        n = g.num_seats
        for step in range(1, n + 1):
            s = (self.cur + step) % n
            if self.out[s]:
                continue
            if self.end_phase is not None and self.allot[s] <= 0:
                continue
            return self._begin_turn(s)
        # nobody left to move in this phase
        if self.end_phase == "zone":
            if self._zone_full(self.filler):
                return self._game_over()
            self.end_phase, self.filler = None, -1   # the zone was broken: play resumes
            self.allot = [0] * n
            self.phase_penalty = [0] * n
            for step in range(1, n + 1):
                s = (self.cur + step) % n
                if not self.out[s]:
                    return self._begin_turn(s)
        return self._game_over()

    def _begin_turn(self, seat: int, bonus: bool = False) -> None:
        g = self.game
        self.cur = seat
        self.phase = "play"
        self.bonus_turn = bonus
        self.turns_done += 1
        if g.competitive and len(self.hands[seat]) <= g.rules["refill_at"] and self.bag:
            if g.rules["refill_choice"]:
                self.phase = "refill"
                return
            self._draw(seat, g.hand_cap - len(self.hands[seat]))
        self._start_play()

    def _start_play(self) -> None:
        """Enter the play phase for ``cur``, resolving a player who cannot place anything."""
        self.phase = "play"
        while True:
            bits = self._placement_bits(self.cur)
            hz = self._forced_hazard()
            if hz is not None and not (bits >> (hz * CELLS)) & FULL:
                # Puzzle challenge: a horde/eruption with no target is discarded, draw another
                for i, (_cube, f) in enumerate(self.hands[self.cur]):
                    if f == hz:
                        self.discard.append(self.hands[self.cur].pop(i)[0])
                        break
                self._draw(self.cur, 1)
                continue
            if bits or self._reserve_allowed():
                self.stuck_streak = 0
                return
            if self.bonus_turn and self.game.competitive:
                # Blue: nothing to place on a Wizard's extra turn is no reason to be out; the
                # turn is simply not taken (outside competitive play a stuck player only passes)
                self.bonus_turn = False
                return self._next_turn()
            return self._stuck()

    def _stuck(self) -> None:
        g = self.game
        seat = self.cur
        n = g.num_seats
        if not g.competitive:
            if self._setting_up:
                self.stuck_pass = True     # PASS is the only action; applying it resumes here
                return
            if n == 1:
                return self._game_over()
            self.stuck_streak += 1  # Collaborative / multi-player puzzle: pass; all stuck ends it
            if self.stuck_streak >= n:
                return self._game_over()
            return self._next_turn()
        if g.points and self.end_phase is not None:
            # in an end phase a player who cannot use its allowance loses it (those cubes count
            # as unplaced); in the filled-zone phase it stays in, since play may resume
            if self.end_phase == "stuck":
                self.out[seat] = True
                self.eliminated_order.append(seat)
            self.phase_penalty[seat] += self.allot[seat]
            self.allot[seat] = 0
            return self._next_turn()
        self.out[seat] = True
        self.eliminated_order.append(seat)
        if not g.points:
            # No Points Version: the stuck player is out; their cubes return to the stock
            self.bag.extend(c for c, _ in self.hands[seat])
            self.hands[seat] = []
            if sum(not o for o in self.out) <= 1:
                return self._game_over()
            return self._next_turn()
        # End of play: the others may place up to as many cubes as the stuck player held
        left = len(self.hands[seat])
        self.penalty[seat] += left
        self.end_phase = "stuck"
        self.phase_penalty = [0] * n
        self.allot = [0 if self.out[t] else left for t in range(n)]
        self._next_turn()

    def _game_over(self) -> None:
        self.phase = "over"
        self.cur = -1
        for s in range(self.game.num_seats):
            self.penalty[s] += self.phase_penalty[s] + (self.allot[s] if self.end_phase == "stuck" else 0)
        self.phase_penalty = [0] * self.game.num_seats
        self.allot = [0] * self.game.num_seats

    # ------------------------------------------------------------------ results -------------
    @property
    def current_player(self) -> int:
        return -1 if self.phase == "over" else self.cur

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[float]:
        """The rulebook score of each seat (shared in solo/collaborative; puzzle: see RULES.md)."""
        if self._cache is not None:   # memoised per position (the observation asks every step)
            key = ("scores", len(self.history), self.phase, self.cur)
            memo = self._cache.memo
            if key not in memo:
                memo[key] = tuple(self._scores())
            return list(memo[key])   # a list of the caller's own: the memo stays as it was
        return self._scores()

    def _scores(self) -> list[float]:
        g = self.game
        n = g.num_seats
        if g.competitive:
            if self.zone[0] < 0:
                return [0.0] * n
            free = self._code_bits()[EMPTY + 1]
            zones = _zone_bits(self.zone.tobytes(), n)
            out = []
            for s in range(n):
                empty = (free & zones[s]).bit_count()   # empty cells left in the zone
                out.append(float(len(self.captured[s]) - empty - self.penalty[s] + (5 if empty == 0 else 0)))
            return out
        # empty cells of the field of play (bitboards: no numpy reduction per observation)
        empty = (self._code_bits()[EMPTY + 1] & _active_bits(self.active.tobytes())).bit_count()
        if g.puzzle:
            holes_left = empty
            filled = self.puzzle_holes - holes_left
            # a set-up Giant still without a Giant or Temple beside it is unfinished work too
            codes = self._code_bits()
            giants = codes[YELLOW + 1]
            lonely = (giants & ~dilate(giants | codes[WHITE + 1])).bit_count() if giants else 0
            return [float(filled - holes_left - lonely)] * n
        # Solo Game Play scoring: 100 minus empty spaces minus cubes left in hand
        left = sum(len(h) for h in self.hands) + sum(len(r) for r in self.reserves)
        return [float(100 - empty - left)] * n

    def returns(self) -> np.ndarray:
        g = self.game
        n = g.num_seats
        if self.phase != "over":
            return np.zeros(n)
        if self._returns is not None:
            return self._returns.copy()   # the caller's own: a write cannot change the result
        sc = self.scores()
        if g.competitive and not g.points:
            # No Points Version: the last player able to place wins; earlier exits rank lower
            order = {s: i for i, s in enumerate(self.eliminated_order)}
            rank_score = [order.get(s, n) for s in range(n)]
            ret = rank_returns(rank_score)
        elif g.competitive and g.reward == "result":
            ret = rank_returns(sc)
        elif g.puzzle:
            ret = np.full(n, 1.0 if self.solved else float(np.clip(sc[0] / max(1, self.puzzle_holes), -1, 1)))
        else:
            ret = np.asarray(sc, float) / 100.0
        self._returns = np.asarray(ret, float)
        self._returns.flags.writeable = False   # memoised (clones share it)
        return self._returns.copy()

    def final_info(self) -> dict:
        """At the end: the scores, whether a puzzle was solved, ``turns`` (turns begun, a
        Wizard's extra turn included) and ``ended_by``: always ``"rules"``, since every game ends
        by a rulebook ending (a zone stays filled, the End Phase is used up, nobody can place,
        the field is full); the engine has no cap of its own (the AEC env's ``max_steps``
        truncates instead)."""
        if self.phase != "over":
            return {}
        return {"scores": self.scores(), "solved": self.solved, "turns": self.turns_done,
                "ended_by": "rules"}

    # ------------------------------------------------------------------ views ---------------
    def _observation(self, seat: int) -> np.ndarray:
        return build_observation(self, seat)

    def action_to_str(self, action: int) -> str:
        n = self.game.num_seats
        return A.action_to_str(action, self.game.zone_kind, lambda k: f"player_{(self.cur + k) % n}")

    def render_text(self, observer: int | None = None, color: bool = False) -> str:
        return render_text(self, observer, color)

    def render_rgb(self, observer: int | None = None):
        return render_rgb(self, observer)
