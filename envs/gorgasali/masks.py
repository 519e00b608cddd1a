"""Gorgasali legal-action masks (a mixin of ``GorgasaliState``; numpy + stdlib only).

The order of a turn (designed, see RULES.md) decides which actions each phase offers; every
sub-step's select action is offered only with at least one legal completion.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import actions as A
from .board import distance
from .duo import DuoMixin
from .movement import MovementMixin
from .tables import Phase

#: an enemy a card may aim at: (rel, seat, range)
Target = tuple[int, int, int]


class MaskMixin(MovementMixin, DuoMixin):
    """``legal_actions_mask`` and its helpers."""

    def legal_actions_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def _compute_mask(self) -> np.ndarray:
        m = np.zeros(A.NUM_ACTIONS, np.int8)
        ph = self.phase
        if ph != "over":
            _PHASE_MASKS.get(ph, MaskMixin._mask_turn)(self, m, self.cur)
        return m

    # -- one method per phase (``_PHASE_MASKS``); start and act share ``_mask_turn`` ----------
    def _mask_choose(self, m: np.ndarray, s: int) -> None:
        taken = {c for c in self.char if c >= 0}
        for k in range(10):
            if k not in taken:
                m[A.CHOOSE + k] = 1

    def _mask_react(self, m: np.ndarray, s: int) -> None:
        """Another player's turn starts: ability or extra chest now, or pass."""
        for rel in self.ability_targets(s):
            m[A.ABILITY + rel] = 1
        if self.may_open_extra_chest(s):
            m[A.EXTRA_CHEST] = 1
        m[A.END_TURN] = 1

    def _mask_loot(self, m: np.ndarray, s: int) -> None:
        cat = self.game.cards[self.loot[0][1]].category
        for p in A.CATEGORY_POSITIONS[cat] + A.BACKPACK_POS:
            m[A.LOOT + p] = 1
        m[A.DISCARD_LOOT] = 1

    def _mask_pull(self, m: np.ndarray, s: int) -> None:
        for q in self.pull_squares(s, self.pending_target):
            m[A.SQUARE + q] = 1

    def _mask_steal(self, m: np.ndarray, s: int) -> None:
        for p in self.steal_positions(self.pending_target):
            m[A.STEAL + p] = 1

    def _mask_bonus(self, m: np.ndarray, s: int) -> None:
        for q in self.bonus_squares():
            m[A.SQUARE + q] = 1

    def _mask_trade(self, m: np.ndarray, s: int) -> None:
        self._trade_mask(m)

    def _mask_move(self, m: np.ndarray, s: int) -> None:
        """The walk: one orthogonal square a step (movement.py)."""
        steps, end = self.walk_options()
        for q in steps:
            m[A.SQUARE + q] = 1
        if len(self.path) > 1:
            if end:   # a chest it entered: SQUARE on its own square stops there
                m[A.SQUARE + self.pos[s]] = 1
            return
        if end:       # boxed in by the terrain before the first step: the move ends in place
            m[A.SQUARE + self.pos[s]] = 1
        if not self.skipped_last[s] and self.dice[0] != self.dice[1] or not (steps or end):
            m[A.SKIP] = 1
        if not self.used_consumable:   # movement cards: after the roll, before the first step
            for i, p in enumerate(A.CONSUMABLE_POS):
                c = self.card(s, p)
                if c is not None and (c.kind == "adrenaline" or (c.kind.startswith("cross_")
                                                                 and c.kind not in self.cross)):
                    m[A.CONSUME + i] = 1
                elif c is not None and c.kind == "teleport" and self.teleport_squares(s, c.range_max):
                    m[A.CONSUME + i] = 1

    def _mask_teleport(self, m: np.ndarray, s: int) -> None:
        for q in self.teleport_squares(s, self.teleport_range):
            m[A.SQUARE + q] = 1

    def _mask_turn(self, m: np.ndarray, s: int) -> None:
        """``start`` and ``act``: extra chest, ability, copy, consumables; then the roll (start)
        or the actions of the turn (act)."""
        ph = self.phase
        if self.may_open_extra_chest(s):
            m[A.EXTRA_CHEST] = 1
        for rel in self.ability_targets(s):
            m[A.ABILITY + rel] = 1
        for rel in self.copy_targets(s):
            m[A.COPY + rel] = 1
        if not self.used_consumable:
            self._mask_consumables(m, s, ph)
        if ph == "start":
            m[A.ROLL] = 1
            return
        m[A.END_TURN] = 1
        if self.can_return(s):
            m[A.RETURN] = 1
        targets = self._card_targets(s)   # enemies a card may aim at: (rel, seat, range)
        if not self.used_throwable:
            self._mask_throws(m, s, targets)
        if not self.used_defensive:
            for i, p in enumerate(A.DEFENSIVE_POS):
                if self.mat[s][p] < 0:
                    continue
                for v in range(5):
                    if self.can_defend(s, p, v):
                        m[A.defend(i, v)] = 1
        if not self.main_done and not self.revived:
            self._mask_main_action(m, s, targets)
        if self.game.team_size > 1:
            self._mask_team(m, s)

    def _mask_consumables(self, m: np.ndarray, s: int, ph: Phase) -> None:
        cards = self.game.cards
        for i, p in enumerate(A.CONSUMABLE_POS):
            c = self.card(s, p)
            if c is None:
                continue
            if c.kind == "ammo" and not all(self.loaded[s][w] or self.mat[s][w] < 0
                                            for w in A.WEAPON_POS):
                m[A.CONSUME + i] = 1
            elif ph == "start" and c.kind == "heal" and not self.burned[s] \
                    and self.health[s] < self.game.rules["max_health"]:
                m[A.CONSUME + i] = 1
            elif ph == "act" and c.kind == "extension" and self.extension is None \
                    and not self.main_done and any(
                        self.loaded[s][w] and cards[self.mat[s][w]].group == c.group
                        for w in A.WEAPON_POS if self.mat[s][w] >= 0):
                m[A.CONSUME + i] = 1

    def _mask_throws(self, m: np.ndarray, s: int, targets: list[Target]) -> None:
        cards = self.game.cards
        for i, p in enumerate(A.THROWABLE_POS):
            cid = self.mat[s][p]
            if cid < 0:
                continue
            card = cards[cid]
            if card.kind == "smoke":
                if self.can_throw(s, p, s):
                    m[A.throw(i, 0)] = 1
                continue
            for rel, t, d in targets:
                if card.range_min <= d <= card.range_max and self._clear_to(s, t):
                    m[A.throw(i, rel)] = 1

    def _mask_main_action(self, m: np.ndarray, s: int, targets: list[Target]) -> None:
        """Shoot, reload, or move a card out of the backpack."""
        cards = self.game.cards
        for w in A.WEAPON_POS:
            if self.mat[s][w] >= 0 and self.loaded[s][w] and targets:
                lo, hi = self.weapon_range(s, w)
                for rel, t, d in targets:
                    if lo <= d <= hi and not self.standing_on(t, "smoke") \
                            and self._clear_to(s, t):
                        m[A.shoot(w, rel)] = 1
        if any(self.mat[s][w] >= 0 and not self.loaded[s][w] for w in A.WEAPON_POS):
            m[A.RELOAD] = 1
        for b, bp in enumerate(A.BACKPACK_POS):
            cid = self.mat[s][bp]
            if cid >= 0:
                for p in A.CATEGORY_POSITIONS[cards[cid].category]:
                    m[A.backpack(b, p)] = 1

    def _mask_team(self, m: np.ndarray, s: int) -> None:
        """Duo: revive the fallen teammate next to you, trade with the living one."""
        mate = self.teammate(s)
        if not self.used_consumable and not self.burned[s] and self.fallen_at[mate] >= 0 \
                and distance(self.pos[s], self.fallen_at[mate]) <= 1:
            for i, p in enumerate(A.CONSUMABLE_POS):
                c = self.card(s, p)
                if c is not None and c.kind == "heal":
                    m[A.REVIVE + i] = 1
        if self.alive[mate] and distance(self.pos[s], self.pos[mate]) <= 1:
            m[A.TRADE] = 1

    def _card_targets(self, s: int) -> list[Target]:
        """(rel, seat, range) of every living enemy ``s`` may aim a card at (the range and line
        of sight are checked by the caller; see ``card_target_ok``)."""
        n = self.game.num_seats
        team = self.game.team
        out = []
        ps = self.pos[s]
        self._clear_cache = {}
        for rel in range(1, n):
            t = (s + rel) % n
            if not self.alive[t] or team[t] == team[s] or (self.frozen[s] and self.frozen_by[s] == t):
                continue
            out.append((rel, t, distance(ps, self.pos[t])))
        return out

    def _clear_to(self, s: int, t: int) -> bool:
        """Line of sight for cards from ``s`` to ``t`` (memoized within one mask computation)."""
        got = self._clear_cache.get(t)
        if got is None:
            board = self.game.board
            walls = (board.blocking | self.barrier_squares()) if self.banners else board.blocking
            got = self._clear_cache[t] = board.clear_line(self.pos[s], self.pos[t], walls)
        return got


#: phase -> its mask method (``start`` and ``act``: ``_mask_turn``)
_PHASE_MASKS: dict[Phase, Callable[[MaskMixin, np.ndarray, int], None]] = {
    "choose": MaskMixin._mask_choose, "react": MaskMixin._mask_react,
    "loot": MaskMixin._mask_loot, "pull": MaskMixin._mask_pull,
    "steal": MaskMixin._mask_steal, "bonus": MaskMixin._mask_bonus,
    "trade": MaskMixin._mask_trade, "move": MaskMixin._mask_move,
    "teleport": MaskMixin._mask_teleport}
