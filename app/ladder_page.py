"""``docs/ladder.md`` and the ladder plots, generated from the ladders' data only.

    arena ladder --page              # or: python -c "from tabletop_arena.app.ladder_page import write_page; write_page()"

``page_text(ladders, costs)`` is a pure function of the data (each ladder's JSON, and the measured
costs in ``costs.json`` for the estimates of tables not started), so a test checks that the
committed page is the one the committed data give. ``plot_game`` draws one game's ladders (ratings
with their 95% intervals, one panel per player count) into ``docs/images/ladder_<game>.png``.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Sequence

from ..train.ladder import DEFAULT_GAMES, PUBLISHED, blocks_per_group, sorted_ratings, unbounded_ratings
from ..train.levels import (
    ANCHOR,
    LEVEL_MIN_STEP,
    LEVEL_NAMES,
    LEVEL_STEP,
    agent_costs,
    all_ladders,
    derive_levels,
    ladder_name,
    read_costs,
)

PAGE = "ladder.md"
#: the picture of every table (docs/images/, shown in the README)
OVERVIEW = "ladder_all.png"
#: where the page links the data from (the page lives in docs/)
DATA_LINK = "../checkpoints/ladder"


def game_title(game_id: str) -> str:
    return game_id.split("_v")[0].capitalize()


def plot_name(game_id: str) -> str:
    return f"ladder_{game_id.split('_v')[0]}.png"


def _fmt_int(n: int) -> str:
    return f"{n:,}"


def estimate_cpu_hours(name: str, num_players: int, costs: dict[str, Any], data: dict[str, Any] | None = None,
                       games: int = DEFAULT_GAMES) -> float | None:
    """CPU hours left to finish the ladder ``name`` (all of it when ``data`` is None). A ladder with
    games uses its own: ``cpu_minutes_left`` (each game left at its table's mean so far, written by
    ``arena ladder``), or in a JSON written before that field, their mean CPU time a game times the
    games left. One without uses the measured seconds a game of each roster agent's moves plus the
    engine's (``costs``); None without them."""
    if data is not None and data["games"] > 0 and data["cpu_minutes"] > 0:
        if data.get("cpu_minutes_left") is not None:
            return float(data["cpu_minutes_left"]) / 60
        left = max(0, data["scheduled_games"] - data["games"])
        return data["cpu_minutes"] / 60 / data["games"] * left
    entry = costs.get(name)
    if not entry:
        return None
    per_agent = agent_costs(entry)
    specs = list(data["roster"]) if data is not None else list(per_agent)
    if any(s not in per_agent for s in specs) or len(specs) < num_players:
        return None
    n, p = len(specs), num_players
    target = data["settings"]["games"] if data is not None else games
    blocks = blocks_per_group(target, n, p)
    games_each = blocks * math.factorial(p) * math.comb(n - 1, p - 1)
    total_games = blocks * math.factorial(p) * math.comb(n, p)
    played_games = data["games"] if data is not None else 0
    seconds = 0.0
    for s in specs:
        played = data["ratings"][s]["games"] if data is not None else 0
        seconds += max(0, games_each - played) * per_agent[s]
    seconds += max(0, total_games - played_games) * float(entry.get("engine", 0.0))
    return seconds / 3600


def _status(data: dict[str, Any]) -> str:
    g = data["games_per_pairing"]
    if data["complete"]:
        return "complete"
    per = f"{g['min']}" if g["min"] == g["max"] else f"{g['min']}-{g['max']}"
    return f"partial ({_fmt_int(data['games'])} of {_fmt_int(data['scheduled_games'])} games, {per} a pairing)"


def _table(data: dict[str, Any]) -> list[str]:

    out = ["| # | agent | rating | 95% interval | games | W-D-L |", "|--:|---|--:|---|--:|---|"]
    for rank, (spec, r) in enumerate(sorted_ratings(data), start=1):
        if r["rating"] is None:
            out.append(f"| | `{spec}` | (no games yet) | | {r['games']} | |")
            continue
        lo, hi = r["ci95"]
        out.append(f"| {rank} | `{spec}` | {r['rating']:.0f} | {lo:.0f} to {hi:.0f} | {_fmt_int(r['games'])} | "
                   f"{r['wins']}-{r['draws']}-{r['losses']} |")
    return out


def _levels_line(data: dict[str, Any]) -> str:
    levels = sorted(derive_levels(data), key=lambda lv: lv.number)
    if not levels:
        return "Difficulty levels: none yet (no rated agents)."
    parts = [f"{lv.number} {lv.name}: `{lv.spec}` ({lv.rating:.0f})" for lv in levels]
    missing = [str(n) for n in LEVEL_NAMES if n not in {lv.number for lv in levels}]
    tail = (f"; levels {', '.join(missing)} absent (no roster agent {LEVEL_MIN_STEP:.0f}+ points above "
            f"the highest)") if missing else ""
    return "Difficulty levels (`--level N`): " + " · ".join(parts) + tail + "."


def _ladder_section(data: dict[str, Any], costs: dict[str, Any]) -> list[str]:
    name = data["name"]
    g = data["games_per_pairing"]
    head = (f"`{data['command']}` · {_fmt_int(data['games'])} games, "
            f"{g['min'] if g['min'] == g['max'] else str(g['min']) + '-' + str(g['max'])} a pairing · "
            f"{data['cpu_minutes']:,.0f} CPU minutes · {data['updated']} · data: "
            f"[{name}.csv]({DATA_LINK}/{name}.csv), [{name}.json]({DATA_LINK}/{name}.json)")
    out = [f"### {game_title(data['game'])}, {data['num_players']} players", "", head, ""]
    if not data["complete"]:
        left = estimate_cpu_hours(name, data["num_players"], costs, data)
        how = "from its games so far" if data["games"] > 0 and data["cpu_minutes"] > 0 else "from costs.json"
        est = f"; about {left:.1f} CPU hours left (estimated {how})" if left is not None else ""
        out += [f"**Partial:** {_status(data).removeprefix('partial (').rstrip(')')} (planned: "
                f"{g['target']} a pairing){est}. The same command continues it.", ""]
    if data.get("truncated_games"):
        out += [f"{data['truncated_games']} games reached the move cap (scored as the engine scores "
                f"them).", ""]
    out += _table(data) + [""] + _unbounded_lines(data) + [_levels_line(data), ""]
    return out


def _unbounded_lines(data: dict[str, Any]) -> list[str]:
    """A line for each agent whose record no finite rating fits (``unbounded_ratings``)."""
    out = []
    for spec, bound in unbounded_ratings(data):
        r = data["ratings"][spec]
        record = "came first in all its" if bound == "lower" else "lost all its"
        out += [f"`{spec}` {record} {_fmt_int(r['games'])} games: no finite rating fits that, so "
                f"{r['rating']:.0f} is where the prior (one virtual draw with each other agent) holds it, "
                f"{'a lower' if bound == 'lower' else 'an upper'} bound on its rating rather than a measurement.", ""]
    return out


def _missing_section(game_id: str, num_players: int, costs: dict[str, Any]) -> list[str]:

    name = ladder_name(game_id, num_players)
    est = estimate_cpu_hours(name, num_players, costs)
    cost = f" (estimated {est:.1f} CPU hours for {DEFAULT_GAMES} games a pairing)" if est is not None else ""
    base = game_id.split("_v")[0]
    return [f"### {game_title(game_id)}, {num_players} players", "",
            f"Not run yet: `arena ladder {base} --players {num_players}`{cost}.", ""]


def _published(ladders: Sequence[dict[str, Any]]) -> list[tuple[str, int]]:
    keys = [(g, n) for g, ns in PUBLISHED.items() for n in ns]
    keys += sorted({(d["game"], d["num_players"]) for d in ladders} - set(keys))
    return keys


def page_text(ladders: Sequence[dict[str, Any]], costs: dict[str, Any] | None = None) -> str:
    """The whole of docs/ladder.md from the ladders' data (``levels.all_ladders``) and costs."""
    costs = costs or {}
    by_key = {(d["game"], d["num_players"]): d for d in ladders}
    out = [
        "# Rating ladders",
        "",
        "<!-- generated by `arena ladder --page` (app/ladder_page.py) from checkpoints/ladder/*.json: "
        "change the data, not this file -->",
        "",
        "A fixed reference to report an agent against, as chess engines' rating lists and OpenSpiel's "
        "evaluations do: per game and player count, a fixed roster plays round-robin and every agent "
        "gets a rating on one anchored scale. A new agent is *placed* on a ladder by playing the roster "
        "only ([Python and command line](integrations.md#report-results-on-the-rating-ladder)); the "
        "difficulty levels of `arena play --level` and `arena serve` come from these tables.",
        "",
        f"- **Rating:** the evaluator's Plackett-Luce fit (Bradley-Terry with 2 players; the whole "
        f"finishing order with more, ties split), on 400 log10 odds (Elo-like): an agent 200 points "
        f"above another is expected to score 76% against it, 400 points 91%; one virtual draw between "
        f"every pair is the fit's prior, so an agent that wins every game still gets a finite rating (the "
        f"tables say where that is so: such a rating is a lower bound). **Anchored:** `{ANCHOR}` = 0, "
        f"so numbers stay comparable when the roster grows.",
        "- **95% intervals:** percentiles of 200 bootstrap resamples of the blocks (a block is one table's "
        "games from one start, every seat arrangement; they share the deal, so they are resampled together), "
        "each refitted and re-anchored (so they are intervals relative to random; random's is 0 to 0).",
        "- **Roster:** random, the rule-based heuristic, MCTS (random rollouts) at three budgets chosen per "
        "game from measured costs, and every shipped agent of the game and player count alone and at its "
        "`strongest` spec (`checkpoints/shipped.yaml`).",
        "- **Schedule:** as `arena eval`: every subset of the roster that fills a table meets in blocks, "
        "a block plays the subset in every seat arrangement from the same start (seed and two random "
        "opening moves); *games a pairing* counts the games in which two given agents sit at the same "
        "table. W-D-L: first place alone, shared, or not.",
        f"- **Difficulty levels:** level 1 (Beginner) is random; each level above is an agent at least "
        f"{LEVEL_MIN_STEP:.0f} points stronger than the one below, the chain of up to five chosen with "
        f"steps as close to {LEVEL_STEP:.0f} points as the roster allows, so level k is about "
        f"{LEVEL_STEP:.0f} (k - 1) points above random in every game; where the roster has no agent far "
        f"enough above, the top levels are absent (`train/levels.py`, `derive_levels`).",
        "- **Cost:** CPU minutes are the sum of every game's CPU time as recorded in the data (one "
        "worker process per core; the results do not depend on the number of workers); a game's clock "
        "starts once its players are built (the Zaka and Gorgasali tables, Peacekeepers' 4-player and "
        "Warbah's 2-player, played before that change, count loading a network in a worker's first "
        "game with it: seconds a table). "
        "Estimates: a partial table's time left counts each game left at the mean CPU time of the "
        "games its players have played together so far (of all the table's games where they have "
        "none yet), since the agents set a game's cost and a re-played agent leaves its pairings "
        "behind the rest; a table not started is estimated from the "
        "measured seconds a game of each agent "
        f"([costs.json]({DATA_LINK}/costs.json), `scripts/ladder_costs.py`: a few games each against "
        "the heuristic, so a rough guide).",
        "- **Reproducible:** each game's row holds its seeds and a hash of its moves; `arena ladder GAME "
        "--players N --replay` plays each roster agent's cheapest recorded game again and checks that it "
        "makes the same moves and results (the tests do so for every published table), so a change to "
        "an engine or an agent that would make the ratings describe other code is caught. The data "
        "also record the sha256 of every roster checkpoint: a shipped network replaced at the same path "
        "stops the ladder (and placing against it) until `arena ladder GAME --players N --redo SPEC` has "
        "played that agent's games again from the same seeds.",
        "",
        "## Summary",
        "",
        "| game | players | status | games | CPU minutes | updated |",
        "|---|--:|---|--:|--:|---|",
    ]
    keys = _published(ladders)
    for game_id, n in keys:
        d = by_key.get((game_id, n))
        anchor = f"[{game_title(game_id)}](#{game_title(game_id).lower()}-{n}-players)"
        if d is None:
            out.append(f"| {anchor} | {n} | not run yet | | | |")
        else:
            out.append(f"| {anchor} | {n} | {_status(d)} | {_fmt_int(d['games'])} | {d['cpu_minutes']:,.0f} | "
                       f"{d['updated']} |")
    out.append("")
    games_in_order = list(dict.fromkeys(g for g, _ in keys))
    for game_id in games_in_order:
        out += [f"## {game_title(game_id)}", ""]
        if any(by_key.get((game_id, n)) for g, n in keys if g == game_id):
            out += [f"![{game_title(game_id)} ladder: ratings with 95% intervals](images/{plot_name(game_id)})", ""]
        for g, n in keys:
            if g != game_id:
                continue
            d = by_key.get((g, n))
            out += _ladder_section(d, costs) if d is not None else _missing_section(g, n, costs)
    return "\n".join(out).rstrip() + "\n"


def plot_game(ladders: Sequence[dict[str, Any]], path: str | os.PathLike) -> Path:
    """One game's ladders as a picture: per player count, each agent's rating with its 95% interval."""
    return _plot(sorted(ladders, key=lambda d: d["num_players"]), path, columns=len(ladders))


def plot_overview(ladders: Sequence[dict[str, Any]], path: str | os.PathLike) -> Path:
    """Every table with data in one picture (the README's), in the page's order, two a row."""
    order = {key: i for i, key in enumerate(_published(ladders))}
    ladders = sorted(ladders, key=lambda d: order[(d["game"], d["num_players"])])
    return _plot(ladders, path, columns=min(2, len(ladders)))


def _plot(ladders: Sequence[dict[str, Any]], path: str | os.PathLike, columns: int) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [[(s, r) for s, r in sorted_ratings(d) if r["rating"] is not None] for d in ladders]
    height = max(len(r) for r in rows)
    grid = -(-len(ladders) // columns)
    fig, axes = plt.subplots(grid, columns, figsize=(6.2 * columns, grid * (1.0 + 0.42 * height)), squeeze=False)
    for ax in axes.flat[len(ladders):]:
        ax.set_visible(False)
    for ax, d, items in zip(axes.flat, ladders, rows):
        items = items[::-1]   # strongest at the top
        y = list(range(len(items)))
        rating = [r["rating"] for _, r in items]
        lo = [r["rating"] - r["ci95"][0] for _, r in items]
        hi = [r["ci95"][1] - r["rating"] for _, r in items]
        ax.errorbar(rating, y, xerr=[lo, hi], fmt="o", color="tab:blue", ecolor="black", capsize=3)
        # a record no finite rating fits: the point is the prior's, drawn as an arrow the way it is open
        bounds = dict(unbounded_ratings(d))
        for i, (s, r) in enumerate(items):
            if s in bounds:
                ax.plot([r["rating"]], [i], marker=">" if bounds[s] == "lower" else "<", color="tab:orange",
                        markersize=9, zorder=3)
        ax.axvline(0, color="gray", lw=0.8, ls="--")
        ax.set_yticks(y)
        names = [s if len(s) <= 40 else s[:37] + "..." for s, _ in items]
        ax.set_yticklabels([f"{n} ({'won' if bounds[s] == 'lower' else 'lost'} every game: a bound)" if s in bounds
                            else n for n, (s, _) in zip(names, items)], fontsize=8)
        g = d["games_per_pairing"]
        done = f"{g['min']} games a pairing" if d["complete"] else f"partial: {g['min']}-{g['max']} games a pairing"
        ax.set_title(f"{game_title(d['game'])}, {d['num_players']} players ({done})", fontsize=9)
        ax.set_xlabel(f"rating (400 log10 odds, {ANCHOR} = 0; 95% bootstrap interval)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_page(folder: str | os.PathLike | None = None, docs: str | os.PathLike | None = None) -> list[Path]:
    """Write ``docs/ladder.md``, one plot per game with data and the overview of every table
    (``images/ladder_all.png``, the README's); returns the files written."""
    docs = Path(docs) if docs is not None else Path(__file__).resolve().parents[1] / "docs"
    ladders = all_ladders(folder)
    page = docs / PAGE
    docs.mkdir(parents=True, exist_ok=True)
    page.write_text(page_text(ladders, read_costs(folder)), encoding="utf-8")
    written = [page]
    for game_id in dict.fromkeys(d["game"] for d in ladders):
        written.append(plot_game([d for d in ladders if d["game"] == game_id], docs / "images" / plot_name(game_id)))
    if ladders:
        written.append(plot_overview(ladders, docs / "images" / OVERVIEW))
    return written
