"""Time again the games of an evaluation journal in which an agent's decisions ran long.

    python scripts/retime_journal.py docs/evals/<run>/games.jsonl --agent 0 --over 2.0

``arena eval`` records each game's CPU time a decision (process time, on the machine under its load
at the time: a timing, not part of the result). An agent whose budget is in moves or simulations
does the same work whatever the load, so its decisions can be timed again on a quiet machine. This
plays again, in this process with torch and BLAS on one thread (as the evaluator's workers do), the
journal's games in which agent ``--agent`` (its index in the run's ``--agents``) had a decision
longer than ``--over`` CPU seconds, checks that each gives the recorded moves (its history digest),
and prints the recorded and the new timings. Exit status 1 if a game does not replay, 2 for a
journal or checkpoint it cannot use.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def load(path: Path) -> tuple[dict, list[dict]]:
    """The journal's run identity and its games, in the order they were written."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines or "run" not in lines[0]:
        raise ValueError(f"{path}: not an arena eval journal (no header line)")
    return lines[0]["run"], [g for line in lines[1:] for g in line["games"]]


def longest(game: dict, agent: int) -> float:
    """The agent's longest decision in a recorded game (over every seat it held)."""
    return max((c[1] for e, c in zip(game["arrangement"], game["cpu"]) if e == agent), default=0.0)


def retime(path: Path, agent: int, over: float, limit: int | None = None) -> list[dict]:
    from tabletop_arena.train import eval_journal
    from tabletop_arena.train import evaluate as ev

    run, games = load(path)
    if not 0 <= agent < len(run["agents"]):
        raise ValueError(f"--agent {agent}: the run has agents 0..{len(run['agents']) - 1} ({run['agents']})")
    ctx = ev._Context(("registry", run["game"], run["options"]), run["agents"], run["max_steps"],
                      kinds=run["seat_kinds"]).setup()
    files = eval_journal.file_digests(ctx.game, run["agents"])
    if files != run["file_sha256"]:
        raise ValueError(f"{path}: its checkpoints are not the files it was played with "
                         f"(recorded {run['file_sha256']}, now {files})")
    picked = [g for g in games if longest(g, agent) > over][:limit]
    out = []
    with ev._one_torch_thread():
        for g in picked:
            rec = ev.play_game(ctx, tuple(g["arrangement"]), g["engine_seed"],
                               list(g["history"][:run["opening_moves"]]), tuple(g["agent_seeds"]), g["block"])
            seats = [i for i, e in enumerate(rec.arrangement) if e == agent]
            new = [rec.cpu[i] for i in seats]
            out.append({"block": g["block"], "arrangement": g["arrangement"], "same_moves": rec.history_hash == g["history_hash"],
                        "recorded_longest": longest(g, agent), "longest": max(c[1] for c in new),
                        "mean": sum(c[0] for c in new) / max(1, sum(c[2] for c in new)),
                        "decisions": sum(c[2] for c in new)})
            r = out[-1]
            print(f"block {r['block']:4d} seats {r['arrangement']}: longest {r['recorded_longest']:.2f} s "
                  f"recorded, {r['longest']:.2f} s now (mean {1000 * r['mean']:.0f} ms over {r['decisions']} "
                  f"decisions){'' if r['same_moves'] else ', DIFFERENT MOVES'}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("journal", type=Path, help="an arena eval journal (the --out folder's games.jsonl)")
    p.add_argument("--agent", type=int, default=0, help="the agent's index in the run's --agents (default 0)")
    p.add_argument("--over", type=float, default=2.0,
                   help="play the games where its longest decision was over this many CPU seconds (default 2)")
    p.add_argument("--limit", type=int, default=None, help="at most this many games (the first ones)")
    a = p.parse_args(argv)
    try:
        rows = retime(a.journal, a.agent, a.over, a.limit)
    except (OSError, ValueError, KeyError) as exc:
        print(f"retime_journal: {exc}", file=sys.stderr)
        return 2
    if rows:
        print(f"{len(rows)} games: longest decision now {max(r['longest'] for r in rows):.2f} s "
              f"(recorded {max(r['recorded_longest'] for r in rows):.2f} s)")
    else:
        print(f"no game with a decision of agent {a.agent} over {a.over} s")
    return 0 if all(r["same_moves"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
