"""How games end and what an episode costs: heuristic agents in every seat, every supported player count.

    python scripts/game_lengths.py                      # every game, 200 games a variant
    python scripts/game_lengths.py zaberias --games 40  # one game, fewer games
    python scripts/game_lengths.py --markdown           # a markdown table
    python scripts/game_lengths.py zaka --write configs/game_lengths.yaml   # the data of docs/games.md

For each variant it plays ``--games`` games (engine seeds ``seed, seed+1, ...``) with the game's
rule-based ``heuristic`` in every seat (``random`` where a game has none) and prints how they ended:

- ``rules``: by the game's own ending (``final_info()["ended_by"] == "rules"``),
- ``designed``: by a documented designed ending (a turn or round limit the game's RULES.md gives
  as part of the game, ``"designed"``),
- ``cap``: by a safety cap (the engine's action cap, ``"cap"``, or the play loop's ``max_steps``
  backstop when the engine did not end the game at all),

and the mean number of moves (engine actions, every player's) and rounds (``ROUNDS_ARE``) per
game. The issue 42 target: ``rules`` (plus ``designed``) in >= 90% of games, ``cap`` <= 10%.

``--write FILE`` also stores each measured variant's row (options, games, first seed, date, the
three shares, mean moves and rounds) in FILE, ``configs/game_lengths.yaml``, keeping the rows of
variants not measured in this run: ``envs/docs.py`` reads it for each game's "Game length" table
in ``docs/games.md`` (regenerate the page after writing it: ``python -m tabletop_arena.envs.docs``).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

os.environ.setdefault("OMP_NUM_THREADS", "1")

#: (game, label, options): every supported player count of every game and every mode
VARIANTS: list[tuple[str, str, dict]] = [
    ("peacekeepers_v0", "solo (1p)", {"mode": "solo"}),
    ("peacekeepers_v0", "collaborative 2p", {"mode": "collaborative", "num_players": 2}),
    ("peacekeepers_v0", "collaborative 4p", {"mode": "collaborative", "num_players": 4}),
    ("peacekeepers_v0", "competitive 2p", {"mode": "competitive", "num_players": 2}),
    ("peacekeepers_v0", "competitive 4p", {"mode": "competitive", "num_players": 4}),
    ("peacekeepers_v0", "no points 2p", {"mode": "competitive_no_points", "num_players": 2}),
    ("peacekeepers_v0", "no points 4p", {"mode": "competitive_no_points", "num_players": 4}),
    ("peacekeepers_v0", "puzzle standard 1p", {"mode": "puzzle", "puzzle_level": "standard"}),
    ("peacekeepers_v0", "puzzle easy 1p", {"mode": "puzzle", "puzzle_level": "easy"}),
    ("peacekeepers_v0", "puzzle challenge 2p", {"mode": "puzzle", "puzzle_level": "challenge", "num_players": 2}),
    ("zaka_v0", "2p", {"num_players": 2}),
    ("zaka_v0", "3p", {"num_players": 3}),
    ("zaka_v0", "4p", {"num_players": 4}),
    ("zaberias_v0", "2p", {"num_players": 2}),
    ("zaberias_v0", "3p", {"num_players": 3}),
    ("zaberias_v0", "4p", {"num_players": 4}),
    ("gorgasali_v0", "2p", {"num_players": 2}),
    ("gorgasali_v0", "4p", {"num_players": 4}),
    ("gorgasali_v0", "6p", {"num_players": 6}),
    ("gorgasali_v0", "10p", {"num_players": 10}),
    ("gorgasali_v0", "duo 4p", {"num_players": 4, "mode": "duo"}),
    ("gorgasali_v0", "duo 10p", {"num_players": 10, "mode": "duo"}),
    ("warbah_v0", "2p", {"num_players": 2}),
    ("warbah_v0", "3p", {"num_players": 3}),
    ("warbah_v0", "4p", {"num_players": 4}),
    ("warbah_v0", "4p allies", {"num_players": 4, "allies": True}),
]

#: what a round is in each game (the ``rounds`` column), from its ``final_info()``
ROUNDS_ARE: dict[str, str] = {
    "gorgasali_v0": "rounds played (`final_info()[\"rounds\"]`)",
    "peacekeepers_v0": "turns per player (`final_info()[\"turns\"]`, turns begun, a Wizard's extra "
                       "turn included, over the player count)",
    "warbah_v0": "game turns (`final_info()[\"turn\"]`; every player moves in a turn)",
    "zaberias_v0": "rounds played (`final_info()[\"rounds\"]`: the most turns any tribe took)",
    "zaka_v0": "turns per army (`final_info()[\"turns\"]`, every army's together, over the armies: "
               "2 players run four)",
}

#: the head of the --write file
WRITE_HEADER = """\
# Mean game length of every variant (issue 42), read by envs/docs.py for docs/games.md (each
# game's "Game length"). Written by scripts/game_lengths.py --write (run it for a game, then
# python -m tabletop_arena.envs.docs); each row: the variant's options, the games played with
# the rule-based heuristic in every seat (engine seeds seed .. seed+games-1), the date, the shares
# of games ended by the rules / by a designed ending / at a cap (final_info()["ended_by"]), and
# the mean moves (engine actions, every player's) and rounds (rounds_are) a game.
"""

#: the play loop's backstop: far above every engine cap, so that reaching it means the engine never ended
BACKSTOP = 200_000


def ending_of(state) -> str:
    """``rules`` / ``designed`` / ``cap`` for a finished engine state (see the module docstring)."""
    if not state.is_terminal():
        return "cap"
    info = state.final_info()
    ended = info.get("ended_by")
    if ended in ("rules", "designed", "cap"):
        return ended
    # games that do not say: their own cap flags
    if info.get("capped") or info.get("round_cap"):
        return "cap"
    return "rules"


def rounds_of(state) -> float | None:
    """Rounds played (``ROUNDS_ARE``): ``rounds`` or Warbah's ``turn`` as they are, ``turns`` (every
    seat's turns together) over the seats."""
    info = state.final_info()
    for key, per in (("rounds", 1), ("turn", 1), ("turns", state.game.num_seats)):
        value = info.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value) / per
    return None


def write_rows(path: str, rows: list[dict], seed: int) -> None:
    """Store ``rows`` in the YAML file at ``path`` (see ``WRITE_HEADER``), keeping its other rows;
    games and variants in the order of ``VARIANTS``."""
    import yaml

    data: dict = {}
    header = WRITE_HEADER.rstrip("\n").splitlines()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data = yaml.safe_load(text) or {}
        old = text.splitlines()
        top = next((i for i, line in enumerate(old) if not line.startswith("#")), len(old))
        header = old[:top] or header   # the file's own comment lines, kept
    today = datetime.date.today().isoformat()
    for r in rows:
        entry = data.setdefault(r["game"], {})
        entry["rounds_are"] = ROUNDS_ARE[r["game"]]
        entry.setdefault("variants", {})[r["variant"]] = {
            "options": r["options"], "games": r["games"], "seed": seed, "date": today,
            "rules": round(r["rules"], 4), "designed": round(r["designed"], 4), "cap": round(r["cap"], 4),
            "moves": round(r["moves"], 1), "rounds": None if r["rounds"] is None else round(r["rounds"], 1)}
    order = {(g, label): i for i, (g, label, _) in enumerate(VARIANTS)}
    lines = list(header)
    for game in sorted(data, key=lambda g: min((order.get((g, v), 1 << 30) for v in data[g]["variants"]),
                                               default=1 << 30)):
        entry = data[game]
        lines += [f"{game}:", f"  rounds_are: {json.dumps(entry['rounds_are'])}", "  variants:"]
        for label in sorted(entry["variants"], key=lambda v: order.get((game, v), 1 << 30)):
            lines.append(f"    {json.dumps(label)}: {json.dumps(entry['variants'][label])}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(rows)} rows to {path}")


def play_one(task: tuple[str, dict, int]) -> tuple[str, int, float | None]:
    from tabletop_arena import envs
    from tabletop_arena.agents.registry import has_heuristic, make_agent
    from tabletop_arena.train.play import play_from

    game_id, options, seed = task
    game = envs.make_game(game_id, **options)
    kind = "heuristic" if has_heuristic(game_id) else "random"
    agents = [make_agent(kind, game, seed=seed * 10 + i) for i in range(game.num_agents)]
    state = game.new_initial_state(seed)
    # play on the engine with a backstop far above any cap; read the ending off the final state
    play_from(state, agents, max_steps=BACKSTOP)
    return ending_of(state), len(state.history), rounds_of(state)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games_filter", nargs="*", help="game names (e.g. zaka warbah); default: all")
    ap.add_argument("--games", type=int, default=200, help="games per variant (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="first engine seed (default 0)")
    ap.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--variant", action="append", default=[], help="only variants whose label contains this")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.add_argument("--write", metavar="FILE", help="also store the rows in FILE "
                    "(configs/game_lengths.yaml, the data of docs/games.md), keeping its other rows")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        ap.error("--games and --workers must be at least 1")
    chosen = [v for v in VARIANTS
              if (not args.games_filter or any(v[0].startswith(g) for g in args.games_filter))
              and (not args.variant or any(s in v[1] for s in args.variant))]
    if not chosen:
        ap.error("no variant matches")
    rows = []
    with ProcessPoolExecutor(args.workers) as pool:
        for game_id, label, options in chosen:
            t0 = time.time()
            tasks = [(game_id, options, args.seed + i) for i in range(args.games)]
            results = list(pool.map(play_one, tasks, chunksize=max(1, args.games // (4 * args.workers))))
            endings = [r[0] for r in results]
            moves = [r[1] for r in results]
            rounds = [r[2] for r in results if r[2] is not None]
            n = len(results)
            row = {"game": game_id, "variant": label, "options": options, "games": n,
                   "rules": endings.count("rules") / n, "designed": endings.count("designed") / n,
                   "cap": endings.count("cap") / n, "moves": statistics.mean(moves),
                   "moves_max": max(moves), "rounds": statistics.mean(rounds) if rounds else None,
                   "seconds": time.time() - t0}
            rows.append(row)
            if not args.markdown:
                print(f"{game_id:16s} {label:22s} n={n:4d}  rules {row['rules']:6.1%}  designed "
                      f"{row['designed']:6.1%}  cap {row['cap']:6.1%}  moves {row['moves']:8.1f} "
                      f"(max {row['moves_max']})  rounds {row['rounds'] if row['rounds'] is None else round(row['rounds'], 1)}"
                      f"  {row['seconds']:.0f}s", flush=True)
    if args.markdown:
        print("| game | variant | games | by the rules | designed ending | cap | mean moves | mean rounds |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            rounds = "" if r["rounds"] is None else f"{r['rounds']:.1f}"
            print(f"| {r['game']} | {r['variant']} | {r['games']} | {r['rules']:.0%} | {r['designed']:.0%} | "
                  f"{r['cap']:.0%} | {r['moves']:.0f} | {rounds} |")
    if args.write:
        write_rows(args.write, rows, args.seed)
    bad = [r for r in rows if r["cap"] > 0.10]
    if bad:
        print("over 10% of games at a cap: " + ", ".join(f"{r['game']} {r['variant']} ({r['cap']:.0%})"
                                                      for r in bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
