"""A person against agents: the game loop behind ``arena play`` (terminal) and ``arena serve`` (web).

    from tabletop_arena.train.play import Match
    match = Match("zaka_v0", {"num_players": 2}, human=0, opponents=["heuristic"], seed=3)
    while not match.over:
        action, text = match.legal_moves()[0]     # the person's choice
        match.play(action)                        # then the agents move until it is the person's turn
    print(match.result().text(match.labels))

The match drives the engine state directly (as the evaluator does): agents get the observation,
the mask and, if they search (``needs_state``), a determinized clone, so they never see what their
seat may not see. The result comes from the engine: ``state.returns()`` aggregated per player (the
mean over the seats a player runs) and ``state.final_info()``, never from PettingZoo's per-step
rewards, which are cleared after they are handed out.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable

import numpy as np

from .. import envs
from ..envs.core.game import new_rng

DEFAULT_MAX_STEPS = 1000


class MatchError(ValueError):
    """A match that cannot be set up as asked (seat out of range, no opponent given)."""


@dataclasses.dataclass
class Move:
    """One move of the game log."""

    number: int        # 1-based position in the game
    player: int        # agent index (player_<i>)
    seat: int
    who: str           # label, e.g. "player_1 (heuristic)" or "player_0 (you)"
    action: int
    text: str          # state.action_to_str(action), taken before the move

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Result:
    """How a game ended, per player (agent index)."""

    returns: list[float]
    scores: list[float] | None
    winners: list[int]          # the players with the strictly highest return; several = shared first
    truncated: bool             # stopped at the move cap: no result
    steps: int
    details: dict[str, Any]     # the engine's final_info() (scores left out: they are above)

    @property
    def shared(self) -> bool:
        return len(self.winners) > 1

    def headline(self, labels: list[str]) -> str:
        n = len(self.returns)
        if self.truncated:
            return f"Stopped at the move cap ({self.steps} moves): no result, every return is 0."
        if n == 1:
            return f"Game over: {labels[0]} ends with return {self.returns[0]:+.2f}" + (
                f", score {_num(self.scores[0])}." if self.scores else ".")
        if len(self.winners) == n:
            return f"No single winner: every player ends with return {self.returns[0]:+.2f}" + (
                f" (score {_num(self.scores[0])})." if self.scores and len(set(self.scores)) == 1 else ".")
        if len(self.winners) == 1:
            return f"Winner: {labels[self.winners[0]]}."
        return "Shared first place: " + ", ".join(labels[i] for i in self.winners) + "."

    def lines(self, labels: list[str]) -> list[str]:
        out = [self.headline(labels)]
        for i, label in enumerate(labels):
            row = f"  {label}: return {self.returns[i]:+.2f}"
            if self.scores is not None:
                row += f", score {_num(self.scores[i])}"
            out.append(row)
        if self.details:
            out.append("  details: " + ", ".join(f"{k}={_compact(v)}" for k, v in self.details.items()))
        return out

    def text(self, labels: list[str]) -> str:
        return "\n".join(self.lines(labels))

    def to_dict(self, labels: list[str]) -> dict[str, Any]:
        return {"headline": self.headline(labels), "lines": self.lines(labels), "returns": self.returns,
                "scores": self.scores, "winners": self.winners, "truncated": self.truncated,
                "steps": self.steps, "details": json.loads(json.dumps(self.details, default=str))}


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _compact(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def game_result(state, max_steps_hit: bool = False) -> Result:
    """The result of a finished (or capped) game, per player, from the engine."""
    game = state.game
    n_agents = game.num_agents
    owner = np.array([game.seat_owner(s) for s in range(game.num_seats)])
    counts = np.maximum(np.bincount(owner, minlength=n_agents), 1).astype(float)

    def per_player(per_seat) -> list[float]:
        values = np.asarray(per_seat, float)
        if len(values) == n_agents and n_agents != game.num_seats:
            return values.tolist()
        total = np.zeros(n_agents)
        np.add.at(total, owner, values)
        return (total / counts).tolist()

    truncated = not state.is_terminal()
    returns = per_player(state.returns())
    final = getattr(state, "final_info", None)  # an optional engine hook (not every game has it)
    details = dict(final() or {}) if final is not None and not truncated else {}
    scores = details.pop("scores", None)
    if scores is not None and len(scores) in (game.num_seats, n_agents):
        scores = per_player(scores)
    elif scores is not None:
        details["scores"] = scores
        scores = None
    top = max(returns)
    winners = [] if truncated else [i for i, r in enumerate(returns) if r == top]
    return Result(returns, scores, winners, truncated, len(state.history), details)


class Match:
    """One game of a person (player ``human``) against agents in every other player's place.

    ``opponents``: agent specs (``random``, ``heuristic``, ``mcts:N``, ``ppo:NAME``, ``ppo:PATH``)
    given to the other players in order, cycled if fewer. ``agent_factory(spec, game, seed)``
    builds them (``agents.make_agent`` by default; the CLI passes one with one-line errors).
    """

    def __init__(self, game: str, options: dict[str, Any] | None = None, human: int = 0,
                 opponents: list[str] | None = None, seed: int | None = None,
                 max_steps: int = DEFAULT_MAX_STEPS, agent_factory: Callable | None = None,
                 game_obj=None):
        self.game_id = envs.resolve(game)
        self.options = dict(options or {})
        self.game = game_obj if game_obj is not None else envs.make_game(self.game_id, **self.options)
        n = self.game.num_agents
        if not isinstance(human, int) or not 0 <= human < n:
            raise MatchError(f"seat must be 0..{n - 1} for this variant ({n} players), got {human!r}")
        opponents = list(opponents or ["heuristic"])
        if not opponents:
            raise MatchError("at least one opponent agent is needed")
        if agent_factory is None:
            from ..agents.registry import make_agent as agent_factory
        self.human = human
        self.max_steps = max_steps
        rng, self.seed = new_rng(seed)
        self.agents: dict[int, Any] = {}
        self.specs: dict[int, str] = {}
        k = 0
        for i in range(n):
            if i == human:
                continue
            spec = opponents[k % len(opponents)]
            k += 1
            agent = agent_factory(spec, self.game, (self.seed + 1 + i) % 2**63)
            agent.reset((self.seed + 1 + i) % 2**63)
            self.agents[i], self.specs[i] = agent, spec
        self.labels = [f"player_{i} (you)" if i == human else f"player_{i} ({self.specs[i]})"
                       for i in range(n)]
        self.state = self.game.new_initial_state(rng)
        self.state.seed = self.seed
        self._det_rng = np.random.default_rng(self.seed ^ 0x5EED)
        self.log: list[Move] = []
        self.advance()

    # ------------------------------------------------------------------------------- state --
    @property
    def over(self) -> bool:
        return self.state.is_terminal() or len(self.state.history) >= self.max_steps

    @property
    def to_move(self) -> int:
        """The player to move (agent index), -1 once the game is over."""
        if self.over:
            return -1
        return self.game.seat_owner(self.state.current_player)

    @property
    def human_to_move(self) -> bool:
        return self.to_move == self.human

    def observer(self) -> int:
        """The seat whose view the person gets: the acting seat if it is theirs, else their first."""
        seat = self.state.current_player
        if seat >= 0 and self.game.seat_owner(seat) == self.human:
            return seat
        return next(s for s in range(self.game.num_seats) if self.game.seat_owner(s) == self.human)

    def legal_moves(self) -> list[tuple[int, str]]:
        """(action, description) of each legal move of the person ([] when it is not their turn)."""
        if not self.human_to_move:
            return []
        st = self.state
        return [(a, st.action_to_str(a)) for a in st.legal_actions()]

    def result(self) -> Result | None:
        return game_result(self.state) if self.over else None

    # ------------------------------------------------------------------------------- moves --
    def _record(self, action: int) -> Move:
        st = self.state
        seat = st.current_player
        player = self.game.seat_owner(seat)
        move = Move(len(st.history) + 1, player, seat, self.labels[player], int(action), st.action_to_str(action))
        st.apply(action)  # validates: an illegal action raises IllegalActionError, changes nothing
        self.log.append(move)
        return move

    def play(self, action: int) -> list[Move]:
        """The person's move, then the agents' moves up to the person's next turn (or the end)."""
        if self.over:
            raise MatchError("the game is over")
        if not self.human_to_move:
            raise MatchError(f"it is {self.labels[self.to_move]}'s turn, not yours")
        moves = [self._record(int(action))]
        return moves + self.advance()

    def agent_move(self) -> Move:
        """One move of the agent to act."""
        st = self.state
        seat = st.current_player
        agent = self.agents[self.game.seat_owner(seat)]
        mask = st.legal_actions_mask()
        obs = {"observation": st.observation(seat), "action_mask": mask}
        view = st.determinize(seat, self._det_rng) if getattr(agent, "needs_state", False) else None
        return self._record(int(agent.act(obs, state=view)))

    def advance(self, limit: int | None = None) -> list[Move]:
        """Let the agents move until it is the person's turn or the game ends (at most ``limit``)."""
        moves = []
        while not self.over and not self.human_to_move and (limit is None or len(moves) < limit):
            moves.append(self.agent_move())
        return moves
