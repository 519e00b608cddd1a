"""How Warbah games between rule-based agents end (issue 20): by the designed victory condition
(last player standing, domination; RULES.md "Win condition") or at the turn / action cap.

    python -m tests.warbah.endings              # 100 games each for 2 and 3 players
    python -m tests.warbah.endings --games 50 --players 3

Every seat plays ``agents.warbah.HeuristicAgent``, which gets the mask and a determinized view
of the state for its seat (as the evaluator and ``arena play`` give it), so it sees only what
its player may see. Seeds 0 .. N-1; the same seed gives the same game. Prints, per player
count: games, % decided by the victory condition (and by which ending), % at the cap (how many
of those stopped at the engine's action cap rather than the turn cap), the mean length in turns. This is a measurement script, not a test (tests do not time or sample).
"""
from __future__ import annotations

import argparse
import collections
import time

import numpy as np

from tabletop_arena.agents.warbah import HeuristicAgent
from tabletop_arena.envs.warbah import make_game


def play(game, seed: int) -> tuple[str, int, int]:
    """One game between heuristic agents: (ending, turns played, engine actions)."""
    st = game.new_initial_state(np.random.default_rng(seed))
    agents = {s: HeuristicAgent(game, 1000 * seed + s) for s in range(game.num_seats)}
    view_rng = np.random.default_rng(seed)
    while not st.is_terminal():
        p = st.current_player
        obs = {"observation": None, "action_mask": st.legal_actions_mask()}
        st.apply(agents[p].act(obs, st.determinize(p, view_rng)))
    info = st.final_info()
    return info["ending"], info["turn"], len(st.history)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="games per player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3], choices=(2, 3, 4))
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be positive")
    for n in args.players:
        game = make_game(num_players=n)
        t0 = time.perf_counter()
        ends = collections.Counter()
        turns = []
        action_cap = 0
        for seed in range(args.games):
            ending, t, actions = play(game, seed)
            ends[ending] += 1
            turns.append(t)
            action_cap += ending == "cap" and actions >= game.max_actions
        g = args.games
        won = g - ends["cap"]
        detail = ", ".join(f"{k} {100 * ends[k] / g:.0f}%" for k in ("last_standing", "domination"))
        print(f"{n}p: {g} games, decided by victory {100 * won / g:.1f}% ({detail}), "
              f"at cap {100 * ends['cap'] / g:.1f}% ({action_cap} of them at the action cap), "
              f"mean length {np.mean(turns):.2f} turns "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
