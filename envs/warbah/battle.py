"""Warbah battle rounds: initiative segments 5+,4,3,2,1,0-, 1d10 vs Kill rank, walls, Hero last.

A side is a dict: counts int[5] (warriors, archers, cavalry, catapults, hero), monster
[init, kill, hits] or None, seat (-1 for encounters/neutral), hero index or -1, mods
(init/kill bonus per type), defense (kills negated per segment), walls (defender only).
"""
from __future__ import annotations

import numpy as np

SEGMENTS = 6  # 5+, 4, 3, 2, 1, 0-
#: flags of a die record (``record``): the dice aimed at enemy ships; one die of the designer's
#: mass formula for the group; with Blessing (the group's misses rolled again: two dice)
AT_SHIPS, MASS, BLESSED = 1, 2, 4


def segment_of(init: int) -> int:
    return 0 if init >= 5 else (5 if init <= 0 else 5 - init)


def mass_kills(rng: np.random.Generator, n: int, k: int) -> int:
    """GAME DESIGNERS NOTES shortcut for a group of n attacks at Kill rank k: one d10 roll,
    (d10 / 5) * n * (k / 10) kills, rounded to the nearest whole number (a half rounds up;
    exact integer arithmetic). A rank k <= 0 kills nothing."""
    d = int(rng.integers(1, 11))
    return max(0, (d * n * k + 25) // 50) if n > 0 and k > 0 else 0


def hits(game, rng: np.random.Generator, n: int, k: int) -> int:
    """Kills by n attacks at Kill rank k: one d10 each (1D10 <= k), or the designer's formula
    when the option ``mass_formula`` is on."""
    if game.cfg.get("mass_formula"):
        return mass_kills(rng, n, k)
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n (rules.d10), no array
        return int(sum([int(rng.integers(1, 11)) <= k for _ in range(n)]))
    return int(sum([r <= k for r in rng.integers(1, 11, size=n).tolist()]))


def attacks(game, side: dict, seg: int, rng: np.random.Generator) -> int:
    """Kills scored by ``side`` in segment ``seg``."""
    kills = 0
    mass = bool(game.cfg.get("mass_formula"))
    names = ("warriors", "archers", "cavalry", "catapults", "hero")
    mg = side.get("mg")  # block A: spell effects (spells.py), None without magic
    for t, name in enumerate(names):
        n = int(side["counts"][t])
        if mg is not None:  # neutralized units and blocked groups do not attack
            n = 0 if mg["blocked"][t] else n - mg["neutral"][t]
        if n <= 0:
            continue
        init, kill, _ = game.troop[name]
        if segment_of(init + side["init_mod"][t]) != seg:
            continue
        k = kill + side["kill_mod"][t]
        n += side.get("extra", [0] * 5)[t]  # Prowess: +1 attack per round for the group
        if mass:
            kills += mass_group(side, mg, t, n, k, rng)
        elif mg is None:
            hit = int(sum([int(rng.integers(1, 11)) <= k for _ in range(n)])) if 0 < n <= 3 else \
                int(sum([r <= k for r in rng.integers(1, 11, size=n).tolist()]))
            kills += record(side, k, n, hit)
        else:
            hit = magic_hits(mg, t, n, k, rng)
            kills += hit if mg["auto"][t] else record(side, k, n, hit)
    mon = side.get("monster")
    if mg is not None and (mg["blocked"][5] or mg["neutral"][5]):
        mon = None
    if mon is not None and mon[2] > 0 and segment_of(mon[0]) == seg:
        hit = mass_kills(rng, 1, mon[1]) if mass else int(rng.integers(1, 11) <= mon[1])
        record(side, mon[1], 1, hit, (MASS if mass else 0)
               | (AT_SHIPS if side.get("hits_ships") else 0))
        if side.get("hits_ships"):  # block B: a sea monster attacks ships (sea.naval)
            side["ship_kills"] = side.get("ship_kills", 0) + hit
        else:
            kills += hit
    return kills


def record(side: dict, k: int, n: int, hit: int, flags: int = 0) -> int:
    """Note n attack dice at Kill rank k with ``hit`` hits in the side's segment record (kept
    only while combat_flow runs a segment: RARE ABILITY Luck may reroll one die); returns hit.
    ``flags``: AT_SHIPS (the hits sink enemy ships, sea.naval), MASS (one die of the designer's
    formula for the group: ``hit`` is its kills)."""
    rec = side.get("dice")
    if rec is not None:
        rec.append([int(k), int(n), int(hit)] + ([flags] if flags else []))
    return hit


def mass_group(side: dict, mg: dict | None, t: int, n: int, k: int,
               rng: np.random.Generator) -> int:
    """Kills of group ``t`` (n attacks at Kill rank k) under the designer's mass formula: one
    die for the group, noted for Luck's window; with spells (``mg``) Precision rolls no die and
    Blessing's two dice count as one roll."""
    if mg is None:
        return record(side, k, n, mass_kills(rng, n, k), MASS)
    hit = magic_hits(mg, t, n, k, rng, True)
    return hit if mg["auto"][t] else record(side, k, n, hit, MASS | (BLESSED if mg["bless"] else 0))


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


def mass_again(rng, n: int, k: int, blessed: bool = False) -> int:
    """A group's formula roll made again (with Blessing both of its dice, as one roll)."""
    h = mass_kills(rng, n, k)
    if blessed and h < n:
        h += mass_kills(rng, n - h, k)
    return h


def magic_hits(mg: dict, t: int, n: int, k: int, rng: np.random.Generator,
               mass: bool = False) -> int:
    """Hits of n attacks at kill rank k under spells: Precision (all hit), Blessing (misses
    rolled again once), Shield on the foe (kills by archers/catapults stopped). With the
    designer's formula (``mass``) the missed attacks are n minus the kills, rolled again as one
    group for Blessing."""
    if mg["auto"][t]:
        hits = n
    elif mass:
        hits = mass_kills(rng, n, k)
        if mg["bless"] and hits < n:
            hits += mass_kills(rng, n - hits, k)
    else:
        hits = int((rng.integers(1, 11, size=n) <= k).sum())
        if mg["bless"] and hits < n:
            hits += int((rng.integers(1, 11, size=n - hits) <= k).sum())
    if t in (1, 3) and mg["ranged_neg"] > 0:
        x = min(hits, mg["ranged_neg"])
        mg["ranged_neg"] -= x
        hits -= x
    return hits


def negate(game, side: dict, kills: int, rng: np.random.Generator) -> int:
    """Defense ability (per segment) and wall ranks (per round) negate incoming kills."""
    mg = side.get("mg")
    if mg is not None and mg["armor"] > 0 and kills > 0:  # block A: Armor spell
        x = min(kills, mg["armor"])
        mg["armor"] -= x
        kills -= x
    kills = max(0, kills - side["defense"])
    while kills > 0 and side["walls_left"] > 0:
        kills -= 1
        side["walls_left"] -= 1
        broke = bool(rng.integers(1, 11) <= game.cfg["designed"]["wall_break_chance"])
        side["wall_damage"] += broke
        if side.get("wrolls") is not None:  # Luck may reroll one wall-break die (combat_flow)
            side["wrolls"].append(broke)
    return kills


def troop_types_alive(side: dict) -> list[int]:
    """Groups that can take a casualty: 0-3 basic, 5+ special units (block B); never the Hero."""
    c = side["counts"]
    return [t for t in range(len(c)) if t != 4 and c[t] > 0]


def remove_one(side: dict, t: int | None = None) -> None:
    """One casualty: of type t (player's choice), else the largest troop group; the Hero last."""
    alive = troop_types_alive(side)
    if alive:
        if t is None or t not in alive:
            t = max(alive, key=lambda x: side["counts"][x])
        side["counts"][t] -= 1
    elif side.get("monster") is not None and side["monster"][2] > 0:
        side["monster"][2] -= 1
    elif side["counts"][4] > 0:
        side["counts"][4] -= 1


def destroyed(side: dict) -> bool:
    mon = side.get("monster")
    return sum(side["counts"].tolist()) == 0 and (mon is None or mon[2] <= 0)
