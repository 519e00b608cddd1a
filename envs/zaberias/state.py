"""Zaberias: the pure rules engine (numpy + stdlib only).

A mutable ``ZaberiasState`` with a cheap ``clone()``. The turn is a chain of masked sub-steps:
main (buy, upgrade, select a unit or a city, end) -> unit (move, attack, ability) -> follow-ups
(creation city, the Teleporter's own move then the teleport landing, Rhino steps, the Dragon's
pick-up on its way, ambush partners, tie decision, Siphon release).
Section names in comments refer to the rulebook (../shared/rulebooks/zaberias.txt); RULES.md maps
each one to code and tests.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from ..core.game import State, copy_generator, owned_copy, rank_returns
from . import abilities as AB
from . import combat as CB
from . import movement as M
from .actions import cell_name
from .observe import build_observation
from .render import render_rgb, render_text

if TYPE_CHECKING:   # for the type checker only: game.py imports this module
    from .board import Geometry
    from .game import ZaberiasGame
    from .tables import Phase

CITY_WORTH = (0, 1, 3, 6)   # material of a city for the ranking at the round cap (designed)
#: the keys of a position's memo (``_memo``): "mask", "occm" (movement.occupied_mask),
#: ("opt", unit) (``unit_options``), ("uobs", seat) (observe.build_observation's unit planes)
MemoKey = str | tuple[str, int]


class UnitOptions(TypedDict):
    """What a selected unit may do (``unit_options``): the cells of each targeted kind."""

    move: list[int]
    attack: list[int]
    ability: list[int]
    rotate: bool
    plague: bool


class ZaberiasState(State):
    """One position of a Zaberias game."""

    game: ZaberiasGame

    _LIST_FIELDS = ("cell", "status", "holder", "rider", "moved", "attacks", "attacked",
                    "ability_used", "boost", "effects", "death", "occ", "city_owner",
                    "city_grade", "city_acted", "coins", "alive", "out_order", "rots",
                    "prev_turn_start", "turn_started", "turns_taken", "overfull", "order")

    def __init__(self, game: ZaberiasGame, rng: np.random.Generator, _blank: bool = False):
        self.game = game
        self.rng = rng
        if _blank:
            return
        g = game
        n, U = g.num_seats, g.U
        NU = n * U
        self.history = []
        self.seed = None
        self.rots = [0] * n
        self.geo: Geometry = g.maps.geometry(tuple(self.rots))
        self.cell = [-1] * NU
        self.status = [M.ARMORY] * NU
        self.holder = [-1] * NU
        #: units a Siphon holds underneath it
        self.held: list[list[int]] = [[] for _ in range(NU)]
        self.rider = [-1] * NU
        self.moved = [True] * NU
        self.attacks = [0] * NU
        self.attacked = [True] * NU
        self.ability_used = [True] * NU
        #: the Spider Witch's share: (dice, muscle, steps) added this turn
        self.boost: list[tuple[int, int, int]] = [(0, 0, 0)] * NU
        self.effects = [0] * NU
        #: (cell, turn) of a unit's fall, for the Necromancer; None while it has not fallen
        self.death: list[tuple[int, int] | None] = [None] * NU
        self.occ = [-1] * g.N
        self.city_owner = [-1] * g.S
        self.city_grade = [0] * g.S
        self.city_acted = [False] * g.S
        for seat in range(n):           # each player starts with a wood city in the home slot
            site = seat * g.sites_per_board
            self.city_owner[site], self.city_grade[site] = seat, 1
        self.coins = [g.rules["start_coins"]] * n
        self.alive = [True] * n
        self.out_order: list[int] = []
        self.turn = 0
        self.prev_turn_start = [0] * n
        self.turn_started = [0] * n
        self.turns_taken = [0] * n
        self.overfull: list[int] = []
        self.pickup: list[int] = []     # Dragon: cells of wood units it may pick up on its way
        self.lifted = -1                # Teleporter: the unit in the air (its square is free)
        self.combat: CB.Combat | None = None
        self.sel = -1
        self.pending_unit = -1
        self.rhino_left = 0
        self.tie_seat = -1
        self.last_battle = (0, 0)
        self.capped = False
        self.phase: Phase = "main"
        # values of several kinds, one per key kind (MemoKey): each reader knows its own
        self._memo: dict[MemoKey, Any] = {}
        # "Who goes first?": everyone rolls a die, the highest starts (ties roll again),
        # then play goes clockwise (seat order)
        contenders = list(range(n))
        while len(contenders) > 1:
            rolls = [int(self.rng.integers(6)) for _ in contenders]
            best = max(rolls)
            contenders = [s for s, r in zip(contenders, rolls) if r == best]
        first = contenders[0]
        self.order = [(first + i) % n for i in range(n)]
        self.cur = first
        self._start_turn(first)

    # ------------------------------------------------------------------ cloning -------------
    def clone(self) -> "ZaberiasState":
        s = ZaberiasState(self.game, copy_generator(self.rng), _blank=True)
        d = s.__dict__
        for k, v in self.__dict__.items():
            if k not in ("game", "rng", "_memo", "geo"):
                d[k] = owned_copy(v)
        s.geo = self.geo     # the game's geometry table for these board rotations (read-only)
        s._memo = {}
        return s

    # ------------------------------------------------------------------ helpers -------------
    def dragon_of(self, seat: int) -> int:
        """The seat's carrying Dragon (Humans), or -1."""
        return self.game.ability_uid.get((seat, "carry"), -1)

    def base_attacks(self, uid: int) -> int:
        """Two Headed Dragon attacks twice (one attack less while dazzled)."""
        return 2 if M.ability_active(self, uid, "twohead") else 1

    def rebuild_occ(self) -> None:
        self.occ = [-1] * self.game.N
        for u in range(len(self.game.specs)):
            if self.status[u] == M.BOARD and u != self.lifted:
                self.occ[self.cell[u]] = u
            elif self.status[u] == M.RIDING:
                self.cell[u] = self.cell[self.holder[u]]

    def _fresh(self, uid: int) -> None:
        self.moved[uid] = False
        self.attacks[uid] = self.base_attacks(uid)
        self.attacked[uid] = False
        self.ability_used[uid] = False
        self.boost[uid] = (0, 0, 0)
        self.effects[uid] = 0
        self.death[uid] = None

    def place_unit(self, uid: int, x: int) -> None:
        """Put a unit from the armory on ``x`` (bought or revived), sharing with a Dragon."""
        o = self.occ[x]
        self._fresh(uid)
        self.cell[uid] = x
        if o >= 0:
            if self.game.specs[o].ability == "carry":      # a wood unit created onto its Dragon
                self.status[uid], self.holder[uid] = M.RIDING, o
                self.rider[o] = uid
                return
            # a Dragon created where its wood unit stands: the unit climbs on
            self.status[o], self.holder[o] = M.RIDING, uid
            self.rider[uid] = o
        self.status[uid], self.holder[uid] = M.BOARD, -1
        self.occ[x] = uid

    def relocate(self, uid: int, x: int) -> None:
        """Move a standing unit (and its rider) to ``x`` (moves, teleports)."""
        self.occ[self.cell[uid]] = -1
        self.cell[uid] = x
        self.occ[x] = uid
        if self.rider[uid] >= 0:
            self.cell[self.rider[uid]] = x

    def buy_cities(self, uid: int) -> list[int]:
        """City cells where the unit may be created now (rulebook 10 and the Dragon Q&A)."""
        g = self.game
        spec = g.specs[uid]
        seat = uid // g.U
        out = []
        for s, cell in enumerate(self.geo.site_cells):
            if self.city_owner[s] != seat or self.city_grade[s] < spec.grade:
                continue
            o = self.occ[cell]
            if o < 0:
                out.append(cell)
            elif o // g.U == seat and self.status[o] == M.BOARD:
                if spec.grade == 1 and g.specs[o].ability == "carry" and self.rider[o] < 0:
                    out.append(cell)
                elif spec.ability == "carry" and g.specs[o].grade == 1:
                    out.append(cell)
        return out

    def unit_options(self, uid: int) -> UnitOptions:
        """Everything the unit may do now (memoised per position)."""
        key = ("opt", uid)
        got: UnitOptions | None = self._memo.get(key)
        if got is not None:
            return got
        spec = self.game.specs[uid]
        out: UnitOptions = {"move": [], "attack": [], "ability": [], "rotate": False, "plague": False}
        if M.on_map(self, uid):
            if M.can_move(self, uid):
                if spec.ability == "trample" and self.status[uid] == M.BOARD:
                    self.rhino_left = M.steps(self, uid)
                    out["move"] = M.rhino_steps(self, uid)
                    self.rhino_left = 0
                else:
                    out["move"] = M.reach_cells(self, uid)
            out["attack"] = CB.attack_targets(self, uid)
            out["ability"] = AB.ability_targets(self, uid)
            out["rotate"] = AB.can_rotate(self, uid)
            out["plague"] = AB.can_plague(self, uid)
        self._memo[key] = out
        return out

    def has_options(self, uid: int) -> bool:
        """Whether selecting the unit offers anything (cheap checks, same answer as
        ``unit_options``)."""
        got: UnitOptions | None = self._memo.get(("opt", uid))
        if got is not None:
            return bool(got["move"] or got["attack"] or got["ability"] or got["rotate"]
                        or got["plague"])
        if not M.on_map(self, uid):
            return False
        if M.can_step(self, uid) or CB.has_attack_target(self, uid):
            return True
        ab = self.game.specs[uid].ability
        if ab in AB.TARGETED:
            return bool(AB.ability_targets(self, uid))
        if ab == "rotate":
            return AB.can_rotate(self, uid)
        if ab == "plague":
            return AB.can_plague(self, uid)
        return False

    def occ_cells(self) -> list[int]:
        """Cells of the standing units (riders share their Dragon's cell; a unit the Teleporter
        holds in the air has left its square)."""
        status, cell, lifted = self.status, self.cell, self.lifted
        return [cell[u] for u in range(len(status)) if status[u] == M.BOARD and u != lifted]

    # ------------------------------------------------------------------ turn flow -----------
    def _start_turn(self, seat: int) -> None:
        g = self.game
        U = g.U
        self.cur = seat
        self.turn += 1
        # Necromancer: units fallen since the start of this seat's previous turn
        self.prev_turn_start[seat] = self.turn_started[seat] or self.turn
        self.turn_started[seat] = self.turn
        self.turns_taken[seat] += 1
        self.phase = "main"
        self.sel = -1
        # income: cities (wood 1, metal 2, gold 3) and occupied gold mines, never above six
        if g.rules["income_first_turn"] or self.turns_taken[seat] > 1:
            income = sum(g.city_income[self.city_grade[s]] for s in range(g.S)
                         if self.city_owner[s] == seat)
            income += sum(1 for c in self.geo.mines if self.occ[c] >= 0 and self.occ[c] // U == seat)
            self.coins[seat] = min(g.rules["max_coins"], self.coins[seat] + income)
        for s in range(g.S):
            self.city_acted[s] = False
        for u in range(seat * U, seat * U + U):
            if M.on_map(self, u):
                self.moved[u] = False
                self.attacked[u] = False
                self.ability_used[u] = False
                self.attacks[u] = self.base_attacks(u)
                if self.effects[u] & M.SHOCK:
                    self.attacks[u] = max(0, self.attacks[u] - 1)   # Cyclops: one attack lost

    def _end_turn(self) -> None:
        g = self.game
        U = g.U
        seat = self.cur
        for u in range(seat * U, seat * U + U):
            self.effects[u] = 0          # one-turn effects end with their target's turn
            self.boost[u] = (0, 0, 0)
        self.sel = -1
        self.pending_unit = -1
        # the round cap: every living tribe has had its turns of the last round (with tribes
        # out, rounds are counted, not the turns all players together could have had)
        if all(self.turns_taken[s] >= g.round_cap for s in range(g.num_seats) if self.alive[s]):
            self.capped = True
            return self._game_over()
        i = self.order.index(seat)
        for step in range(1, g.num_seats + 1):
            nxt = self.order[(i + step) % g.num_seats]
            if self.alive[nxt]:
                return self._start_turn(nxt)
        self._game_over()

    def check_eliminations(self) -> None:
        """A tribe with no units and no cities is out; the last one standing wins."""
        g = self.game
        U = g.U
        for seat in range(g.num_seats):
            if not self.alive[seat]:
                continue
            units = any(M.on_map(self, u) for u in range(seat * U, seat * U + U))
            cities = any(o == seat for o in self.city_owner)
            if not units and not cities:
                self.alive[seat] = False
                self.out_order.append(seat)
        if sum(self.alive) <= 1:
            return self._game_over()
        if not self.alive[self.cur] and self.phase != "over":
            self.phase = "main"
            self._end_turn()

    def _game_over(self) -> None:
        self.phase = "over"
        self.cur = -1
        self.combat = None

    # ------------------------------------------------------------------ engine API ----------
    @property
    def current_player(self) -> int:
        if self.phase == "over":
            return -1
        if self.phase == "siphon":
            return self.overfull[0] // self.game.U
        return self.cur

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def phase_name(self) -> Phase:
        return self.phase

    def legal_actions_mask(self) -> np.ndarray:
        got: np.ndarray | None = self._memo.get("mask")
        if got is not None:
            return got.copy()
        g = self.game
        L = g.layout
        U = g.U
        mask = np.zeros(g.num_actions, np.int8)
        ph = self.phase
        seat = self.cur
        if ph == "main":
            mask[L.END] = 1
            for slot in range(U):
                u = seat * U + slot
                st = self.status[u]
                if st in (M.BOARD, M.RIDING):
                    if self.has_options(u):
                        mask[L.SELECT + slot] = 1
                elif st == M.ARMORY and g.specs[u].cost <= self.coins[seat] and self.buy_cities(u):
                    mask[L.BUY + slot] = 1
            for s in range(g.S):
                if self.city_owner[s] != seat:
                    continue
                gr = self.city_grade[s]
                if gr < 3 and g.city_cost[gr + 1] <= self.coins[seat]:
                    mask[L.UPGRADE + s] = 1
                o = self.occ[self.geo.site_cells[s]]
                if not self.city_acted[s] and o >= 0 and o // U != seat:
                    mask[L.CITYATK + s] = 1
        elif ph == "unit":
            opt = self.unit_options(self.sel)
            # one fancy-index write per kind instead of one numpy write per cell
            for base, cells in ((L.MOVE, opt["move"]), (L.ATTACK, opt["attack"]),
                                (L.ABILITY, opt["ability"])):
                if cells:
                    mask[[base + x for x in cells]] = 1
            if opt["rotate"]:
                mask[L.ROTATE:L.ROTATE + 3] = 1
            if opt["plague"]:
                mask[L.PLAGUE] = 1
        elif ph == "buy_city":
            for x in self.buy_cities(self.pending_unit):
                mask[L.MOVE + x] = 1
        elif ph == "teleport":
            for x in AB.teleport_destinations(self, self.sel, self.pending_unit):
                mask[L.MOVE + x] = 1
        elif ph == "tele_move":
            for x in AB.tele_move_cells(self, self.sel, self.pending_unit):
                mask[L.MOVE + x] = 1
            if AB.teleport_destinations(self, self.sel, self.pending_unit):
                mask[L.STOP] = 1
        elif ph == "pickup":
            for x in self.pickup:
                mask[L.MOVE + x] = 1
            mask[L.STOP] = 1
        elif ph == "rhino":
            for x in M.rhino_steps(self, self.sel):
                mask[L.MOVE + x] = 1
            mask[L.STOP] = 1
        elif ph == "ambush":
            for u in CB.ambush_partners(self):
                mask[L.JOIN + u % U] = 1
            mask[L.ROLL] = 1
        elif ph == "tie":
            mask[L.REROLL] = 1
            mask[L.STANDDOWN] = 1
        elif ph == "siphon":
            mask[L.RELEASE:L.RELEASE + len(self.held[self.overfull[0]])] = 1
        self._memo["mask"] = mask
        return mask.copy()

    def _apply(self, action: int) -> None:
        g = self.game
        L = g.layout
        U = g.U
        kind, arg = L.decode(action)
        seat = self.cur
        kept = None
        if self.phase == "main" and kind in ("select", "buy", "upgrade"):
            kept = {k: v for k, v in self._memo.items()
                    if k == "occm" or (isinstance(k, tuple) and k[0] == "uobs")}
        self._memo = {}
        ph = self.phase
        if ph == "main":
            if kind == "end":
                self._end_turn()
            elif kind == "select":
                self.sel = seat * U + arg
                self.phase = "unit"
            elif kind == "buy":
                self.pending_unit = seat * U + arg
                self.phase = "buy_city"
            elif kind == "upgrade":
                gr = self.city_grade[arg] + 1
                self.coins[seat] -= g.city_cost[gr]
                self.city_grade[arg] = gr
            elif kind == "cityatk":
                CB.begin_city_attack(self, arg)
        elif ph == "unit":
            u = self.sel
            if kind == "move":
                if g.specs[u].ability == "trample" and self.status[u] == M.BOARD:
                    self.rhino_left = M.steps(self, u)
                    self.moved[u] = True
                    self.phase = "rhino"
                    self._rhino_step(u, arg)
                else:
                    self.phase = "main"
                    self._move(u, arg)
            elif kind == "attack":
                self.phase = "main"
                CB.begin_attack(self, u, arg)
            elif kind == "ability":
                AB.use_ability(self, u, arg)
            elif kind == "rotate":
                AB.rotate(self, u, arg + 1)
            elif kind == "plague":
                AB.plague(self, u)
        elif ph == "buy_city":
            u = self.pending_unit
            self.coins[seat] -= g.specs[u].cost
            self.place_unit(u, arg)
            self.pending_unit = -1
            self.phase = "main"
        elif ph == "teleport":
            AB.teleport(self, self.sel, self.pending_unit, arg)
        elif ph == "tele_move":
            AB.tele_move(self, self.sel, None if kind == "stop" else arg)
        elif ph == "pickup":
            if kind == "move":
                self._pick_up(self.sel, self.occ[arg])
            self.pickup = []
            self.phase = "main"
        elif ph == "rhino":
            if kind == "stop":
                self.rhino_left = 0
                self.phase = "main"
                CB.finish_removals(self)
            else:
                self._rhino_step(self.sel, arg)
        elif ph == "ambush":
            if kind == "join":
                CB.join(self, seat * U + arg)
            else:
                CB.resolve(self)
        elif ph == "tie":
            CB.tie_decision(self, kind == "reroll")
        elif ph == "siphon":
            CB.release(self, arg)
        if self.phase != "over" and len(self.history) + 1 >= g.action_cap:
            self.capped = True
            self._game_over()
        self._memo = {}
        if kept:      # no unit changed: the unit planes and the occupancy mask still hold
            self._memo.update(kept)

    def _move(self, u: int, x: int) -> None:
        g = self.game
        self.moved[u] = True
        o = self.occ[x]
        if self.status[u] == M.RIDING:              # getting off the Dragon
            self.rider[self.holder[u]] = -1
            self.status[u], self.holder[u] = M.BOARD, -1
            self.cell[u] = x
            self.occ[x] = u
            return
        if o >= 0 and o // g.U == u // g.U:
            if g.specs[o].ability == "carry":       # a wood unit climbs on its Dragon: move over
                self.occ[self.cell[u]] = -1
                self.cell[u] = x
                self.status[u], self.holder[u] = M.RIDING, o
                self.rider[o] = u
                return
            # the Dragon lands on an unmoved wood unit and picks it up
            self.occ[x] = -1
            self.relocate(u, x)
            self.status[o], self.holder[o] = M.RIDING, u
            self.rider[u] = o
            return
        if g.specs[u].ability == "carry" and self.rider[u] < 0:
            # Dragon Q&A: an unmoved wood unit on its way may be picked up (follow-up sub-step)
            cells = M.pickup_cells(self, u, self.cell[u], x)
            self.relocate(u, x)
            if cells:
                self.pickup = cells
                self.phase = "pickup"
            return
        self.relocate(u, x)

    def _pick_up(self, dragon: int, o: int) -> None:
        """The Dragon picked up the unmoved wood unit ``o`` on its way: ``o`` rides it, unmoved
        (it may get off and move later this turn)."""
        self.occ[self.cell[o]] = -1
        self.cell[o] = self.cell[dragon]
        self.status[o], self.holder[o] = M.RIDING, dragon
        self.rider[dragon] = o

    def _rhino_step(self, u: int, x: int) -> None:
        """Rhino Rider: one step; wood/metal enemies in its way are trampled (not an attack)."""
        o = self.occ[x]
        if o >= 0:
            CB.kill(self, o, u)
        self.relocate(u, x)
        self.rhino_left -= 1
        if self.rhino_left <= 0 or not M.rhino_steps(self, u):
            self.rhino_left = 0
            self.phase = "main"
            CB.finish_removals(self)

    # ------------------------------------------------------------------ results -------------
    def material(self, seat: int) -> int:
        """Unit costs on the map + city worth (wood 1, metal 3, gold 6) + coins."""
        g = self.game
        U = g.U
        units = sum(g.specs[u].cost for u in range(seat * U, seat * U + U) if M.on_map(self, u))
        cities = sum(CITY_WORTH[self.city_grade[s]] for s in range(g.S) if self.city_owner[s] == seat)
        return units + cities + self.coins[seat]

    def scores(self) -> list[float]:
        """Rank keys: survivors by material (above everyone out), the out by elimination order."""
        n = self.game.num_seats
        out = []
        for s in range(n):
            if self.alive[s]:
                out.append(1000.0 + self.material(s))
            else:
                out.append(float(self.out_order.index(s)))
        return out

    def returns(self) -> np.ndarray:
        if self.phase != "over":
            return np.zeros(self.game.num_seats)
        return rank_returns(self.scores())

    def final_info(self) -> dict[str, Any]:
        """``ended_by``: ``"rules"`` when one tribe is left (the rulebook's only ending), ``"cap"``
        at the round or action cap (safety backstops the rulebook does not have; survivors rank
        by material); ``rounds``: rounds played (the most turns any player has taken)."""
        if self.phase != "over":
            return {}
        return {"ended_by": "cap" if self.capped else "rules", "rounds": max(self.turns_taken),
                "scores": self.scores(), "capped": self.capped, "out_order": list(self.out_order),
                "turns": self.turn}

    # ------------------------------------------------------------------ views ---------------
    def _observation(self, seat: int) -> np.ndarray:
        return build_observation(self, seat)

    def action_to_str(self, action: int) -> str:
        g = self.game
        kind, arg = g.layout.decode(action)
        W = g.W
        seat = self.cur if self.cur >= 0 else 0
        name = lambda slot: g.rosters[seat][slot].name  # noqa: E731
        if kind == "end":
            return "end turn"
        if kind in ("select", "buy", "join"):
            return f"{kind} {name(arg)}"
        if kind in ("upgrade", "cityatk"):
            verb = "upgrade city" if kind == "upgrade" else "city attacks the unit in"
            return f"{verb} at {cell_name(self.geo.site_cells[arg], W)}"
        if kind == "move" and self.phase == "pickup":
            return f"pick up the unit on {cell_name(arg, W)}"
        if kind == "move" and self.phase == "buy_city":
            return f"create it in the city at {cell_name(arg, W)}"
        if kind == "attack" and self.sel >= 0 and arg == self.cell[self.sel]:
            return f"attack the city it stands in at {cell_name(arg, W)}"
        if kind == "stop" and self.phase in ("pickup", "tele_move"):
            return "no pick-up" if self.phase == "pickup" else "the Teleporter stays"
        if kind in ("move", "attack", "ability"):
            return f"{kind} {cell_name(arg, W)}"
        if kind == "rotate":
            return f"rotate board {90 * (arg + 1)} degrees clockwise"
        if kind == "release":
            return f"release held unit #{arg}"
        return kind

    def illegal_reason(self, action: int) -> str:
        kind, _ = self.game.layout.decode(action)
        return f"a {kind!r} action is not available in phase {self.phase!r} here"

    def render_text(self, observer: int | None = None, color: bool = False) -> str:
        return render_text(self, observer, color)

    def render_rgb(self, observer: int | None = None) -> np.ndarray:
        return render_rgb(self, observer)
