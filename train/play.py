"""How a game is played: the one loop behind the evaluator, imitation data, ``arena bench``,
``arena play`` / ``arena serve`` (app/match.py) and the tests.

    from tabletop_arena.train.play import play
    result = play(game, [agent_0, agent_1], seed=7)        # agents indexed by player
    result.returns, result.winners, result.history

``play`` drives the engine state directly: the agent of the seat to act (``game.seat_owner``) gets
that seat's observation and mask and, if it reads the state (``needs_state``), a determinized
clone, so it never sees what its seat may not see (``agent_action``). The result comes from the
engine (``game_result``): ``state.returns()`` per player (``Game.agent_returns``: the mean over
the seats a player runs) and ``state.final_info()``, never from PettingZoo's per-step rewards,
which are cleared after they are handed out. ``play_env`` is the same loop through the PettingZoo
AEC API (``agent_iter`` / ``last`` / ``step``) for any AEC env, PettingZoo's own included.

A person against agents (``arena play``, ``arena serve``) is app/match.py, over this loop.
"""
from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np

from ..agents.base import Agent
from ..envs.core.errors import ArenaError
from ..envs.core.game import Game, IllegalActionError, State, checked_choice, default_max_steps
from .stops import check as check_stop

#: ``max_steps=GAME_LENGTH`` (the default): the game's own ``max_game_length()`` (1000 where it has none)
GAME_LENGTH: Literal['game'] = 'game'


class MatchError(ArenaError):
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
    history: list[int] = dataclasses.field(default_factory=list)   # every action, in order

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
        details = self.details_text()
        if details:
            out.append("  details: " + details)
        return out

    def details_text(self) -> str:
        """The ``shown_details`` as ``key=value, ...`` ("" when there are none)."""
        return ", ".join(f"{k}={_compact(v)}" for k, v in shown_details(self.details, len(self.returns)).items())

    def text(self, labels: list[str]) -> str:
        return "\n".join(self.lines(labels))

    def to_dict(self, labels: list[str]) -> dict[str, Any]:
        return {"headline": self.headline(labels), "lines": self.lines(labels), "returns": self.returns,
                "scores": self.scores, "winners": self.winners, "truncated": self.truncated,
                "steps": self.steps, "details": json.loads(json.dumps(self.details, default=str))}


def shown_details(details: dict[str, Any], players: int) -> dict[str, Any]:
    """The ``final_info`` details worth a line at the end of a game: not the empty ones, not
    ``ended_by: rules`` (the usual ending; a cap or a designed ending is shown), and, with several
    players, not a flag that did not happen (a puzzle's ``solved=false`` in a competitive game).
    ``Result.details`` and ``to_dict`` keep them all."""
    out = {}
    for key, value in details.items():
        if value is None or value == {} or value == [] or value == "":
            continue
        if key == "ended_by" and value == "rules":
            continue
        if value is False and players > 1:
            continue
        out[key] = value
    return out


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _compact(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def game_result(state: State) -> Result:
    """The result of a finished (or capped) game, per player, from the engine: returns and the
    ``final_info()`` scores (per seat) as per-player means; no result for a capped game."""
    game = state.game
    truncated = not state.is_terminal()
    returns = game.agent_returns(state.returns()).tolist()
    details = {} if truncated else dict(state.final_info())
    scores = details.pop("scores", None)
    if scores is not None and len(scores) == game.num_seats:
        scores = game.agent_returns(scores).tolist()
    elif scores is not None:   # not one per seat: left among the details as the engine gave it
        details["scores"] = scores
        scores = None
    top = max(returns)
    winners = [] if truncated else [i for i, r in enumerate(returns) if r == top]
    return Result(returns, scores, winners, truncated, len(state.history), details, list(state.history))


# ------------------------------------------------------------------------------ the loop --
class AgentError(IllegalActionError):
    """An agent chose an action its mask does not allow (a bug in the agent)."""


def observe(state: State) -> dict[str, np.ndarray]:
    """What the seat to act sees: ``{"observation": ..., "action_mask": ...}``."""
    mask = state.legal_actions_mask()
    return {"observation": state.observation(state.current_player), "action_mask": mask}


def agent_action(state: State, agent: Agent, obs: dict[str, np.ndarray], det_rng: np.random.Generator,
                 label: str | None = None) -> int:
    """The action ``agent`` chooses for the seat to act, from ``obs = observe(state)``, checked
    against the mask. An agent that reads the engine state (``needs_state``) gets
    ``state.determinize(seat, det_rng)`` (hidden cards resampled, future chance re-seeded), never
    the real state. An action outside the mask raises AgentError naming the agent (``label``)."""
    view = state.determinize(state.current_player, det_rng) if agent.needs_state else None
    return checked_choice(agent.act(obs, state=view), obs["action_mask"], state.phase_name(),
                          f"agent {label or agent.name!r} chose it", error=AgentError)


#: ``on_move(state, seat, obs, action)``: sees each move (and what the mover saw) before it is applied
OnMove = Callable[[State, int, dict, int], None]


def play_from(state: State, agents: Sequence[Agent], *, max_steps: int | None | Literal['game'] = GAME_LENGTH,
              det_rng: np.random.Generator | None = None, labels: Sequence[str] | None = None,
              on_move: OnMove | None = None, cpu: Sequence[list[float]] | None = None) -> Result:
    """Play ``state`` on to its end (or until its history holds ``max_steps`` actions; None: no
    cap; ``"game"``, the default: the game's ``max_game_length()``, so no game is cut short) with ``agents[i]`` moving for player i. ``det_rng``: the generator of the determinized views
    (default: one seeded from ``state.seed ^ 0x5EED``); ``labels[i]`` names agent i in errors.
    ``cpu``: one list per agent; each decision of agent i appends the CPU seconds it took (process
    time, so a network's torch threads count too; the agent's ``act`` with its determinized view).
    Returns the engine's result (``game_result``)."""
    game = state.game
    if len(agents) != game.num_agents:
        raise ValueError(f"{game.name}: {game.num_agents} players, got {len(agents)} agents")
    if det_rng is None:
        det_rng = np.random.default_rng(None if state.seed is None else state.seed ^ 0x5EED)
    owner = [game.seat_owner(s) for s in range(game.num_seats)]
    cap = float("inf") if max_steps is None else default_max_steps(game) if max_steps == GAME_LENGTH \
        else max_steps
    while not state.is_terminal() and len(state.history) < cap:
        check_stop()   # a stop whose exception was lost (train/stops.py) ends the game here
        seat = state.current_player
        i = owner[seat]
        obs = observe(state)
        start = time.process_time() if cpu is not None else 0.0
        action = agent_action(state, agents[i], obs, det_rng, labels[i] if labels else None)
        if cpu is not None:
            cpu[i].append(time.process_time() - start)
        if on_move is not None:
            on_move(state, seat, obs, action)
        state.apply_legal(action)   # agent_action checked it against this position's mask
    return game_result(state)


def play(game: Game, agents: Sequence[Agent], seed: int | None = None, *, opening: Sequence[int] = (),
         max_steps: int | None | Literal['game'] = GAME_LENGTH, det_rng: np.random.Generator | None = None,
         labels: Sequence[str] | None = None, on_move: OnMove | None = None,
         cpu: Sequence[list[float]] | None = None) -> Result:
    """One game of ``game`` from ``seed``: the ``opening`` actions first (checked), then
    ``agents[i]`` moves for player i (see ``play_from``)."""
    state = game.new_initial_state(seed)
    for a in opening:
        state.apply(a)
    return play_from(state, agents, max_steps=max_steps, det_rng=det_rng, labels=labels,
                     on_move=on_move, cpu=cpu)


def play_env(env, agents: Mapping[str, Agent], seed: int | None = None) -> int:
    """One game through the PettingZoo AEC API (``agent_iter`` / ``last`` / ``step``), each agent
    name's agent acting on its observation dict (no engine state: any AEC env works, PettingZoo's
    own included). Returns the steps taken (dead steps not counted)."""
    env.reset(seed=seed)
    steps = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[name].act(obs))  # the env checks it is an integer (no int() coercion)
        steps += 1
    return steps
