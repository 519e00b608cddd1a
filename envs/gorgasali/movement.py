"""Gorgasali movement (a mixin of ``GorgasaliState``; numpy + stdlib only): the dice move's
destinations, ending a move (zone damage, healing squares, chests), the six-shooter bonus move,
the Teleport card and Kruber's return.

Rulebook sections: Movement, Chests, Healing point, Zones, the rulings on teleport and dobergun.
"""
from __future__ import annotations

from envs.gorgasali import actions as A
from envs.gorgasali.board import (FOREST, MOUNTAIN, STEP, WATER, Destinations,
                                  destination_levels, to_bits)


class MovementMixin:
    """Movement and placement effects of the current player."""

    def _compute_destinations(self) -> None:
        g = self.game
        b = g.board
        free = {"cross_forest": FOREST, "cross_water": WATER, "cross_mountain": MOUNTAIN}
        free = {free[k] for k in self.cross}
        masks: dict[int, int] = {}
        for terrain, bits in b.terrain_bits.items():
            c = 1 if terrain in free else g.terrain_cost[terrain]
            if c:
                masks[c] = masks.get(c, 0) | bits
        barrier = to_bits(self.barrier_squares()) if self.banners else 0
        if barrier:  # Barrier blocks movement
            masks = {c: m & ~barrier for c, m in masks.items()}
        self.dest = Destinations(destination_levels(self.pos[self.cur], self.move_points, masks,
                                 to_bits(self.occupied(exclude=self.cur)),
                                 b.zone_bits[self.zones_out], self.zone_penalty(),
                                 self._chest_bits()))

    def _chest_bits(self) -> int:
        """Bitboard of the unopened chests, cached while the chest set is the same object with
        the same size (chests are only ever removed)."""
        cache = self.__dict__.get("_chest_bits_cache")
        if cache is None or cache[0] is not self.chests or cache[1] != len(self.chests):
            cache = (self.chests, len(self.chests), to_bits(self.chests))
            self.__dict__["_chest_bits_cache"] = cache
        return cache[2]

    def _move_to(self, sq: int) -> None:
        s = self.cur
        penalty = self.dest[sq]
        if sq != self.pos[s]:
            self._remove_smoke(s)
            self.swap_back = None
        self.pos[s] = sq
        self.skipped_last[s] = False
        self.phase = "act"
        if penalty:
            self._damage(s, penalty, -1, "zone")
            if not self.alive[s]:
                return
        if sq in self.game.board.healing:
            self._heal(s, self.game.rules["heal_square"])
        if sq in self.chests:
            self.chests.discard(sq)
            self._open_chest(extra=False)

    def bonus_squares(self) -> list[int]:
        """Six shooter skill: up to 2 more squares anywhere, no obstacle cost, no zone damage;
        staying put is allowed."""
        s = self.cur
        occ = self.occupied(exclude=s)
        cost = self.game.cost
        bar = self.barrier_squares()
        seen = {self.pos[s]}
        frontier = [self.pos[s]]
        for _ in range(2):
            nxt = []
            for sq in frontier:
                for q in STEP[sq]:
                    if q >= 0 and q not in seen and cost[q] and q not in bar:
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
        t, mine, theirs = self.swap_back
        self.swap_back = None
        self.pos[s], self.pos[t] = mine, theirs
        self._remove_smoke(s)
        self._remove_smoke(t)
        self._teleport_penalty(s)
        self._teleport_penalty(t)
        self.last_event = f"{self.name(s)} returned to his square"
