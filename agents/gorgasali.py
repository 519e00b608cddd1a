"""Rule-based Gorgasali baseline.

Reads the (determinized) engine state for what its player may see (positions, health, its own
mat, the visible cards of others, the destinations the engine offers) and acts by fixed rules:
- loots early: opens the extra chest at once, heads for chests; a new card goes to the first
  free position the rules allow it (its category's slots, then the backpack), else replaces the
  worst card there if better (rarity), else is discarded; it never swaps a backpack card back onto
  the mat, so an upgrade looted while its category is full waits in the backpack (a weapon for
  good: weapon slots never empty) -- a measured weakness, docs/training-notes.md G6;
- keeps inside the zone: a destination's score pays for zone damage and for zones about to go
  inactive, and prefers the inner zones as the game goes on;
- shoots at the best expected damage (hit chance x damage, kills first), uses a matching
  extension first, throws bulbs and spears when they can hit, reloads otherwise;
- heals when low (healing cards before the roll, healing squares, Medea's ability), sets
  Magic Field / Tree Platform / smoke when enemies are close and health is low;
- uses damaging and freezing abilities when they have a target, also in the reaction window
  before another player's turn (Tsiva freezes the player about to move, Medea heals when hurt);
  never starts a trade;
- walks: at the first step it plans legal walks (``plan_walks``: every end it finds with the
  exact zone damage of a concrete path), picks the best end and emits that path's steps.
"""
from __future__ import annotations

import numpy as np

from ..envs.gorgasali import actions as A
from ..envs.gorgasali.board import NB, distance, may_end
from .base import RuleBasedAgent

_PREFERRED = ("Medea", "Armazi", "D'rain", "Tharsis", "Tsiva", "Varas", "Kruber", "Ebue", "Octor",
              "E'moon")
_P_2D6_AT_LEAST = {k: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= k) / 36
                   for k in range(0, 14)}


def _p_hit_fixed(card, dist: int) -> float:
    if card.dice == 1:
        need = card.hit if card.hit else card.hit_by_range[min(dist, len(card.hit_by_range)) - 1]
        return max(0.0, min(1.0, (7 - need) / 6))
    return _P_2D6_AT_LEAST.get(card.hit, 0.0) if card.hit <= 13 else 0.0


def expected_damage(card, dist: int) -> float:
    if card.per_bullet:
        return 3.5 * card.dice * card.per_bullet
    return _p_hit_fixed(card, dist) * card.damage


def card_value(card) -> float:
    """Rough worth of a card for keeping it on the mat."""
    v = 1.0 + card.rarity
    if card.category == "weapon":
        v += expected_damage(card, max(1, card.range_max)) / 10
    elif card.kind == "heal":
        v += card.value / 20
    elif card.kind == "armour":
        v += card.value / 10
    return v


def plan_walks(st) -> dict:
    """end square -> (zone damage, path) for legal ends of the current walk (``st.path`` so
    far). Depth first over the walk's legal steps (no square twice, exact points, the engine's
    ``may_end``), pruned by dominance on (square, points left): a later path reaching the same
    square with the same points left and no less zone damage is not followed. Every path
    returned is legal; some legal ends may be missed (the pruning ignores which squares each
    path covered)."""
    cost, occ, chests, _ = st._walk_context()
    zone = st.game.board.zone
    out = st.zones_out
    pen = st.zone_penalty()
    ends: dict = {}
    seen: dict = {}

    def go(q, prev, vis, left, dmg, path):
        e = may_end(q, prev, vis, left, cost, occ, chests)
        if e and (q not in ends or ends[q][0] > dmg):
            ends[q] = (dmg, path)
        if e == 1:
            return
        for n in NB[q]:
            c = cost[n]
            if not c or c > left or vis >> n & 1:
                continue
            d2 = dmg + (pen if out and zone[n] <= out else 0)
            key = (n, left - c)
            if seen.get(key, 1 << 30) <= d2:
                continue
            seen[key] = d2
            go(n, q, vis | 1 << n, left - c, d2, path + (n,))

    p = st.path
    go(p[-1], p[-2] if len(p) > 1 else -1, st.walk_bits, st.walk_left, 0, p)
    if len(p) > 1:
        ends.pop(p[0], None)
    return ends


class HeuristicAgent(RuleBasedAgent):
    def act(self, obs, state=None) -> int:
        mask = obs["action_mask"]
        if state is None:
            raise ValueError("the Gorgasali heuristic needs the engine state (needs_state=True)")
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        choice = self._rule_choice(state, mask)
        return self.random_legal(mask) if choice is None else choice

    def _rule_choice(self, state, mask) -> int | None:
        handler = getattr(self, "_" + state.phase, None)
        choice = handler(state, mask) if handler is not None else None
        return None if choice is None or not mask[choice] else int(choice)

    # ------------------------------------------------------------------ phases --------------
    def _choose(self, st, mask):
        for name in _PREFERRED:
            a = A.CHOOSE + A.CHARACTER_NAMES.index(name)
            if mask[a]:
                return a
        return None

    def _loot(self, st, mask):
        me = st.cur
        cards = st.game.cards
        new = cards[st.loot[0][1]]
        options = [p for p in range(A.MAT_SIZE) if mask[A.LOOT + p]]
        empty = [p for p in options if st.mat[me][p] < 0]
        if empty:
            return A.LOOT + empty[0]
        worst = min(options, key=lambda p: card_value(cards[st.mat[me][p]]))
        if card_value(cards[st.mat[me][worst]]) < card_value(new):
            return A.LOOT + worst
        return A.DISCARD_LOOT

    def _start(self, st, mask):
        me = st.cur
        hp = st.health[me]
        heals = [(st.card(me, p).value, i) for i, p in enumerate(A.CONSUMABLE_POS)
                 if mask[A.CONSUME + i] and st.card(me, p).kind == "heal"]
        if heals and hp <= 60:
            need = 100 - hp
            heals.sort(key=lambda x: (abs(x[0] - need), x[0]))
            return A.CONSUME + heals[0][1]
        if mask[A.EXTRA_CHEST]:
            return A.EXTRA_CHEST
        ab = self._ability(st, mask)
        if ab is not None:
            return ab
        return A.ROLL

    @staticmethod
    def _ability_context(st, mask):
        """(me, my character index, its name, seats, relative seats the ability may target now)."""
        me = st.cur
        ab = st.active_ability(me)
        name = A.CHARACTER_NAMES[ab] if ab >= 0 else ""
        n = st.game.num_seats
        return me, ab, name, n, [r for r in range(n) if mask[A.ABILITY + r]]

    def _ability(self, st, mask):
        me, ab, name, n, rels = self._ability_context(st, mask)
        if not rels:
            return None
        if name == "Medea":
            return A.ABILITY if st.health[me] <= 80 else None
        if name in ("Armazi", "Varas"):
            return A.ABILITY + min(rels, key=lambda r: st.health[(me + r) % n])
        if name == "Tsiva":
            return A.ABILITY
        return None

    def _move(self, st, mask):
        me = st.cur
        key = (st.turn_count, me, st.move_points, st.path[0], frozenset(st.cross))
        plan = self.__dict__.get("_plan")
        if plan is not None and plan[0] == key and plan[1][:len(st.path)] == st.path:
            step = self._next_step(st, plan[1])
            if mask[step]:
                return step
        best, best_v, path = None, -1e9, None
        for sq, (pen, p) in plan_walks(st).items():
            v = self._square_value(st, me, sq, pen, arriving=True)
            if v > best_v:
                best, best_v, path = sq, v, p
        if mask[A.SKIP]:
            v = self._square_value(st, me, st.pos[me], 0, arriving=False) + 2.0
            if best is None or v > best_v:
                return A.SKIP
        if path is None:
            return None
        self._plan = (key, path)
        return self._next_step(st, path)

    @staticmethod
    def _next_step(st, path):
        """The planned path's next square, or (the plan ends here) a stop on this square."""
        if len(path) > len(st.path):
            return A.SQUARE + path[len(st.path)]
        return A.SQUARE + st.pos[st.cur]

    def _square_value(self, st, me: int, sq: int, pen: int, arriving: bool) -> float:
        g = st.game
        hp = st.health[me]
        v = -1.5 * pen
        if pen >= hp:
            v -= 1000
        zone = g.board.zone[sq]
        if zone <= st.zones_out:
            v -= 25 + 5 * st.zones_out          # standing outside: every later move hurts
        elif zone == st.zones_out + 1:
            left = g.rules["zone_interval"] - (st.round - 1) % g.rules["zone_interval"]
            v -= 12 / left
        v += 2.0 * zone * min(1.0, st.round / 8)
        if arriving and sq in st.chests:
            empties = sum(1 for p in range(A.ACTIVE_SIZE) if st.mat[me][p] < 0)
            v += 10 + 2 * empties
        if arriving and sq in g.board.healing:
            v += min(20, 100 - hp) * 0.8
        weapons = [p for p in A.WEAPON_POS if st.mat[me][p] >= 0 and st.loaded[me][p]]
        n = g.num_seats
        for t in range(n):
            if not (st.alive[t] and st.enemies(me, t)):
                continue
            d = distance(sq, st.pos[t])
            if d <= 2:
                v -= 3 if hp > 50 else 8
            for p in weapons:
                card = st.card(me, p)
                if card.range_min <= d <= card.range_max:
                    v += expected_damage(card, d) / 3 + (15 if st.health[t] <= 30 else 0)
                    break
        return v

    def _act(self, st, mask):
        me = st.cur
        n = st.game.num_seats
        hp = st.health[me]
        for i in range(3):
            if mask[A.REVIVE + i]:
                return A.REVIVE + i
        if mask[A.EXTRA_CHEST]:
            return A.EXTRA_CHEST
        ab = self._ability(st, mask)
        if ab is not None:
            return ab
        shots = []
        for w in A.WEAPON_POS:
            for rel in range(1, n):
                if mask[A.shoot(w, rel)]:
                    t = (me + rel) % n
                    card = st.card(me, w)
                    ed = expected_damage(card, distance(st.pos[me], st.pos[t]))
                    kill = 40 if ed >= st.health[t] else 0
                    shots.append((ed + kill - 0.1 * st.health[t], A.shoot(w, rel), card))
        # an extension for the planned shot first
        if shots and not st.used_consumable:
            _, _, card = max(shots, key=lambda x: x[0])
            for i, p in enumerate(A.CONSUMABLE_POS):
                c = st.card(me, p)
                if mask[A.CONSUME + i] and c.kind == "extension" and c.group == card.group:
                    return A.CONSUME + i
        throw = self._throwable(st, mask)
        if throw is not None:
            return throw
        near = sum(1 for t in range(n) if st.alive[t] and st.enemies(me, t)
                   and distance(st.pos[me], st.pos[t]) <= 3)
        if near:
            for i, p in enumerate(A.DEFENSIVE_POS):
                c = st.card(me, p)
                if c is not None and mask[A.defend(i, 0)] and (c.kind == "ball" or hp <= 70):
                    return A.defend(i, 0)
        if shots:
            return max(shots, key=lambda x: x[0])[1]
        if mask[A.RELOAD]:
            return A.RELOAD
        for i, p in enumerate(A.CONSUMABLE_POS):
            c = st.card(me, p)
            if mask[A.CONSUME + i] and c.kind == "ammo":
                return A.CONSUME + i
        return A.END_TURN

    def _throwable(self, st, mask):
        me = st.cur
        n = st.game.num_seats
        hp = st.health[me]
        for i, p in enumerate(A.THROWABLE_POS):
            c = st.card(me, p)
            if c is None:
                continue
            if c.kind == "smoke":
                if mask[A.throw(i, 0)] and hp <= 40 and any(
                        st.alive[t] and st.enemies(me, t) and distance(st.pos[me], st.pos[t]) <= 3
                        for t in range(n)):
                    return A.throw(i, 0)
                continue
            for rel in range(1, n):
                if not mask[A.throw(i, rel)]:
                    continue
                t = (me + rel) % n
                if c.kind == "ntt" and not any(st.loaded[t]):
                    continue
                return A.throw(i, rel)
        return None

    def _react(self, st, mask):
        """The reaction window before another player's turn."""
        if mask[A.EXTRA_CHEST]:
            return A.EXTRA_CHEST      # free cards: opened at the first chance, as in its turn
        me, ab, name, n, rels = self._ability_context(st, mask)
        mover = st.turn_seat
        if name == "Tsiva" and rels and st.enemies(me, mover) and not st.immune(mover) \
                and distance(st.pos[me], st.pos[mover]) <= st.game.chars[ab].range:
            return A.ABILITY          # the player about to move cannot move nor target her
        if name in ("Medea", "Armazi", "Varas"):
            got = self._ability(st, mask)
            if got is not None:
                return got
        return A.END_TURN

    def _pull(self, st, mask):
        return None   # any square next to Ebue

    def _steal(self, st, mask):
        t = st.pending_target
        cards = st.game.cards
        opts = [p for p in range(A.MAT_SIZE) if mask[A.STEAL + p]]
        return A.STEAL + max(opts, key=lambda p: card_value(cards[st.mat[t][p]]))

    def _bonus(self, st, mask):
        return A.SQUARE + st.pos[st.cur]

    def _trade(self, st, mask):
        return A.END_TRADE
