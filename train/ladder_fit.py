"""The ladder's ratings (``train/ladder.py``): the evaluator's Plackett-Luce fit anchored at
``random`` = 0 with bootstrap intervals, and one new agent's rating against anchors held fixed.

Rows are games as the ladder's CSV holds them: ``seats`` (the agent spec per player index) and
``returns`` (per player index); the finishing order is by return, ties grouped (as the evaluator
ranks). Ratings are on an Elo-like scale: 400 log10 of the odds, so 200 points is an expected score
of about 76%.

The intervals resample *blocks*, not games (a cluster bootstrap): a block is one table's games from
one start (``train/ladder.py``'s schedule: the same engine seed and opening, every seat arrangement),
so its games share the deal and are correlated; resampling them one by one made the intervals too
narrow. The CSV rows name no block, but a block is exactly the games with the same ``round`` and the
same table (the sorted ``seats``): the schedule seeds a block from the ladder seed, the table and the
round, so they share ``engine_seed`` too. A row without ``round`` (rows built by hand) is a block of
its own. The point estimates use every game, as before.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any, Sequence

import numpy as np

from . import evaluate as ev
from .levels import ANCHOR

TO_ELO = 400 / math.log(10)
BOOTSTRAP = 200


def _row_key(row: dict[str, Any]) -> tuple:
    return row.get("round", 0), tuple(row["seats"]), row.get("history_hash", "")


def _block_counts(rows: Sequence[dict[str, Any]], orders: Sequence[tuple], uniq: Sequence[tuple]) -> np.ndarray:
    """Games per (block, finishing order): one line per block (module docstring), in the order the
    blocks first appear in ``rows`` (canonically sorted by the callers), one column per ``uniq``
    order; ``orders`` is each row's finishing order."""
    col = {g: j for j, g in enumerate(uniq)}
    keys = [(row["round"], tuple(sorted(row["seats"]))) if "round" in row else ("game", i)
            for i, row in enumerate(rows)]
    line = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    out = np.zeros((len(line), len(uniq)))
    for k, g in zip(keys, orders):
        out[line[k], col[g]] += 1
    return out


def _resample_blocks(rng: np.random.Generator, blocks: np.ndarray) -> np.ndarray:
    """Weights of the finishing orders in one bootstrap resample: as many blocks as there are,
    drawn with replacement, each counting all its games."""
    n = len(blocks)
    return rng.multinomial(n, np.full(n, 1.0 / n)) @ blocks


def _finishing_order(row: dict[str, Any], index: dict[str, int]) -> tuple[tuple[int, ...], ...]:
    """Tie groups of entrant indices, best first (by return, as the evaluator ranks)."""
    by_ret: dict[float, list[int]] = {}
    for spec, ret in zip(row["seats"], row["returns"]):
        by_ret.setdefault(ret, []).append(index[spec])
    return tuple(tuple(sorted(by_ret[r])) for r in sorted(by_ret, reverse=True))


def _expanded(orders: Sequence[tuple[tuple[int, ...], ...]]):
    return [list(ev._orderings(g)) for g in orders]


def _rankings(expanded, weights) -> tuple[list[tuple[int, ...]], list[float]]:
    rk: list[tuple[int, ...]] = []
    ws: list[float] = []
    for orders, w in zip(expanded, weights):
        if w > 0:
            for order, ow in orders:
                rk.append(order)
                ws.append(w * ow)
    return rk, ws


def pair_results(rows: Sequence[dict[str, Any]], specs: Sequence[str]) -> list[dict[str, Any]]:
    pos = {s: i for i, s in enumerate(specs)}
    counts: dict[tuple[str, str], Counter] = {}
    for row in rows:
        for (s1, r1), (s2, r2) in itertools.combinations(zip(row["seats"], row["returns"]), 2):
            if pos[s1] > pos[s2]:
                s1, s2, r1, r2 = s2, s1, r2, r1
            c = counts.setdefault((s1, s2), Counter())
            c["wins" if r1 > r2 else "losses" if r1 < r2 else "draws"] += 1
    out = []
    for (a, b), c in sorted(counts.items(), key=lambda kv: (pos[kv[0][0]], pos[kv[0][1]])):
        n = c["wins"] + c["draws"] + c["losses"]
        out.append({"a": a, "b": b, "games": n, "wins": c["wins"], "draws": c["draws"],
                    "losses": c["losses"], "score_a": round((c["wins"] + 0.5 * c["draws"]) / n, 4)})
    return out


def fit_ladder(rows: Sequence[dict[str, Any]], specs: Sequence[str], bootstrap: int = BOOTSTRAP,
               seed: int = 0) -> dict[str, Any]:
    """Ratings of ``specs`` from ``rows`` (games whose players are all in ``specs``): point
    estimates anchored at ``random`` = 0 and 95% intervals from ``bootstrap`` resamples of the
    blocks, drawn from ``seed`` (module docstring). An agent without games gets no rating (None)."""
    specs = list(specs)
    # in a canonical order: the bootstrap's draws (and so the intervals) must not depend on the
    # order in which games ended (workers, resumed runs)
    rows = sorted((r for r in rows if all(s in specs for s in r["seats"])), key=_row_key)
    played = [s for s in specs if any(s in r["seats"] for r in rows)]
    out: dict[str, Any] = {"ratings": {}, "bootstrap": [], "rated": played}
    per: dict[str, Counter] = {s: Counter() for s in specs}
    for row in rows:
        top = max(row["returns"])
        n_top = sum(1 for x in row["returns"] if x == top)
        for s, x in zip(row["seats"], row["returns"]):
            per[s]["games"] += 1
            per[s]["wins" if x == top and n_top == 1 else "draws" if x == top else "losses"] += 1
    anchored = ANCHOR in played
    if anchored and len(played) > 1:
        index = {s: i for i, s in enumerate(played)}
        row_orders = [_finishing_order(r, index) for r in rows]
        orders = Counter(row_orders)
        uniq = list(orders)
        expanded = _expanded(uniq)
        counts = np.array([orders[g] for g in uniq], float)
        blocks = _block_counts(rows, row_orders, uniq)

        def fit(weights) -> np.ndarray:
            strengths = ev.fit_plackett_luce(*_rankings(expanded, weights), len(played)) * TO_ELO
            return strengths - strengths[index[ANCHOR]]

        point = fit(counts)
        rng = np.random.default_rng(seed)
        samples = np.asarray([fit(_resample_blocks(rng, blocks))
                              for _ in range(bootstrap)]) if bootstrap and len(blocks) > 1 else point[None, :]
        out["bootstrap"] = [[round(float(x), 1) for x in sample] for sample in samples]
    for s in specs:
        entry: dict[str, Any] = {"rating": None, "ci95": None, "games": per[s]["games"],
                                 "wins": per[s]["wins"], "draws": per[s]["draws"], "losses": per[s]["losses"]}
        if anchored and s in played and len(played) > 1:
            i = played.index(s)
            entry["rating"] = round(float(point[i]), 1)
            entry["ci95"] = [round(float(np.percentile(samples[:, i], 2.5)), 1),
                             round(float(np.percentile(samples[:, i], 97.5)), 1)]
        out["ratings"][s] = entry
    out["pairs"] = pair_results(rows, specs)
    return out


def fit_one(rows: Sequence[dict[str, Any]], label: str, fixed: dict[str, float],
            prior: float = 1.0, iters: int = 5000, tol: float = 1e-10) -> float:
    """The rating of ``label`` from ``rows`` with every other agent held at ``fixed`` (ratings on
    the ladder's scale): Hunter's MM update of that one strength, with ``prior`` virtual draws
    against each anchor it met (as ``fit_plackett_luce``)."""
    specs = [label] + sorted(fixed)
    index = {s: i for i, s in enumerate(specs)}
    orders = Counter(_finishing_order(r, index) for r in rows)
    return _fit_one_weighted(_expanded(list(orders)), np.array(list(orders.values()), float),
                             np.array([0.0] + [fixed[s] / TO_ELO for s in specs[1:]]),
                             prior, iters, tol) * TO_ELO


def _fit_one_weighted(expanded, weights, log_strength: np.ndarray, prior: float, iters: int,
                      tol: float) -> float:
    """MM for item 0's log-strength, the others fixed at ``log_strength[1:]``."""
    rk, ws = _rankings(expanded, weights)
    met = sorted({x for r in rk for x in r if x != 0})
    if prior > 0:
        for j in met:
            rk += [(0, j), (j, 0)]
            ws += [prior / 2, prior / 2]
    gamma = np.exp(log_strength - log_strength.max())
    wins = 0.0
    stages: dict[tuple[int, ...], float] = {}
    for r, w in zip(rk, ws):
        for j in range(len(r) - 1):
            if r[j] == 0:
                wins += w
            if 0 in r[j:]:
                key = tuple(r[j:])
                stages[key] = stages.get(key, 0.0) + w
    if not stages or wins <= 0:
        return float("-inf")
    keys = list(stages)
    set_w = np.array([stages[k] for k in keys])
    mult0 = np.array([k.count(0) for k in keys], float)
    others = np.array([sum(gamma[x] for x in k if x != 0) for k in keys])
    g = 1.0
    for _ in range(iters):
        new = wins / float(np.sum(set_w * mult0 / (others + mult0 * g)))
        if abs(math.log(new) - math.log(g)) < tol:
            g = new
            break
        g = new
    return float(math.log(g) + log_strength.max())


def place_rating(data: dict[str, Any], rows: Sequence[dict[str, Any]], label: str, chosen: Sequence[str],
                 bootstrap: int = BOOTSTRAP, seed: int = 0) -> tuple[float, tuple[float, float], list[dict[str, Any]]]:
    """(rating, 95% interval, results per anchor) of ``label`` from its games ``rows`` against the
    ladder ``data``'s agents ``chosen``, held at their ratings. The interval: percentiles over
    ``bootstrap`` resamples of the blocks (module docstring), each refitted with the anchors'
    ratings taken from one of the ladder's own bootstrap resamples (so the anchors' uncertainty
    counts too)."""
    rows = sorted((r for r in rows if label in r["seats"] and all(s in chosen or s == label for s in r["seats"])),
                  key=_row_key)
    fixed = {s: float(data["ratings"][s]["rating"]) for s in chosen}
    rating = fit_one(rows, label, fixed)
    specs = [label] + sorted(fixed)
    index = {s: i for i, s in enumerate(specs)}
    row_orders = [_finishing_order(r, index) for r in rows]
    orders = Counter(row_orders)
    expanded = _expanded(list(orders))
    blocks = _block_counts(rows, row_orders, list(orders))
    order = data.get("bootstrap_order") or []
    boot_rows = data.get("bootstrap") or []
    rng = np.random.default_rng(seed + 1)
    samples = []
    for _ in range(bootstrap if len(blocks) > 1 else 0):
        weights = _resample_blocks(rng, blocks)
        anchors_now = dict(fixed)
        if boot_rows:
            sample = boot_rows[int(rng.integers(len(boot_rows)))]
            anchors_now.update({s: float(v) for s, v in zip(order, sample) if s in fixed})
        log_s = np.array([0.0] + [anchors_now[s] / TO_ELO for s in specs[1:]])
        samples.append(_fit_one_weighted(expanded, weights, log_s, 1.0, 5000, 1e-10) * TO_ELO)
    arr = np.asarray(samples if samples else [rating], float)
    arr = arr[np.isfinite(arr)] if np.isfinite(arr).any() else np.asarray([rating])
    ci = (round(float(np.percentile(arr, 2.5)), 1), round(float(np.percentile(arr, 97.5)), 1))
    per = {p["b"]: p for p in pair_results(rows, [label, *chosen]) if p["a"] == label}
    anchors_out = []
    for s in chosen:
        p = per.get(s, {"games": 0, "wins": 0, "draws": 0, "losses": 0})
        anchors_out.append({"spec": s, "rating": fixed[s], "games": p["games"], "wins": p["wins"],
                            "draws": p["draws"], "losses": p["losses"]})
    return round(rating, 1), ci, anchors_out
