"""Warbah game state: set-up, turn phases, movement/exploration, battles, recovery, end."""
from __future__ import annotations


import numpy as np

from ..core.game import State, copy_generator, owned_copy, rank_returns
from . import battle as B
from . import block_b as BB
from . import luck as LUCK
from . import spells as SP
from .board import DIR_NAMES, edge, generate_map
from .config import (BASIC, CALL_OFF, CAPITOL0, CAPITOL_AUTO, CASUALTY0, CONTINUE,
                                DONE, DROP_OFF, EXCHANGE0, RECRUIT, RECRUIT_HERO, SEA0, SETTLEMENTS,
                                RECRUIT_WIZARD, TAKE_GARRISON,
                                TERRAINS)

PHASES = ("capitol", "recruit", "move", "battle", "casualty", "call_off", "over")
JOIN_PHASES = ("join", "join_answer")  # combined attacks (combat_flow.JOIN_PHASES)


def d10(rng, n: int = 1) -> int:
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n, without the array
        return sum([int(rng.integers(1, 11)) for _ in range(n)])
    return sum(rng.integers(1, 11, size=n).tolist())


_CF = None  # envs.warbah.combat_flow, imported on first use (it imports this module)


def _combat_flow():
    global _CF
    from . import combat_flow
    _CF = combat_flow
    return combat_flow

_OBSERVE = None  # envs.warbah.observe.observe, imported on first use (it imports this module)


try:  # numpy's C function behind np.count_nonzero(a) (no Python-level wrapper per call)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - other numpy layouts
    _count_nonzero = np.count_nonzero
_INT8 = np.dtype(np.int8)


def _one_above_1(m: np.ndarray) -> bool:
    """m.max() > 1 for an int8 mask with exactly one nonzero entry, without a numpy reduction:
    stripping the zero bytes leaves that entry's byte; as int8 it is above 1 for 2..127."""
    return 1 < m.tobytes().strip(b"\0")[0] < 128


_WAIT_PHASES = frozenset(("casualty", "call_off") + SP.BATTLE_PHASES + JOIN_PHASES)


def _grant_units(g) -> dict:
    """{ability name: units.SPECIALS indices of the kinds that grant it} from the Game's
    special_units table (built once per Game; names no kind grants are absent)."""
    t = g.__dict__.get("_grant_units")
    if t is None:
        table, t = g.cfg["special_units"], {}
        for u, kind in enumerate(BB.UNITS.SPECIALS):
            for a in table[kind].get("grants", ()):
                if u not in t.setdefault(a, []):
                    t[a].append(u)
        g._grant_units = t
    return t


def _observe_fn():
    global _OBSERVE
    from .observe import observe
    _OBSERVE = observe
    return observe


#: what clones share: the game's tables and the read-only grid tables drawn at set-up (an array
#: with writeable=False, tuples); the generator is copied by state
_SHARED_FIELDS = frozenset({"game", "rng", "cand", "nb", "nbl"})


class WarbahState(State):
    def __init__(self, game, rng):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        g, n = game, game.n_cells
        d = g.cfg["designed"]
        land, rivers, cand, nb = generate_map(
            rng, g.h, g.w, d["capitol_candidates"], g.cfg["sea"]["island_min_size"])  # islands
        # the hex grid's neighbour table and the capitol candidates never change: read-only,
        # shared by every clone (land and rivers are copied: scenario tests edit them)
        nb.flags.writeable = False
        self.land, self.rivers, self.cand, self.nb = land, rivers, tuple(cand), nb
        self.explored = np.zeros(n, bool)
        self.terrain = -np.ones(n, np.int64)      # index into TERRAINS, -1 unknown / water
        self.settle = -np.ones(n, np.int64)       # index into SETTLEMENTS
        self.encounter = np.zeros(n, np.int64)    # 0 none, -1 unknown type, k>0 known type k
        self.owner = -np.ones(n, np.int64)
        self.variant = [""] * n                   # terrain variant name ("" none)
        self.garrison = np.zeros((n, 4), np.int64)
        self.gsp = np.zeros((n, 13), np.int64)    # special units in garrisons (units.SPECIALS)
        self.wall_damage = np.zeros(n, np.int64)
        self.recruited = np.zeros(n, np.int64)
        self.heroes: list[dict] = []
        N = g.num_seats
        self.gold = np.full(N, d["start_gold"], np.int64)
        self.alive = np.ones(N, bool)
        self.out_turn = np.zeros(N, np.int64)
        self.capitol = -np.ones(N, np.int64)
        self.turn, self.phase, self.order = 0, "capitol", list(range(N))
        self.queue: list[tuple[int, int]] = []
        self.qi = 0
        self.battle: dict | None = None
        self.pending_treasure: list[tuple[int, int]] = []
        self.capped = False
        self.join = None  # a declared combined attack (combat_flow.declare)
        self.rec = ()  # recovery tasks still to do (a tuple; _recovery)
        self._mask = None
        self._cp = 0
        BB.init(self)  # block B: espionage, fleets, exchanges
        SP.init_state(self)  # block A: spell decks, hands, magic state

    # -- helpers ----------------------------------------------------------------------------
    def clone(self):
        """A state that owns copies of every field (heroes, battle, fleets, magic, caches; the
        grid tables drawn at set-up are read-only and shared)."""
        s = WarbahState.__new__(WarbahState)
        d = s.__dict__
        for k, v in self.__dict__.items():
            d[k] = v if k in _SHARED_FIELDS else owned_copy(v)
        s.rng = copy_generator(self.rng)
        return s

    def hero_at(self, cell: int):
        for i, h in enumerate(self.heroes):
            if h["cell"] == cell and h["alive"]:
                return i
        return -1

    def garrisoned(self, m: int) -> bool:
        """A garrison (basic troops or special units) stands in hex m."""
        return any(self.garrison[m].tolist()) or any(self.gsp[m].tolist())

    def garrison_kind(self, c: int) -> int:
        """Special unit kind (units.SPECIALS index) a settlement recruits into its garrison
        (a Knights castle: CASTLE VARIANT TYPES), or -1."""
        v = self.variant[c]
        if not v.startswith("recruit_") or self.settle[c] < 0:  # the string test first
            return -1
        return BB.UNITS.SPECIALS.index(v[len("recruit_"):])

    def sp_cost(self, u: int) -> int:
        return self.game.cfg["special_units"][BB.UNITS.SPECIALS[u]]["cost"]

    def abil(self, h: dict, name: str) -> int:
        n = 0
        for a, _ in h["abil"]:
            if a == name:
                n += 1
        sp = h.get("special")  # block B: special troops grant abilities (units.granted:
        if sp is not None:  # one per kind present that grants it)
            us = _grant_units(self.game).get(name)
            if us:
                sp = sp.tolist()
                for u in us:
                    if sp[u]:
                        n += 1
        return n

    def gain_ability(self, h: dict) -> None:
        """One Ability roll (set-up: no Luck; ``gain_abilities`` offers Luck on the rolls)."""
        vals: tuple = ()
        while True:  # the same table reading and dice as the Luck chain (``ability_rolls``)
            dice, ability, _ = ability_rolls(self.game.cfg, vals, 0)
            if dice is None:
                break
            vals += (LUCK.roll(self.rng, dice),)
        h["abil"].append(ability)

    def gain_abilities(self, hi: int, n: int = 1) -> bool:
        """Hero hi gains n abilities (n = 0: one per 2 XP, in recovery); each roll (Ability /
        Rare Ability table, troop type 1D5) is open to Luck for the Hero's player (luck.chain
        ``ability``, same dice as ``gain_ability``). True: paused for a Luck decision."""
        return LUCK.chain(self, "ability", (hi, n))

    def walls(self, cell: int, from_cell: int) -> int:
        cfg = self.game.cfg
        t = self.terrain[cell]
        w = 0
        if t >= 0:
            w = (self.game.settle[SETTLEMENTS[self.settle[cell]]]["walls"]
                 if TERRAINS[t] == "settlement" else self.game.terrain[TERRAINS[t]]["walls"])
        if edge(cell, from_cell) in self.rivers:
            w = max(w, cfg["river"]["cross_walls"])
        elif any(edge(cell, m) in self.rivers for m in self.nbl[cell] if m >= 0):  # nbl: lists
            w = max(w, cfg["river"]["same_side_walls"])
        return max(0, w - int(self.wall_damage[cell])) + SP.bonus_walls(self, cell)

    def army_cap(self, h: dict) -> int:
        d = self.game.cfg["designed"]
        return d["army_cap"] + d["command_bonus"] * self.abil(h, "command")

    def settlements_of(self, seat: int) -> list[int]:
        return np.flatnonzero((self.owner == seat) & (self.settle >= 0)).tolist()

    # -- set-up -----------------------------------------------------------------------------
    def _place_capitol(self, seat: int, cell: int) -> None:
        self.explored[cell] = True
        self.terrain[cell] = TERRAINS.index("settlement")
        self.settle[cell] = SETTLEMENTS.index("capitol")
        self.owner[cell], self.capitol[seat] = seat, cell
        troops = self.rng.integers(1, 11, size=4).astype(np.int64)
        h = {"seat": seat, "cell": cell, "troops": troops,
             "xp": 0, "abil": [], "alive": True, "mp": 0, "attacks": 0, "lost": 0,
             "id": sum(1 for x in self.heroes if x["seat"] == seat) + 1}
        self.gain_ability(h)
        self.heroes.append(h)

    def free_candidates(self) -> list[int]:
        taken = [int(c) for c in self.capitol if c >= 0]
        return [k for k, c in enumerate(self.cand)
                if c not in taken and all(int(m) not in taken for m in self.nb[c] if m >= 0)]

    # -- turn structure ---------------------------------------------------------------------
    def _start_turn(self) -> None:
        self.turn += 1
        d = self.game.cfg["designed"]
        if self.turn > d["turn_cap"]:
            self.capped = True
            self.phase = "over"
            return
        live = [s for s in range(self.game.num_seats) if self.alive[s]]
        rolls = {s: d10(self.rng) + self.rng.random() for s in live}  # fraction breaks ties
        if SP.luck_initiative(self, rolls):  # Luck: own initiative die rolled again (luck.py)
            return
        self.order = sorted(live, key=lambda s: -rolls[s])
        SP.begin_turn(self)  # block A: Realm phase, collect-phase spells, then _begin_recruit

    def _owned_cells(self) -> tuple[dict, dict]:
        """({seat: settlements_of(seat)}, {seat: every hex it owns}), cell order, one pass."""
        sets: dict = {}
        owned: dict = {}
        for c, (o, k) in enumerate(zip(self.owner.tolist(), self.settle.tolist())):
            if o >= 0:
                owned.setdefault(o, []).append(c)
                if k >= 0:
                    sets.setdefault(o, []).append(c)
        return sets, owned

    def _begin_recruit(self) -> None:
        sets, owned = self._owned_cells()  # gold collection changes no owner / settlement
        self._collect_gold(sets, owned)
        self.recruited[:] = 0
        variant, settle = self.variant, self.settle
        self.queue = [(s, c) for s in self.order
                      for c in sets.get(s, []) + [  # + BB.UNITS.recruit_hexes(self, s)
                          c for c in owned.get(s, ())
                          if settle[c] < 0 and variant[c].startswith("recruit_")]]
        self.qi, self.phase = 0, "recruit"

    def _collect_gold(self, sets: dict | None = None, owned: dict | None = None) -> None:
        """(``sets`` / ``owned``: _owned_cells() of this state, when the caller has them)"""
        g = self.game
        if sets is None:
            sets, owned = self._owned_cells()
        for s in self.order:
            total = 0
            for c in sets.get(s, ()):
                if SP.blighted(self, c):  # razed / decimated: no income
                    continue
                name = SETTLEMENTS[self.settle[c]]
                total += g.settle[name]["gold"]
                bonus = g.cfg["adjacency_bonus"].get(name)
                if bonus:
                    total += sum(1 for m in self.nbl[c] if m >= 0 and self.terrain[m] >= 0
                                 and TERRAINS[self.terrain[m]] == bonus)
            vg = self.game.cfg["variant_gold"]
            total += sum(vg.get(self.variant[c], 0) for c in owned.get(s, ()))
            total += sum(self.abil(h, "wealth") for h in self.heroes
                         if h["alive"] and h["seat"] == s)
            self.gold[s] += max(0, total - self.mg["curse"][s])  # Curse (block A)

    def _hero_queue(self) -> list[tuple[int, int]]:
        return [(s, i) for s in self.order for i, h in enumerate(self.heroes)
                if h["alive"] and h["seat"] == s]

    # Keep the mask computed while advancing (it is exactly the next legal_actions_mask as long
    # as nothing changes the state in between). Scenario tests that edit a state by hand after
    # an action turn this off (tests/warbah/conftest.py) or clear ``_mask`` themselves.
    reuse_advance_mask = True

    def _advance(self) -> None:
        """Run automatic steps until a player must decide (or the game ends)."""
        self._mask = None
        d = self.game.cfg["designed"]
        while True:
            if self.phase != "over" and len(self.history) >= d["max_actions"]:
                self.capped, self.phase = True, "over"
            if self.phase == "over":
                self._cp = -1
                return
            if self.phase == "capitol":
                if self.qi < self.game.num_seats:
                    self._cp = self.qi
                    return
                self._start_turn()
                continue
            if self.phase in _WAIT_PHASES:  # ("casualty", "call_off") + battle spells + join
                return
            if self.phase in BB.PHASES:  # block B sub-steps (espionage, sea)
                if BB.advance(self):
                    return
                continue
            if self.qi < len(self.queue):
                seat, x = self.queue[self.qi]
                if self.alive[seat]:
                    m = self._local_mask(seat, x)
                    c = _count_nonzero(m)  # == (m.sum() > 1): entries are 0 / 1 (int8)
                    if c > 1 or (c == 1 and (_one_above_1(m) if m.dtype == _INT8 else m.max() > 1)):
                        self._cp = seat
                        if self.reuse_advance_mask:  # the mask legal_actions_mask would compute
                            self._mask = m
                        return
                self.qi += 1
                continue
            if self.phase == "recruit":
                if BB.begin_espionage(self):
                    continue
                self.phase, self.qi = "move", 0
                self.queue = self._hero_queue()
                for h in self.heroes:
                    h["mp"] = d["hero_mp"] + self.abil(h, "logistics")
                    h["scout"] = self.abil(h, "scouting")  # explore-only points
                    h["received"] = False
                    h["attacks"] = 1 + self.abil(h, "strategy")
                    h["lost"] = 0
                SP.open_window(self, "move")  # block A: move-phase realm spells
            elif self.phase == "move":
                self.phase, self.qi = "battle", 0
                self.queue = self._hero_queue()
                SP.open_window(self, "disaster")  # block A: Disaster magic phase
            elif self.phase == "realm":
                SP.end_window(self)
            elif self.phase == "battle":
                if SP.open_window(self, "recovery"):  # block A: Heal, Cure Wounds
                    continue
                if self._recovery():  # paused for a Luck decision (it goes on by itself)
                    continue
                if self.phase != "over":
                    self._start_turn()

    # -- masks ------------------------------------------------------------------------------
    def _enterable(self, seat: int, h: dict, m: int, occ: dict | None = None) -> int:
        """MP cost to enter explored land hex m, or 0 if it cannot be entered (``occ``: an
        optional block_b.hero_map of this state, to skip the hero scan)."""
        if self.encounter[m] != 0 or (self.hero_at(m) if occ is None else occ.get(m, -1)) >= 0:
            return 0
        if int(self.owner[m]) not in (-1, seat) and self.garrisoned(m):
            return 0
        t = TERRAINS[self.terrain[m]]
        cost = self.game.terrain[t]["mp"]
        if edge(h["cell"], m) in self.rivers:
            cost = max(cost, self.game.cfg["river"]["cross_mp"])
        return cost

    def _target(self, seat: int, m: int) -> bool:
        if m < 0 or not self.land[m] or not self.explored[m] or m in self.mg["sanct"]:
            return False
        j = self.hero_at(m)
        if j >= 0:
            return self.heroes[j]["seat"] != seat
        if self.encounter[m] != 0:
            return True
        return self.owner[m] not in (-1, seat) and self.garrisoned(m)

    def _local_mask(self, seat: int, x: int) -> np.ndarray:
        if self.phase in SP.REALM_PHASES:
            return SP.realm_mask(self, seat, x)
        g, mask = self.game, np.zeros(self.game.num_actions, np.int8)
        mask[DONE] = 1
        occ = None  # block_b.hero_map, built in the move phase and shared with BB.local_mask
        if self.phase == "recruit" and self.settle[x] < 0:  # block B: special-unit hex
            BB.local_mask(self, seat, x, mask)
            return mask
        if self.phase == "recruit":
            c = x
            name = SETTLEMENTS[self.settle[c]]
            rec = g.settle[name]["recruit"]
            u = self.garrison_kind(c)
            if self.recruited[c] < g.cfg["designed"]["max_recruit_per_settlement"]:
                if u >= 0:  # a Knights castle recruits knights into its garrison
                    mask[RECRUIT] = self.gold[seat] >= self.sp_cost(u)
                elif rec != "none" and self.gold[seat] >= g.troop[rec][2]:
                    mask[RECRUIT] = 1
                if (name == "capitol" and self.gold[seat] >= g.troop["hero"][2]
                        and self.hero_at(c) < 0):
                    mask[RECRUIT_HERO] = 1
            SP.recruit_mask(self, seat, c, mask)  # block A: a wizard at a tower
        elif self.phase == "move":
            h = self.heroes[x]
            if not h["alive"]:
                return mask
            occ = BB.hero_map(self)
            c = h["cell"]
            nbl = self.nbl[c]
            land, explored, mp = self.land, self.explored, h["mp"]
            for dd in range(6):
                m = nbl[dd]
                if m < 0 or not land[m]:
                    continue
                if not explored[m]:
                    mask[dd] = mp + h.get("scout", 0) >= 1
                # self._enterable(seat, h, m, occ) inlined: 0 (cannot enter) or the MP cost
                elif self.encounter[m] == 0 and occ.get(m, -1) < 0 and not (
                        int(self.owner[m]) not in (-1, seat) and self.garrisoned(m)):
                    cost = g.terrain[TERRAINS[self.terrain[m]]]["mp"]
                    if ((c, m) if c < m else (m, c)) in self.rivers:  # edge(c, m)
                        cost = max(cost, g.cfg["river"]["cross_mp"])
                    mask[dd] = 0 < cost <= mp
            own_c = self.owner[c] == seat
            if (own_c and self.garrisoned(c)
                    and BB.UNITS.army_size(h) < self.army_cap(h)):  # specials count too
                mask[TAKE_GARRISON] = 1
            if own_c and self.settle[c] >= 0:
                rec = g.settle[SETTLEMENTS[self.settle[c]]]["recruit"]
                u = self.garrison_kind(c)
                if u >= 0:  # the right type here is the settlement's special unit
                    sp = h.get("special")
                    mask[DROP_OFF] = sp is not None and sp[u] > 0
                elif rec in BASIC and h["troops"][BASIC.index(rec)] > 0:
                    mask[DROP_OFF] = 1
            if not h.get("received") and sum(h["troops"].tolist()) > 0:
                for dd in range(6):  # exchange instead of moving (ends this hero's movement)
                    j = occ.get(nbl[dd], -1) if nbl[dd] >= 0 else -1
                    if (j >= 0 and self.heroes[j]["seat"] == seat
                            and BB.UNITS.army_size(self.heroes[j]) < self.army_cap(self.heroes[j])):
                        mask[EXCHANGE0 + dd] = 1
            SP.move_mask(self, seat, h, mask)  # block A: hand over magic items
        elif self.phase == "battle":
            h = self.heroes[x]
            if h["alive"] and h["attacks"] > 0:
                for dd in range(6):
                    mask[dd] = self._target(seat, int(self.nb[h["cell"], dd]))
        BB.local_mask(self, seat, x, mask, occ)
        if self.phase == "move":
            BB.garrison_lock(self, self.heroes[x], mask)
        return mask

    def legal_actions_mask(self) -> np.ndarray:
        if self._mask is not None:
            return self._mask
        n = self.game.num_actions
        mask = np.zeros(n, np.int8)
        if self.phase == "capitol":
            for k in self.free_candidates():
                mask[CAPITOL0 + k] = 1
            mask[CAPITOL_AUTO] = 1
        elif self.phase == "casualty":
            from .combat_flow import chooser_side
            side = chooser_side(self.battle)
            for t in B.troop_types_alive(side):
                if t < 4:
                    mask[CASUALTY0 + t] = 1
            BB.UNITS.casualty_mask(side, mask)  # block B: special groups (index 5+)
        elif self.phase == "call_off":
            mask[CALL_OFF] = mask[CONTINUE] = 1
        elif self.phase in BB.PHASES:
            mask = BB.mask(self)
        elif self.phase in JOIN_PHASES:
            from .combat_flow import join_mask
            mask = join_mask(self)
        elif self.phase in SP.BATTLE_PHASES:
            mask = SP.battle_mask(self)
        elif self.phase != "over":
            seat, x = self.queue[self.qi]
            mask = self._local_mask(seat, x)
        self._mask = mask
        return mask

    @property
    def current_player(self) -> int:
        return self._cp

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def phase_name(self) -> str:
        return self.phase

    # -- apply ------------------------------------------------------------------------------
    def _apply(self, a: int) -> None:
        cf = _CF or _combat_flow()
        battle_step, declare, join_apply = cf.battle_step, cf.declare, cf.join_apply
        if self.phase == "capitol":
            free = self.free_candidates()
            k = a - CAPITOL0 if a != CAPITOL_AUTO else free[0] if free else None
            if k is None:  # every candidate taken: any free land hex far from others
                taken = [c for c in self.capitol if c >= 0]
                cells = [int(c) for c in np.flatnonzero(self.land) if c not in taken
                         and all(int(m) not in taken for m in self.nb[c] if m >= 0)]
                cell = cells[0]
            else:
                cell = self.cand[k]
            self._place_capitol(self.qi, cell)
            self.qi += 1
        elif self.phase in ("casualty", "call_off"):
            battle_step(self, a)
        elif self.phase in JOIN_PHASES:  # combined attacks: add joining Heroes, start
            join_apply(self, a)
        elif self.phase in BB.PHASES:
            BB.apply(self, a)
        elif self.phase in SP.MAGIC_PHASES:
            SP.battle_apply(self, a) if self.phase in SP.BATTLE_PHASES else SP.realm_apply(self, a)
        else:
            seat, x = self.queue[self.qi]
            if self.phase == "move":
                BB.note_garrison(self, self.heroes[x], a)
            if a == DONE:
                self.qi += 1
            elif a == RECRUIT_WIZARD:
                SP.recruit_wizard(self, seat, x)
            elif SP.GIVE_ITEM0 <= a < SP.GIVE_ITEM0 + 6:
                SP.give_item(self, seat, x, a - SP.GIVE_ITEM0)
            elif a >= SEA0 or (self.phase == "move" and a < 6
                                and BB.SEA.is_sea_step(self, self.heroes[x], a)):
                BB.apply_local(self, seat, x, a)
            elif self.phase == "recruit":
                name = SETTLEMENTS[self.settle[x]]
                if a == RECRUIT_HERO:
                    self.gold[seat] -= self.game.troop["hero"][2]
                    h = {"seat": seat, "cell": x, "troops": np.zeros(4, np.int64), "xp": 0,
                         "abil": [], "alive": True, "mp": 0, "attacks": 0, "lost": 0,
                         "id": sum(1 for q in self.heroes if q["seat"] == seat) + 1}
                    self.heroes.append(h)
                    self.gain_abilities(len(self.heroes) - 1)  # Luck may pause here
                elif self.garrison_kind(x) >= 0:  # knights into the castle's garrison
                    u = self.garrison_kind(x)
                    self.gold[seat] -= self.sp_cost(u)
                    self.gsp[x, u] += 1
                else:
                    rec = self.game.settle[name]["recruit"]
                    self.gold[seat] -= self.game.troop[rec][2]
                    self.garrison[x, BASIC.index(rec)] += 1
                self.recruited[x] += 1
            elif self.phase == "move":
                h = self.heroes[x]
                if a == DROP_OFF and self.garrison_kind(h["cell"]) >= 0:
                    u = self.garrison_kind(h["cell"])
                    self.gsp[h["cell"], u] += h["special"][u]
                    h["special"][u] = 0
                elif a == DROP_OFF:
                    rec = self.game.settle[SETTLEMENTS[self.settle[h["cell"]]]]["recruit"]
                    t = BASIC.index(rec)
                    self.garrison[h["cell"], t] += h["troops"][t]
                    h["troops"][t] = 0
                elif EXCHANGE0 <= a < EXCHANGE0 + 6:
                    o = self.heroes[self.hero_at(int(self.nb[h["cell"], a - EXCHANGE0]))]
                    room = self.army_cap(o) - BB.UNITS.army_size(o)  # specials count too
                    for t in range(4):
                        k = int(min(room, h["troops"][t]))
                        o["troops"][t] += k
                        h["troops"][t] -= k
                        room -= k
                    o["received"] = True  # a troop may be exchanged only once per turn
                    h["mp"], h["scout"] = 0, 0
                    self.qi += 1  # instead of moving: this hero's move is over
                elif a == TAKE_GARRISON:
                    c = h["cell"]
                    room = self.army_cap(h) - BB.UNITS.army_size(h)  # specials count too
                    for t in range(4):
                        k = int(min(room, self.garrison[c, t]))
                        h["troops"][t] += k
                        self.garrison[c, t] -= k
                        room -= k
                    for u in np.flatnonzero(self.gsp[c]).tolist():  # special units (Knights)
                        k = int(min(room, self.gsp[c, u]))
                        BB.UNITS.special(h)[u] += k
                        self.gsp[c, u] -= k
                        room -= k
                else:
                    m = int(self.nb[h["cell"], a])
                    if not self.explored[m]:
                        self._explore(m, seat)
                        if h.get("scout", 0) > 0:
                            h["scout"] -= 1
                        else:
                            h["mp"] -= 1
                    else:
                        h["mp"] -= self._enterable(seat, h, m)
                        h["cell"] = m
                        if self.variant[m] == "merchant_caravan":  # once only
                            self.variant[m] = ""
                            LUCK.caravan(self, seat)  # its gold dice (Luck may pause here)
            elif self.phase == "battle":
                h = self.heroes[x]
                h["attacks"] -= 1
                BB.on_attack(self, x, int(self.nb[h["cell"], a]))  # block B: allies
                declare(self, x, int(self.nb[h["cell"], a]))  # joiners, then the battle
        self._advance()

    def _explore(self, m: int, seat: int = -1) -> None:
        """Explore hex m: TERRAIN TABLE, then the SETTLEMENT TABLE (castles: CASTLE VARIANT
        TYPES) or the terrain's variant table and the encounter chit (1D10 <= 3). With ``seat``
        (a Hero of that player explores) each roll may be rerolled by Luck (luck.py); the hex is
        written once all rolls are known."""
        LUCK.chain(self, "explore", (m, seat))

    # -- recovery and the end ---------------------------------------------------------------
    def _recovery(self) -> bool:
        """RECOVERY PHASE as a list of tasks (treasure rolls, each Hero in initiative order,
        Undead regeneration, the end), so that a Luck decision on a roll (treasure, Healing,
        Undead: luck.py) can pause it. True: paused (it resumes by itself and then starts the
        next turn)."""
        tasks = [("treasure", hi) for hi, n_tr in self.pending_treasure for _ in range(n_tr)]
        self.pending_treasure = []
        tasks += [t for s in self.order for i, h in enumerate(self.heroes)
                  if h["alive"] and h["seat"] == s for t in (("heal", i), ("ability", i, 0))]
        tasks += [("undead", i) for i in range(len(self.heroes))] + [("rec_end", -1)]
        self.rec = tuple(tasks)
        return self._recovery_run()

    def _recovery_run(self) -> bool:
        while self.rec:
            task, self.rec = self.rec[0], self.rec[1:]
            if task[0] == "rec_end":
                BB.recovery(self)  # block B: sea capacity, fleets of eliminated players
                self.wall_damage[:] = 0
                if self.alive.sum() <= 1:
                    self.phase = "over"
            elif LUCK.chain(self, task[0], task[1:]):
                return True
        return False

    def _recovery_resume(self, ctx=None) -> None:
        """After a Luck decision in recovery: the rest of the phase, then the next turn."""
        if self._recovery_run():
            return
        if self.phase != "over":
            self._start_turn()

    def _recover_hero(self, h: dict, healed: int) -> None:
        g, s = self.game, h["seat"]
        BB.UNITS.gain_warriors(self, h, healed)  # as warriors, within the type limit
        BB.UNITS.trim_to_cap(self, h)  # over the cap: basic, then special troops
        c = h["cell"]
        if (self.variant[c] in g.cfg["variant_gold"] or self.variant[c] == "temple"
                or (self.variant[c].startswith("recruit_") and self.settle[c] < 0)):
            self.owner[c] = s  # designed: a Hero marks a Lumbermill / Gold Mine hex
        for _ in range(self.abil(h, "diplomacy")):  # 1 adjacent neutral settlement
            near = [int(m) for m in self.nb[c] if m >= 0 and self.settle[m] >= 0
                    and self.owner[m] < 0]
            if near:
                self.owner[near[0]] = s
        if self.settle[c] >= 0 and self.owner[c] != s:
            prev = int(self.owner[c])
            self.owner[c] = s
            self.garrison[c] = 0
            self.gsp[c] = 0
            if prev >= 0:
                h["xp"] += 1
                if self.capitol[prev] == c:
                    self._eliminate(prev)
        # abilities from XP: the recovery task ("ability", hero, 0) after this one (Luck)

    def _eliminate(self, seat: int) -> None:
        self.alive[seat] = False
        self.out_turn[seat] = self.turn
        for h in self.heroes:
            if h["seat"] == seat:
                h["alive"] = False
        own = self.owner == seat
        self.owner[own] = -1
        self.garrison[own] = 0
        self.gsp[own] = 0

    def scores(self) -> list[float]:
        out = []
        for s in range(self.game.num_seats):
            live = 1 if self.alive[s] else 0
            out.append(live * 1e6 + self.out_turn[s] * 1e4 * (1 - live)
                       + 100 * len(self.settlements_of(s)) + min(int(self.gold[s]), 99))
        return out

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.game.num_seats)
        return rank_returns(self.scores())

    def final_info(self) -> dict:
        return {"turn": min(self.turn, self.game.cfg["designed"]["turn_cap"]),
                "capped": bool(self.capped),
                "settlements": [len(self.settlements_of(s)) for s in range(self.game.num_seats)],
                "alive": self.alive.tolist()}

    def kill_wizard(self, hi: int) -> None:
        """The hero's wizard is killed: he teleports home (or off the map if wandering)."""
        SP.kill_wizard(self, hi)

    def action_to_str(self, a: int) -> str:
        from .config import LUCK_FOE, LUCK_MINE
        if a in (LUCK_MINE, LUCK_FOE):  # Luck helper block (combat_flow windows)
            return ("Luck: reroll one of my missed attack dice" if a == LUCK_MINE
                    else "Luck: reroll one of the foe's hits")
        if SP.MAGIC0 <= a < SP.MAGIC_END:  # magic helper block (spells.action_to_str)
            return SP.action_to_str(self, a)
        if a >= SEA0:
            return BB.action_to_str(self, a)
        if a >= SP.REALM0:
            return SP.action_to_str(self, a)
        if EXCHANGE0 <= a < EXCHANGE0 + 6:
            return f"hand army to friendly hero {DIR_NAMES[a - EXCHANGE0]}"
        if a == DROP_OFF:
            return "drop troops into the garrison"
        if a < 6:
            return ("attack " if self.phase == "battle" else "move/explore ") + DIR_NAMES[a]
        names = {DONE: "done", RECRUIT: "recruit one", TAKE_GARRISON: "take garrison",
                 RECRUIT_HERO: "recruit hero", CALL_OFF: "call off attack",
                 CONTINUE: "continue attack", CAPITOL_AUTO: "capitol: auto"}
        if a in names:
            return names[a]
        if CASUALTY0 <= a < CASUALTY0 + 4:
            return f"lose one of {BASIC[a - CASUALTY0]}"
        if CAPITOL0 <= a < CAPITOL0 + 8:
            return f"capitol at candidate {a - CAPITOL0}"
        return f"action {a}"

    def _determinize(self, observer: int, rng: np.random.Generator):
        """Enemy hero index cards are hidden: their troop split is shuffled (total kept)."""
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        busy = set()
        if s.battle is not None:
            busy = {s.battle["sides"][k]["hero"] for k in (0, 1)}
            busy |= {m["hero"] for m in s.battle.get("members", ())}  # a combined attack
        for i, h in enumerate(s.heroes):
            if h["seat"] != observer and i not in busy and not BB.keep_visible(s, observer, i) \
                    and not SP.scried(s, observer):
                h["troops"] = h["troops"][rng.permutation(4)]
        SP.determinize(s, observer, rng)  # block A: hidden hands, deck order, items
        BB.determinize(s, observer, rng, busy)  # block B: enemy special troops
        return s

    def _observation(self, seat: int) -> np.ndarray:
        return (_OBSERVE or _observe_fn())(self, seat)

    def render_text(self, observer=None, color=False) -> str:
        from .render import render_text
        return render_text(self, observer, color)

    def render_rgb(self, observer=None):
        from .render import render_rgb
        return render_rgb(self, observer)


# -- rolls open to Luck (luck.chain steps; RARE ABILITY Luck) -------------------------------------
@LUCK.step("explore")
def _explore_rolls(st, ctx, vals):
    m, seat = ctx
    g = st.game
    who = (seat,) if seat >= 0 else ()
    if not vals:
        return who, (1, 10)  # TERRAIN TABLE
    t = g.terrain_roll[vals[0]]
    if t == "settlement":
        if len(vals) == 1:
            return who, (1, 10)  # SETTLEMENT TABLE
        name = g.settle_roll[vals[1]]
        if name == "castle" and len(vals) == 2:
            return who, (1, 10)  # CASTLE VARIANT TYPES
    else:
        table = g.cfg["variants"].get(t, {})
        if len(vals) == 1:
            return (who if table else ()), (1, 10)  # the terrain's variant table
        if len(vals) == 2:
            return who, (1, 10)  # encounter chit
    st.explored[m] = True
    st.terrain[m] = TERRAINS.index(t)
    if t == "settlement":
        st.settle[m] = SETTLEMENTS.index(g.settle_roll[vals[1]])
        if len(vals) > 2:
            st.variant[m] = g.cfg["variants"]["castle"].get(vals[2], "")
    else:
        st.variant[m] = g.cfg["variants"].get(t, {}).get(vals[1], "")
        if vals[2] <= g.cfg["encounter_chance"]:
            st.encounter[m] = -1
    return None


@LUCK.step("treasure")
def _treasure_rolls(st, ctx, vals):
    """TREASURE TABLE (1D10), then its gold or followers dice or a magic ability item's Ability
    rolls; the finder's player may reroll. ``vals`` may start with the table roll (Research)."""
    hi = ctx[0]
    h = st.heroes[hi]
    who = (h["seat"],)
    if not vals:
        return who, (1, 10)
    row = next(t for t in st.game.cfg["treasure"] if vals[0] in t["rolls"])
    if "gold_dice" in row:
        if len(vals) == 1:
            return who, (row["gold_dice"], 10)
        st.gold[h["seat"]] += vals[1]
    elif "followers_dice" in row:
        if not h["alive"]:
            return None
        if len(vals) == 1:
            return who, (row["followers_dice"], 10)
        BB.UNITS.gain_warriors(st, h, vals[1])
    elif row.get("magic_item") == "ability" and h["alive"]:  # its ability rolls (Luck)
        nxt, ab, _ = ability_rolls(st.game.cfg, vals, 1)
        if nxt is not None:
            return who, nxt
        SP.gain_ability_item(h, ab)
    else:
        SP.treasure_item(st, hi, row)  # block A: wizard / magic items
    return None


def ability_rolls(cfg, vals: tuple, i: int):
    """One Ability roll read from vals[i:] (ABILITY TABLE 1D10, the RARE ABILITY table on
    9-10, then the troop type 1D5): (dice still needed, None, i) or (None, (name, type), next
    index)."""
    if len(vals) <= i:
        return (1, 10), None, i
    name, i = cfg["abilities"].get(vals[i]), i + 1
    if not name:
        if len(vals) <= i:
            return (1, 10), None, i
        name, i = cfg["rare_abilities"][vals[i]], i + 1
    if len(vals) <= i:
        return (1, 5), None, i
    return None, (name, vals[i] - 1), i + 1


@LUCK.step("ability")
def _ability_rolls(st, ctx, vals):
    """HEROES / ABILITY TABLE: new abilities (n; n = 0: one per 2 XP, the recovery task), each
    roll open to Luck for the Hero's player; the abilities are written once all are rolled."""
    hi, n = ctx
    h = st.heroes[hi]
    if not h["alive"]:
        return None
    k = n or h["xp"] // 2
    got, i = [], 0
    for _ in range(k):
        nxt, ab, i = ability_rolls(st.game.cfg, vals, i)
        if nxt is not None:
            return (h["seat"],), nxt
        got.append(ab)
    h["abil"].extend(got)
    if not n:
        h["xp"] -= 2 * k
    return None


@LUCK.step("heal")
def _heal_roll(st, ctx, vals):
    """Recovery for one Hero: Healing (1D10 troops back, at most those lost; Luck may reroll
    it), then the cap, markers, Diplomacy, settlement capture and abilities from XP."""
    hi, = ctx
    h = st.heroes[hi]
    if not h["alive"]:
        return None
    heal = st.abil(h, "healing") and h["lost"] > 0
    if heal and not vals:
        return (h["seat"],), (1, 10)
    st._recover_hero(h, min(h["lost"], vals[0]) if heal else 0)
    return None


@LUCK.step("undead")
def _undead_roll(st, ctx, vals):
    """SPECIAL UNIT TYPES, Undead: 1D10 regenerate in recovery (designed: while one is
    present, within the army cap); the owner may reroll it."""
    hi, = ctx
    h = st.heroes[hi]
    sp = h.get("special")
    k = BB.UNITS.SPECIALS.index("undead")
    if not (h["alive"] and sp is not None and sp[k] > 0):
        return None
    if not vals:
        return (h["seat"],), (1, 10)
    room = st.army_cap(h) - BB.UNITS.army_size(h)
    sp[k] += max(0, min(room, vals[0]))
    return None


for _name in ("heal", "undead"):
    LUCK.AFTER[_name] = lambda st, ctx: st._recovery_resume()
# a treasure from Research (ctx (hero, "research")) and abilities from recruiting / Avatar
# (ctx (hero, n > 0)) are not part of recovery: nothing to resume
LUCK.AFTER["treasure"] = lambda st, ctx: None if len(ctx) > 1 else st._recovery_resume()
LUCK.AFTER["ability"] = lambda st, ctx: None if ctx[1] else st._recovery_resume()
