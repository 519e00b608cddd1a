"""Block B hook surface for rules.py: espionage, fleets/sea, special units, alliances, troop
exchange choices, pass-through, Scouting's look, Luck.

rules.py / combat_flow.py call only short hooks (init / clone / mask / apply / advance dispatch,
battle hooks in sea.py and units.py), so the logic stays in espionage.py, sea.py, units.py and
allies.py. Actions (config.py, from SEA0 upward):

| action           | meaning                                                             |
|------------------|---------------------------------------------------------------------|
| HIRE_AGENT       | espionage: hire one agent (1 gold; at most the espionage roll)      |
| TARGET0 + k      | espionage: pick target slot k (k < 12)                               |
| GIVE0 + 4*d + t  | move phase: give one troop of type t to the friendly Hero in dir d  |
| TAKE_ONE0 + t    | move phase: take one garrison troop of type t into the army        |
| DROP_ONE0 + t    | move phase: drop one troop of type t into the settlement's garrison |
| SHIP0 + d        | recruit phase: one ship (2 gold) into the adjacent water hex d     |
| REROLL/KEEP_ROLL | Luck: reroll the die just rolled, or keep it                       |
| RECRUIT_SP       | recruit one special unit at this variant hex into the Hero there    |
| LOSS_SP0 + u     | casualty / loss: one special unit of kind u (units.SPECIALS)        |
| ALLY_*           | alliances (allies=True): offer / end / give 1 gold / accept / decline |
| FLEET0 + 6*k + d | move phase: move own unmanned fleet k (by cell order, k < 4) one hex |
| GIVE_SP0+13*d+u  | move phase: give one special unit u to the friendly Hero in dir d   |
| PASS0 + d        | move phase: two hexes straight on through a friendly/allied Hero    |
| LOOK0 + d        | move phase, Scouting: see the adjacent enemy Hero's index card      |
| CEDE0 / HERO_TO0 | move phase, allies: cede this settlement / hand this Hero to ally r |
"""
from __future__ import annotations

import numpy as np

from . import allies as ALLY
from . import espionage as ESP
from . import sea as SEA
from . import units as UNITS
from .board import DIR_NAMES
from .config import (ALLY_ACCEPT, ALLY_BREAK0, ALLY_DECLINE, ALLY_GOLD0,
                                ALLY_PROPOSE0, BASIC, BATTLE_ACCEPT, BATTLE_DECLINE,
                                BATTLE_DROP_SP, BATTLE_JOIN0, BATTLE_START, BATTLE_TAKE_SP,
                                CASUALTY0, CEDE0, DROP_OFF, DROP_ONE0, EXCHANGE0,
                                FLEET0, FLEET_SLOTS, GIVE0, GIVE_SP0, HERO_TO0, HIRE_AGENT,
                                KEEP_ROLL, LOOK0, LOSS_SP0, PASS0, RECRUIT_SP, REROLL, SEA0,
                                SETTLEMENTS, SHIP0, TAKE_GARRISON, TAKE_ONE0, TARGET0,
                                TARGET_SLOTS)

PHASES = ESP.PHASES + SEA.PHASES + ALLY.PHASES


def init(st) -> None:
    n = st.game.n_cells
    N = st.game.num_seats
    st.contact = np.zeros((N, N), bool)
    st.revealed = {}
    st.esp, st.esp_queue, st.esp_turn, st.esp_log = None, [], 0, []
    st.ships = np.zeros(n, np.int64)          # ships in each water hex (a fleet = a stack)
    st.fleet_owner = -np.ones(n, np.int64)
    st.sea = None                             # pending sea sub-step (Luck, troop loss)
    st.sea_log = []
    st.nbl = tuple(map(tuple, st.nb.tolist()))  # neighbour table as tuples (fast scalar access)
    st.fleet_moves = {}                       # cell -> (turn, moves left) of unmanned fleets
    st.captures = []                          # (turn, taker, old owner, cell, ships) taken
    st.allied = np.zeros((N, N), bool)        # alliances (option allies=True)
    st.dip, st.dip_queue, st.dip_proposed, st.dip_turn = None, [], [], 0


def begin_espionage(st) -> bool:
    """Block B phases between recruiting and moving: espionage, then diplomacy (allies)."""
    return ESP.begin(st) or ALLY.begin(st)


def on_attack(st, hi: int, cell: int) -> None:
    """Battle hook: attacking an ally ends the alliance."""
    j = st.hero_at(cell)
    foe = (st.heroes[j]["seat"] if j >= 0 else int(st.owner[cell]) if st.land[cell]
           else int(st.fleet_owner[cell]))
    ALLY.on_attack(st, st.heroes[hi]["seat"], foe)


def advance(st) -> bool:
    """Own-phase automatic steps; True when a player must decide now."""
    if st.phase in ESP.PHASES:
        return ESP.advance(st)
    if st.phase in ALLY.PHASES:
        return ALLY.advance(st)
    return SEA.advance(st)


def mask(st) -> np.ndarray:
    if st.phase in ESP.PHASES:
        return ESP.mask(st)
    if st.phase in ALLY.PHASES:
        return ALLY.mask(st)
    return SEA.mask(st)


def apply(st, a: int) -> None:
    if st.phase in ESP.PHASES:
        ESP.apply(st, a)
    elif st.phase in ALLY.PHASES:
        ALLY.apply(st, a)
    else:
        SEA.apply(st, a)


# -- move / recruit phase additions ---------------------------------------------------------------
def _mp0(st, h) -> int:
    return st.game.cfg["designed"]["hero_mp"] + st.abil(h, "logistics")


def _recv(st, h) -> np.ndarray:
    if h.get("recv_turn") != st.turn:
        h["recv_turn"], h["recv"] = st.turn, np.zeros(4, np.int64)
    return h["recv"]


def local_mask(st, seat: int, x: int, mask: np.ndarray, occ: dict | None = None) -> None:
    """Add block B actions to (and remove delayed moves from) the recruit / move / battle masks
    (``occ``: an optional hero_map of this state, to skip the hero scans)."""
    if st.phase == "recruit":
        if st.settle[x] >= 0:
            SEA.recruit_mask(st, seat, x, mask)
        UNITS.recruit_mask(st, seat, x, mask)
        if st.settle[x] >= 0 and st.garrison_kind(x) >= 0:
            mask[RECRUIT_SP] = 0  # a Knights castle recruits its knights into the garrison
        return
    if st.phase not in ("move", "battle"):
        return
    h = st.heroes[x]
    if not h["alive"]:
        return
    if ESP.hero_delayed(st, h):  # Agent Success 6: cannot move or attack this turn
        mask[:6] = 0
        mask[SEA0:] = 0
        if st.phase == "move":  # he may still take his garrison or hand his army over
            _whole_army_limits(st, h, mask, hero_map(st) if occ is None else occ)
        return
    if st.phase == "battle":
        SEA.battle_mask(st, seat, h, mask)
        return
    SEA.move_mask(st, seat, x, h, mask)
    if occ is None:
        occ = hero_map(st)
    SEA.fleet_mask(st, seat, mask, occ)
    _whole_army_limits(st, h, mask, occ)
    c = h["cell"]
    if not st.land[c]:
        return
    _pass_mask(st, seat, h, mask, occ)
    ALLY.trade_mask(st, seat, h, mask)
    if h.get("scout", 0) > 0:  # Scouting: look at an adjacent Hero's card instead of exploring
        for d, m in enumerate(st.nbl[c]):
            j = occ.get(m, -1) if m >= 0 else -1
            if j >= 0 and st.heroes[j]["seat"] != seat and not ESP.is_revealed(st, seat, j):
                mask[LOOK0 + d] = 1
    own_hex = st.owner[c] == seat
    room = st.army_cap(h) - UNITS.army_size(h) if own_hex else 0
    sp = h.get("special")
    nbl = st.nbl[c]
    if own_hex:
        g = st.garrison[c].tolist()
        if room > 0 and any(g):
            new_ok = UNITS.type_count(h) < UNITS.type_limit(st, h)  # 5 troop types (+Command)
            tr = h["troops"].tolist()
            for t in range(4):
                mask[TAKE_ONE0 + t] = g[t] > 0 and (tr[t] > 0 or new_ok)
        gsp = st.gsp[c]
        if room > 0 and any(gsp.tolist()):  # special units in the garrison (Knights), one at a time
            u = int(np.flatnonzero(gsp)[0])
            mask[BATTLE_TAKE_SP] = (sp is not None and sp[u] > 0) or \
                UNITS.type_count(h) < UNITS.type_limit(st, h)
        if st.settle[c] >= 0:
            rec = st.game.settle[SETTLEMENTS[st.settle[c]]]["recruit"]
            u = st.garrison_kind(c)
            if u >= 0:  # the right type here is the settlement's special unit
                mask[BATTLE_DROP_SP] = sp is not None and sp[u] > 0
            elif rec in BASIC and h["troops"][BASIC.index(rec)] > 0:
                mask[DROP_ONE0 + BASIC.index(rec)] = 1
    # exchange instead of moving: only a Hero that has not moved yet, with a friendly (or
    # allied) Hero on adjacent land
    if not (h.get("xchg_turn") == st.turn or (
            h["mp"] >= _mp0(st, h) and h.get("scout", 0) >= st.abil(h, "scouting"))):
        return
    near = []
    for d, m in enumerate(nbl):
        if m >= 0 and st.land[m]:
            j = occ.get(m, -1)
            if j >= 0 and ALLY.friendly(st, seat, st.heroes[j]["seat"]):
                o = st.heroes[j]
                if UNITS.army_size(o) < st.army_cap(o):
                    near.append((d, o))
    if not near:
        return
    sp = h.get("special")
    give_sp = None
    if sp is not None and any(sp.tolist()):  # special units, one at a time (once per turn each)
        recv = h.get("recv_sp") if h.get("recv_turn_sp") == st.turn else 0
        give_sp = np.flatnonzero(sp - recv > 0)
    give = h["troops"] - _recv(st, h)
    for d, o in near:
        new_ok = UNITS.type_count(o) < UNITS.type_limit(st, o)
        for t in range(4):
            mask[GIVE0 + 4 * d + t] = give[t] > 0 and (o["troops"][t] > 0 or new_ok)
        if give_sp is not None:
            osp = o.get("special")
            for u in give_sp.tolist():
                if new_ok or (osp is not None and osp[u] > 0):
                    mask[GIVE_SP0 + 13 * d + u] = 1


def _whole_army_limits(st, h: dict, mask, occ: dict) -> None:
    """Drop TAKE_GARRISON when the whole garrison would break Hero ``h``'s army cap or troop-type
    limit, and each whole-army hand-over (EXCHANGE0 + d) that would break the receiver's type
    limit (also for a Hero delayed by espionage, who may still do both)."""
    c = h["cell"]
    if mask[TAKE_GARRISON] and (st.army_cap(h) - UNITS.army_size(h) <= 0
                                or UNITS.type_count(h) + _new_types(st.garrison[c], h["troops"])
                                + _new_types(st.gsp[c], h.get("special")) > UNITS.type_limit(st, h)):
        mask[TAKE_GARRISON] = 0
    nbl = st.nbl[c]
    for d in range(6):
        if mask[EXCHANGE0 + d]:
            o = st.heroes[occ.get(nbl[d], -1)]
            if UNITS.type_count(o) + _new_types(h["troops"], o["troops"]) > UNITS.type_limit(st, o):
                mask[EXCHANGE0 + d] = 0


def _new_types(give: np.ndarray, have) -> int:
    """Troop types present in ``give`` but absent from ``have`` (None: all absent)."""
    if have is None:
        return sum(1 for k in give.tolist() if k > 0)
    return sum(1 for k, o in zip(give.tolist(), have.tolist()) if k > 0 and o == 0)


#: garrison transfers of the move phase, taking from / dropping into the garrison
GARRISON_TAKES = (TAKE_GARRISON, BATTLE_TAKE_SP) + tuple(range(TAKE_ONE0, TAKE_ONE0 + 4))
GARRISON_DROPS = (DROP_OFF, BATTLE_DROP_SP) + tuple(range(DROP_ONE0, DROP_ONE0 + 4))


def garrison_lock(st, h: dict, mask) -> None:
    """Designed (the rulebook lets a Hero pick up and drop off garrison troops but sets no
    limit): in one turn, at one hex, a Hero moves troops between his army and the garrison in one
    direction only. Without it a take / drop / take ... cycle never ends the move phase."""
    lock = h.get("glock")
    if lock is not None and lock[0] == st.turn and lock[1] == h["cell"]:
        mask[list(GARRISON_DROPS if lock[2] else GARRISON_TAKES)] = 0


def note_garrison(st, h: dict, a: int) -> None:
    """Record the direction of a garrison transfer (see ``garrison_lock``)."""
    if a in GARRISON_TAKES:
        h["glock"] = (st.turn, h["cell"], True)
    elif a in GARRISON_DROPS:
        h["glock"] = (st.turn, h["cell"], False)


def hero_map(st) -> dict:
    """{hex: index of the first living Hero there}: st.hero_at for many hexes at once."""
    out = {}
    for i, h in enumerate(st.heroes):
        if h["alive"] and h["cell"] not in out:
            out[h["cell"]] = i
    return out


def _step_cost(st, a: int, b: int) -> int:
    """MP to step from a into explored land hex b (terrain cost, 3 across a river)."""
    from .board import edge
    from .config import TERRAINS
    cost = st.game.terrain[TERRAINS[st.terrain[b]]]["mp"]
    if edge(a, b) in st.rivers:
        cost = max(cost, st.game.cfg["river"]["cross_mp"])
    return cost


def _pass_target(st, seat: int, h: dict, d: int, occ: dict | None = None) -> int:
    """MP for a pass-through move (two hexes straight on through a friendly or allied Hero),
    or 0 when not possible (``occ``: an optional hero_map of this state)."""
    c = h["cell"]
    m1 = st.nbl[c][d]
    if m1 < 0 or not st.land[m1] or not st.explored[m1]:
        return 0
    j = st.hero_at(m1) if occ is None else occ.get(m1, -1)
    if j < 0 or not ALLY.friendly(st, seat, st.heroes[j]["seat"]):
        return 0
    m2 = st.nbl[m1][d]
    if m2 < 0 or not st.land[m2] or not st.explored[m2] or st.encounter[m2] != 0:
        return 0
    if (st.hero_at(m2) if occ is None else occ.get(m2, -1)) >= 0 or (
            st.owner[m2] not in (-1, seat) and st.garrisoned(m2)):
        return 0
    return _step_cost(st, c, m1) + _step_cost(st, m1, m2)


def _pass_mask(st, seat: int, h: dict, mask: np.ndarray, occ: dict | None = None) -> None:
    if h["mp"] < 2:
        return
    if occ is None:
        occ = hero_map(st)
    nbl = st.nbl[h["cell"]]
    for d in range(6):
        m1 = nbl[d]
        if m1 < 0 or m1 not in occ:  # no Hero to pass through: _pass_target would give 0
            mask[PASS0 + d] = 0
            continue
        cost = _pass_target(st, seat, h, d, occ)
        mask[PASS0 + d] = 0 < cost <= h["mp"]


def apply_local(st, seat: int, x: int, a: int) -> None:
    if st.phase == "recruit":
        if a == RECRUIT_SP:
            UNITS.recruit_apply(st, seat, x)
        else:
            SEA.recruit_apply(st, seat, x, a)
        return
    h = st.heroes[x]
    c = h["cell"]
    if GIVE0 <= a < GIVE0 + 24:
        d, t = divmod(a - GIVE0, 4)
        o = st.heroes[st.hero_at(int(st.nb[c, d]))]
        h["troops"][t] -= 1
        o["troops"][t] += 1
        _recv(st, o)[t] += 1   # a troop may be exchanged only once per turn
        h["mp"], h["scout"] = 0, 0   # instead of moving
        h["xchg_turn"] = st.turn
    elif TAKE_ONE0 <= a < TAKE_ONE0 + 4:
        t = a - TAKE_ONE0
        st.garrison[c, t] -= 1
        h["troops"][t] += 1
    elif DROP_ONE0 <= a < DROP_ONE0 + 4:
        t = a - DROP_ONE0
        st.garrison[c, t] += 1
        h["troops"][t] -= 1
    elif a == BATTLE_TAKE_SP:
        u = int(np.flatnonzero(st.gsp[c])[0])
        st.gsp[c, u] -= 1
        UNITS.special(h)[u] += 1
    elif a == BATTLE_DROP_SP:
        u = st.garrison_kind(c)
        st.gsp[c, u] += 1
        h["special"][u] -= 1
    elif GIVE_SP0 <= a < GIVE_SP0 + 78:
        d, u = divmod(a - GIVE_SP0, 13)
        o = st.heroes[st.hero_at(int(st.nb[c, d]))]
        h["special"][u] -= 1
        UNITS.special(o)[u] += 1
        if o.get("recv_turn_sp") != st.turn:
            o["recv_turn_sp"], o["recv_sp"] = st.turn, np.zeros(UNITS.NS, np.int64)
        o["recv_sp"][u] += 1
        h["mp"], h["scout"] = 0, 0   # instead of moving
        h["xchg_turn"] = st.turn
    elif CEDE0 <= a < HERO_TO0 + 3:  # allies trade settlements and Heroes
        ALLY.trade_apply(st, seat, x, a)
        if HERO_TO0 <= a:
            st.qi += 1  # the Hero now belongs to the ally: this queue entry is done
    elif LOOK0 <= a < LOOK0 + 6:
        st.revealed[(seat, st.hero_at(st.nbl[c][a - LOOK0]))] = st.turn
        h["scout"] -= 1
    elif PASS0 <= a < PASS0 + 6:  # pass-through movement (friendly or allied Hero)
        d = a - PASS0
        h["mp"] -= _pass_target(st, seat, h, d)
        m = st.nbl[st.nbl[c][d]][d]
        h["cell"] = m
        if st.variant[m] == "merchant_caravan":  # once only, as a normal move
            st.variant[m] = ""
            from .luck import caravan
            caravan(st, seat)  # its gold dice, open to Luck (luck.py)
    elif FLEET0 <= a < FLEET0 + 6 * FLEET_SLOTS:
        SEA.fleet_apply(st, seat, a)
    else:
        SEA.move_apply(st, seat, x, h, a)


def recovery(st) -> None:
    # Undead regeneration (UNITS.recovery) runs as rules' recovery task (Luck may reroll it)
    for h in st.heroes:  # troops gained at sea (treasure) beyond the ships' room disband
        if h["alive"] and not st.land[h["cell"]]:
            over = UNITS.army_size(h) - SEA.capacity(st, st.ships[h["cell"]])
            while over > 0:  # designed: automatically, largest group first
                opts = UNITS.loss_actions(h)
                cnt = [h["troops"][a - CASUALTY0] if a < LOSS_SP0 else h["special"][a - LOSS_SP0]
                       for a in opts]
                UNITS.lose(h, opts[int(np.argmax(cnt))])
                over -= 1
    for seat in np.flatnonzero(~st.alive).tolist():  # fleets of eliminated players are removed
        gone = st.fleet_owner == seat
        st.ships[gone] = 0
        st.fleet_owner[gone] = -1


# -- hidden information / strings ---------------------------------------------------------------
def keep_visible(st, observer: int, hi: int) -> bool:
    """determinize: enemy index cards this observer has seen this turn stay as they are."""
    return ESP.is_revealed(st, observer, hi)


def determinize(st, observer: int, rng, busy) -> None:
    """Enemy special troops (index cards) are hidden: their split over the 13 kinds is
    shuffled, total kept (cards seen this turn and heroes in battle stay as they are)."""
    from . import spells as SP
    if SP.scried(st, observer):
        return
    for i, h in enumerate(st.heroes):
        sp = h.get("special")
        if (sp is not None and sp.any() and h["seat"] != observer and i not in busy
                and not keep_visible(st, observer, i)):
            h["special"] = sp[rng.permutation(len(sp))]


def action_to_str(st, a: int) -> str:
    if a == HIRE_AGENT:
        return "hire an agent"
    if TARGET0 <= a < TARGET0 + TARGET_SLOTS:
        return f"target slot {a - TARGET0}"
    if GIVE0 <= a < GIVE0 + 24:
        d, t = divmod(a - GIVE0, 4)
        return f"give one {BASIC[t]} to the hero {DIR_NAMES[d]}"
    if TAKE_ONE0 <= a < TAKE_ONE0 + 4:
        return f"take one {BASIC[a - TAKE_ONE0]} from the garrison"
    if DROP_ONE0 <= a < DROP_ONE0 + 4:
        return f"drop one {BASIC[a - DROP_ONE0]} into the garrison"
    if SHIP0 <= a < SHIP0 + 6:
        return f"recruit a ship {DIR_NAMES[a - SHIP0]}"
    if a == REROLL:
        return "Luck: reroll"
    if a == KEEP_ROLL:
        return "Luck: keep the roll"
    if a == RECRUIT_SP:
        return "recruit one special unit here"
    for base, what in ((ALLY_PROPOSE0, "offer an alliance to"),
                       (ALLY_BREAK0, "end the alliance with"), (ALLY_GOLD0, "give one gold to")):
        if base <= a < base + 3:
            return f"{what} the player {a - base + 1} seat(s) on"
    if GIVE_SP0 <= a < GIVE_SP0 + 78:
        d, u = divmod(a - GIVE_SP0, 13)
        return f"give one {UNITS.SPECIALS[u]} to the hero {DIR_NAMES[d]}"
    if CEDE0 <= a < CEDE0 + 3:
        return f"cede this settlement to the ally {a - CEDE0 + 1} seat(s) on"
    if HERO_TO0 <= a < HERO_TO0 + 3:
        return f"hand this hero over to the ally {a - HERO_TO0 + 1} seat(s) on"
    if LOOK0 <= a < LOOK0 + 6:
        return f"Scouting: look at the card of the hero {DIR_NAMES[a - LOOK0]}"
    if PASS0 <= a < PASS0 + 6:
        return f"move through the friendly hero {DIR_NAMES[a - PASS0]} (two hexes)"
    if FLEET0 <= a < FLEET0 + 6 * FLEET_SLOTS:
        k, d = divmod(a - FLEET0, 6)
        return f"move unmanned fleet {k} {DIR_NAMES[d]}"
    if a == ALLY_ACCEPT:
        return "accept the alliance"
    if a == ALLY_DECLINE:
        return "decline the alliance"
    if LOSS_SP0 <= a < LOSS_SP0 + UNITS.NS:
        return f"lose one of {UNITS.SPECIALS[a - LOSS_SP0]}"
    if BATTLE_JOIN0 <= a < BATTLE_JOIN0 + 6:
        return f"combined attack: the hero {DIR_NAMES[a - BATTLE_JOIN0]} of the target joins"
    names = {BATTLE_START: "start the (combined) attack",
             BATTLE_TAKE_SP: "take one special unit from the garrison",
             BATTLE_DROP_SP: "drop one special unit into the garrison",
             BATTLE_ACCEPT: "join the ally's attack", BATTLE_DECLINE: "do not join the attack"}
    return names.get(a, f"action {a}")


# -- observation section (appended after the base pieces; see observe.py) -----------------------
PLANES_B = 7
_PHASE_B = {p: i for i, p in enumerate(PHASES)}
_PHASE_ALLY = {p: i for i, p in enumerate(ALLY.PHASES)}
VECTOR_B = 76


def fleet_planes(st, seat: int, bd: np.ndarray) -> None:
    """Planes 0-1 of observe_b (my / other fleets, ships/10) into ``bd`` (2, n), zero before."""
    fleets = np.flatnonzero(st.ships).tolist()
    ships, own = st.ships, st.fleet_owner
    for c in fleets:
        bd[0 if own[c] == seat else 1, c] = min(int(ships[c]), 10) / 10.0


def _relative_flags(matrix, seat: int, N: int, v, base: int) -> None:
    """v[base + k] = 1 where ``matrix[seat]`` is set for the seat k places after ``seat``."""
    if N == 2:
        if matrix.item(seat, 1 - seat):  # a Python bool: no numpy scalar
            v[base + 1] = 1
        return
    row = matrix[seat].tolist()
    for k in range(1, N):
        if row[(seat + k) % N]:
            v[base + k] = 1


def observe_b(st, seat: int, out: np.ndarray | None = None, my_fleets: list | None = None,
              occ: set | None = None, mine: list | None = None) -> np.ndarray:
    """Block B features: planes (7, H, W) then a vector (76), observer-relative.

    Planes: 0 my fleets (ships/10), 1 other fleets (ships/10; chits are public), 2 espionage
    target slot (k+1)/12 at the target's hex (the spy only), 3 enemy hero index cards seen this
    turn (army/40), 4 my heroes at sea (sea moves left/6), 5 my fleets without a Hero (moves
    left/4; their slot k for FLEET0 actions is their rank in cell order), 6 combined attack
    (public): the target hex 1, the lead Hero 0.25, joined Heroes 0.5, the allied Hero asked 0.75.
    Vector: 0 espionage, 1 spy_loss, 2 luck, 3 sea_loss (phase flags); 4 my espionage roll/11,
    5 agents hired/11, 6 agents left to resolve/11; 7-20 espionage stage one-hot (spy only);
    21 troops left to lose/10 (the chooser only); 22 pending Luck roll/10; 23-25 contact with the
    players 1..3 seats after me; 26 acting hero at sea; 27 its sea moves/6; 28 its ships/10;
    29 its capacity room/40; 30 its Luck unused this turn; 31 espionage results logged/10;
    32-44 acting hero's special troops/20 (units.SPECIALS order); 45-57 my battle side's special
    groups/20; 58 the foe's special troops in battle (total/40, seen on the battlefield);
    59-61 allied with the players 1..3 seats after me (public); 62 diplomacy, 63 ally_answer
    phase flags; 64 the player offering me an alliance (relative seat/3); 66 join,
    67 join_answer phase flags; 68 Heroes joined to the declared attack or battle/4; 69 the
    joining armies' troops in battle/40; 70-73 my joining armies' warriors, archers, cavalry,
    catapults in battle/40, 74 my joining Heroes alive/4, 75 the casualty to pick now is for a
    joining army (the chooser only).

    ``occ`` / ``mine``: the cells of the living Heroes / my living Heroes in order, when the
    caller (observe.py) has them.
    """
    g = st.game
    N, n = g.num_seats, g.n_cells
    if out is None:  # standalone: a fresh array (observe.py passes a memoryview of its zeroed
        out = np.zeros(PLANES_B * n + VECTOR_B, np.float32)  # section with planes 0-1 filled
        fleet_planes(st, seat, out[:2 * n].reshape(2, n))  # in, and the cells of my fleets)
        own = st.fleet_owner
        my_fleets = [c for c in np.flatnonzero(st.ships).tolist() if own[c] == seat]
    # written through a memoryview (float32 items: no numpy scalar per read / write); planes
    # with flat indices: plane k, cell c at w[k * n + c]; the vector at w[vo + k]
    w = out if type(out) is memoryview else memoryview(out)
    heroes, turn, phase = st.heroes, st.turn, st.phase
    if mine is None:
        mine = [h for h in heroes if h["alive"] and h["seat"] == seat]
    if my_fleets:  # SEA.unmanned_fleets: my fleets with no Hero on board, in cell order
        if occ is None:
            occ = {h["cell"] for h in heroes if h["alive"]}
        k = 0
        fm, sea_moves = st.fleet_moves, SEA.scfg(st)["sea_moves"]
        for c in my_fleets:
            if c not in occ:
                t, left = fm.get(c, (-1, 0))  # SEA.fleet_left
                w[5 * n + c] = (left if t == turn else sea_moves) / 4.0
                k += 1
                if k == FLEET_SLOTS:
                    break
    vo = PLANES_B * n
    e = st.esp
    k = _PHASE_B.get(phase)
    if k is not None:
        w[vo + k] = 1
    if e is not None and e["seat"] == seat:
        w[vo + 4] = min(e["roll"], 11) / 11.0
        w[vo + 5] = min(e["hired"], 11) / 11.0
        w[vo + 6] = min(e["agents"], 11) / 11.0
        if e["stage"] in ESP.STAGES:
            w[vo + 7 + ESP.STAGES.index(e["stage"])] = 1
        if phase == "espionage" and e["stage"] not in ("hire", "done", "move"):
            for k, x in enumerate(e["targets"]):
                if e["stage"] in ("steal_gold", "damage"):
                    c = st.capitol[x]
                elif e["stage"] == "garrison":
                    c = x
                else:
                    c = heroes[x]["cell"]
                if c >= 0:
                    w[2 * n + c] = max(w[2 * n + c], (k + 1) / TARGET_SLOTS)
        elif e["stage"] == "move":
            w[2 * n + heroes[e["victim"]]["cell"]] = 1
    if phase == "spy_loss" and heroes[e["victim"]]["seat"] == seat:
        w[vo + 21] = min(e["left"], 10) / 10.0
    s = st.sea
    if s is not None and heroes[s["hero"]]["seat"] == seat:
        if s["kind"] == "luck":
            w[vo + 22] = s["roll"] / 10.0
        else:
            w[vo + 21] = min(s["left"], 10) / 10.0
    if st.revealed:
        for (obs, hi), t in st.revealed.items():
            if obs == seat and t == turn and heroes[hi]["alive"]:
                w[3 * n + heroes[hi]["cell"]] = min(int(heroes[hi]["troops"].sum()), 40) / 40.0
    _relative_flags(st.contact, seat, N, w, vo + 22)
    land = st.land
    sea_moves = None
    for h in mine:
        if not land[h["cell"]]:
            if h.get("sea_turn") == turn:
                mp = h["sea_mp"]
            else:
                if sea_moves is None:
                    sea_moves = SEA.scfg(st)["sea_moves"]
                mp = sea_moves
            w[4 * n + h["cell"]] = min(mp, 6) / 6.0
    q = st.queue[st.qi] if st.qi < len(st.queue) else None
    if phase == "move" and q is not None and q[0] == seat:
        h = heroes[q[1]]
        if h["alive"] and not land[h["cell"]]:
            w[vo + 26] = 1
            w[vo + 27] = w[4 * n + h["cell"]]
            ships = int(st.ships[h["cell"]])
            w[vo + 28] = min(ships, 10) / 10.0
            room = SEA.capacity(st, ships) - int(h["troops"].sum())
            w[vo + 29] = min(max(room, 0), 40) / 40.0
        w[vo + 30] = h.get("luck_turn") != turn and st.abil(h, "luck") > 0
    if st.esp_log:
        n_log = 0
        for rec in reversed(st.esp_log):  # this turn's entries are at the end
            if rec[0] != turn:
                break
            n_log += rec[1] == seat
        w[vo + 31] = min(n_log, 10) / 10.0
    _relative_flags(st.allied, seat, N, w, vo + 58)
    k = _PHASE_ALLY.get(phase)
    if k is not None:
        w[vo + 62 + k] = 1
        if phase == "ally_answer" and st.dip["to"] == seat:
            w[vo + 64] = ((st.dip["seat"] - seat) % N) / 3.0
    if q is not None and q[0] == seat and phase in ("move", "recruit", "battle"):
        x = q[1]
        hh = None
        if phase == "recruit":
            j = st.hero_at(x)
            hh = heroes[j] if j >= 0 and heroes[j]["seat"] == seat else None
        else:
            hh = heroes[x]
        sp = hh.get("special") if hh is not None else None
        if sp is not None:
            sp = sp.tolist()
            if any(sp):
                for u, k in enumerate(sp):
                    if k:
                        w[vo + 32 + u] = min(k, 20) / 20.0
    if st.battle is not None:
        sides = st.battle["sides"]
        for k in (0, 1):
            if sides[k]["seat"] == seat and len(sides[k]["counts"]) > UNITS.BASE:
                v = np.frombuffer(w, np.float32)[vo:]  # a numpy view for the slice write
                v[45:58] = np.minimum(sides[k]["counts"][UNITS.BASE:], 20) / 20.0
                foe = sides[1 - k]["counts"]
                w[vo + 58] = min(int(foe[UNITS.BASE:].sum()), 40) / 40.0
                break
    jn, b = st.join, st.battle
    p6 = 6 * n
    if jn is not None:  # a declared combined attack
        w[vo + 66 + (phase == "join_answer")] = 1
        w[p6 + jn["cell"]] = 1
        w[p6 + heroes[jn["lead"]]["cell"]] = 0.25
        for j in jn["members"]:
            w[p6 + heroes[j]["cell"]] = 0.5
        if jn["ask"] >= 0:
            w[p6 + heroes[jn["ask"]]["cell"]] = 0.75
        w[vo + 68] = min(len(jn["members"]), 4) / 4.0
    elif b is not None and b.get("members"):
        w[p6 + b["cell"]] = 1
        w[p6 + heroes[b["sides"][0]["hero"]]["cell"]] = 0.25
        for m in b["members"]:
            w[p6 + heroes[m["hero"]]["cell"]] = 0.5
        w[vo + 68] = min(len(b["members"]), 4) / 4.0
        w[vo + 69] = min(sum(int(m["counts"].sum() - m["counts"][4]) for m in b["members"]),
                         40) / 40.0
        mine = [m for m in b["members"] if m["seat"] == seat]
        if mine:
            v = np.frombuffer(w, np.float32)[vo:]  # a numpy view for the slice write
            v[70:74] = np.minimum(sum(m["counts"][:4] for m in mine), 40) / 40.0
            w[vo + 74] = sum(int(m["counts"][4]) for m in mine) / 4.0
        if phase == "casualty" and b.get("cm", -1) >= 0 and st.current_player == seat:
            w[vo + 75] = 1
    return out
