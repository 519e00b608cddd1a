"""Ladder data and the difficulty levels derived from it (light: no games, no numpy).

A ladder (``train/ladder.py``, ``arena ladder``) writes ``<game>_<N>p.json`` into its folder; the
published ones are package data in ``checkpoints/ladder/``. ``levels_for(game, num_players)``
turns one into difficulty levels 1-5 (``derive_levels`` says how), which ``arena play --level``
and ``arena serve`` offer:

    from tabletop_arena.train.levels import levels_for
    for level in levels_for("zaka_v0", 2):
        print(level.number, level.name, level.spec, level.rating)
"""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from .. import envs
from ..envs.core.errors import ArenaError
from ..envs.core.resources import checkpoints_dir

FORMAT = "tabletop-arena-ladder/1"
#: the agent every ladder is anchored at (rating 0)
ANCHOR = "random"


class LadderError(ArenaError):
    """A ladder that cannot be run, read or placed on as asked (one line, says what to do)."""


def ladder_options(num_players: int) -> dict[str, Any]:
    """The env options of a ladder: the game's default rules for ``num_players`` players."""
    return {"num_players": int(num_players)}


def ladder_name(game_id: str, num_players: int) -> str:
    """``zaka_v0``, 2 -> ``zaka_2p`` (the data files' stem)."""
    return f"{envs.resolve(game_id).split('_v')[0]}_{int(num_players)}p"


def ladder_dir() -> Path:
    """The published ladders' folder (``checkpoints/ladder/``, package data)."""
    return checkpoints_dir() / "ladder"


def read_costs(folder: str | os.PathLike | None = None) -> dict[str, Any]:
    """The measured costs beside the ladders (``costs.json``, ``scripts/ladder_costs.py``), {} when
    there are none."""
    path = Path(folder if folder is not None else ladder_dir()) / "costs.json"
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


#: a ``costs.json`` entry's keys that are not an agent's seconds: the engine's seconds, the date and
#: games of the whole measurement, and ``agents_measured`` (spec: {"measured", "games_each"}) for
#: agents measured later on their own (``scripts/ladder_costs.py --agents``)
COST_META = ("engine", "measured", "games_each", "agents_measured")


def agent_costs(entry: dict[str, Any]) -> dict[str, float]:
    """A ``costs.json`` entry's seconds a game of each agent's own moves (not the engine's)."""
    return {k: float(v) for k, v in entry.items() if k not in COST_META}


def paths(game_id: str, num_players: int, folder: str | os.PathLike | None = None) -> tuple[Path, Path]:
    """(games CSV, ratings JSON) of a ladder in ``folder`` (default: ``ladder_dir()``)."""
    base = Path(folder) if folder is not None else ladder_dir()
    stem = ladder_name(game_id, num_players)
    return base / f"{stem}.csv", base / f"{stem}.json"


def load_ladder(game_id: str, num_players: int, folder: str | os.PathLike | None = None) -> dict[str, Any]:
    """A ladder's JSON, or a LadderError saying how to make it."""
    game_id = envs.resolve(game_id)
    _, jpath = paths(game_id, num_players, folder)
    if not jpath.exists():
        raise LadderError(f"no ladder data for {game_id} with {num_players} players yet ({jpath} is "
                          f"missing): run arena ladder {game_id.split('_v')[0]} --players {num_players}")
    try:
        data = json.loads(jpath.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LadderError(f"{jpath}: unreadable ladder data ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LadderError(f"{jpath}: not ladder data of format {FORMAT}")
    return data


def ladder_counts(game_id: str, folder: str | os.PathLike | None = None) -> list[int]:
    """The player counts with ladder data for ``game_id`` in ``folder`` (default ``ladder_dir()``)."""
    import re

    base = Path(folder) if folder is not None else ladder_dir()
    stem = envs.resolve(game_id).split("_v")[0]
    found = (re.fullmatch(rf"{re.escape(stem)}_(\d+)p\.json", p.name) for p in base.glob(f"{stem}_*p.json"))
    return sorted(int(m.group(1)) for m in found if m)


def all_ladders(folder: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """Every ladder's data in ``folder`` (default ``ladder_dir()``), by game and player count."""
    base = Path(folder) if folder is not None else ladder_dir()
    out = []
    for path in sorted(base.glob("*.json")) if base.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LadderError(f"{path}: unreadable ladder data ({exc})") from None
        if isinstance(data, dict) and data.get("format") == FORMAT:
            out.append(data)
    return sorted(out, key=lambda d: (d["game"], d["num_players"]))


# =============================================================================================
# difficulty levels
# =============================================================================================
LEVEL_NAMES = {1: "Beginner", 2: "Casual", 3: "Intermediate", 4: "Advanced", 5: "Master"}
#: the step between two levels, in rating points (200: the stronger scores about 76%), and the
#: least step that still counts as one
LEVEL_STEP, LEVEL_MIN_STEP = 200.0, 150.0


@dataclasses.dataclass(frozen=True)
class Level:
    number: int
    name: str
    spec: str
    rating: float
    ci95: tuple[float, float] | None
    step: float | None   # points above the level below (None for level 1)

    def label(self) -> str:
        return f"{self.number} {self.name} ({self.rating:.0f})"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def derive_levels(data: dict[str, Any]) -> list[Level]:
    """Difficulty levels 1-5 from a ladder's ratings, level 1 first.

    The rule: level 1 (Beginner) is ``random``, the ladder's anchor (rating 0; the weakest rated
    agent where random has no rating). Each level above is a roster agent at least
    ``LEVEL_MIN_STEP`` (150) points stronger than the level below it. Of all such chains of up to
    five agents the longest is taken, and among those the one whose steps are closest to
    ``LEVEL_STEP`` (200 points: the stronger expects to score about 76%) in least squares (ties:
    the weaker agents). So level k is about 200 (k - 1) points above random in every game, as far
    as each roster allows; where a roster has no agent far enough above, the top levels are absent
    (never two levels closer than 150 points)."""
    rated = sorted(((float(r["rating"]), s) for s, r in data["ratings"].items() if r.get("rating") is not None),
                   key=lambda x: (x[0], x[1]))
    if not rated:
        return []
    start = next((i for i, (_, s) in enumerate(rated) if s == ANCHOR), 0)
    n = len(rated)
    # best[i][k]: (cost, chain) of the best chain of k+1 levels from rated[start] up to rated[i]
    best: list[dict[int, tuple[float, tuple[int, ...]]]] = [dict() for _ in range(n)]
    best[start][0] = (0.0, (start,))
    for i in range(start + 1, n):
        for j in range(start, i):
            step = rated[i][0] - rated[j][0]
            if step < LEVEL_MIN_STEP:
                continue
            for k, (cost, chain) in best[j].items():
                if k + 1 >= len(LEVEL_NAMES):
                    continue
                cand = (cost + (step - LEVEL_STEP) ** 2, chain + (i,))
                if k + 1 not in best[i] or cand < best[i][k + 1]:
                    best[i][k + 1] = cand
    length = max(k for b in best for k in b)
    chain = min(b[length] for b in best if length in b)[1]
    out = []
    for depth, i in enumerate(chain):
        number = depth + 1
        rating, spec = rated[i]
        ci = data["ratings"][spec].get("ci95")
        rise = rating - rated[chain[depth - 1]][0] if depth else None
        out.append(Level(number, LEVEL_NAMES[number], spec, round(rating, 1),
                         (float(ci[0]), float(ci[1])) if ci else None, None if rise is None else round(rise, 1)))
    return out


def players_of(game) -> int:
    """The player count a game's ladder is kept under (its ``num_players`` option)."""
    return int(game.options().get("num_players") or game.num_agents)


def levels_for(game_id: str, num_players: int, options: dict[str, Any] | None = None,
               folder: str | os.PathLike | None = None) -> list[Level]:
    """The difficulty levels of a game and player count from its committed ladder data; a
    LadderError when there is none yet, or when ``options`` (a game's full options) are not the
    ladder's rules (its ratings would not hold)."""
    game_id = envs.resolve(game_id)
    try:
        data = load_ladder(game_id, num_players, folder)
    except LadderError:
        raise LadderError(f"no difficulty levels for {game_id} with {num_players} players yet: its "
                          f"ladder has not been run (arena ladder {game_id.split('_v')[0]} --players "
                          f"{num_players}); pick an opponent by name instead") from None
    if options is not None and json.loads(json.dumps(options, default=str)) != data.get("options"):
        raise LadderError(f"difficulty levels are rated on {game_id}'s default rules for {num_players} "
                          f"players; these options differ, so the levels would not hold: pick an "
                          f"opponent by name instead")
    levels = derive_levels(data)
    if not levels:
        raise LadderError(f"the {data['name']} ladder has no rated agents yet: run it further")
    return levels


def level_spec(game_id: str, num_players: int, number: int, options: dict[str, Any] | None = None,
               folder: str | os.PathLike | None = None) -> Level:
    """The level ``number`` (1-5) of a game and player count, or a LadderError listing those there are."""
    levels = levels_for(game_id, num_players, options, folder)
    for lv in levels:
        if lv.number == number:
            return lv
    have = ", ".join(lv.label() for lv in sorted(levels, key=lambda x: x.number))
    raise LadderError(f"{game_id} with {num_players} players has no level {number}: its roster has no agent "
                      f"{LEVEL_MIN_STEP:.0f}+ points above the level below; levels: {have}")


def level_table(levels: list[Level]) -> str:
    """The levels as text, 1 (easiest) first."""
    if not levels:
        return "no difficulty levels (no rated agents)"
    lines = ["difficulty levels (arena play GAME --level N; rating: random = 0):",
             f"  {'level':18s} {'rating':>7s} {'step':>6s}  agent"]
    for lv in sorted(levels, key=lambda x: x.number):
        step = f"{lv.step:6.0f}" if lv.step is not None else f"{'':6s}"
        lines.append(f"  {str(lv.number) + ' ' + lv.name:18s} {lv.rating:7.0f} {step}  {lv.spec}")
    missing = [n for n in LEVEL_NAMES if n not in {lv.number for lv in levels}]
    if missing:
        lines.append(f"  levels {', '.join(map(str, missing))}: absent (the roster has no agent "
                     f"{LEVEL_MIN_STEP:.0f}+ points above the highest level)")
    return "\n".join(lines)
