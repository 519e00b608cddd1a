"""Warbah magic (block A): spell decks, the Realm phase, realm-spell windows, Wizards, Battle
spells, Resist Spells, magic items. rules.py / combat_flow.py / battle.py call the hooks here.

State ``st.mg`` (dict): ``rdeck``/``bdeck`` draw piles (top = end of the list), ``rdisc``/``bdisc``
discard piles, ``hand[seat]`` realm spell ids held, ``timing`` of the open realm window,
``saved`` (phase, queue, qi) the window interrupted, ``opened`` windows used this turn,
``pending`` spell awaiting a target, ``sanct`` sanctuary cells, ``bwalls`` {cell: extra walls},
``blight`` int[n] (turn whose income the settlement loses), ``curse[seat]`` gold lost this turn,
``scry[seat]`` turn of the last Scry.
Hero fields: ``wizard`` (0 none, tower cell + 1, -1 wandering), ``wcast`` (turn the wizard cast a
realm spell), ``items`` [{"kind": realm|battle|ability, "k": id or (ability, type), "used": turn}].
Battle: ``b["mg"]`` (spell segment step, last spell cast for Dispell, limbo cards) and
``side["mg"]`` (hand, wizard, neutralized units, per-round blocks/boosts, armor, ...): the
Battle spells are in battle_magic.py (re-exported at the end of this module).

Flow (AEC sub-steps): phase ``realm`` = one queue entry per (seat, hero) able to cast in the
open window (REALM0+k casts, DONE ends); ``realm_target`` picks the target (directions 0-5,
CELL0+c, TSEAT0+r; DONE cancels). The discard step of the Realm phase uses entries (seat, -1)
where REALM0+k discards. In battle, phase ``spell`` (BSPELL0+k or DONE = pass) and
``spell_target`` (GROUP0+t, or MAGIC_SPGROUP0+u for a special-unit group; DONE cancels).
Fortell is cast only against an enemy espionage result, by the victim's choice (espionage.py,
stage ``fortell``). Luck may reroll realm-spell dice (``_lucky_realm``, luck.py).
"""
from __future__ import annotations

import numpy as np

from .config import (BSPELL0, CELL0, DONE, GIVE_ITEM0, GROUP0, MAGIC0, MAGIC_END,
                                MAGIC_SPGROUP0, REALM0, RECRUIT_WIZARD, SETTLEMENTS, TERRAINS,
                                TSEAT0)
from . import luck as LUCK
from .luck import initiative as luck_initiative  # noqa: F401  (rules._start_turn)
from .units import SPECIALS, gain_warriors, type_count, type_limit

REALM_PHASES = ("realm", "realm_target")
BATTLE_PHASES = ("spell", "spell_target")
MAGIC_PHASES = REALM_PHASES + BATTLE_PHASES
_MAGIC_PHASE = {p: i for i, p in enumerate(MAGIC_PHASES)}
TIMINGS = ("discard", "collect", "recruit", "espionage", "move", "disaster", "recovery")
GROUPS = ("warriors", "archers", "cavalry", "catapults", "hero", "monster")
TOWER = SETTLEMENTS.index("tower")
DIR_TARGETS = ("adj_army", "adj_settlement", "adj_encounter", "adj_ship")
CELL_TARGETS = ("hero_no_wizard", "own_cell", "any_cell", "unexplored_cell")


class Tables:
    def __init__(self, cfg: dict):
        sp = cfg["spells"]
        self.cfg = sp
        self.realm_names = list(sp["realm"])
        self.battle_names = list(sp["battle"])
        self.realm = [sp["realm"][k] for k in self.realm_names]
        self.battle = [sp["battle"][k] for k in self.battle_names]
        self.by_timing = {t: [k for k, r in enumerate(self.realm) if r["timing"] == t]
                          for t in TIMINGS}
        self.NR, self.NB = len(self.realm), len(self.battle)
        self.dispell = self.battle_names.index("dispell")


def tables(game) -> Tables:
    t = getattr(game, "_magic_tables", None)
    if t is None:
        t = game._magic_tables = Tables(game.cfg)
    return t


def d10(rng, n: int = 1) -> int:
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n, without the array
        return sum([int(rng.integers(1, 11)) for _ in range(n)])
    return sum(rng.integers(1, 11, size=n).tolist())


def d5(rng, n: int = 1) -> int:
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n, without the array
        return sum([int(rng.integers(1, 6)) for _ in range(n)])
    return sum(rng.integers(1, 6, size=n).tolist())


# -- state set-up, cloning, determinizing ---------------------------------------------------
def init_state(st) -> None:
    T, N = tables(st.game), st.game.num_seats
    st.mg = {"rdeck": [int(x) for x in st.rng.permutation(T.NR)], "rdisc": [],
             "bdeck": [int(x) for x in st.rng.permutation(T.NB)], "bdisc": [],
             "hand": [[] for _ in range(N)], "timing": "", "saved": None, "opened": set(),
             "pending": None, "sanct": set(), "bwalls": {},
             "blight": np.zeros(st.game.n_cells, np.int64), "curse": [0] * N, "scry": [-1] * N, "limit": [0] * N}


def scried(st, observer: int) -> bool:
    """Scry shows the observer every hero card and realm hand and the decks' tops this turn."""
    return st.mg["scry"][observer] == st.turn


def determinize(s, observer: int, rng) -> None:
    """Resample hidden magic: opponents' realm hands, enemy battle hands, deck order, the cards
    behind enemy heroes' items (unless the observer scried this turn)."""
    if scried(s, observer):
        return
    m, T = s.mg, tables(s.game)
    opp = [q for q in range(s.game.num_seats) if q != observer]
    pool = list(m["rdeck"]) + [k for q in opp for k in m["hand"][q]]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for q in opp:
        n = len(m["hand"][q])
        m["hand"][q], pool = pool[:n], pool[n:]
    m["rdeck"] = pool
    b = s.battle
    busy = set()
    if b is not None:
        everyone = list(b["sides"]) + list(b.get("members", ()))  # combined attacks too
        sides = [sd for sd in everyone if sd.get("mg") is not None and sd["seat"] != observer]
        busy = {sd["hero"] for sd in everyone}
        pool = list(m["bdeck"]) + [k for sd in sides for k in sd["mg"]["hand"]]
        pool = [pool[i] for i in rng.permutation(len(pool))]
        for sd in sides:
            n = len(sd["mg"]["hand"])
            sd["mg"]["hand"], pool = pool[:n], pool[n:]
        m["bdeck"] = pool
    else:
        m["bdeck"] = [m["bdeck"][i] for i in rng.permutation(len(m["bdeck"]))]
    for i, h in enumerate(s.heroes):
        if h["seat"] != observer and i not in busy and h.get("items"):
            for it in h["items"]:
                if it["kind"] == "realm":
                    it["k"] = int(rng.integers(T.NR))
                elif it["kind"] == "battle":
                    it["k"] = int(rng.integers(T.NB))


# -- decks ------------------------------------------------------------------------------------
def draw(st, kind: str):
    """Top card of the realm ('r') or battle ('b') deck; the discards are reshuffled when empty."""
    m = st.mg
    deck = m[kind + "deck"]
    if not deck:
        disc = m[kind + "disc"]
        if not disc:
            return None
        deck.extend(disc[i] for i in st.rng.permutation(len(disc)))
        disc.clear()
    return deck.pop()


def towers(st, seat: int) -> int:
    settle = st.settle.tolist()  # plain lists: usually no tower at all (no numpy calls)
    if TOWER not in settle:
        return 0
    return sum(1 for o, x in zip(st.owner.tolist(), settle) if o == seat and x == TOWER)


def temples(st, seat: int) -> int:
    if "temple" not in st.variant:
        return 0
    return sum(1 for c in np.flatnonzero(st.owner == seat) if st.variant[c] == "temple")


def hand_limit(st, seat: int) -> int:
    """Towers controlled, +1 per controlled Temple (desert variant)."""
    return towers(st, seat) + temples(st, seat)


def refill(st, seat: int) -> None:
    hand = st.mg["hand"][seat]
    lim = st.mg["limit"][seat] = hand_limit(st, seat)
    while len(hand) < lim:
        k = draw(st, "r")
        if k is None:
            break
        hand.append(k)


# -- wizards and items ------------------------------------------------------------------------
def has_wizard(h: dict) -> bool:
    return bool(h.get("wizard", 0))


def tower_wizard_home(st, c: int) -> bool:
    """The tower's wizard is home unless a living hero has him (killed wizards teleport home)."""
    return not any(h["alive"] and h.get("wizard", 0) == c + 1 for h in st.heroes)


def recruit_mask(st, seat: int, c: int, mask) -> None:
    if st.settle[c] != TOWER or st.gold[seat] < st.game.cfg["spells"]["wizard_cost"]:
        return
    j = st.hero_at(c)
    if j >= 0 and st.heroes[j]["seat"] == seat and not has_wizard(st.heroes[j]) \
            and tower_wizard_home(st, c):
        mask[RECRUIT_WIZARD] = 1


def recruit_wizard(st, seat: int, c: int) -> None:
    st.gold[seat] -= st.game.cfg["spells"]["wizard_cost"]
    st.heroes[st.hero_at(c)]["wizard"] = c + 1


def kill_wizard(st, hi: int) -> None:
    """The wizard leaves the army: a tower wizard goes home (recruitable again), a wandering
    one leaves the map."""
    st.heroes[hi]["wizard"] = 0


def gain_ability_item(h: dict, ab: tuple) -> None:
    """A magic ability item holding ability ``ab`` (rolled by rules' treasure chain, open to
    Luck): the Hero has the ability while he holds the item."""
    h["abil"].append(ab)
    h.setdefault("items", []).append({"kind": "ability", "k": ab, "used": -1})


def gain_item(st, h: dict, kind: str) -> None:
    """A realm- or battle-spell item: the card drawn defines it (ability items:
    ``gain_ability_item``)."""
    k = draw(st, kind[0])
    if k is None:
        return
    st.mg[kind[0] + "disc"].append(k)  # the card only defines the item (designed)
    h.setdefault("items", []).append({"kind": kind, "k": k, "used": -1})


def _abilities_without(h: dict, it: dict) -> list:
    """Hero ``h``'s abilities once item ``it`` is gone (an ability item takes its ability)."""
    rest = list(h["abil"])
    if it["kind"] == "ability" and tuple(it["k"]) in [tuple(a) for a in rest]:
        rest.remove(next(a for a in rest if tuple(a) == tuple(it["k"])))
    return rest


def drop_item(h: dict, it: dict) -> None:
    h["items"].remove(it)
    h["abil"][:] = _abilities_without(h, it)


def take_items(st, winner: dict, loser: dict) -> None:
    """A Hero who defeats an enemy Hero takes all his magic items."""
    for it in list(loser.get("items") or ()):
        drop_item(loser, it)
        if it["kind"] == "ability":
            winner["abil"].append(tuple(it["k"]))
        winner.setdefault("items", []).append(it)


def _givable(st, h: dict):
    return [it for it in h.get("items") or () if it.get("moved", -1) != st.turn]


def _friend(st, seat: int, h: dict, d: int) -> int:
    m = int(st.nb[h["cell"], d])
    j = st.hero_at(m) if m >= 0 else -1
    if j < 0:
        return -1
    from .allies import friendly  # allies may trade magic items too (ALLIES)
    return j if friendly(st, seat, st.heroes[j]["seat"]) else -1


def move_mask(st, seat: int, h: dict, mask) -> None:
    """Move phase: a hero with an item not yet exchanged this turn may hand it to an adjacent
    friendly (own or allied) hero (instead of moving), unless it is a Command item whose loss
    would leave him with more troop types than his limit (designed)."""
    givable = _givable(st, h) if h.get("items") and h["alive"] else None
    if givable:
        it = givable[0]  # the item give_item hands over
        if (it["kind"] == "ability" and tuple(it["k"])[0] == "command"
                and type_count(h) > type_limit(st, dict(h, abil=_abilities_without(h, it)))):
            return
        for d in range(6):
            if _friend(st, seat, h, d) >= 0:
                mask[GIVE_ITEM0 + d] = 1


def give_item(st, seat: int, hi: int, d: int) -> None:
    """Hand the first item not exchanged this turn to the friendly hero in direction d; an item
    changes hands once per turn; the giver's movement ends (designed: he may still give more)."""
    h = st.heroes[hi]
    o = st.heroes[_friend(st, seat, h, d)]
    it = _givable(st, h)[0]
    drop_item(h, it)
    if it["kind"] == "ability":
        o["abil"].append(tuple(it["k"]))
    it["moved"] = st.turn
    o.setdefault("items", []).append(it)
    h["mp"], h["scout"] = 0, 0


def apply_treasure(st, hi: int, r: int) -> None:
    """One Treasure table result r for hero hi (Research): its dice (gold, followers, a magic
    ability item's Ability rolls) through rules' treasure chain, open to Luck."""
    LUCK.chain(st, "treasure", (hi, "research"), (r,))  # the step: rules._treasure_rolls


def treasure_item(st, hi: int, row: dict) -> None:
    """Treasure 7 (Wandering Mage: a wizard, else a realm-spell item) and 10 (battle-spell
    item); 8-9 (ability item) is rolled and given by rules' treasure chain."""
    h = st.heroes[hi]
    if not h["alive"]:
        return
    if row.get("wandering_mage"):
        if not has_wizard(h):
            h["wizard"] = -1
        else:
            gain_item(st, h, "realm")
    elif row.get("magic_item") in ("realm", "battle"):
        gain_item(st, h, row["magic_item"])


# -- realm windows ----------------------------------------------------------------------------
def begin_turn(st) -> None:
    """Realm phase: seats holding cards may discard (sub-steps), then all draw up to their
    limit; then the collect-phase window, gold, and the recruit phase."""
    m = st.mg
    m["sanct"].clear()
    m["bwalls"].clear()
    m["opened"] = set()
    m["curse"] = [0] * st.game.num_seats
    q = []
    for s in st.order:
        if m["hand"][s] and hand_limit(st, s) > 0:
            q.append((s, -1))
        else:
            refill(st, s)
    if q:
        m["saved"] = None
        _open(st, "discard", q)
        return
    _after_discard(st)


def _open(st, timing: str, queue) -> None:
    st.mg["timing"] = timing
    st.phase, st.queue, st.qi = "realm", queue, 0


def _after_discard(st) -> None:
    if open_window(st, "collect"):
        return
    st._begin_recruit()
    open_window(st, "recruit")


def open_window(st, timing: str) -> bool:
    """Open the realm-spell window ``timing`` (once per turn) if anyone can cast in it."""
    m = st.mg
    if timing in m["opened"]:
        return False
    m["opened"].add(timing)
    q = [(s, i) for s in st.order for i, h in enumerate(st.heroes)
         if h["alive"] and h["seat"] == s and castable(st, s, i, timing)]
    if not q:
        return False
    m["saved"] = (st.phase, st.queue, st.qi)
    _open(st, timing, q)
    return True


def end_window(st) -> None:
    """Called by rules._advance when the window's queue is exhausted."""
    m = st.mg
    t = m["timing"]
    m["timing"] = ""
    if t == "discard":
        for s in st.order:  # everyone draws up to the limit (also seats skipped in the queue)
            refill(st, s)
        _after_discard(st)
    elif t == "collect":
        st._begin_recruit()
        open_window(st, "recruit")
    else:
        st.phase, st.queue, st.qi = m["saved"]
        m["saved"] = None


def _sources(st, seat: int, hi: int, timing: str):
    """Realm spell ids castable by hero hi in this window, from the hand (wizard) or items."""
    h = st.heroes[hi]
    T = tables(st.game)
    out = set()
    if has_wizard(h) and h.get("wcast", -1) != st.turn:
        out.update(k for k in st.mg["hand"][seat] if T.realm[k]["timing"] == timing)
    for it in h.get("items") or ():
        if it["kind"] == "realm" and it["used"] != st.turn and T.realm[it["k"]]["timing"] == timing:
            out.add(it["k"])
    return sorted(out)


def castable(st, seat: int, hi: int, timing: str):
    if not st.heroes[hi]["alive"]:
        return []
    return [k for k in _sources(st, seat, hi, timing) if realm_targets(st, seat, hi, k)]


def _adj(st, c: int):
    return [(d, int(m)) for d, m in enumerate(st.nb[c]) if m >= 0]


def _enemy_force(st, seat: int, m: int, heroes_only: bool) -> bool:
    j = st.hero_at(m)
    if j >= 0:
        return st.heroes[j]["seat"] != seat
    return (not heroes_only and st.owner[m] not in (-1, seat) and _garrisoned(st, m)
            and st.land[m])


def realm_targets(st, seat: int, hi: int, k: int) -> list:
    """Target actions for realm spell k cast by hero hi ([None] when it needs no target)."""
    T = tables(st.game)
    sp = T.realm[k]
    tg, eff = sp["target"], sp["effect"]
    h = st.heroes[hi]
    c = h["cell"]
    if tg == "none":
        if eff == "sea_move":
            return [None] if getattr(st, "ships", None) is not None and not st.land[c] else []
        if eff == "heal":
            return [None] if h.get("lost", 0) > 0 else []
        if eff == "avatar":
            return [None] if _avatar_cell(st, seat) >= 0 else []
        if eff == "fortell":
            return []  # cast only against an espionage result (espionage.py, stage fortell)
        return [None]
    if tg == "adj_army":
        return [d for d, m in _adj(st, c) if _enemy_force(st, seat, m, eff == "blizzard")]
    if tg == "adj_settlement":
        return [d for d, m in _adj(st, c) if st.settle[m] >= 0 and st.owner[m] != seat]
    if tg == "adj_encounter":
        return [d for d, m in _adj(st, c) if st.encounter[m] != 0]
    if tg == "adj_ship":
        ships = getattr(st, "ships", None)
        if ships is None:
            return []
        return [d for d, m in _adj(st, c) if ships[m] > 0 and st.fleet_owner[m] != seat]
    if tg == "opponent":
        N = st.game.num_seats
        return [TSEAT0 + r - 1 for r in range(1, N) if st.alive[(seat + r) % N]]
    if tg == "hero_no_wizard":
        if not has_wizard(h):  # an item-cast Teleport needs a wizard to move
            return []
        return [CELL0 + o["cell"] for j, o in enumerate(st.heroes)
                if j != hi and o["alive"] and o["seat"] == seat and not has_wizard(o)]
    if tg == "own_cell":
        return [CELL0 + int(x) for x in np.flatnonzero(st.owner == seat)
                if st.land[x] and st.hero_at(int(x)) < 0 and st.encounter[x] == 0]
    if tg == "any_cell":
        return [CELL0 + int(x) for x in np.flatnonzero(st.explored & st.land)]
    if tg == "unexplored_cell":
        return [CELL0 + int(x) for x in np.flatnonzero(st.land & ~st.explored)]
    raise ValueError(f"unknown realm target {tg}")


def _avatar_cell(st, seat: int) -> int:
    c = int(st.capitol[seat])
    if c >= 0 and st.owner[c] == seat and st.hero_at(c) < 0:
        return c
    for x in st.settlements_of(seat):
        if st.hero_at(x) < 0:
            return x
    return -1


def realm_mask(st, seat: int, x: int) -> np.ndarray:
    mask = np.zeros(st.game.num_actions, np.int8)
    mask[DONE] = 1
    m = st.mg
    if st.phase == "realm_target":
        k, hi = m["pending"]
        for a in realm_targets(st, seat, hi, k):
            mask[a] = 1
    elif m["timing"] == "discard":
        for k in m["hand"][seat]:
            mask[REALM0 + k] = 1
    else:
        for k in castable(st, seat, x, m["timing"]):
            mask[REALM0 + k] = 1
    return mask


def realm_apply(st, a: int) -> None:
    m = st.mg
    seat, x = st.queue[st.qi]
    if st.phase == "realm_target":
        k, hi = m["pending"]
        m["pending"] = None
        st.phase = "realm"
        if a != DONE:  # DONE cancels the spell (the card is kept)
            cast_realm(st, seat, hi, k, a)
        return
    if a == DONE:
        if m["timing"] == "discard":
            refill(st, seat)
        st.qi += 1
        return
    k = a - REALM0
    if m["timing"] == "discard":
        m["hand"][seat].remove(k)
        m["rdisc"].append(k)
        return
    tg = realm_targets(st, seat, x, k)
    if tg == [None]:
        cast_realm(st, seat, x, k, None)
    else:
        m["pending"] = (k, x)
        st.phase = "realm_target"


def _pay_realm(st, seat: int, h: dict, k: int) -> None:
    """A wizard casts from the hand (one realm spell per wizard per turn), else an item is used."""
    m = st.mg
    if has_wizard(h) and h.get("wcast", -1) != st.turn and k in m["hand"][seat]:
        h["wcast"] = st.turn
        m["hand"][seat].remove(k)
        m["rdisc"].append(k)
        return
    it = next(i for i in h["items"] if i["kind"] == "realm" and i["k"] == k and i["used"] != st.turn)
    it["used"] = st.turn


def _garrisoned(st, m: int) -> bool:
    """A garrison (basic troops or, block B, special units such as Knights) stands in hex m."""
    gsp = getattr(st, "gsp", None)
    return bool(st.garrison[m].any() or (gsp is not None and gsp[m].any()))


def _lose_mixed(troops, special, n: int) -> None:
    """n troops lost from the largest groups, basic troops and special units alike (designed,
    like Disease; ties: basic types first, then table order)."""
    if special is None:
        return _lose_troops(troops, n)
    for _ in range(n):
        t, u = int(np.argmax(troops)), int(np.argmax(special))
        if max(troops[t], special[u]) <= 0:
            return
        if troops[t] >= special[u]:
            troops[t] -= 1
        else:
            special[u] -= 1


def _lose_troops(troops, n: int) -> None:
    """n troops lost from the largest groups (designed, like Disease)."""
    for _ in range(n):
        if troops.sum() <= 0:
            return
        troops[int(np.argmax(troops))] -= 1


def _force_loses(st, m: int, n: int) -> None:
    j = st.hero_at(m)
    if j >= 0:
        _lose_mixed(st.heroes[j]["troops"], st.heroes[j].get("special"), n)
    elif st.land[m]:
        gsp = getattr(st, "gsp", None)
        _lose_mixed(st.garrison[m], None if gsp is None else gsp[m], n)


def cast_realm(st, seat: int, hi: int, k: int, target) -> None:
    """Pay for and resolve realm spell k cast by hero hi at ``target``."""
    T = tables(st.game)
    sp = T.realm[k]
    eff = sp["effect"]
    h = st.heroes[hi]
    _pay_realm(st, seat, h, k)
    m = st.mg
    cell = target - CELL0 if target is not None and target >= CELL0 else -1
    adj = int(st.nb[h["cell"], target]) if target is not None and target < 6 else -1
    rng = st.rng
    if eff == "sea_move":
        from . import sea as SEA
        SEA._sea_mp(st, h)
        h["sea_mp"] += sp["n"]
    elif eff == "teleport":
        o = st.heroes[st.hero_at(cell)]
        o["wizard"], h["wizard"] = h["wizard"], 0
        o["wcast"] = st.turn
    elif eff == "dimension_door":
        h["cell"] = cell
    elif eff == "fly":
        h["mp"] += sp["n"]
    elif eff == "blizzard":
        o = st.heroes[st.hero_at(adj)]
        o["mp"], o["scout"], o["attacks"] = 0, 0, 0
        o["blizzard"] = st.turn
    elif eff in ("raze", "decimate"):
        m["blight"][adj] = st.turn + 1
        if eff == "raze":
            st.wall_damage[adj] = 99  # walls destroyed until rebuilt in recovery
        n = st.game.cfg["spells"]["disaster_troop_dice"]
        _lucky_realm(st, seat, hi, k, target, d10(rng, n), (n, 10), _force_seat(st, adj))
    elif eff in ("death", "gain_warriors", "gold", "curse", "heal"):
        victim = (_force_seat(st, adj) if eff == "death" else
                  (seat + target - TSEAT0 + 1) % st.game.num_seats if eff == "curse" else -1)
        _lucky_realm(st, seat, hi, k, target, d10(rng, sp["dice"]), (sp["dice"], 10), victim)
    elif eff == "research":
        _lucky_realm(st, seat, hi, k, target, int(rng.integers(1, 6)), (1, 5), -1)
    elif eff == "avatar":
        c = _avatar_cell(st, seat)
        st.heroes.append({"seat": seat, "cell": c, "troops": np.zeros(4, np.int64), "xp": 0,
                          "abil": [], "alive": True, "mp": 0, "attacks": 0, "lost": 0,
                          "id": sum(1 for q in st.heroes if q["seat"] == seat) + 1})
        st.gain_abilities(len(st.heroes) - 1)  # its Ability rolls are open to Luck
    elif eff == "banish":
        st.encounter[adj] = 0
        st.terrain[adj] = TERRAINS.index("clear")
    elif eff == "whirlpool":
        j = st.hero_at(adj)
        if j >= 0:
            from . import sea as SEA
            SEA.sink_ship(st, j)
        else:
            st.ships[adj] -= 1
            if st.ships[adj] <= 0:
                st.fleet_owner[adj] = -1
    elif eff == "sanctuary":
        m["sanct"].add(cell)
    elif eff == "stone_walls":
        m["bwalls"][h["cell"]] = m["bwalls"].get(h["cell"], 0) + sp["n"]
    elif eff == "view":
        cells = [cell] + [int(x) for x in st.nb[cell]
                          if x >= 0 and st.land[x] and not st.explored[x]][:sp["n"] - 1]
        for x in cells:
            st._explore(x)
    elif eff == "scry":
        m["scry"][seat] = st.turn
    else:
        raise ValueError(f"realm effect {eff} has no resolution")
    st._mask = None


def _force_seat(st, m: int) -> int:
    """The player whose army or garrison stands at cell m (-1: none)."""
    j = st.hero_at(m)
    if j >= 0:
        return st.heroes[j]["seat"]
    return int(st.owner[m]) if st.land[m] and _garrisoned(st, m) else -1


def _lucky_realm(st, seat, hi, k, target, value, dice, victim) -> None:
    """RARE ABILITY Luck on a realm spell's die roll: the caster's player, then the player it is
    aimed at, may have it rolled again (luck.py); then the roll takes effect."""
    if not LUCK.offer(st, (seat, victim), value, dice, "realm", (seat, hi, k, target)):
        _realm_roll(st, value, (seat, hi, k, target))


@LUCK.register("realm")
def _realm_roll(st, value: int, ctx) -> None:
    """The part of a realm spell that depends on its die roll ``value``."""
    seat, hi, k, target = ctx
    eff = tables(st.game).realm[k]["effect"]
    h = st.heroes[hi]
    adj = int(st.nb[h["cell"], target]) if target is not None and target < 6 else -1
    if eff in ("raze", "decimate", "death"):
        _force_loses(st, adj, value)
    elif eff == "gain_warriors":
        gain_warriors(st, h, value)
    elif eff == "research":
        apply_treasure(st, hi, value + 5)
    elif eff == "gold":
        st.gold[seat] += value
    elif eff == "curse":
        st.mg["curse"][(seat + target - TSEAT0 + 1) % st.game.num_seats] += value
    elif eff == "heal":
        # as warriors, like Healing (lost types are not tracked), within the type limit
        back = gain_warriors(st, h, min(int(h["lost"]), value))
        h["lost"] -= back
    st._mask = None


def fortell_id(st) -> int:
    return tables(st.game).realm_names.index("fortell")


def fortell_caster(st, seat: int) -> int:
    """A living hero of ``seat`` able to cast Fortell now (a wizard who has not cast this turn
    with the card in hand, or a Fortell item unused this turn), else -1."""
    if seat < 0:
        return -1
    k = fortell_id(st)
    for i, h in enumerate(st.heroes):
        if h["alive"] and h["seat"] == seat and k in _sources(st, seat, i, "espionage"):
            return i
    return -1


def use_fortell(st, seat: int) -> bool:
    """Espionage hook: ``seat`` casts Fortell (its first able hero pays: the wizard's card, else
    an item) to cancel one enemy espionage result against it; False if it cannot. The choice
    whether to cast is the victim's (espionage.py, stage ``fortell``)."""
    i = fortell_caster(st, seat)
    if i < 0:
        return False
    _pay_realm(st, seat, st.heroes[i], fortell_id(st))
    return True


def blighted(st, c: int) -> bool:
    """Razed or decimated last turn: no income this turn."""
    return st.mg["blight"][c] == st.turn


def bonus_walls(st, c: int) -> int:
    return st.mg["bwalls"].get(c, 0) if st.mg["bwalls"] else 0


# -- observation ------------------------------------------------------------------------------
MAGIC_VECTOR = 266


def observe(st, seat: int, v: np.ndarray | None = None, mine: list | None = None) -> np.ndarray:
    """Magic section of the observation (see observe.py's docstring for the layout), written
    into ``v`` (zeros, MAGIC_VECTOR long: observe.py passes a memoryview of its section) or a new
    array. ``mine``: my living Heroes in order, when the caller has them."""
    T = st.game.__dict__.get("_magic_tables") or tables(st.game)
    NR, NB = T.NR, T.NB
    if v is None:
        v = np.zeros(MAGIC_VECTOR, np.float32)
    w = v if type(v) is memoryview else memoryview(v)  # float32 items: no numpy scalars
    m = st.mg
    phase = st.phase
    k = _MAGIC_PHASE.get(phase)
    if k is not None:
        w[k] = 1
        if k < 2 and m["timing"]:  # REALM_PHASES
            w[4 + TIMINGS.index(m["timing"])] = 1
        if phase == "realm_target" and m["pending"] is not None:
            w[11] = (m["pending"][0] + 1) / NR
    o = 13
    hands = m["hand"]
    for k in hands[seat]:
        w[o + k] += 0.5
    o += NR  # 39: my heroes' realm-spell items
    bo = o + NR  # 65: my battle hand
    io = bo + NB  # 107: my battle-spell items
    wiz = 0
    if mine is None:
        mine = [h for h in st.heroes if h["alive"] and h["seat"] == seat]
    for h in mine:
        if h.get("wizard", 0):  # has_wizard
            wiz += 1
        for it in h.get("items") or ():
            if it["kind"] == "realm":
                w[o + it["k"]] += 0.5
            elif it["kind"] == "battle":
                w[io + it["k"]] += 0.5
    s0 = io + NB  # 149
    if wiz:
        w[s0] = min(wiz, 4) / 4
    hero = None  # the hero now acting for me (realm window, move, battle declaration)
    if phase in ("realm", "realm_target", "move", "battle") and st.qi < len(st.queue) \
            and st.queue[st.qi][0] == seat:
        x = st.queue[st.qi][1]
        hero = st.heroes[x] if x >= 0 else None
    N = st.game.num_seats
    for r in range(1, N):
        kk = len(hands[(seat + r) % N])
        if kk:
            w[s0 + 2 + r] = min(kk, 4) / 4  # 152-154
    b = st.battle
    if b is not None and b.get("mg") is not None:
        # my army: the casting one when it is mine, else my first (lead, defender, joiners)
        arm = list(b["sides"]) + list(b.get("members", ()))
        mine = [k for k in range(len(arm)) if arm[k]["seat"] == seat]
        if mine:
            c = b["mg"]["caster"]
            k = c if c in mine and st.phase in ("spell", "spell_target") else mine[0]
            me, foe = arm[k], b["sides"][0 if k == 1 else 1]
            if me["hero"] >= 0:
                hero = st.heroes[me["hero"]]
            for s in me["mg"]["hand"]:
                w[bo + s] += 0.5
            w[s0 + 6] = min(len(foe["mg"]["hand"]), 6) / 6
            w[s0 + 7] = foe["mg"]["wizard"]
            w[s0 + 8] = (b["round"] + 1) in me["mg"]["bind"] or b["round"] in me["mg"]["bind"]
            w[s0 + 9] = (b["round"] + 1) in foe["mg"]["bind"] or b["round"] in foe["mg"]["bind"]
            last = b["mg"]["last"]
            if last is not None and (last[0] == 1) != (k == 1) and last[2] == b["round"]:
                w[s0 + 10] = (last[3] + 1) / NB
            w[s0 + 11] = min(me["mg"]["resist"], 2) / 2
            w[s0 + 12] = min(foe["mg"]["resist"], 2) / 2
            if st.phase == "spell_target" and b["mg"]["pending"] is not None:
                w[12] = (b["mg"]["pending"] + 1) / NB
    if hero is not None:
        if hero.get("wizard", 0):  # has_wizard
            w[s0 + 1] = 1
        its = hero.get("items")
        if its:
            w[s0 + 2] = min(len(its), 4) / 4
    w[s0 + 13] = len(m["rdeck"]) / NR
    w[s0 + 14] = len(m["bdeck"]) / NB
    w[s0 + 15] = min(m["limit"][seat], 5) / 5  # hand limit (towers + temples) at the Realm phase
    kk = len(hands[seat])
    if kk:
        w[s0 + 16] = min(kk, 4) / 4
    sc = s0 + 17  # 166
    if m["scry"][seat] == st.turn:  # scried
        w[sc] = 1
        for k in m["rdeck"][-5:]:
            w[sc + 1 + k] += 0.5
        for k in m["bdeck"][-5:]:
            w[sc + 1 + NR + k] += 0.5
        for r in range(1, N):
            for k in m["hand"][(seat + r) % N]:
                w[sc + 1 + NR + NB + k] += 0.25
    lk = LUCK.pending_for(st, seat) if phase == "luck" else None  # 261-264: a Luck decision
    if lk is not None:  # on a spell / agent roll
        s = st.sea
        w[261], w[262], w[263] = 1, (lk[0] + 1) / len(LUCK.KINDS), lk[1]
        w[264] = s["value"] / (s["dice"][0] * s["dice"][1])
    e = getattr(st, "esp", None) if phase == "espionage" else None  # 265: I decide on Fortell
    if e is not None and e["stage"] == "fortell" \
            and e["fort_seat"] == seat:
        from .espionage import STAGES
        w[265] = (STAGES.index(e["fort"][0]) + 1) / len(STAGES)
    return v


def action_to_str(st, a: int) -> str:
    T = tables(st.game)
    if REALM0 <= a < REALM0 + T.NR:
        verb = "discard" if st.phase == "realm" and st.mg["timing"] == "discard" else "cast"
        return f"{verb} realm spell {T.realm_names[a - REALM0]}"
    if BSPELL0 <= a < BSPELL0 + T.NB:
        return f"cast battle spell {T.battle_names[a - BSPELL0]}"
    if GROUP0 <= a < GROUP0 + 6:
        return f"target group {GROUPS[a - GROUP0]}"
    if MAGIC_SPGROUP0 <= a < MAGIC_SPGROUP0 + len(SPECIALS):
        return f"target group {SPECIALS[a - MAGIC_SPGROUP0]}"
    if TSEAT0 <= a < TSEAT0 + 3:
        return f"target the player {a - TSEAT0 + 1} seat(s) after me"
    if CELL0 <= a < CELL0 + 99:
        return f"target cell {a - CELL0}"
    if a == RECRUIT_WIZARD:
        return "recruit the tower's wizard"
    if GIVE_ITEM0 <= a < GIVE_ITEM0 + 6:
        return f"hand a magic item to the friendly hero in direction {a - GIVE_ITEM0}"
    return f"action {a}"


# -- battle spells live in battle_magic.py; re-exported for the hooks in rules / combat_flow ----
from .battle_magic import (battle_apply, battle_mask, battle_options,  # noqa: E402
                                      cast_battle, end_battle, end_round, segment_effects,
                                      setup_battle, spell_groups, spell_segment)
