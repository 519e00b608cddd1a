"""Gorgasali duo mode (a mixin of ``GorgasaliState``; numpy + stdlib only): teammates, the
trade and the revival (rulebook section Duo).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import actions as A
from .actions import ActionKind
from .board import distance
from .combat import CombatMixin


class DuoMixin(CombatMixin):
    """Teammates trade next to each other and revive a fallen teammate."""

    def teammate(self, s: int) -> int:
        return (s + self.game.num_teams) % self.game.num_seats

    def _trade_mask(self, m: np.ndarray) -> None:
        s = self.cur
        mate = self.teammate(s)
        cards = self.game.cards
        for me, other, base in ((s, mate, A.GIVE), (mate, s, A.TAKE)):
            for p in range(A.MAT_SIZE):
                cid = self.mat[me][p]
                if cid >= 0 and self._empty_slot(other, cards[cid].category, backpack=True) >= 0:
                    m[base + p] = 1
        if self.extra_chests[s] > 0:
            m[A.GIVE_CHEST] = 1
        if self.extra_chests[mate] > 0:
            m[A.TAKE_CHEST] = 1
        m[A.END_TRADE] = 1

    def _revive(self, p: int) -> None:
        """Duo: a healing card next to the fallen teammate's banner revives it with that much
        health, an empty mat and a fresh cooldown; no main action this turn."""
        s = self.cur
        mate = self.teammate(s)
        card = self.card_on(s, p)
        self.used_consumable = True
        self.revived = True
        self._put(s, p, -1)
        sq = self.fallen_at[mate]
        occ = self.occupied()
        if sq in occ:
            free = [q for q in range(A.SQUARES) if self.game.cost[q] and q not in occ]
            sq = min(free, key=lambda q: (distance(q, self.fallen_at[mate]), q))
        self.alive[mate] = True
        self.pos[mate] = sq
        self.health[mate] = min(self.game.rules["max_health"], card.value)
        self.cooldown[mate] = 0 if self.game.rules["ability_ready_at_start"] else \
            self.game.chars[self.char[mate]].cooldown
        self.fallen_at[mate] = -1
        self.out_time[mate] = -1
        self.burned[mate] = 0
        self.last_event = f"{self.name(s)} revived {self.name(mate)}"

    def _trade(self, kind: ActionKind, args: Sequence[int]) -> None:
        s = self.cur
        mate = self.teammate(s)
        if kind == "give_chest":
            self.extra_chests[s] -= 1
            self.extra_chests[mate] += 1
        elif kind == "take_chest":
            self.extra_chests[mate] -= 1
            self.extra_chests[s] += 1
        elif kind in ("give", "take"):
            src, dst = (s, mate) if kind == "give" else (mate, s)
            p = args[0]
            cid = self.mat[src][p]
            self.mat[src][p] = -1
            if p in A.WEAPON_POS:
                self.loaded[src][p] = False
            q = self._empty_slot(dst, self.game.cards[cid].category, backpack=True)
            self._put(dst, q, cid)
