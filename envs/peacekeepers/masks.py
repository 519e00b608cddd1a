"""Peacekeepers legality (a mixin of ``PeacekeepersState``; numpy + stdlib only): the per-position
bitboard analysis, the placement rules as whole-board integer operations, the sub-step targets
(Giant partner, Troll chase, Elf re-roll), the mountain mask and the action mask.

Rulebook sections: Placing cubes and the colour wheel, Trolls, Giants, Elves, Goblin Horde,
Volcanic Eruption, Setup (mountains), Multi-Player Competitive (zones, first cube on an edge).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..core.accel import KERNELS
from ..core.game import owned_copy
from . import actions as A
from .board import (
    BLACK,
    BLUE,
    BROWN,
    CELLS,
    COMPAT,
    EDGE_BITS,
    EMPTY,
    FULL,
    GRAY,
    GREEN,
    INCOMPAT_CODES,
    NEIGHBOURS,
    ORANGE,
    PLACEABLE,
    PURPLE,
    RED,
    TROLL_REMOVABLE,
    WHITE,
    YELLOW,
    bits_to_bool,
    bool_to_bits,
    dilate,
    mountain_placements,
    neighbour_count_bits,
    obstacle_labels,
)
from .fields import PeacekeepersFields
from .hazards import HORDE_TARGETS
from .tables import Phase


@functools.lru_cache(maxsize=256)
def _zone_bits(zone: bytes, n: int) -> tuple[int, ...]:
    z = np.frombuffer(zone, np.int8)
    return tuple(bool_to_bits(z == s) for s in range(n))


@functools.lru_cache(maxsize=256)
def _active_bits(active: bytes) -> int:
    return bool_to_bits(np.frombuffer(active, bool))


_MASK_BYTES = (A.NUM_ACTIONS + 7) // 8
#: the tables the placement kernel reads: board.COMPAT, and which board codes (+1) hordes attack
_COMPAT_BYTES = np.ascontiguousarray(COMPAT, np.uint8).tobytes()
_HORDE_CODES = bytes(1 if j - 1 in HORDE_TARGETS else 0 for j in range(12))
#: range length -> its mountain mask on an empty board (where every game's set-up starts)
_EMPTY_BOARD_MOUNTAINS: dict[int, np.ndarray] = {}


def _unpack_mask(bits: int) -> np.ndarray:
    """Action bit ``i`` of a Python int -> int8[NUM_ACTIONS] 0/1 mask."""
    if KERNELS is not None:
        mask = np.empty(A.NUM_ACTIONS, np.int8)
        KERNELS.unpack_bits(bits.to_bytes(_MASK_BYTES, "little"), mask)
        return mask
    return _unpack_mask_py(bits)


def _unpack_mask_py(bits: int) -> np.ndarray:
    raw = np.frombuffer(bits.to_bytes(_MASK_BYTES, "little"), np.uint8)
    return np.unpackbits(raw, bitorder="little", count=A.NUM_ACTIONS).view(np.int8)


@dataclass(slots=True)
class PositionCache:
    """What one position computes once for all its masks, scores and observations (the state
    drops it, ``_cache = None``, whenever the position changes): a memo of placement masks and
    scores, and the bitboard analysis, filled on first use (the compiled kernels do not need it).
    """

    #: placement bits per (seat, hand counts); the action mask and the scores per position key
    memo: dict = field(default_factory=dict)
    #: code_bits[j]: the cells holding board code j - 1 (j = 0: empty cells); None: not analysed
    code_bits: tuple[int, ...] | None = None
    active: int = FULL        # the field of play
    cubes: int = 0            # cells holding a cube
    touch1: int = 0           # cells touching at least one cube
    touch2: int = 0           # cells touching at least two cubes
    zones: tuple[int, ...] | None = None   # each seat's zone (competitive modes)

    def clone(self) -> "PositionCache":
        """A copy that shares nothing writable: its own memo dict. The entries are immutable
        (ints, tuples, read-only masks) and shared as they are: a ``.copy()`` of a memoised mask
        would be writable, and a caller writing into the clone's mask could make it accept
        illegal moves (issue 41)."""
        memo = owned_copy(self.memo)
        return PositionCache(memo, self.code_bits, self.active, self.cubes, self.touch1,
                             self.touch2, self.zones)


class MaskMixin(PeacekeepersFields):
    """What the player to move may do, read from cached bitboards of the position."""

    # ------------------------------------------------------------------ analysis -----------
    def _position(self) -> PositionCache:
        """This position's cache (made on first use)."""
        c = self._cache
        if c is None:
            c = self._cache = PositionCache()
        return c

    def _analysis(self) -> PositionCache:
        """This position's cache with the bitboard analysis filled in: the cells of each board
        code, the field of play, the cubes, the cells touching a cube, the zones."""
        c = self._position()
        if c.code_bits is None:
            code_bits = c.code_bits = tuple(self._code_bits())   # a snapshot: the list changes
            c.active = _active_bits(self.active.tobytes()) if self.game.puzzle else FULL
            c.cubes = (code_bits[1] | code_bits[2] | code_bits[3] | code_bits[4] | code_bits[5]
                       | code_bits[6] | code_bits[7] | code_bits[8] | code_bits[9] | code_bits[10])
            c.touch1, c.touch2 = neighbour_count_bits(c.cubes)
            c.zones = _zone_bits(self.zone.tobytes(), self.game.num_seats) if self.game.competitive else None
        return c

    def _area(self, seat: int) -> tuple[int, bool]:
        """(cells where ``seat`` may put a cube now, whether a neighbouring cube is required)."""
        a = self._analysis()
        if self.game.puzzle:
            return a.active, False
        if not self.first_done[seat] or (a.cubes == 0 and self.game.rules["restart_on_empty_board"]):
            # Multi-Player Competitive: the first cube goes on an outer edge of one's own zone
            # (designed fallback: anywhere in the zone when mountains cover that whole edge);
            # with the field emptied (hordes, eruptions) a cube starts again the same way
            assert a.zones is not None and a.code_bits is not None, "a first cube needs the zones"
            zone = a.zones[seat]
            edge = EDGE_BITS & zone
            return (edge if edge & a.code_bits[0] else zone), False
        return a.active, True

    def _placement_bits(self, seat: int) -> int:
        """PLACE legality as one integer: bit ``colour * 100 + cell`` (memoised per position and
        hand; computed by the compiled kernel when built, else by the Python code)."""
        counts = self.hand_counts(seat)
        if counts[YELLOW] > 1 and self.end_phase is not None and self.allot[seat] < 2:
            # End Phase: the allowance counts cubes; with one left a Giant cannot bring its
            # partner from hand (two cubes), only join a Giant already on the board
            counts[YELLOW] = 1
        memo = self._position().memo
        key = (seat, *counts)
        found = memo.get(key)
        if found is None:
            compute = self._placement_bits_py if KERNELS is None else self._placement_bits_kernel
            found = memo[key] = compute(seat, counts)
        return found

    def _placement_bits_kernel(self, seat: int, counts: list[int]) -> int:
        g = self.game
        raw = KERNELS.pk_placement_bits(
            self.board, self.active if g.puzzle else None, self.zone if g.competitive else None,
            _COMPAT_BYTES, _HORDE_CODES, seat, counts, not self.first_done[seat], g._kernel_flags)
        return int.from_bytes(raw, "little")

    def _placement_bits_py(self, seat: int, counts: list[int]) -> int:
        """The pure-Python PLACE legality for ``seat`` holding ``counts`` (the reference for the
        kernel; not memoised here)."""
        g = self.game
        a = self._analysis()
        code_bits, active, touch1 = a.code_bits, a.active, a.touch1
        assert code_bits is not None   # filled by _analysis
        total = 0
        if any(counts):
            area, need_touch = self._area(seat)
            empty = code_bits[0] & area
            if need_touch:
                empty &= touch1
            first = not self.first_done[seat]
            for c in PLACEABLE:
                if not counts[c]:
                    continue
                bad = 0
                for j in INCOMPAT_CODES[c]:
                    bad |= code_bits[j]
                ok = empty & ~dilate(bad)
                if c == YELLOW:
                    ok &= self._giant_company_bits(counts[YELLOW], code_bits, active, bad)
                elif c == ORANGE and not g.puzzle:
                    one_bad, two_bad = neighbour_count_bits(bad)
                    if g.rules["troll_check_after_chase"]:
                        # one incompatible neighbour the Troll itself chases off; that cube is
                        # the neighbour the placement needs, even when it is the only one
                        # (Orange: only Giants, Temples and Volcanoes cannot be chased); the
                        # same on a first cube, within its area (an edge of one's own zone)
                        ok |= empty & one_bad & ~two_bad
                    if not first:
                        # or the Troll replaces a cube on the board (a first cube goes on an
                        # empty edge cell)
                        replaceable = code_bits[RED + 1] | code_bits[GREEN + 1] \
                            | code_bits[BLUE + 1] | code_bits[PURPLE + 1]
                        ok |= replaceable & active & ~one_bad & touch1
                total |= ok << (c * CELLS)
            if not first:
                if counts[BROWN]:
                    # Goblin Horde: an open cell next to a race not sheltered by a Temple
                    exposed = 0
                    for c in HORDE_TARGETS:
                        exposed |= code_bits[c + 1]
                    exposed &= ~dilate(code_bits[WHITE + 1])
                    total |= (code_bits[0] & active & dilate(exposed)) << (BROWN * CELLS)
                if counts[GRAY]:
                    total |= (code_bits[BLACK + 1] & active) << (GRAY * CELLS)
        return total

    def placement_mask(self, seat: int) -> np.ndarray:
        """bool[10, cells]: PLACE colour x cell legality for ``seat`` (the play phase)."""
        return bits_to_bool(self._placement_bits(seat), A.CELL).reshape(10, CELLS).astype(bool)

    def _giant_company_bits(self, yellows: int, code_bits, active: int, bad_for_giant: int) -> int:
        """Cells where a Giant may stand: next to a Giant, or with a partner from hand."""
        g = self.game
        if g.rules["giant_pairs_only"]:
            company = 0
        else:
            company = dilate(code_bits[YELLOW + 1])
            if g.puzzle:  # Create Your Own Puzzle: a Temple keeps a Giant company
                company |= dilate(code_bits[WHITE + 1])
        if yellows >= 2:
            partner_ok = code_bits[0] & active & ~dilate(bad_for_giant)
            company |= dilate(partner_ok)
        return company

    def _fits(self, colour: int, cell: int) -> bool:
        """No orthogonal neighbour of ``cell`` is incompatible with ``colour``."""
        b = self.board
        return all(COMPAT[colour, b[z] + 1] for z in NEIGHBOURS[cell])

    def _giant_partner_cells(self, x: int) -> list[int]:
        return [y for y in NEIGHBOURS[x]
                if self.board[y] == EMPTY and self.active[y] and self._fits(YELLOW, y)]

    def _troll_chase_targets(self, x: int) -> tuple[list[int], bool]:
        """(cubes the Troll on ``x`` may chase off, whether it may also chase nobody)."""
        g = self.game
        nbs = NEIGHBOURS[x]
        bad = [z for z in nbs if not COMPAT[ORANGE, self.board[z] + 1]]
        removable = [z for z in nbs if self.board[z] in TROLL_REMOVABLE]
        legal_now = not bad
        targets = []
        for z in removable:
            # Orange: any adjacent inhabitant but a Giant, Temple or Volcano, the Troll's only
            # neighbour included (the touching rule holds when the Troll is placed)
            if legal_now or (g.rules["troll_check_after_chase"] and bad == [z]):
                targets.append(z)
        return targets, legal_now

    def _reroll_targets(self) -> list[tuple[int, int]]:
        n = self.game.num_seats
        out: list[tuple[int, int]] = []
        for rel in range(n):
            s = (self.cur + rel) % n
            if self.out[s]:
                continue
            if rel and self.game.hidden_information:
                # hidden hands: another player's cube is chosen by position, not by colour
                out.extend((rel, k) for k in range(min(10, len(self.hands[s]))))
                continue
            colours = {f for _, f in self.hands[s]}
            if rel == 0 and self.reserves[s]:
                colours.add(YELLOW)
            out.extend((rel, c) for c in sorted(colours))
        return out

    def _mountain_mask(self) -> np.ndarray:
        if self._mountain_cache is None and KERNELS is not None:
            found = np.empty(2 * CELLS, bool)
            KERNELS.pk_mountains(self.board, self.ranges[0], found)
            self._mountain_cache = found
        if self._mountain_cache is None:
            if self._mlab is None or self._codes is None:   # after a bulk write of the board
                self._mlab = obstacle_labels(self.board)
            length = self.ranges[0]
            fresh = self._code_bits()[EMPTY + 1] == FULL     # an empty board: the same every game
            placements = _EMPTY_BOARD_MOUNTAINS.get(length) if fresh else None
            if placements is None:
                placements = mountain_placements(self.board, length, self._mlab)
                if fresh:
                    placements.flags.writeable = False
                    _EMPTY_BOARD_MOUNTAINS[length] = placements
            self._mountain_cache = placements
        return self._mountain_cache

    # ------------------------------------------------------------------ mask ----------------
    def legal_actions_mask(self) -> np.ndarray:
        memo = self._position().memo
        key = ("mask", len(self.history), self.phase, self.cur)
        mask = memo.get(key)
        if mask is None:
            mask = memo[key] = self._compute_mask()
            mask.flags.writeable = False   # memoised: callers read it, a write would corrupt the memo
        return mask

    def _compute_mask(self) -> np.ndarray:
        ph = self.phase
        if ph == "play":   # one integer with every legal action's bit, unpacked once
            bits = self._placement_bits(self.cur)
            hz = self._forced_hazard()
            if hz is not None:
                bits &= FULL << (hz * CELLS)
            else:
                if self._reserve_allowed():
                    bits |= 1 << A.RESERVE
                if self.end_phase is not None or self.stuck_pass or self._may_decline_turn():
                    bits |= 1 << A.PASS
            return _unpack_mask(bits)
        mask = np.zeros(A.NUM_ACTIONS, np.int8)
        if ph == "over":
            return mask
        if ph == "mountain":
            mask[A.MOUNTAIN:A.MOUNTAIN + 200] = self._mountain_mask()
        elif ph == "zone":
            k = {"halves": 4, "quadrants2": 2, "quadrants4": 4}[self.game.zone_kind]
            mask[A.ZONE:A.ZONE + k] = 1
        elif ph == "start_temple":
            mask[A.CELL:A.CELL + CELLS] = (self.board == EMPTY) & self.active
        elif ph == "refill":
            mask[A.DRAW] = mask[A.PASS] = 1
        elif ph == "giant2":
            mask[[A.CELL + y for y in self._giant_partner_cells(self.pending_cell)]] = 1
            if self.pending_optional:
                mask[A.PASS] = 1
        elif ph == "troll_chase":
            targets, legal_now = self._troll_chase_targets(self.pending_cell)
            mask[[A.CELL + z for z in targets]] = 1
            if legal_now:
                mask[A.PASS] = 1
        elif ph == "elf":
            mask[[A.REROLL + rel * 10 + c for rel, c in self._reroll_targets()]] = 1
            mask[A.PASS] = 1
        return mask

    def _may_decline_turn(self) -> bool:
        """Blue: a Wizard's extra turn may be declined (alone at the table the next turn is the
        player's own again, so there is nothing to decline)."""
        return self.bonus_turn and self.phase == "play" and self.game.num_seats > 1

    def _reserve_allowed(self) -> bool:
        # Solo Game Play, hand of one: a rolled Giant may wait in reserve; with two, play them
        g = self.game
        if g.competitive or g.hand_size != 1 or g.puzzle or self.reserves[self.cur]:
            return False
        hand = self.hands[self.cur]
        return len(hand) == 1 and hand[0][1] == YELLOW and bool(self.bag)

    def _forced_hazard(self) -> int | None:
        """Puzzle challenge with hazards: a rolled horde/eruption is resolved at once."""
        g = self.game
        if not (g.puzzle and g.puzzle_level == "challenge"):
            return None
        for _, f in self.hands[self.cur]:
            if f in (BROWN, GRAY):
                return f
        return None

    def illegal_reason(self, action: int) -> str:
        kind, *args = A.decode(action)
        ph = self.phase
        expected: dict[Phase, str] = {
            "mountain": "mountain", "zone": "zone", "start_temple": "cell", "refill": "draw/pass",
            "play": "place", "giant2": "cell", "troll_chase": "cell", "elf": "reroll/pass"}
        if kind not in expected.get(ph, "") and not (kind == "pass" and ph in ("play",)):
            return f"phase {ph!r} expects a {expected.get(ph)} action, not {kind}"
        if kind == "place":
            colour, cell = args
            if not self.hand_counts(self.cur)[colour]:
                return "no cube showing that colour in hand"
            if ph == "play" and self.board[cell] != EMPTY and colour not in (ORANGE, GRAY):
                return "the cell is not empty"
            return "breaks a placement rule (neighbours, touching, zone edge or Giant company)"
        if kind == "pass":
            return "nothing may be declined here"
        return "not a legal target here"

    def phase_name(self) -> Phase:
        return self.phase
