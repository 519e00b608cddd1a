"""Rule-based Zaberias baseline (reads the engine state: ``needs_state = True``).

Greedy, one decision at a time, with expected battle totals (mean die face x dice + muscle):
- take vacant city sites at once (it is the unit's attack), attack when the expected attack beats
  the expected defence (city dice and assisting muscle included), weakest worthwhile target
  first; gather ambush partners while the odds are not yet comfortable; re-roll ties;
- sorcerers shoot the strongest enemy in range; helpers renew / boost / revive when it pays;
- move every unit once towards the nearest objective (vacant sites, enemy cities, weak enemies,
  unheld power stars, gold mines), clearing own cities so that they can create units;
- buy the strongest affordable unit, upgrade cities when nothing can be bought;
- a Siphon over capacity releases its cheapest prisoner; the Rhino Rider tramples towards enemies.
"""
from __future__ import annotations

import numpy as np

from ..envs.zaberias import movement as M
from .base import RuleBasedAgent


class HeuristicAgent(RuleBasedAgent):
    # ------------------------------------------------------------------ helpers -------------
    def _mean_face(self, st) -> float:
        return float(np.mean(st.game.die_faces))

    def _exp_attack(self, st, uid: int) -> float:
        return M.dice(st, uid) * self._mean_face(st) + M.muscle(st, uid)

    def _exp_defence(self, st, uid: int, target: int) -> float:
        g, U, geo = st.game, st.game.U, st.geo
        mf = self._mean_face(st)
        o = st.occ[target]
        total, seat = 0.0, -1
        site = geo.site_of[target]
        if o >= 0 and o != uid:
            seat = o // U
            total += M.dice(st, o) * mf + M.muscle(st, o)
            if site >= 0 and st.city_owner[site] == seat:
                total += g.city_dice[st.city_grade[site]] * mf
        elif site >= 0 and st.city_owner[site] >= 0:
            seat = st.city_owner[site]
            total += g.city_dice[st.city_grade[site]] * mf
        if seat >= 0:
            src = st.cell[uid]
            for v in range(seat * U, seat * U + U):
                if v != o and st.status[v] == M.BOARD and geo.in_range(st.cell[v], src, g.specs[v].range):
                    total += M.muscle(st, v)
        return total

    def _objectives(self, st, seat: int) -> list[tuple[int, float]]:
        """(cell, weight) targets; a lower weight is more attractive."""
        g, U, geo = st.game, st.game.U, st.geo
        out = []
        for s, c in enumerate(geo.site_cells):
            if st.city_owner[s] < 0:
                o = st.occ[c]
                if o < 0 or o // U != seat:
                    out.append((c, 0.0))
            elif st.city_owner[s] != seat:
                out.append((c, 1.0))
        for u in range(len(g.specs)):
            if st.status[u] == M.BOARD and u // U != seat:
                out.append((st.cell[u], 1.5))
        for c in geo.stars:
            o = st.occ[c]
            if o < 0:
                out.append((c, 0.5))
        for c in geo.mines:
            if st.occ[c] < 0:
                out.append((c, 1.0))
        return out

    def _dist(self, st, a: int, b: int) -> int:
        W = st.game.W
        ar, ac = divmod(a, W)
        br, bc = divmod(b, W)
        return abs(ar - br) + abs(ac - bc)

    def _goal_distance(self, st, x: int, objectives) -> float:
        if not objectives:
            return 0.0
        return min(self._dist(st, x, c) + w for c, w in objectives)

    def _good_attacks(self, st, uid: int) -> list[tuple[float, int]]:
        out = []
        for x in st.unit_options(uid)["attack"]:
            if x == st.cell[uid]:
                site = st.geo.site_of[x]
                if st.city_owner[site] < 0:
                    out.append((100.0, x))               # a free city: always
                    continue
            edge = self._exp_attack(st, uid) - self._exp_defence(st, uid, x)
            if edge >= 1.0:
                o = st.occ[x]
                value = st.game.specs[o].cost if o >= 0 else 3.0
                out.append((edge + value, x))
        out.sort(reverse=True)
        return out

    def _ability_choice(self, st, uid: int) -> int:
        """A target cell for the selected unit's ability, or -1 when it is not worth it."""
        g = st.game
        targets = st.unit_options(uid)["ability"]
        if not targets:
            return -1
        ab = g.specs[uid].ability
        if g.specs[uid].group == "sorcerer":
            return max(targets, key=lambda x: g.specs[st.occ[x]].cost)
        if ab == "necromancer":
            return targets[0]
        if ab == "energize":
            for x in targets:
                o = st.occ[x]
                if st.moved[o] and st.attacked[o]:
                    return x
            return -1
        if ab == "share" and not self._good_attacks(st, uid):
            for x in targets:
                o = st.occ[x]
                if not st.attacked[o] and st.unit_options(o)["attack"]:
                    return x
        return -1

    # ------------------------------------------------------------------ policy --------------
    def act(self, obs, state=None) -> int:
        if state is None:
            raise ValueError("the Zaberias heuristic needs the engine state (needs_state=True)")
        st = state
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        a = self._choose(st, mask)
        if a is None or not mask[a]:
            return self.random_legal(mask)
        return int(a)

    def _choose(self, st, mask):
        g, L, U = st.game, st.game.layout, st.game.U
        seat = st.current_player
        ph = st.phase
        if ph == "tie":
            return L.REROLL
        if ph == "siphon":
            s = st.overfull[0]
            return L.RELEASE + min(range(len(st.held[s])), key=lambda k: g.specs[st.held[s][k]].cost)
        if ph == "ambush":
            c = st.combat
            lead = c["attackers"][0]
            att = sum(self._exp_attack(st, u) for u in c["attackers"])
            if att < self._exp_defence(st, lead, c["target"]) + 3:
                joins = np.flatnonzero(mask[L.JOIN:L.JOIN + U])
                if len(joins):
                    return L.JOIN + int(joins[0])
            return L.ROLL
        if ph == "pickup":              # Dragon: take the wood unit along (strength adds up)
            return L.MOVE + int(np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])[0])
        if ph == "tele_move":           # Teleporter holding a unit: stay unless it must walk
            if mask[L.STOP]:
                return L.STOP
            return L.MOVE + int(np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])[0])
        if ph == "buy_city":
            return L.MOVE + int(np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])[0])
        objectives = self._objectives(st, seat)
        if ph in ("teleport", "rhino"):
            cells = np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])
            here = st.cell[st.sel] if ph == "rhino" else -1
            best = min(cells, key=lambda x: self._goal_distance(st, int(x), objectives)) \
                if len(cells) else None
            if ph == "rhino" and (best is None or self._goal_distance(st, int(best), objectives)
                                  >= self._goal_distance(st, here, objectives)):
                # keep trampling if an enemy is in the way, otherwise stop
                for x in cells:
                    if st.occ[int(x)] >= 0:
                        return L.MOVE + int(x)
                return L.STOP
            assert best is not None, "a teleport is offered only with a square to land on"
            return L.MOVE + int(best)
        if ph == "unit":
            return self._unit_action(st, st.sel, mask, objectives)
        return self._main_action(st, seat, mask, objectives)

    def _unit_action(self, st, uid, mask, objectives):
        L = st.game.layout
        good = self._good_attacks(st, uid)
        if good:
            return L.ATTACK + good[0][1]
        ab = self._ability_choice(st, uid)
        if ab >= 0:
            return L.ABILITY + ab
        opts = st.unit_options(uid)
        if opts["plague"]:
            return L.PLAGUE
        if opts["move"]:
            here = st.cell[uid]
            best = min(opts["move"], key=lambda x: (self._goal_distance(st, x, objectives),
                                                     self.rng.random()))
            if st.game.specs[uid].ability == "trample" or \
                    self._goal_distance(st, best, objectives) < self._goal_distance(st, here, objectives) \
                    or st.geo.site_of[here] >= 0:
                return L.MOVE + best
        if opts["rotate"]:
            return L.ROTATE
        return None

    def _main_action(self, st, seat, mask, objectives):
        g, L, U = st.game, st.game.layout, st.game.U
        selectable = [seat * U + int(s) for s in np.flatnonzero(mask[L.SELECT:L.SELECT + U])]
        # 1. attacks and takeovers
        for u in selectable:
            if self._good_attacks(st, u):
                return L.SELECT + u % U
        # 2. useful abilities
        for u in selectable:
            if self._ability_choice(st, u) >= 0 or st.unit_options(u)["plague"]:
                return L.SELECT + u % U
        # 3. buying (strongest affordable)
        buys = [int(s) for s in np.flatnonzero(mask[L.BUY:L.BUY + U])]
        if buys:
            best = max(buys, key=lambda s: (g.rosters[seat][s].cost, self.rng.random()))
            return L.BUY + best
        # 4. moves towards objectives (units in cities first, so that cities can create)
        movers = []
        for u in selectable:
            opts = st.unit_options(u)
            if not opts["move"]:
                continue
            here = st.cell[u]
            nearest = min(self._goal_distance(st, x, objectives) for x in opts["move"])
            if g.specs[u].ability == "trample" or nearest < self._goal_distance(st, here, objectives) \
                    or st.geo.site_of[here] >= 0:
                movers.append(u)
        if movers:
            return L.SELECT + movers[0] % U
        # 5. upgrade a city
        ups = np.flatnonzero(mask[L.UPGRADE:L.UPGRADE + g.S])
        if len(ups):
            return L.UPGRADE + int(ups[0])
        cas = np.flatnonzero(mask[L.CITYATK:L.CITYATK + g.S])
        if len(cas):
            return L.CITYATK + int(cas[0])
        return L.END
