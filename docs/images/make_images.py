"""Regenerate the sample pictures in docs/images/ (one mid-game position per game, heuristic
agents on every seat):

    python docs/images/make_images.py

Each picture is the game's ``rgb_array`` render (``State.render_rgb``); Zaka's is drawn for
player_0, so the other player's hands are face down.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from tabletop_arena import envs
from tabletop_arena.agents.registry import make_agent

#: game -> (options, heuristic moves played, observer of the picture, seed)
SAMPLES = {
    "peacekeepers_v0": ({"mode": "competitive", "num_players": 2}, 40, None, 0),
    "zaka_v0": ({"num_players": 2}, 32, 0, 2),
    "zaberias_v0": ({"num_players": 4}, 150, None, 0),
    "gorgasali_v0": ({"num_players": 4}, 150, None, 0),
    "warbah_v0": ({"num_players": 4}, 300, None, 0),
}


def position(name: str, options: dict, moves: int, seed: int = 0):
    """The position after ``moves`` moves of heuristic self-play (seeded)."""
    game = envs.make_game(name, **options)
    st = game.new_initial_state(np.random.default_rng(seed))
    st.seed = seed
    agents = [make_agent("heuristic", game, seed=seed + i) for i in range(game.num_agents)]
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if st.is_terminal():
            break
        seat = st.current_player
        agent = agents[game.seat_owner(seat)]
        obs = {"observation": st.observation(seat), "action_mask": st.legal_actions_mask()}
        st.apply(int(agent.act(obs, state=st.determinize(seat, rng))))
    return st


def main(out: Path = Path(__file__).parent) -> None:
    for name, (options, moves, observer, seed) in SAMPLES.items():
        st = position(name, options, moves, seed)
        path = out / f"{name.split('_v')[0]}.png"
        Image.fromarray(st.render_rgb(observer=observer)).save(path, optimize=True)
        print(f"{path}: {path.stat().st_size // 1024} KB, move {len(st.history)}, phase {st.phase_name()}")


if __name__ == "__main__":
    main()
