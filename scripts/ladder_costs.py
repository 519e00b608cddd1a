"""Measure what each roster agent of a ladder costs: CPU seconds a game of its own moves.

    python scripts/ladder_costs.py zaka --players 2 --games 2      # prints one JSON line per agent
    python scripts/ladder_costs.py zaka --players 2 --write        # ... and merges them into
                                                                   # checkpoints/ladder/costs.json

Each roster agent (``train.ladder.roster``) plays ``--games`` games against the heuristic in every
other seat (its seat rotating), and the CPU time of its own moves (``train.play.play``'s ``cpu``:
process time) is summed; ``engine`` is the CPU time of a heuristics-only game (the engine and the
heuristics). The page (``arena ladder --page``) estimates the CPU time of ladders not run yet, or not finished,
from these numbers: they are estimates (games against weaker or stronger opponents run longer or
shorter), and the ladders' own CSVs record every game's real cost.

With ``--agents SPEC ...`` only those agents are written, each with its own date and game count
(``agents_measured``); the entry's ``engine``, ``measured`` and ``games_each`` stay those of the
whole roster's measurement (the engine's seconds are printed, not written).
"""
from __future__ import annotations

import argparse
import datetime
import json
import time

import numpy as np


def measure(game_id: str, num_players: int, games: int, specs: list[str] | None = None) -> dict:
    from tabletop_arena import envs
    from tabletop_arena.agents.registry import make_agent
    from tabletop_arena.threads import limit_threads
    from tabletop_arena.train.ladder import MAX_STEPS, build_game, roster
    from tabletop_arena.train.play import play

    limit_threads()
    game_id = envs.resolve(game_id)
    game = build_game(game_id, num_players)
    out: dict = {}
    start = time.process_time()
    for g in range(games):
        play(game, [make_agent("heuristic", game, seed=100 + i) for i in range(num_players)],
             2 * g + 1, max_steps=MAX_STEPS)
    out["engine"] = round((time.process_time() - start) / games, 3)
    print(json.dumps({"spec": "engine", "seconds_a_game": out["engine"]}), flush=True)
    for spec in specs or roster(game_id, num_players):
        agent = make_agent(spec, game, seed=0)
        lengths, times = [], []
        for g in range(games):
            seat = g % num_players
            players = [make_agent("heuristic", game, seed=100 + i) for i in range(num_players)]
            players[seat] = agent
            agent.reset(g)
            cpu: list[list[float]] = [[] for _ in players]   # play() times each decision
            lengths.append(play(game, players, 2 * g + 1, max_steps=MAX_STEPS, cpu=cpu).steps)
            times += cpu[seat]
        out[spec] = round(sum(times) / games, 3)
        print(json.dumps({"spec": spec, "seconds_a_game": out[spec],
                          "ms_a_move": round(1000 * sum(times) / max(1, len(times)), 2),
                          "moves_a_game": len(times) / games, "game_length": float(np.mean(lengths))}),
              flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=2, help="games per agent")
    parser.add_argument("--agents", nargs="+", help="only these specs (default: the roster)")
    parser.add_argument("--write", action="store_true", help="merge into checkpoints/ladder/costs.json")
    args = parser.parse_args()
    from tabletop_arena.train.ladder import ladder_name
    from tabletop_arena.train.levels import ladder_dir

    found = measure(args.game, args.players, args.games, args.agents)
    if args.write:
        path = ladder_dir() / "costs.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        entry = data.setdefault(ladder_name(args.game, args.players), {})
        today = datetime.date.today().isoformat()
        if args.agents:   # these agents only: the rest of the entry keeps its own date
            for spec in args.agents:
                entry[spec] = found[spec]
                entry.setdefault("agents_measured", {})[spec] = {"measured": today, "games_each": args.games}
        else:
            entry.clear()
            entry.update(found, measured=today, games_each=args.games)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
