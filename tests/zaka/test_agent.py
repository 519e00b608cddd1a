"""The rule-based Zaka baseline against uniformly random play (seat-swapped)."""
from __future__ import annotations

import numpy as np

from tabletop_arena import envs
from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.agents.zaka import HeuristicAgent
from tabletop_arena.train.play import play


def winner(game, agents, seed) -> int:
    """The winning player of one game (-1 when first place is shared)."""
    result = play(game, agents, seed, det_rng=np.random.default_rng(seed + 10_000))
    return result.winners[0] if len(result.winners) == 1 else -1


def test_heuristic_beats_random_two_players():
    """Over 200 seat-swapped 2-player games the heuristic wins at least 70% (measured: ~99%)."""
    game = envs.make_game("zaka_v0", num_players=2)
    wins = 0
    for i in range(200):
        pos = i % 2
        agents = [RandomAgent(seed=2 * i), RandomAgent(seed=2 * i + 1)]
        agents[pos] = HeuristicAgent(game, seed=i)
        wins += winner(game, agents, i) == pos
    assert wins >= 140, f"heuristic won {wins}/200"


def test_heuristic_wins_most_four_player_games():
    """4 players, heuristic in each seat in turn against three random players: it finishes first
    in at least half of 40 games (measured: ~86% over 200)."""
    game = envs.make_game("zaka_v0", num_players=4)
    wins = 0
    for i in range(40):
        pos = i % 4
        agents = [RandomAgent(seed=4 * i + j) for j in range(4)]
        agents[pos] = HeuristicAgent(game, seed=i)
        wins += winner(game, agents, 500 + i) == pos
    assert wins >= 20, f"heuristic won {wins}/40"


def test_heuristic_plays_legal_actions_and_ignores_hidden_cards():
    """Every choice is legal, and two different resamplings of the hidden cards (determinize)
    lead to the same choice: the heuristic reads only what its player may see."""
    game = envs.make_game("zaka_v0", num_players=3)
    st = game.new_initial_state(np.random.default_rng(3))
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    step = 0
    while not st.is_terminal():
        seat = st.current_player
        obs = {"observation": st.observation(seat), "action_mask": st.legal_actions_mask()}
        a = HeuristicAgent(game, seed=step).act(obs, st.determinize(seat, rng_a))
        b = HeuristicAgent(game, seed=step).act(obs, st.determinize(seat, rng_b))
        assert a == b and obs["action_mask"][a]
        st.apply(a)
        step += 1


def test_board_value_memo_changes_no_value():
    """The heuristic memoises monster outputs and seat relations per game (``evaluate``'s
    ``outputs``); along random games of 2-4 players, one memo shared by every state and seat gives
    exactly the values computed without it."""
    from tabletop_arena.agents.zaka import evaluate
    for n in (2, 3, 4):
        game = envs.make_game("zaka_v0", num_players=n)
        memo: dict = {}
        rng = np.random.default_rng(n)
        for seed in range(6):
            st = game.new_initial_state(seed)
            while not st.is_terminal():
                for seat in range(game.num_seats):
                    assert evaluate(st, seat, memo) == evaluate(st, seat)
                legal = np.flatnonzero(st.legal_actions_mask())
                st.apply(int(legal[rng.integers(len(legal))]))
        assert memo
