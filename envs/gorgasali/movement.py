"""Gorgasali movement (a mixin of ``GorgasaliState``; numpy + stdlib only): the dice move walked
square by square, ending a move (healing squares, chests), the six-shooter bonus move, the
Teleport card and Kruber's return.

Rulebook sections: Movement, Chests, Healing point, Zones, the rulings on teleport and dobergun.

The walk (phase ``move``): after the roll the player steps one orthogonal square at a time
(SQUARE actions naming a neighbouring square). The state keeps the walk: ``path`` (the squares
covered, the start first), ``walk_bits`` (the same as a bitboard) and ``walk_left`` (points left).
Each inactive square entered costs the zone penalty at once. Only steps from which a legal end
stays reachable are offered (``board.walk_steps``); the walk ends by itself with no points left
or at the terrain stop, and by choice on a chest it entered (SQUARE on its own square).
"""
from __future__ import annotations

from . import actions as A
from .board import FOREST, MOUNTAIN, STEP, WATER, may_end, to_bits, walk_steps
from .combat import CombatMixin
from .fields import WalkContext
from .tables import CrossKind

_CROSS_TERRAIN: dict[CrossKind, int] = {"cross_forest": FOREST, "cross_water": WATER,
                                        "cross_mountain": MOUNTAIN}


class MovementMixin(CombatMixin):
    """Movement and placement effects of the current player."""

    def walk_cost(self) -> tuple[int, ...]:
        """Points to enter each square for this walk: terrain costs, obstacles crossed at 1 with
        the matching movement card, Barriers closed (cached per crossing cards and Barriers)."""
        g = self.game
        bar = frozenset(self.barrier_squares()) if self.banners else frozenset()
        key = (frozenset(self.cross), bar)
        cache = g._walk_cost_cache
        got = cache.get(key)
        if got is None:
            terrain = g.board.terrain
            free = {_CROSS_TERRAIN[k] for k in self.cross}
            got = tuple(0 if q in bar else (1 if terrain[q] in free and g.cost[q] else g.cost[q])
                        for q in range(len(terrain)))
            if len(cache) > 256:
                cache.clear()
            cache[key] = got
        return got

    def _chest_bits(self) -> int:
        """Bitboard of the unopened chests, cached while the chest set is the same object with
        the same size (chests are only ever removed)."""
        cache = self._chest_bits_cache
        if cache is None or cache[0] is not self.chests or cache[1] != len(self.chests):
            cache = self._chest_bits_cache = (self.chests, len(self.chests), to_bits(self.chests))
        return cache[2]

    def _walk_context(self) -> WalkContext:
        """(cost, occupied, chests, memo) of the current walk: none of them changes while it
        lasts (a movement card before the first step starts a new context)."""
        ctx = self._walk_ctx
        if ctx is None:
            occ = 0
            cur = self.cur
            for t, p in enumerate(self.pos):
                if t != cur and self.alive[t]:
                    occ |= 1 << p
            # the memo (states known to reach a legal end) lives in the tuple, which clones
            # share: its entries hold for any state of this walk
            ctx = self._walk_ctx = (self.walk_cost(), occ, self._chest_bits(), set())
        return ctx

    def _start_walk(self) -> None:
        s = self.cur
        self.path = (self.pos[s],)
        self.walk_bits = 1 << self.pos[s]
        self.walk_left = self.move_points
        self._walk_cache = None
        self._walk_ctx = None

    def walk_options(self) -> tuple[list[int], int]:
        """(steps, end): the squares the walk may step to now, and how it may end on its
        square (``board.may_end``: 0 no, 1 it must, 2 by choice)."""
        cache = self._walk_cache
        if cache is not None and cache[0] is self.path and cache[1] == self.walk_left:
            return cache[2], cache[3]
        q = self.path[-1]
        prev = self.path[-2] if len(self.path) > 1 else -1
        cost, occ, chests, ok = self._walk_context()
        end = may_end(q, prev, self.walk_bits, self.walk_left, cost, occ, chests)
        if end == 1 and len(self.path) > 1:
            return [], 1
        return walk_steps(q, prev, self.walk_bits, self.walk_left, cost, occ, chests, ok), end

    def _step(self, sq: int) -> None:
        """One square of the walk (or SQUARE on its own square: stop on the chest)."""
        s = self.cur
        if sq == self.pos[s]:
            self._end_walk()
            return
        if len(self.path) == 1:   # the figure leaves its square
            self._remove_smoke(s)
            self.swap_back = None
            self.skipped_last[s] = False
        self.path += (sq,)
        self.walk_bits |= 1 << sq
        self.walk_left -= self._walk_context()[0][sq]
        self.pos[s] = sq
        if self.zones_out and self.game.board.zone[sq] <= self.zones_out:
            self._damage(s, self.zone_penalty(), -1, "zone")   # per inactive square entered
            if not self.alive[s]:
                return
        steps, end = self.walk_options()
        if end == 1 or not steps:
            self._end_walk()
        else:
            self._walk_cache = (self.path, self.walk_left, steps, end)

    def _end_walk(self) -> None:
        s = self.cur
        sq = self.pos[s]
        self.skipped_last[s] = False
        self.phase = "act"
        if len(self.path) == 1:   # no square covered (boxed in by the terrain at the start)
            return
        if sq in self.game.board.healing:
            self._heal(s, self.game.rules["heal_square"])
        if sq in self.chests:
            self.chests.discard(sq)
            self._open_chest(extra=False)

    def bonus_squares(self) -> list[int]:
        """Six shooter skill: up to 2 more squares anywhere, no obstacle cost, no zone damage;
        staying put is allowed. Movement: a square covered earlier this turn (the walk's) is not
        crossed again, by the bonus move neither."""
        s = self.cur
        occ = self.occupied(exclude=s)
        cost = self.game.cost
        bar = self.barrier_squares()
        covered = self.walk_bits
        seen = {self.pos[s]}
        frontier = [self.pos[s]]
        for _ in range(2):
            nxt = []
            for sq in frontier:
                for q in STEP[sq]:
                    if q >= 0 and q not in seen and cost[q] and q not in bar \
                            and not (covered >> q) & 1:
                        seen.add(q)
                        nxt.append(q)
            frontier = nxt
        return sorted(q for q in seen if q not in occ)

    def teleport_squares(self, s: int, reach: int) -> list[int]:
        """Teleport card (designed): a vacant square within ``reach`` (Chebyshev) that a figure
        may stand on: no blocking area, figure, chest or banner."""
        ps = self.pos[s]
        if ps < 0 or reach <= 0:
            return []
        occ = self.occupied()
        cost = self.game.cost
        r0, c0 = divmod(ps, A.SIZE)
        banners = {q for b in self.banners for q in b[1]} if self.banners else ()
        out = []
        for r in range(max(0, r0 - reach), min(A.SIZE, r0 + reach + 1)):
            for c in range(max(0, c0 - reach), min(A.SIZE, c0 + reach + 1)):
                q = r * A.SIZE + c
                if cost[q] and q not in occ and q not in self.chests and q not in banners:
                    out.append(q)
        return out

    def _teleport(self, q: int) -> None:
        """Teleport lands: the movement ends there (healing square included); landing in an
        inactive zone costs one square's penalty (ruling)."""
        s = self.cur
        self._remove_smoke(s)
        self.swap_back = None
        self.pos[s] = q
        self.skipped_last[s] = False
        self.phase = "act"
        self._teleport_penalty(s)
        if self.alive[s] and q in self.game.board.healing:
            self._heal(s, self.game.rules["heal_square"])
        self.last_event = f"{self.name(s)} teleported"

    def can_return(self, s: int) -> bool:
        """Kruber: after a swap this turn, with no movement since, he may go back to his square
        (the swapped enemy goes back to its own: the swap is undone)."""
        sb = self.swap_back
        if sb is None or self.phase != "act":
            return False
        t, mine, theirs = sb
        return self.alive[t] and self.pos[s] == theirs and self.pos[t] == mine

    def _kruber_return(self) -> None:
        s = self.cur
        assert self.swap_back is not None, "RETURN is offered only after a swap (can_return)"
        t, mine, theirs = self.swap_back
        self.swap_back = None
        self.pos[s], self.pos[t] = mine, theirs
        self._remove_smoke(s)
        self._remove_smoke(t)
        self._teleport_penalty(s)
        self._teleport_penalty(t)
        self.last_event = f"{self.name(s)} returned to his square"
