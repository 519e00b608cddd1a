"""Warbah battle rounds: initiative segments 5+,4,3,2,1,0-, 1d10 vs Kill rank, walls, Hero last.

A side is a dict: counts int[5] (warriors, archers, cavalry, catapults, hero), monster
[init, kill, hits] or None, seat (-1 for encounters/neutral), hero index or -1, mods
(init/kill bonus per type), defense (kills negated per segment), walls (defender only).
"""
from __future__ import annotations

import numpy as np

SEGMENTS = 6  # 5+, 4, 3, 2, 1, 0-


def segment_of(init: int) -> int:
    return 0 if init >= 5 else (5 if init <= 0 else 5 - init)


def attacks(game, side: dict, seg: int, rng: np.random.Generator) -> int:
    """Kills scored by ``side`` in segment ``seg``."""
    kills = 0
    names = ("warriors", "archers", "cavalry", "catapults", "hero")
    for t, name in enumerate(names):
        n = int(side["counts"][t])
        if n <= 0:
            continue
        init, kill, _ = game.troop[name]
        if segment_of(init + side["init_mod"][t]) != seg:
            continue
        k = kill + side["kill_mod"][t]
        n += side.get("extra", [0] * 5)[t]  # Prowess: +1 attack per round for the group
        kills += int((rng.integers(1, 11, size=n) <= k).sum())
    mon = side.get("monster")
    if mon is not None and mon[2] > 0 and segment_of(mon[0]) == seg:
        kills += int(rng.integers(1, 11) <= mon[1])
    return kills


def negate(game, side: dict, kills: int, rng: np.random.Generator) -> int:
    """Defense ability (per segment) and wall ranks (per round) negate incoming kills."""
    kills = max(0, kills - side["defense"])
    while kills > 0 and side["walls_left"] > 0:
        kills -= 1
        side["walls_left"] -= 1
        if rng.integers(1, 11) <= game.cfg["designed"]["wall_break_chance"]:
            side["wall_damage"] += 1
    return kills


def troop_types_alive(side: dict) -> list[int]:
    return [t for t in range(4) if side["counts"][t] > 0]


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
    return int(side["counts"].sum()) == 0 and (mon is None or mon[2] <= 0)
