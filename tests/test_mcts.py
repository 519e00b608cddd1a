"""The MCTS baseline (agents/mcts.py).

- beats random clearly at tic-tac-toe on a small budget (a fake engine defined here);
- never returns an illegal action on a registered game, with and without hidden information;
- cannot peek: neither at future chance inside ``apply`` (a die rolled with the state's own
  generator) nor at a hidden card (resampled by ``determinize``), even when handed the true state;
- credits an agent that owns several seats (``seat_owner``) with its own result.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.agents.mcts import MCTSAgent
from tabletop_arena.agents.registry import make_agent
from tabletop_arena.envs.core.game import Game, State
from tabletop_arena.train.play import play

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe(Game):
    name = "tictactoe_v0"
    num_seats = 2
    num_actions = 9
    observation_layout = [("board", (2, 3, 3))]

    def _new_state(self, rng):
        return TTTState(self, rng)


class TTTState(State):
    def __init__(self, game, rng):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        self.board = [-1] * 9
        self.winner = None

    @property
    def current_player(self):
        return -1 if self.is_terminal() else len(self.history) % 2

    def legal_actions_mask(self):
        if self.is_terminal():
            return np.zeros(9, np.int8)
        return np.array([c == -1 for c in self.board], np.int8)

    def _apply(self, a):
        p = self.current_player
        self.board[a] = p
        if any(all(self.board[i] == p for i in line) for line in LINES):
            self.winner = p

    def is_terminal(self):
        return self.winner is not None or all(c != -1 for c in self.board)

    def returns(self):
        if self.winner is None:
            return np.zeros(2)
        out = -np.ones(2)
        out[self.winner] = 1
        return out

    def observation(self, seat):
        b = np.array(self.board)
        return np.concatenate([(b == seat), (b == 1 - seat)]).astype(np.float32)

    def action_to_str(self, a):
        return f"cell {a}"

    def clone(self):
        s = TTTState(self.game, np.random.default_rng())
        s.rng.bit_generator.state = self.rng.bit_generator.state
        s.board, s.history, s.winner, s.seed = list(self.board), list(self.history), self.winner, self.seed
        return s


class GuessGame(Game):
    """Seat 0 names a number 0..5 and wins if it matches a hidden value.

    ``hidden_card``: the value is dealt at the start (hidden from seat 0, resampled by
    ``determinize``); otherwise it is a die rolled inside ``apply`` with the state's generator.
    """

    num_seats = 2
    num_actions = 6
    observation_layout = [("vector", (1,))]

    def __init__(self, hidden_card: bool):
        self.hidden_card = hidden_card
        self.hidden_information = hidden_card
        self.name = "guess_card_v0" if hidden_card else "guess_die_v0"

    def _new_state(self, rng):
        return GuessState(self, rng)


class GuessState(State):
    def __init__(self, game, rng, blank=False):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        self.card = int(rng.integers(6)) if game.hidden_card and not blank else None
        self.won = None

    @property
    def current_player(self):
        return -1 if self.is_terminal() else 0

    def legal_actions_mask(self):
        return np.zeros(6, np.int8) if self.is_terminal() else np.ones(6, np.int8)

    def _apply(self, a):
        value = self.card if self.game.hidden_card else int(self.rng.integers(6))
        self.won = a == value

    def is_terminal(self):
        return self.won is not None

    def returns(self):
        if self.won is None:
            return np.zeros(2)
        return np.array([1.0, -1.0]) if self.won else np.array([-1.0, 1.0])

    def observation(self, seat):
        return np.zeros(1, np.float32)

    def action_to_str(self, a):
        return f"guess {a}"

    def clone(self):
        s = GuessState(self.game, np.random.default_rng(), blank=True)
        s.rng.bit_generator.state = self.rng.bit_generator.state
        s.card, s.won, s.history = self.card, self.won, list(self.history)
        return s

    def determinize(self, observer, rng):
        s = super().determinize(observer, rng)  # fresh generator for future chance
        if self.game.hidden_card and observer != 1:
            s.card = int(rng.integers(6))
        return s


class TeamGame(Game):
    """Four seats, two agents (seats 0, 2 -> agent 0). Agent 0 wins iff seat 2 picks action 1."""

    name = "team_v0"
    num_seats = 4
    num_actions = 2
    observation_layout = [("vector", (1,))]

    def seat_owner(self, seat):
        return seat % 2

    @property
    def num_agents(self):
        return 2

    def _new_state(self, rng):
        return TeamState(self, rng)


class TeamState(GuessState):
    def __init__(self, game, rng, blank=False):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        self.picks = []

    @property
    def current_player(self):
        return -1 if self.is_terminal() else len(self.picks)

    def legal_actions_mask(self):
        return np.zeros(2, np.int8) if self.is_terminal() else np.ones(2, np.int8)

    def _apply(self, a):
        self.picks.append(a)

    def is_terminal(self):
        return len(self.picks) == 4

    def returns(self):
        if not self.is_terminal():
            return np.zeros(4)
        r = 1.0 if self.picks[2] == 1 else -1.0
        return np.array([r, -r, r, -r])

    def clone(self):
        s = TeamState(self.game, np.random.default_rng())
        s.picks, s.history = list(self.picks), list(self.history)
        return s

    def determinize(self, observer, rng):
        return self.clone()


def test_mcts_beats_random_at_tictactoe():
    game = TicTacToe()
    mcts = MCTSAgent(game, simulations=60, seed=0)
    rnd = RandomAgent(1)
    wins = losses = 0
    for g in range(20):
        me = g % 2
        agents = [mcts, rnd] if me == 0 else [rnd, mcts]
        r = play(game, agents, g, det_rng=np.random.default_rng(g + 1)).returns[me]
        wins += r > 0
        losses += r < 0
    assert wins >= 14 and losses <= 2, (wins, losses)


def test_mcts_blocks_and_wins_in_one():
    game = TicTacToe()
    st = game.new_initial_state(np.random.default_rng(0))
    for a in (0, 3, 1, 4):  # X on 0, 1; O on 3, 4; X to move: 2 wins
        st.apply(a)
    agent = MCTSAgent(game, simulations=200, seed=0)
    assert agent.act({"action_mask": st.legal_actions_mask()}, state=st.clone()) == 2
    assert agent.last_search[2][0] == max(v for v, _ in agent.last_search.values())


@pytest.mark.parametrize("hidden_card", [False, True], ids=["chance", "hidden_card"])
def test_mcts_cannot_peek(hidden_card):
    game = GuessGame(hidden_card)
    agent = MCTSAgent(game, simulations=60, seed=0)
    hits = 0
    for g in range(60):
        st = game.new_initial_state(np.random.default_rng(1000 + g))
        # hand it the *true* state (with the real generator and card): it must still not know
        a = agent.act({"action_mask": st.legal_actions_mask()}, state=st.clone())
        st.apply(a)
        hits += bool(st.won)
    assert hits <= 25, f"{hits}/60 correct guesses: MCTS saw the hidden value (expected about 10)"


def test_mcts_credits_the_owner_of_several_seats():
    game = TeamGame()
    st = game.new_initial_state(np.random.default_rng(0))
    st.apply(0)
    st.apply(0)
    agent = MCTSAgent(game, simulations=30, seed=0)
    assert st.current_player == 2 and game.seat_owner(2) == 0
    assert agent.act({"action_mask": st.legal_actions_mask()}, state=st.clone()) == 1
    opponent_first = game.new_initial_state(np.random.default_rng(0))
    opponent_first.apply(0)  # seat 1 (agent 1) to move: it cannot change the result; any move is fine
    assert agent.act({"action_mask": opponent_first.legal_actions_mask()}, state=opponent_first.clone()) in (0, 1)


def _registered_case(hidden: bool):
    for name in envs.names():
        for opts in envs.variants(name).values():
            if envs.make_game(name, **opts).hidden_information == hidden:
                return name, opts
    return None


@pytest.mark.parametrize("hidden", [False, True], ids=["perfect_info", "hidden_info"])
def test_mcts_legal_on_registered_game(hidden):
    case = _registered_case(hidden)
    if case is None:
        pytest.skip(f"no registered variant with hidden_information={hidden}")
    name, opts = case
    game = envs.make_game(name, **opts)
    agent = make_agent("mcts:4", game, seed=0)
    agent.rollout_cap = 40
    rnd = RandomAgent(0)
    st = game.new_initial_state(np.random.default_rng(5))
    det = np.random.default_rng(6)
    moves = 0
    while not st.is_terminal() and moves < 40:
        seat = st.current_player
        mask = st.legal_actions_mask()
        obs = {"observation": st.observation(seat), "action_mask": mask}
        if game.seat_owner(seat) == 0:
            before = st.serialize()
            a = agent.act(obs, state=st.determinize(seat, det))
            assert st.serialize() == before, "search must not touch the real state"
        else:
            a = rnd.act(obs)
        assert mask[a], f"illegal action {a} ({st.action_to_str(a)})"
        st.apply(a)
        moves += 1


def test_mcts_needs_state_and_validates():
    game = TicTacToe()
    agent = MCTSAgent(game, simulations=5)
    st = game.new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="engine state"):
        agent.act({"action_mask": st.legal_actions_mask()})
    with pytest.raises(ValueError):
        MCTSAgent(game, simulations=0)
