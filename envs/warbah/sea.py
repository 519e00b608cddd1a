"""Warbah fleets and the sea (block B): ships, boarding, sea movement, the Sea Encounter table,
sea battles (ships and sea monsters), Navigation and Luck (on the sea encounter roll).

State (set up in block_b.init): ``st.fleets.ships[cell]`` ships stacked in a water hex (a fleet) and
``st.fleets.owner[cell]``; a Hero at sea stands on his fleet's water hex (``st.land[cell]`` is
False) and moves it with him. ``st.sea`` holds a pending sub-step:
``{"kind": "luck", "hero", "roll"}`` (phase ``luck``: REROLL / KEEP_ROLL) or
``{"kind": "loss", "hero", "left", "ret"}`` (phase ``sea_loss``: the owner picks which troops
are lost, actions CASUALTY0 + t).

Designed (RULES.md): a Hero spends 1 MP to board an adjacent own fleet; at sea he has
``4 + Navigation`` sea moves per turn (Good Winds +1, Becalmed -1, Storm ends them); a sea move
may enter an empty water hex or one with an own unmanned fleet (the fleets merge), explore an
adjacent unknown land hex, or land on an adjacent explored land hex (landing ends the Hero's
movement; the fleet stays as an unmanned fleet). Heroes at sea attack only adjacent Heroes at sea.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import luck as LUCK
from .battle import Battle
from . import units as UNITS
from .config import (EXCHANGE0, FLEET0, FLEET_SLOTS, KEEP_ROLL, REROLL, SETTLEMENTS,
                                SHIP0)

PHASES = ("luck", "sea_loss")


@dataclass(slots=True)
class Fleets:
    """Ships on the water hexes: a fleet is the stack of ships in one hex."""
    ships: np.ndarray               # int[cells]
    owner: np.ndarray               # int[cells], -1 none
    moves: dict = field(default_factory=dict)       # cell -> (turn, moves left) unmanned
    captures: list = field(default_factory=list)    # (turn, taker, old owner, cell, ships)
    encounter_log: list = field(default_factory=list)  # (turn, hero, roll, kind) at sea

    @staticmethod
    def new(n_cells: int) -> "Fleets":
        return Fleets(np.zeros(n_cells, np.int64), -np.ones(n_cells, np.int64))

    def clone(self) -> "Fleets":
        return Fleets(self.ships.copy(), self.owner.copy(), dict(self.moves),
                      list(self.captures), list(self.encounter_log))


@dataclass(slots=True)
class TroopLoss:
    """Troops over the ships' capacity (phase ``sea_loss``): the owner picks ``left`` more."""
    hero: int
    left: int
    return_phase: str

    def clone(self) -> "TroopLoss":
        return TroopLoss(self.hero, self.left, self.return_phase)


def d10(rng, n: int = 1) -> int:
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n, without the array
        return sum([int(rng.integers(1, 11)) for _ in range(n)])
    return sum(rng.integers(1, 11, size=n).tolist())


def scfg(st) -> dict:
    return st.game.cfg["sea"]


def at_sea(st, h: dict) -> bool:
    return not st.land[h.cell]


def capacity(st, ships: int) -> int:
    return scfg(st)["ship_capacity"] * int(ships)


def ships_of(st, hi: int) -> int:
    h = st.heroes[hi]
    return int(st.fleets.ships[h.cell]) if h.alive and at_sea(st, h) else 0


def _sea_mp(st, h: dict) -> int:
    if h.sea_moves_turn != st.turn:
        h.sea_moves_turn = st.turn
        h.sea_moves = scfg(st)["sea_moves"] + st.abil(h, "navigation")
    return h.sea_moves


# -- recruiting ships ---------------------------------------------------------------------------
def recruit_mask(st, seat: int, c: int, mask: np.ndarray) -> None:
    name = SETTLEMENTS[st.settle[c]]
    if name == "mine" or st.recruited[c] >= st.game.cfg["designed"]["max_recruit_per_settlement"]:
        return
    if st.gold[seat] < scfg(st)["ship_cost"]:
        return
    land, own = st.land, st.fleets.owner
    for d, m in enumerate(st.neighbours[c]):  # st.neighbours[c] as a list
        if m >= 0 and not land[m] and int(own[m]) in (-1, seat):
            j = st.hero_at(m)
            if j < 0 or st.heroes[j].seat == seat:
                mask[SHIP0 + d] = 1


def recruit_apply(st, seat: int, c: int, a: int) -> None:
    m = int(st.neighbours[c][a - SHIP0])
    st.gold[seat] -= scfg(st)["ship_cost"]
    st.fleets.ships[m] += 1
    st.fleets.owner[m] = seat
    st.recruited[c] += 1


# -- movement -----------------------------------------------------------------------------------
def _water_ok(st, seat: int, m: int) -> bool:
    return (m >= 0 and not st.land[m] and st.hero_at(m) < 0
            and (st.fleets.ships[m] == 0 or st.fleets.owner[m] == seat or capturable(st, seat, m)))


def capturable(st, seat: int, m: int) -> bool:
    """An enemy fleet with no Hero on board (not an ally's): a Hero who boards it or sails into
    its hex takes it (designed reading of the control tokens on ships and the Hero's control
    marker in the hex he occupies; an unmanned fleet may not attack, so it cannot resist)."""
    o = int(st.fleets.owner[m])
    return (st.fleets.ships[m] > 0 and o >= 0 and o != seat and not st.diplomacy.allied[seat, o]
            and st.hero_at(m) < 0)


def _capture(st, seat: int, m: int) -> None:
    if st.fleets.ships[m] > 0 and st.fleets.owner[m] != seat:
        st.fleets.captures.append((st.turn, seat, int(st.fleets.owner[m]), m, int(st.fleets.ships[m])))
        st.fleets.owner[m] = seat
        st.fleets.moves.pop(m, None)


def is_sea_step(st, h: dict, d: int) -> bool:
    """Direction action d for this Hero is handled here (boarding, sailing, landing)."""
    m = int(st.neighbours[h.cell][d])
    return at_sea(st, h) or (m >= 0 and not st.land[m])


def move_mask(st, seat: int, x: int, h: dict, mask: np.ndarray) -> None:
    c = h.cell
    if at_sea(st, h):
        mask[:6] = 0
        mask[EXCHANGE0:EXCHANGE0 + 6] = 0
        if _sea_mp(st, h) < 1:
            return
        for d in range(6):
            m = int(st.neighbours[c][d])
            if m < 0:
                continue
            if not st.land[m]:
                mask[d] = _water_ok(st, seat, m)
            elif not st.explored[m]:
                mask[d] = 1
            else:
                mask[d] = st._enterable(seat, h, m) > 0
        return
    land = st.land
    for d, m in enumerate(st.neighbours[c]):
        if m < 0 or land[m]:
            continue
        mask[EXCHANGE0 + d] = 0  # no hand-over onto a ship
        mask[d] = (h.mp >= 1 and st.fleets.ships[m] > 0 and st.hero_at(m) < 0
                   and (st.fleets.owner[m] == seat or capturable(st, seat, m)))


def move_apply(st, seat: int, x: int, h: dict, a: int) -> None:
    """A direction action that boards, sails, explores from the sea, or lands."""
    c = h.cell
    m = int(st.neighbours[c][a])
    if not at_sea(st, h):  # boarding (1 MP); excess troops disband
        _capture(st, seat, m)  # an undefended enemy fleet is taken
        h.mp -= 1
        h.cell = m
        _sea_mp(st, h)
        _enforce_capacity(st, x, "move")
        return
    h.sea_moves -= 1
    if st.land[m]:
        if not st.explored[m]:
            st._explore(m)
            return
        h.cell = m  # landing ends the move; the fleet waits as an unmanned fleet
        h.mp = h.sea_moves = 0
        h.scout_moves = 0
        return
    _capture(st, seat, m)  # sailing into an undefended enemy fleet takes it (the fleets merge)
    st.fleets.ships[m] += st.fleets.ships[c]
    st.fleets.owner[m] = seat
    st.fleets.ships[c], st.fleets.owner[c] = 0, -1
    h.cell = m
    roll = d10(st.rng)
    if st.abil(h, "luck") and h.luck_used_turn != st.turn:
        st.luck = LUCK.LuckDecision(x, roll, st.phase)
        st.phase = "luck"
        return
    sea_encounter(st, x, roll)


def sea_encounter(st, hi: int, roll: int) -> None:
    """SEA ENCOUNTER TABLE, rolled after each hex moved at sea."""
    h = st.heroes[hi]
    row = scfg(st)["encounters"].get(roll, {})
    kind = row.get("kind", "none")
    st.fleets.encounter_log.append((st.turn, hi, roll, kind))
    if kind == "winds":
        h.sea_moves += row["moves"]
    elif kind == "becalmed":
        h.sea_moves = max(0, h.sea_moves + row["moves"])
    elif kind == "storm":
        h.sea_moves = 0
        LUCK.chain(st, "storm", (hi, row["sink_max"]))  # Luck: the sinking roll (luck.py)
    elif kind in ("monster", "pirates"):
        _sea_battle(st, hi, row)


def _sea_battle(st, hi: int, row: dict) -> None:
    from . import combat_flow as CF
    counts = np.zeros(5, np.int64)
    for troop, dice in row.get("groups", []):
        counts[("warriors", "archers", "cavalry", "catapults").index(troop)] += d10(st.rng, dice)
    mon = row.get("monster")
    foe = CF._neutral(counts, [mon["init"], mon["kill"], mon["hits"]] if mon else None, 0)
    foe.ships = row.get("ships", 0)
    foe.hits_ships = bool(mon and mon.get("hits_ships"))
    me = CF._side(st, hi)
    me.ships = int(st.fleets.ships[st.heroes[hi].cell])
    st.battle = Battle([me, foe], "sea", st.heroes[hi].cell, row.get("treasure", 0),
                       return_phase=st.phase)
    from . import spells as SP
    SP.setup_battle(st)  # block A: a Hero's wizard draws Battle spells at sea too
    CF._run(st)


@LUCK.step("storm")
def _storm_roll(st, ctx, vals):
    """SEA ENCOUNTER TABLE, Storm: 1D10 <= sink_max sinks a ship; Luck may reroll it (the
    sailing Hero's player)."""
    hi, sink_max = ctx
    if not vals:
        return (st.heroes[hi].seat,), (1, 10)
    if vals[0] <= sink_max:
        sink_ship(st, hi)
    return None


# -- ships in battle ------------------------------------------------------------------------------
def naval(st, a: dict, d: dict, seg: int, ka: int, kd: int) -> tuple[int, int]:
    """Ships (Init 2, Kill 3) attack enemy ships first, then troops; ship-hunting monsters sink
    ships. Returns the troop kills (ka, kd) after ships took their share."""
    from . import battle as B
    from .battle import segment_of
    for s in (a, d):
        if s.ships is None:
            hi = s.hero
            s.ships = ships_of(st, hi) if hi >= 0 and s.seat >= 0 else 0
    if not (a.ships or d.ships or a.ship_kills or d.ship_kills):
        return ka, kd
    init, kill = scfg(st)["ship_init"], scfg(st)["ship_kill"]
    out = [ka, kd]
    for k, (s, o) in enumerate(((a, d), (d, a))):
        hits, s.ship_kills = s.ship_kills, 0
        if s.ships and segment_of(init) == seg:
            n = B.hits(st.game, st.rng, s.ships, kill)  # (or the designer's formula)
            B.record(s, kill, s.ships, n, (B.AT_SHIPS if o.ships else 0)
                     | (B.MASS if st.game.cfg.get("mass_formula") else 0))  # Luck's window
            if o.ships:
                hits += n
            else:
                out[k] += n
        sunk = min(hits, o.ships)
        o.ships -= sunk
        s.ship_spare = hits - sunk  # hits that sank nothing (Luck: combat_flow._dice_act)
    return out[0], out[1]


def finish(st, b: dict) -> None:
    """Battle end: write ships back; a Hero whose fleet sank is lost with his army at sea."""
    a, d = b.sides
    for s in (a, d):
        hi = s.hero
        if hi < 0 or s.seat < 0 or s.ships is None:
            continue
        h = st.heroes[hi]
        if at_sea(st, h):
            st.fleets.ships[h.cell] = s.ships
            if s.ships <= 0:
                st.fleets.owner[h.cell] = -1
                s.counts[:] = 0  # drowned (designed), a summoned monster with them
                s.monster = None
    if b.kind == "garrison" and not st.land[b.cell]:  # an unmanned fleet attacked
        st.fleets.ships[b.cell], st.fleets.owner[b.cell] = 0, -1
    if b.kind == "sea":
        from . import battle as B
        if B.destroyed(d) and a.counts[4] > 0:  # an overcome encounter: 1 XP, treasure
            st.heroes[a.hero].xp += 1
            st.pending_treasure.append((a.hero, b.treasure))


def after_battle(st, b: dict) -> None:
    """Enforce the carrying capacity of Heroes whose fleets lost ships."""
    for s in b.sides:
        hi = s.hero
        if hi >= 0 and s.seat >= 0 and st.heroes[hi].alive and s.ships is not None:
            if _enforce_capacity(st, hi, st.phase):
                return


def sink_ship(st, hi: int) -> None:
    h = st.heroes[hi]
    c = h.cell
    if st.fleets.ships[c] <= 0:
        return
    st.fleets.ships[c] -= 1
    if st.fleets.ships[c] == 0:  # the last ship sinks: the Hero and his army are lost (designed)
        st.fleets.owner[c] = -1
        h.alive = False
        h.troops[:] = 0
        if h.wizard:  # his wizard teleports home (block A)
            st.kill_wizard(hi)
        return
    _enforce_capacity(st, hi, st.phase)


def _enforce_capacity(st, hi: int, ret: str) -> bool:
    """Excess troops over 10 per ship disband: the owner picks which (sub-step)."""
    h = st.heroes[hi]
    if not at_sea(st, h):
        return False
    over = UNITS.army_size(h) - capacity(st, st.fleets.ships[h.cell])
    if over <= 0:
        return False
    st.troop_loss = TroopLoss(hi, over, ret)
    st.phase = "sea_loss"
    return True


# -- own phases -----------------------------------------------------------------------------------
def mask(st) -> np.ndarray:
    out = np.zeros(st.game.num_actions, np.int8)
    if st.phase == "sea_loss":
        out[UNITS.loss_actions(st.heroes[st.troop_loss.hero])] = 1
    elif st.luck.window:  # Luck windows on battle dice (luck.py)
        out[LUCK.mask_actions(st)] = 1
    else:
        out[REROLL] = out[KEEP_ROLL] = 1
    return out


def advance(st) -> bool:
    if st.phase == "luck":
        st.to_act = st.heroes[st.luck.hero].seat
        return True
    s = st.troop_loss
    h = st.heroes[s.hero]
    alive = UNITS.loss_actions(h)
    while s.left > 0 and len(alive) == 1:
        UNITS.lose(h, alive[0])
        s.left -= 1
        alive = UNITS.loss_actions(h)
    if s.left > 0 and alive:
        st.to_act = h.seat
        return True
    st.phase, st.troop_loss = s.return_phase, None
    return False


def apply(st, a: int) -> None:
    if st.phase == "sea_loss":
        UNITS.lose(st.heroes[st.troop_loss.hero], a)
        st.troop_loss.left -= 1
        return
    s = st.luck
    if s.resume:  # magic helper: Luck on spell / agent dice (luck.py)
        return LUCK.apply(st, a)
    h = st.heroes[s.hero]
    roll = s.roll
    if a == REROLL:
        h.luck_used_turn = st.turn
        roll = d10(st.rng)
    st.phase, st.luck = s.return_phase, None
    if s.cont == "esp":  # the espionage roll (espionage.advance), then the victims'
        from .espionage import victims_luck
        victims_luck(st, s.roll, roll)
        return
    if s.cont == "agent":  # an agent's Espionage table roll
        from .espionage import resolve_agent
        resolve_agent(st, roll)
        return
    sea_encounter(st, s.hero, roll)


def battle_mask(st, seat: int, h: dict, mask: np.ndarray) -> None:
    """At sea a Hero may attack only adjacent enemy Heroes at sea; land Heroes not ships."""
    sea = at_sea(st, h)
    for d in range(6):
        m = int(st.neighbours[h.cell][d])
        if m < 0:
            continue
        if sea:
            j = st.hero_at(m)
            if j >= 0:
                mask[d] = (h.attacks_left > 0 and not st.land[m] and st.heroes[j].seat != seat)
            else:  # an enemy fleet without a Hero cannot fight back: attacking sinks it
                mask[d] = (h.attacks_left > 0 and not st.land[m] and st.fleets.ships[m] > 0
                           and st.fleets.owner[m] != seat)
        elif not st.land[m]:
            mask[d] = 0



# -- fleets without a Hero -----------------------------------------------------------------------
def fleet_cells(st) -> list[int]:
    """Cells with ships, in cell order (np.flatnonzero(st.fleets.ships)); cached on the state while
    ``st.fleets.ships`` keeps the same bytes. Read-only: callers must not change the list."""
    key = st.fleets.ships.tobytes()
    c = st.__dict__.get("_fleet_cells")
    if c is None or c[0] != key:
        c = st._fleet_cells = (key, np.flatnonzero(st.fleets.ships).tolist())
    return c[1]


def unmanned_fleets(st, seat: int, occ=None) -> list[int]:
    """Cells of this player's fleets with no Hero on board (slot order, at most FLEET_SLOTS).
    ``occ``: the cells with a living Hero, when the caller has them."""
    out = []
    cells = fleet_cells(st)
    if not cells:
        return out
    own = st.fleets.owner
    if occ is None:
        occ = {h.cell for h in st.heroes if h.alive}  # hexes with a Hero (hero_at >= 0)
    for c in cells:
        if own.item(c) == seat and c not in occ:
            out.append(c)
            if len(out) == FLEET_SLOTS:
                break
    return out


def fleet_left(st, c: int) -> int:
    t, left = st.fleets.moves.get(c, (-1, 0))
    return left if t == st.turn else scfg(st)["sea_moves"]


def fleet_mask(st, seat: int, mask: np.ndarray, occ=None) -> None:
    """MOVE: fleets without a Hero on board may move (designed: up to 4 hexes a turn, during any
    of the player's Heroes' moves; no sea encounters, no attacks). ``occ``: the hexes with a
    living Hero (a set, or block_b.hero_map's dict), when the caller has them."""
    if not fleet_cells(st):
        return
    if occ is None:
        occ = {h.cell for h in st.heroes if h.alive}  # hexes with a Hero (hero_at >= 0)
    fleets = unmanned_fleets(st, seat, occ)
    if not fleets:
        return
    land, own = st.land, st.fleets.owner
    for k, c in enumerate(fleets):
        if fleet_left(st, c) <= 0:
            continue
        for d, m in enumerate(st.neighbours[c]):
            if m >= 0 and not land.item(m) and m not in occ and own.item(m) in (-1, seat):
                mask[FLEET0 + 6 * k + d] = 1


def fleet_apply(st, seat: int, a: int) -> None:
    k, d = divmod(a - FLEET0, 6)
    c = unmanned_fleets(st, seat)[k]
    m = int(st.neighbours[c][d])
    left = fleet_left(st, c) - 1
    if st.fleets.ships[m] > 0:  # merging with an own unmanned fleet: the slower one sets the pace
        left = min(left, fleet_left(st, m))
    st.fleets.ships[m] += st.fleets.ships[c]
    st.fleets.owner[m] = seat
    st.fleets.ships[c], st.fleets.owner[c] = 0, -1
    st.fleets.moves.pop(c, None)
    st.fleets.moves[m] = (st.turn, left)
