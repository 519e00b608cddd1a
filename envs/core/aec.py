"""The shared PettingZoo AEC adapter over any ``envs.core.game.Game``.

What it adds to the engine:
- seats <-> agent names (``player_0`` ..), several seats may belong to one agent;
- reward accumulation, terminations/truncations, dead steps (PettingZoo conventions);
- sub-step turns: the engine simply keeps the same seat to act, the adapter keeps that agent selected;
- a move cap (``max_steps``, default the game's ``max_game_length()``, 1000 where that is None)
  that truncates every agent, reported in ``infos[agent]["truncated_by_cap"]``;
- how the game ended, in every agent's ``info`` at the end: ``ended_by`` (``game.ENDED_BY``: the
  engine's ``final_info()`` value when the game is over, ``"cap"`` at ``max_steps``, ``"illegal"``
  after an illegal move);
- observation dict ``{"observation": float32[K], "action_mask": int8[N]}``; the mask is all zeros
  for an agent that is not to move;
- ``action_masks()`` for sb3-contrib; seeding through ``reset(seed=...)``;
- illegal actions (an in-range action the mask forbids): ``illegal_action="lose"`` (default) follows
  PettingZoo classic: the game ends, the offender gets -1 and the others 0, an ``IllegalMoveWarning``
  names the action and why, and every agent's ``info`` carries ``illegal_move=True``,
  ``illegal_action``, ``illegal_agent`` and ``illegal_reason``; ``illegal_action="raise"`` (the opt-in
  for debugging) raises ``IllegalActionError`` and changes nothing. Out-of-range actions always raise.
- render modes: ``ansi`` returns the text, ``rgb_array`` a picture, ``human`` prints the text (after
  every step and on ``render()``) and returns None (Gymnasium / PettingZoo convention). Each env class
  and each instance owns its ``metadata`` (so a wrapper that edits ``render_modes`` edits one env).
"""
from __future__ import annotations

import copy
import warnings
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from .game import (
    ConfigError,
    Game,
    IllegalActionError,
    IllegalMoveWarning,
    State,
    action_index,
    default_max_steps,
    seed_of,
)
from .terminal import supports_color

RENDER_MODES = ("ansi", "rgb_array", "human")
ILLEGAL_ACTION_MODES = ("lose", "raise")


class TabletopAEC(AECEnv):
    """AEC environment for one tabletop game. Subclasses set ``metadata`` and build ``game``."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "tabletop", "is_parallelizable": False,
                "render_fps": 2}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # ``dict(TabletopAEC.metadata, name=...)`` in a subclass copies the dict but shares its
        # render_modes list: give every class its own copy of everything inside.
        cls.metadata = copy.deepcopy(cls.metadata)

    def __init__(self, game: Game, render_mode: str | None = None, illegal_action: str = "lose",
                 max_steps: int | None = None, ansi_color: bool | None = None):
        super().__init__()
        self.metadata = copy.deepcopy(type(self).metadata)  # wrappers may edit an instance's own
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        if ansi_color is not None and not isinstance(ansi_color, bool):
            raise ConfigError(f"ansi_color must be None (auto), True or False, got {ansi_color!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        if max_steps is None:   # the game's own length: the cap never cuts a game short
            max_steps = default_max_steps(game)
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
            raise ConfigError(f"max_steps must be a positive int, got {max_steps!r}")
        self.game = game
        self.render_mode = render_mode
        #: colour codes in text renders: None = plain in ``ansi`` mode, in ``human`` mode only on a
        #: terminal without NO_COLOR (envs.core.terminal); True / False force them on / off
        self.ansi_color = ansi_color
        self.illegal_action = illegal_action
        self.max_steps = max_steps
        self.possible_agents = [f"player_{i}" for i in range(game.num_agents)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        #: seat -> its agent's name, and each agent's first seat (the observer when not acting)
        self._seat_agent = [self.possible_agents[game.seat_owner(s)] for s in range(game.num_seats)]
        self._first_seat: dict[str, int] = {}
        for s in range(game.num_seats):
            self._first_seat.setdefault(self._seat_agent[s], s)
        n, k = game.num_actions, game.observation_size
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-1.0, 1.0, (k,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n) for a in self.possible_agents}
        self._zero_mask = np.zeros(n, np.int8)
        #: the engine state; None until reset() (PettingZoo: reset before anything else)
        self.state_: State = None  # type: ignore[assignment]
        self.seed_used: int | None = None

    # -- PettingZoo API -----------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        self.seed_used = seed_of(seed)
        self.state_ = self.game.new_initial_state(self.seed_used)
        #: draws the hidden information of view_state()'s samples (seeded: same seed, same game)
        self._view_rng = np.random.default_rng(self.seed_used ^ 0x5EED)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._rewards_given = False  # rewards only come at the end (or an illegal-move loss)
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.num_steps = 0
        self._cache_key = -1
        self._sync_selection()
        if self.state_.is_terminal():
            # A set-up can already decide the game (a puzzle deal nobody can place). No action was
            # taken, so no reward is handed out (PettingZoo's API test requires none at reset);
            # every agent is terminated at once and infos carry the final result.
            self.agent_selection = self.possible_agents[0]
            for x in self.agents:
                self.terminations[x] = True
                self.infos[x] = dict(self._final_info(), decided_at_reset=True)

    def _sync_selection(self):
        seat = self.state_.current_player
        if seat >= 0:
            self.agent_selection = self._seat_agent[seat]
        # at the end agent_selection cycles through agents for their dead steps

    def _current_mask(self) -> np.ndarray:
        key = len(self.state_.history)
        if key != self._cache_key:
            self._cached_mask = self.state_.legal_actions_mask()
            self._cache_key = key
        return self._cached_mask

    def _require_reset(self, what: str) -> None:
        if self.state_ is None:
            raise RuntimeError(f"call reset() before {what}")

    def observe(self, agent):
        st = self.state_
        if st is None:
            self._require_reset("observe()")
        if agent not in self._agent_index:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        obs = st._observation(self._seat_for_observation(agent))  # a seat of this game: no check
        # an agent already removed by its dead step is done (get, not []): observe() answers for
        # every agent after every ending, as PettingZoo's own envs do (SuperSuit's wrappers ask)
        if (agent == self.agent_selection and not st.is_terminal()
                and not self.terminations.get(agent, True) and not self.truncations.get(agent, True)):
            mask = self._current_mask()
        else:
            mask = self._zero_mask
        # the caller's own copy (as PettingZoo classic hands out): the engine's mask is its cache
        return {"observation": obs, "action_mask": mask.copy()}

    def _seat_for_observation(self, agent) -> int:
        """The seat whose view ``agent`` gets: the acting seat if the agent owns it, else its first."""
        cur = self.state_.current_player
        if cur >= 0 and self._seat_agent[cur] == agent:
            return cur
        return self._first_seat[agent]

    def action_masks(self) -> np.ndarray:
        """Bool mask of the agent to move (the name sb3-contrib looks up)."""
        self._require_reset("action_masks()")
        if self.state_.is_terminal():
            return self._zero_mask.astype(bool)
        return self._current_mask().astype(bool)

    def step(self, action):
        st = self.state_
        if st is None:
            self._require_reset("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # an integer, or ActionTypeError: nothing changes
        a = action if type(action) is int else action_index(action, st.phase_name())
        if not 0 <= a < self.game.num_actions:
            raise IllegalActionError(a, st.phase_name(),
                                     f"out of range: actions are 0..{self.game.num_actions - 1}")
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_given:  # the last step handed out rewards: back to zeros
            self.rewards = {x: 0.0 for x in self.agents}
            self._rewards_given = False
        if not self._current_mask()[a]:
            if self.illegal_action == "raise":
                st.apply(a)  # raises IllegalActionError with the engine's reason, changes nothing
            self._end_by_illegal(agent, a)
            return
        st.apply_legal(a)   # the mask above is this position's: no second check
        self.num_steps += 1
        if st.is_terminal():
            self._settle_terminal()
        elif self.num_steps >= self.max_steps:
            for x in self.agents:
                self.truncations[x] = True
                self.infos[x] = dict(self._final_info(), truncated_by_cap=True, ended_by="cap")
        self._sync_selection()
        if self._rewards_given:  # only the end hands out rewards (nothing to add otherwise)
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _settle_terminal(self):
        """Hand out the final returns (an agent running several seats gets their mean) and end
        every agent."""
        per_agent = self.game.agent_returns(self.state_.returns())
        for i, x in enumerate(self.possible_agents):
            self.rewards[x] = float(per_agent[i])
            self._rewards_given = True
            self.terminations[x] = True
            self.infos[x] = self._final_info()

    def _final_info(self) -> dict:
        return {"steps": self.num_steps, **self.state_.final_info()}

    def illegal_reason(self, action: int) -> str:
        """Why the engine refuses ``action`` here (probed on a clone: the state is not touched)."""
        try:
            self.state_.clone().apply(int(action))
        except IllegalActionError as exc:
            return exc.reason
        return "not in the action mask"  # mask and apply disagree: the conformance suite forbids it

    def _end_by_illegal(self, agent, action):
        """PettingZoo classic: the game ends, the offender gets -1, the others 0; warn and say so."""
        reason = self.illegal_reason(action)
        try:
            label = f"{action} ({self.state_.action_to_str(action)})"
        except Exception:  # noqa: BLE001 - a label for the message only
            label = str(action)
        warnings.warn(f"{agent} played illegal action {label} "
                      f"in phase {self.state_.phase_name()!r}: {reason}; the game ends and {agent} "
                      f"gets -1 (pass illegal_action='raise' to get an exception instead)",
                      IllegalMoveWarning, stacklevel=4)  # the caller of env.step()
        for x in self.agents:
            self.terminations[x] = True
            self.rewards[x] = -1.0 if x == agent else 0.0
            self._rewards_given = True
            self.infos[x] = {"illegal_move": True, "illegal_action": action, "illegal_agent": agent,
                             "illegal_reason": reason, "steps": self.num_steps, "ended_by": "illegal"}
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.state_ is None:
            return "(call reset() first)"
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        text = self.state_.render_text(observer=None, color=self._text_color())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text_color(self) -> bool:
        """Whether the text render carries ANSI colours (the convention of envs.core.terminal)."""
        if self.ansi_color is not None:
            return self.ansi_color
        if self.render_mode == "human":
            return supports_color()
        return False

    def render_rgb(self) -> np.ndarray:
        """The rgb_array picture: the game's drawing of the whole position (``State.render_rgb``)."""
        return self.state_.render_rgb(observer=None)

    def close(self):
        pass

    # -- convenience --------------------------------------------------------------------------
    @property
    def engine_state(self) -> State:
        """The real engine state, hidden information included (clone it before experimenting).
        Never hand it to an agent: ``view_state()`` is what the agent to act may see."""
        return self.state_

    def view_state(self, rng: Any = None) -> State:
        """The engine state as the agent to act may see it, for agents that read the state
        (``agent.needs_state``: the rule-based ``heuristic``, ``mcts``, ``vlook``):
        ``state.determinize(seat, rng)``, a clone in which what that seat cannot see (other hands,
        face-down cards, future draws) is resampled. ``rng``: a Generator, an int seed, or None for
        the env's own generator (seeded by ``reset(seed)``: same seed, same samples)::

            obs, reward, terminated, truncated, info = env.last()
            state = env.unwrapped.view_state() if agent.needs_state else None
            env.step(agent.act(obs, state=state))
        """
        self._require_reset("view_state()")
        seat = self.state_.current_player
        if seat < 0:
            raise RuntimeError("the game is over: no agent is to act (view_state() is the mover's view)")
        return self.state_.determinize(seat, self._view_rng if rng is None else rng)

    def action_to_str(self, action: int) -> str:
        return self.state_.action_to_str(action_index(action))
