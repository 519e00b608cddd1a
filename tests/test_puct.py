"""Policy-and-value guided search (agents/puct.py, ``puct:N:REF``).

- the tree logic with a stand-in evaluator on tic-tac-toe (tests/test_mcts.py's fake engine):
  it takes a win in one, blocks a loss in one, and a value of the wrong sign would make it lose;
- a prior that puts all its mass on one move decides a search of one simulation;
- with a real checkpoint: legal moves only, one leaf evaluation per simulation, the same game
  from the same seed, no search with one legal move; bad specs are one-line errors.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.agents.puct import PUCTAgent
from tabletop_arena.agents.registry import AgentSpecError, make_agent
from tabletop_arena.train.play import play
from tests.test_mcts import TicTacToe


def flat(state):
    """A stand-in network: uniform priors, value 0."""
    return np.zeros(state.game.num_actions), 0.0


def _position(moves):
    game = TicTacToe()
    s = game.new_initial_state(0)
    for a in moves:
        s.apply(a)
    return game, s


def _act(agent, s):
    return agent.act({"observation": s.observation(s.current_player),
                      "action_mask": s.legal_actions_mask()}, s.clone())


def test_takes_a_win_in_one():
    # X: 0, 1; O: 3, 4; X to move: 2 wins (and 5 would win for O next)
    game, s = _position([0, 3, 1, 4])
    agent = PUCTAgent(None, game, simulations=100, seed=0, evaluator=flat)
    assert _act(agent, s) == 2
    assert agent.last_search[2][0] == max(v[0] for v in agent.last_search.values())


def test_blocks_a_loss_in_one():
    # X: 0, 8; O: 4, 1 threatens 7; X must play 7
    game, s = _position([0, 4, 8, 1])
    agent = PUCTAgent(None, game, simulations=200, seed=0, evaluator=flat)
    assert _act(agent, s) == 7


def test_the_value_is_for_the_seat_to_act():
    """An evaluator that calls every position good (+0.5) for the seat to act, except the ones
    after X took cell 3, which it calls lost (-0.9) for O to act: X must want cell 3. Crediting
    the value to the wrong player (or not negating it for the opponent) picks another cell."""
    game, s = _position([])

    def judge(state):
        if state.current_player == 1 and state.board[3] == 0:
            return np.zeros(9), -0.9
        return np.zeros(9), 0.5

    agent = PUCTAgent(None, game, simulations=60, seed=1, evaluator=judge)
    assert _act(agent, s) == 3
    stats = agent.last_search
    assert stats[3][1] > 0.5  # 0.9 at the child, +0.5 for X deeper down
    assert all(v[1] < 0 for a, v in stats.items() if a != 3 and v[0])  # -0.5: O to act is "winning"


def test_a_sharp_prior_decides_one_simulation():
    game, s = _position([])

    def likes_5(state):
        z = np.full(9, -20.0)
        z[5] = 20.0
        return z, 0.0

    agent = PUCTAgent(None, game, simulations=1, seed=0, evaluator=likes_5)
    # one simulation evaluates the root only; the choice falls back to the prior
    assert _act(agent, s) == 5
    agent = PUCTAgent(None, game, simulations=2, seed=0, evaluator=likes_5)
    assert _act(agent, s) == 5 and agent.last_search[5][0] == 1


def test_bad_settings_are_errors():
    game = TicTacToe()
    with pytest.raises(ValueError, match="simulations"):
        PUCTAgent(None, game, simulations=0, evaluator=flat)
    with pytest.raises(ValueError, match="c_puct"):
        PUCTAgent(None, game, simulations=4, c_puct=0, evaluator=flat)
    with pytest.raises(ValueError, match="checkpoint path or a policy"):
        PUCTAgent(None, game, simulations=4)


@pytest.mark.parametrize("spec", ["puct", "puct:8", "puct:0:peacekeepers", "puct:x:peacekeepers",
                                  "puct:8:", "puct:8:no_such_agent"])
def test_bad_specs(spec):
    with pytest.raises(AgentSpecError):
        make_agent(spec, envs.make_game("peacekeepers_v0"))


def test_with_a_shipped_checkpoint():
    """puct:4:peacekeepers against random: only legal moves (``play`` checks each against the
    mask), at most one leaf evaluation per simulation, the same game from the same seed."""
    game = envs.make_game("peacekeepers_v0")

    def one(seed):
        agent = make_agent("puct:4:peacekeepers", game, seed=seed)
        res = play(game, [agent, make_agent("random", game, seed=seed)], seed=seed, max_steps=40)
        return agent, res

    agent, first = one(3)
    assert agent.evaluations > 0 and agent.last_search  # it searched
    assert agent.evaluations <= 4 * len(first.history)
    _, again = one(3)
    assert first.history == again.history and first.returns == again.returns


def test_one_legal_move_is_played_without_search():
    game = TicTacToe()
    s = game.new_initial_state(0)
    for a in [0, 1, 2, 4, 3, 5, 7, 6]:  # one empty cell left (8)
        s.apply(a)
    agent = PUCTAgent(None, game, simulations=50, seed=0, evaluator=flat)
    assert _act(agent, s) == 8 and agent.evaluations == 0
