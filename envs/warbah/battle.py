"""Warbah battles: the records (Army, Battle and their spell state) and the dice of a round:
initiative segments 5+, 4, 3, 2, 1, 0-, one 1D10 against the Kill rank per attack (or the
designer's mass formula), walls and Defense, casualties with the Hero last.

An army's ``counts`` holds warriors, archers, cavalry, catapults, the Hero (0 / 1) and, from
the first round on, the 13 special unit groups (index 5 + u, config.SPECIALS order).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from . import fleets, heroes
from .actions import LOSS_SP0
from .state import Army, ArmyMagic, Battle, WarbahState
from .tables import NUM_SPECIALS, SPECIALS, WarbahTables

SEGMENTS = 6  # initiative segments of a round: 5+, 4, 3, 2, 1, 0-
#: an army's counts index of the first special unit group (after the 4 troop types and the Hero)
FIRST_SPECIAL = 5
#: flags of a die record (``record``): the dice aimed at enemy ships; one die of the designer's
#: mass formula for the group; with Blessing (the group's misses rolled again: two dice)
AT_SHIPS, MASS, BLESSED = 1, 2, 4


def current(st: WarbahState) -> Battle:
    """The battle in progress (its phases, and a Luck decision or spell inside it)."""
    b = st.battle
    assert b is not None, "no battle in progress"
    return b


def hero_army(st: WarbahState, hi: int, walls: int = 0) -> Army:
    """Hero hi's army (its abilities: Tactics, Leadership, Prowess, Defense, Siegecraft)."""
    h = st.heroes[hi]
    init_mod, kill_mod, extra = [0] * 5, [0] * 5, [0] * 5
    for name, t in h.abilities:
        if name == "tactics":
            init_mod[t] += 1
        elif name == "leadership":
            kill_mod[t] += 1
        elif name == "prowess":
            extra[t] += 1
    if h.granted_types:  # SPECIAL UNIT TYPES: typed abilities while the granting units are here
        grants, sp = st.game.granting_units, h.specials
        mods = {"tactics": init_mod, "leadership": kill_mod, "prowess": extra}
        for name, t in h.granted_types.items():
            if any(sp.item(u) for u in grants.get(name, ())):
                mods[name][t] += 1
    return Army(np.append(h.troops, 1).astype(np.int64), h.seat, hi, None, init_mod, kill_mod,
                extra, heroes.ability(st, h, "defense"), heroes.ability(st, h, "siegecraft"),
                walls, walls)


def neutral_army(counts: list[int] | np.ndarray, monster: list[int] | None = None, walls: int = 0, seat: int = -1) -> Army:
    """An army without a Hero: a garrison (of ``seat``), an encounter, pirates, a monster."""
    return Army(np.asarray(counts, np.int64), seat, -1, monster, walls_base=walls,
                walls_left=walls)


def segment_of(init: int) -> int:
    """The segment (0-5) in which units of initiative ``init`` attack."""
    return 0 if init >= 5 else (5 if init <= 0 else 5 - init)


def mass_kills(rng: np.random.Generator, n: int, k: int) -> int:
    """GAME DESIGNERS NOTES shortcut for a group of n attacks at Kill rank k: one d10 roll,
    (d10 / 5) * n * (k / 10) kills, rounded to the nearest whole number (a half rounds up;
    exact integer arithmetic). A rank k <= 0 kills nothing."""
    d = int(rng.integers(1, 11))
    return max(0, (d * n * k + 25) // 50) if n > 0 and k > 0 else 0


def hits(game: WarbahTables, rng: np.random.Generator, n: int, k: int) -> int:
    """Kills by n attacks at Kill rank k: one d10 each (1D10 <= k), or the designer's formula
    when the option ``mass_formula`` is on."""
    if game.mass_formula:
        return mass_kills(rng, n, k)
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n (rules.d10), no array
        return int(sum([int(rng.integers(1, 11)) <= k for _ in range(n)]))
    return int(sum([r <= k for r in rng.integers(1, 11, size=n).tolist()]))


_GROUPS = ("warriors", "archers", "cavalry", "catapults", "hero")  # counts[0:5] (game.troop)


def attacks(game: WarbahTables, side: Army, seg: int, rng: np.random.Generator) -> int:
    """Kills scored by ``side`` in segment ``seg``."""
    kills = 0
    mass = game.mass_formula
    mg = side.magic  # spell effects (battle_spells.py), None without magic
    counts = side.counts[:5].tolist()
    troop, init_mod = game.troop, side.init_mod
    for t in range(5):
        n = counts[t]
        if mg is not None:  # neutralized units and blocked groups do not attack
            n = 0 if mg.blocked[t] else n - mg.neutral[t]
        if n <= 0:
            continue
        init, kill, _ = troop[_GROUPS[t]]
        if segment_of(init + init_mod[t]) != seg:
            continue
        k = kill + side.kill_mod[t]
        n += side.extra_attacks[t]  # Prowess: +1 attack per round for the group
        if mass:
            kills += mass_group(side, mg, t, n, k, rng)
        elif mg is None:
            hit = int(sum([int(rng.integers(1, 11)) <= k for _ in range(n)])) if 0 < n <= 3 else \
                int(sum([r <= k for r in rng.integers(1, 11, size=n).tolist()]))
            kills += record(side, k, n, hit)
        else:
            hit = magic_hits(mg, t, n, k, rng)
            kills += hit if mg.auto_hit[t] else record(side, k, n, hit)
    mon = side.monster
    if mg is not None and (mg.blocked[5] or mg.neutral[5]):
        mon = None
    if mon is not None and mon[2] > 0 and segment_of(mon[0]) == seg:
        hit = mass_kills(rng, 1, mon[1]) if mass else int(rng.integers(1, 11) <= mon[1])
        record(side, mon[1], 1, hit, (MASS if mass else 0)
               | (AT_SHIPS if side.hits_ships else 0))
        if side.hits_ships:  # a sea monster attacks ships (ship_attacks)
            side.ship_kills += hit
        else:
            kills += hit
    return kills


def record(side: Army, k: int, n: int, hit: int, flags: int = 0) -> int:
    """Note n attack dice at Kill rank k with ``hit`` hits in the side's segment record (kept
    only while battle_flow runs a segment: RARE ABILITY Luck may reroll one die); returns hit.
    ``flags``: AT_SHIPS (the hits sink enemy ships, ship_attacks), MASS (one die of the designer's
    formula for the group: ``hit`` is its kills)."""
    rec = side.dice
    if rec is not None:
        rec.append([int(k), int(n), int(hit)] + ([flags] if flags else []))
    return hit


def mass_group(side: Army, mg: ArmyMagic | None, t: int, n: int, k: int,
               rng: np.random.Generator) -> int:
    """Kills of group ``t`` (n attacks at Kill rank k) under the designer's mass formula: one
    die for the group, noted for Luck's window; with spells (``mg``) Precision rolls no die and
    Blessing's two dice count as one roll."""
    if mg is None:
        return record(side, k, n, mass_kills(rng, n, k), MASS)
    hit = magic_hits(mg, t, n, k, rng, True)
    return hit if mg.auto_hit[t] else record(side, k, n, hit, MASS | (BLESSED if mg.blessed else 0))


def mass_mean(n: int, k: int, blessed: bool = False) -> float:
    """The mean kills of one die of the designer's formula for n attacks at Kill rank k (with
    Blessing: the misses, n minus the kills, rolled again as one group)."""
    if n <= 0 or k <= 0:
        return 0.0
    out = 0.0
    for d in range(1, 11):
        h = (d * n * k + 25) // 50
        out += h + (mass_mean(n - h, k) if blessed and h < n else 0.0)
    return out / 10


def mass_again(rng: np.random.Generator, n: int, k: int, blessed: bool = False) -> int:
    """A group's formula roll made again (with Blessing both of its dice, as one roll)."""
    h = mass_kills(rng, n, k)
    if blessed and h < n:
        h += mass_kills(rng, n - h, k)
    return h


def magic_hits(mg: ArmyMagic, t: int, n: int, k: int, rng: np.random.Generator,
               mass: bool = False) -> int:
    """Hits of n attacks at kill rank k under spells: Precision (all hit), Blessing (misses
    rolled again once), Shield on the foe (kills by archers/catapults stopped). With the
    designer's formula (``mass``) the missed attacks are n minus the kills, rolled again as one
    group for Blessing."""
    if mg.auto_hit[t]:
        hits = n
    elif mass:
        hits = mass_kills(rng, n, k)
        if mg.blessed and hits < n:
            hits += mass_kills(rng, n - hits, k)
    else:
        hits = int((rng.integers(1, 11, size=n) <= k).sum())
        if mg.blessed and hits < n:
            hits += int((rng.integers(1, 11, size=n - hits) <= k).sum())
    if t in (1, 3) and mg.ranged_shield > 0:
        x = min(hits, mg.ranged_shield)
        mg.ranged_shield -= x
        hits -= x
    return hits


def special_attacks(st: WarbahState, side: Army, seg: int) -> int:
    """Kills by the side's special groups: one 1D10 per unit (``special_attacks_d10``), or, with
    the designer's formula (option ``mass_formula``), one die per group through mass_kills
    (same initiative / kill / spell handling)."""
    if not st.game.mass_formula:
        return special_attacks_d10(st, side, seg)
    cnt = side.counts
    if len(cnt) <= FIRST_SPECIAL or not cnt[FIRST_SPECIAL:].any():
        return 0
    kills, tab, mg = 0, st.game.cfg["special_units"], side.magic
    for u in np.flatnonzero(cnt[FIRST_SPECIAL:]).tolist():
        row = tab[SPECIALS[u]]
        init, kill = row["init"], row["kill"]
        n = int(cnt[FIRST_SPECIAL + u])
        if mg is not None:  # spells on special groups (target group 6 + u)
            init, kill = init + mg.special_init[u], kill + mg.special_kill[u]
            n = 0 if mg.blocked[6 + u] else n - mg.neutral[6 + u]
        if n <= 0 or segment_of(init) != seg:
            continue
        kills += mass_group(side, mg, 6 + u, n, kill, st.rng)
    return kills


def special_attacks_d10(st: WarbahState, side: Army, seg: int) -> int:
    """Kills by the side's special groups in segment ``seg`` (1D10 <= Kill each)."""
    cnt = side.counts
    if len(cnt) <= FIRST_SPECIAL or not any(cnt.tolist()[FIRST_SPECIAL:]):  # no numpy reduction
        return 0
    kills = 0
    tab = st.game.cfg["special_units"]
    mg = side.magic  # spells on special groups (target group 6 + u)
    for u in np.flatnonzero(cnt[FIRST_SPECIAL:]):
        row = tab[SPECIALS[u]]
        init, kill = row["init"], row["kill"]
        n = int(cnt[FIRST_SPECIAL + u])
        if mg is not None:  # neutralized units and blocked groups do not attack
            init, kill = init + mg.special_init[u], kill + mg.special_kill[u]
            n = 0 if mg.blocked[6 + u] else n - mg.neutral[6 + u]
        if n <= 0 or segment_of(init) != seg:
            continue
        if mg is None:  # record: Luck's segment window
            kills += record(side, kill, n, int((st.rng.integers(1, 11, size=n) <= kill).sum()))
        else:
            hit = magic_hits(mg, 6 + u, n, kill, st.rng)
            kills += hit if mg.auto_hit[6 + u] else record(side, kill, n, hit)
    return kills


def ship_attacks(st: WarbahState, a: Army, d: Army, seg: int, ka: int, kd: int) -> tuple[int, int]:
    """Ships (Init 2, Kill 3) attack enemy ships first, then troops; ship-hunting monsters sink
    ships. Returns the troop kills (ka, kd) after ships took their share."""
    for s in (a, d):
        if s.ships is None:
            hi = s.hero
            s.ships = fleets.ships_of(st, hi) if hi >= 0 and s.seat >= 0 else 0
    if not (a.ships or d.ships or a.ship_kills or d.ship_kills):
        return ka, kd
    init, kill = fleets.sea_rules(st)["ship_init"], fleets.sea_rules(st)["ship_kill"]
    out = [ka, kd]
    for k, (s, o) in enumerate(((a, d), (d, a))):
        assert s.ships is not None and o.ships is not None   # counted above
        sinking, s.ship_kills = s.ship_kills, 0
        if s.ships and segment_of(init) == seg:
            n = hits(st.game, st.rng, s.ships, kill)  # (or the designer's formula)
            record(s, kill, s.ships, n, (AT_SHIPS if o.ships else 0)
                   | (MASS if st.game.mass_formula else 0))  # Luck's window
            if o.ships:
                sinking += n
            else:
                out[k] += n
        sunk = min(sinking, o.ships)
        o.ships -= sunk
        s.ship_spare = sinking - sunk  # hits that sank nothing (Luck: battle_luck.dice_act)
    return out[0], out[1]


def negate(game: WarbahTables, side: Army, kills: int, rng: np.random.Generator) -> int:
    """Defense ability (per segment) and wall ranks (per round) negate incoming kills."""
    mg = side.magic
    if mg is not None and mg.armor > 0 and kills > 0:  # Armor spell
        x = min(kills, mg.armor)
        mg.armor -= x
        kills -= x
    kills = max(0, kills - side.defense)
    while kills > 0 and side.walls_left > 0:
        kills -= 1
        side.walls_left -= 1
        broke = bool(rng.integers(1, 11) <= game.cfg["designed"]["wall_break_chance"])
        side.wall_damage += broke
        if side.wall_rolls is not None:  # Luck may reroll one wall-break die (battle_luck)
            side.wall_rolls.append(broke)
    return kills


def troop_types_alive(side: Army) -> list[int]:
    """Groups that can take a casualty: 0-3 basic, 5+ special units; never the Hero."""
    c = side.counts
    return [t for t in range(len(c)) if t != 4 and c[t] > 0]


def remove_one(side: Army, t: int | None = None) -> None:
    """One casualty: of type t (player's choice), else the largest troop group; the Hero last."""
    alive = troop_types_alive(side)
    if alive:
        if t is None or t not in alive:
            t = max(alive, key=lambda x: side.counts[x])
        side.counts[t] -= 1
    elif side.monster is not None and side.monster[2] > 0:
        side.monster[2] -= 1
    elif side.counts[4] > 0:
        side.counts[4] -= 1


def destroyed(side: Army) -> bool:
    """No unit left (troops, Hero, monster hits)."""
    mon = side.monster
    return sum(side.counts.tolist()) == 0 and (mon is None or mon[2] <= 0)


def add_special_groups(st: WarbahState, armies: Iterable[Army]) -> None:
    """Give each army its 13 special groups (index 5 + u), once per battle."""
    for s in armies:
        if len(s.counts) == FIRST_SPECIAL and not s.specials_added:
            s.specials_added = True
            hi = s.hero
            sp = st.heroes[hi].specials if hi >= 0 and s.seat >= 0 else np.zeros(NUM_SPECIALS)
            s.counts = np.concatenate([s.counts, sp]).astype(np.int64)


def write_back_specials(st: WarbahState, armies: Iterable[Army]) -> None:
    """Write the surviving special troops back to the Heroes."""
    for s in armies:
        hi = s.hero
        if hi >= 0 and s.seat >= 0 and len(s.counts) > FIRST_SPECIAL:
            st.heroes[hi].specials = s.counts[FIRST_SPECIAL:].copy()


def casualty_mask(side: Army, mask: np.ndarray) -> None:
    """The special groups the side may lose a unit of (LOSS_SP0 + u)."""
    cnt = side.counts
    for u in range(len(cnt) - FIRST_SPECIAL):
        mask[LOSS_SP0 + u] = cnt[FIRST_SPECIAL + u] > 0
