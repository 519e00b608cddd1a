"""Rule-based Zaberias baseline (reads the engine state: ``needs_state = True``).

Greedy, one decision at a time:
- take vacant city sites at once (it is the unit's attack);
- attacks are planned as ambushes: for every enemy unit or city some unit can attack now, the
  friends that could join are added one by one (those out of the defender's reach first) and the
  group is scored by its win chance (a normal approximation of dice + muscle against the defence:
  unit, city dice, assisting muscle; ties re-rolled) times what it takes (unit costs, city worth,
  a tribe's last piece) minus the chance of losing times the attackers the defender reaches; the
  best group attacks when that pays (an attack nobody can lose to always does), its partners join
  the ambush; ties are re-rolled;
- sorcerers shoot the strongest enemy in range; helpers renew / boost / revive when it pays;
- move every unit once towards the nearest objective (vacant sites, enemy cities, weak enemies,
  unheld power stars, gold mines), clearing own cities so that they can create units;
- with three or four tribes (two-player play is untouched by this): the weakest enemy (least
  material) is the focus: its cities and units draw the units first and taking them pays 1.3
  times as much (finishing a tribe ends games); ahead of every enemy (material at least 1.1 times
  theirs) the units go only for enemy cities and units (mines and stars no longer win anything)
  and attack at a lower bar (a win chance of 0.45, any expected gain);
- buy the strongest affordable unit, upgrade cities when nothing can be bought;
- a Siphon over capacity releases its cheapest prisoner; the Rhino Rider tramples towards enemies.

Styles (``HeuristicAgent(game, seed, style=...)``, ``agents.heuristics.make_heuristic``): ``default``
as above (the baseline everywhere); ``no_focus`` the same without the focus on the weakest enemy
(every enemy alike). One seat playing ``no_focus`` among three default heuristics takes first place
~1.3 times as often (docs/training-notes.md); the ``plan`` agent picks a style each turn.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..envs.zaberias import combat as CB
from ..envs.zaberias import movement as M
from .base import RuleBasedAgent


def _phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


@functools.lru_cache(maxsize=8)
def _grid_distances(h: int, w: int) -> np.ndarray:
    """float64[h*w, h*w]: the grid (Manhattan) distance between every two cells."""
    r, c = np.divmod(np.arange(h * w), w)
    return (np.abs(r[:, None] - r[None, :]) + np.abs(c[:, None] - c[None, :])).astype(np.float64)


class HeuristicAgent(RuleBasedAgent):
    #: ways to play (``style=``): ``default`` (the baseline); ``no_focus``: no gang-up on the weakest
    #: enemy with three or four tribes (every enemy is a target alike). The ``plan`` agent
    #: (agents/lookahead.py) picks one a turn by rollouts.
    STYLES = ("default", "no_focus")
    #: the enemy seat the units gang up on (3-4 players: the weakest; -1: none)
    _focus = -1
    #: the ambush being declared: (turn, target cell, lead, partners)
    _plan: tuple | None = None
    #: an attack needs this expected gain and (if a loss costs anything) this win chance; lower
    #: when ahead of every enemy with three or four tribes (a lead is turned into eliminations)
    _min_ev, _min_p = 0.5, 0.55
    #: ``_goal_distance``'s map of every cell for the objectives list ``_goal_of``
    _goal_of: list | None = None
    _goal_map: np.ndarray | None = None

    # ------------------------------------------------------------------ helpers -------------
    def _objectives(self, st, seat: int) -> list[tuple[int, float]]:
        """(cell, weight) targets; a lower weight is more attractive. With a focus (three or
        four tribes) its cities and units come first; ahead of every enemy, the units go only
        for enemy cities and units (mines and stars no longer win anything)."""
        g, U, geo = st.game, st.game.U, st.geo
        out = []
        focus = self._focus
        for s, c in enumerate(geo.site_cells):
            if st.city_owner[s] < 0:
                o = st.occ[c]
                if o < 0 or o // U != seat:
                    out.append((c, 0.0))
            elif st.city_owner[s] != seat:
                out.append((c, -1.0 if st.city_owner[s] == focus else 1.0))
        for u in range(len(g.specs)):
            if st.status[u] == M.BOARD and u // U != seat:
                out.append((st.cell[u], 0.5 if u // U == focus else 1.5))
        if focus >= 0 and self._ahead(st, seat):
            return out
        for c in geo.stars:
            o = st.occ[c]
            if o < 0:
                out.append((c, 0.5))
        for c in geo.mines:
            if st.occ[c] < 0:
                out.append((c, 1.0))
        return out

    def _goal_distance(self, st, x: int, objectives) -> float:
        """min over the (cell, weight) ``objectives`` of the grid distance from ``x`` plus the
        weight. Every cell's value is computed at once for a list of objectives (numpy) and kept
        while the same list is asked about: a decision asks it for many cells."""
        if not objectives:
            return 0.0
        if self._goal_of is not objectives:
            goal, weight = zip(*objectives)
            self._goal_map = (_grid_distances(st.game.H, st.game.W)[:, list(goal)] + np.asarray(weight)).min(axis=1)
            self._goal_of = objectives   # held, so the identity cannot be another list's
        assert self._goal_map is not None
        return float(self._goal_map[x])

    def _good_attacks(self, st, uid: int) -> list[tuple[float, int]]:
        """(score, cell) of the attacks worth declaring with ``uid`` as the lead, best first: a
        vacant site it stands on (100), else every target whose best ambush pays."""
        out = []
        for x in st.unit_options(uid)["attack"]:
            if x == st.cell[uid]:
                site = st.geo.site_of[x]
                if st.city_owner[site] < 0:
                    out.append((100.0, x))               # a free city: always
                    continue
            plan = self._best_group(st, uid, x)
            if plan is not None:
                out.append((plan[0], x))
        out.sort(reverse=True)
        return out

    # ---- battle estimates -------------------------------------------------------------------
    def _die(self, st) -> tuple[float, float]:
        """Mean and variance of one die of the designed die."""
        faces = st.game.die_faces
        m = sum(faces) / len(faces)
        return m, sum((f - m) ** 2 for f in faces) / len(faces)

    def _win_chance(self, st, attackers, x) -> tuple[float, float, float]:
        """(chance the attack on ``x`` by ``attackers`` wins, what a win takes, what a loss
        costs): a normal approximation of the dice + muscle totals (ties are re-rolled, so the
        chance is P(win) / (P(win) + P(lose))); the defence as the engine rolls it (unit, its
        city's dice, assisting friends' muscle)."""
        g, U, geo = st.game, st.game.U, st.geo
        mf, var = self._die(st)
        cost = self._unit_value
        o = st.occ[x]
        site = geo.site_of[x]
        a_dice = sum(M.dice(st, u) for u in attackers)
        a_mus = sum(M.muscle(st, u) for u in attackers)
        if o >= 0 and o not in attackers:                # a defending unit
            seat = o // U
            d_dice, d_mus = M.dice(st, o), M.muscle(st, o)
            d_site = site if site >= 0 and st.city_owner[site] == seat else -1
            gain = cost(st, o)
            reach = (st.cell[o], M.unit_range(st, o))
            lost = [u for u in attackers if geo.in_range(reach[0], st.cell[u], reach[1])]
        else:                                            # a city (empty, or the lead stands in it)
            seat, d_dice, d_mus, d_site = st.city_owner[site], 0, 0, site
            gain = 0.0
            lost = [u for u in attackers if st.cell[u] == x]
        if d_site >= 0:
            d_dice += g.city_dice[st.city_grade[d_site]]
            gain += self._city_value(st.city_grade[d_site])
        sources = [st.cell[u] for u in attackers]
        for v in range(seat * U, seat * U + U):
            if v != o and st.status[v] == M.BOARD:
                rv = M.unit_range(st, v)
                if any(geo.in_range(st.cell[v], s_, rv) for s_ in sources):
                    d_mus += M.muscle(st, v)
        if self._last_piece(st, seat, o, d_site):
            gain += 15.0                                 # the tribe is out: the game moves on
        if seat == self._focus:
            gain *= 1.3
        mean = mf * (a_dice - d_dice) + a_mus - d_mus
        n = a_dice + d_dice
        if n == 0:
            p = 1.0 if mean > 0 else 0.0
        else:
            sd = math.sqrt(var * n)
            pw = 1.0 - _phi((0.5 - mean) / sd)
            pl = _phi((-0.5 - mean) / sd)
            p = pw / (pw + pl) if pw + pl > 0 else 0.5
        return p, gain, sum(cost(st, u) for u in lost)

    @staticmethod
    def _unit_value(st, u: int) -> float:
        """A unit's worth on the map: its cost and its rider's."""
        g = st.game
        r = st.rider[u]
        return float(g.specs[u].cost + (g.specs[r].cost if r >= 0 else 0))

    @staticmethod
    def _city_value(grade: int) -> float:
        """A city's worth: its income and the units it creates (wood 4, metal 6, gold 8)."""
        return 2.0 + 2.0 * grade

    @staticmethod
    def _last_piece(st, seat: int, unit: int, site: int) -> bool:
        """Whether removing ``unit`` (and the city ``site``) leaves ``seat`` with nothing."""
        U = st.game.U
        if any(M.on_map(st, v) and v != unit and st.holder[v] != unit
               for v in range(seat * U, seat * U + U)):
            return False
        return not any(o == seat and s != site for s, o in enumerate(st.city_owner))

    def _partners(self, st, lead: int, x: int) -> list[int]:
        """Friends that could join an attack of ``lead`` on ``x`` (as the engine's ambush would
        offer them), the ones out of the defender's reach first, then the strongest."""
        U, geo = st.game.U, st.geo
        seat = lead // U
        o = st.occ[x]
        out = []
        for u in range(seat * U, seat * U + U):
            if u != lead and M.on_map(st, u) and CB.can_join(st, u, x) \
                    and not (st.status[u] == M.RIDING and st.holder[u] == lead):
                exposed = o >= 0 and geo.in_range(st.cell[o], st.cell[u], M.unit_range(st, o))
                out.append((exposed, -(M.dice(st, u) * 2.5 + M.muscle(st, u)), u))
        return [u for *_, u in sorted(out)]

    def _best_group(self, st, lead: int, x: int):
        """(score, partners) of the best ambush on ``x`` led by ``lead``, or None when no group
        pays: the expected gain p * take - (1 - p) * loss above ``_min_ev``, with a win chance of
        at least ``_min_p`` unless nobody can be lost."""
        group = [lead]
        best = None
        for u in [None] + self._partners(st, lead, x):
            if u is not None:
                group.append(u)
            p, gain, loss = self._win_chance(st, group, x)
            ev = p * gain - (1.0 - p) * loss
            ok = ev > self._min_ev and (loss == 0 or p >= self._min_p)
            if ok and (best is None or ev > best[0] + 0.25):
                best = (ev, tuple(group[1:]))
            if p >= 0.9:
                break
        return best

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
        g, L = st.game, st.game.layout
        seat = st.current_player
        ph = st.phase
        if ph == "tie":
            return L.REROLL
        if ph == "siphon":
            s = st.overfull[0]
            return L.RELEASE + min(range(len(st.held[s])), key=lambda k: g.specs[st.held[s][k]].cost)
        if ph == "ambush":
            return self._ambush_action(st, mask)
        if ph == "pickup":              # Dragon: take the wood unit along (strength adds up)
            return L.MOVE + int(np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])[0])
        if ph == "tele_move":           # Teleporter holding a unit: stay unless it must walk
            if mask[L.STOP]:
                return L.STOP
            return L.MOVE + int(np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])[0])
        if ph == "buy_city":
            return L.MOVE + int(np.flatnonzero(mask[L.MOVE:L.MOVE + g.N])[0])
        self._focus = self._pick_focus(st, seat) if self.style == "default" else -1
        ahead = self._focus >= 0 and self._ahead(st, seat)
        self._min_ev, self._min_p = (0.0, 0.45) if ahead else (0.5, 0.55)
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

    @staticmethod
    def _ahead(st, seat: int) -> bool:
        """Material at least 1.1 times every living enemy's."""
        mine = st.material(seat)
        return all(mine >= 1.1 * st.material(s) for s in range(st.game.num_seats)
                   if s != seat and st.alive[s])

    @staticmethod
    def _pick_focus(st, seat: int) -> int:
        """With three or four tribes: the living enemy with the least material (ganging up on
        the weakest finishes tribes); -1 with two."""
        g = st.game
        if g.num_seats < 3:
            return -1
        enemies = [s for s in range(g.num_seats) if s != seat and st.alive[s]]
        return min(enemies, key=lambda s: (st.material(s), s)) if enemies else -1

    def _ambush_action(self, st, mask):
        """Join the planned partners (``_main_action``), else friends while joining pays."""
        L, U = st.game.layout, st.game.U
        c = st.combat
        plan = self._plan
        if plan is not None and plan[0] == st.turn and plan[1] == c["target"] \
                and plan[2] == c["attackers"][0]:
            for u in plan[3]:
                if u not in c["attackers"] and mask[L.JOIN + u % U]:
                    return L.JOIN + u % U
            return L.ROLL
        group = list(c["attackers"])
        p, gain, loss = self._win_chance(st, group, c["target"])
        best_ev, best = p * gain - (1.0 - p) * loss, None
        for j in np.flatnonzero(mask[L.JOIN:L.JOIN + U]):
            u = c["seat"] * U + int(j)
            p, gain, loss = self._win_chance(st, group + [u], c["target"])
            ev = p * gain - (1.0 - p) * loss
            if ev > best_ev + 0.25:
                best_ev, best = ev, u
        return L.ROLL if best is None else L.JOIN + best % U

    def _unit_action(self, st, uid, mask, objectives):
        L = st.game.layout
        plan = self._plan
        if plan is not None and plan[0] == st.turn and plan[2] == uid \
                and mask[L.ATTACK + plan[1]]:
            return L.ATTACK + plan[1]
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
        # 1. takeovers, then the best-paying attack (an ambush: its partners join it)
        attack: tuple | None = None     # (expected gain, target, lead, partners)
        for u in selectable:
            for x in st.unit_options(u)["attack"]:
                if x == st.cell[u] and st.city_owner[st.geo.site_of[x]] < 0:
                    self._plan = None
                    return L.SELECT + u % U          # a vacant site: take it now
                plan = self._best_group(st, u, x)
                if plan is not None and (attack is None or plan[0] > attack[0]):
                    attack = (plan[0], x, u, plan[1])
        if attack is not None:
            self._plan = (st.turn, attack[1], attack[2], attack[3])
            return L.SELECT + attack[2] % U
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
