"""The single-agent view of any game: a ``gymnasium.Env`` where the other players are opponents.

    from tabletop_arena import envs
    env = envs.make_single_agent("peacekeepers", opponent="heuristic", seat=None)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))

or through Gymnasium (options as kwargs): the ids exist once ``tabletop_arena`` is imported, before
or after ``gymnasium`` (tabletop_arena/_gymnasium.py), and ``"tabletop_arena:<id>"`` imports it
for you (Gymnasium's ``module:id`` form, for tools that take an id string)::

    import gymnasium
    env = gymnasium.make("tabletop_arena:tabletop_arena/Zaka-v0", opponent="random", num_players=3)

The learner plays one player (``seat``: its player index ``0..num_agents-1``, i.e. ``player_<seat>``
of the AEC env; ``None`` draws a seat each episode). The opponents are stepped **inside**
``step()`` until it is the learner's turn again or the game is over, so every transition and every
reward is the learner's own. Sub-steps (the same player acting several times in a row), 3-10
players and players owning several seats (Zaka's two armies) all follow the AEC env.

| piece          | what                                                                            |
|----------------|---------------------------------------------------------------------------------|
| observation    | ``Box(-1, 1, (K,), float32)``: the learner's flat observation (its own view)     |
| action         | ``Discrete(N)``: the game's flat action layout                                  |
| action mask    | ``info["action_mask"]`` (int8[N], usable as ``action_space.sample(mask)``) and  |
|                | ``env.action_masks()`` (bool[N], the method sb3-contrib's MaskablePPO calls);   |
|                | all zeros once the episode is over                                              |
| reward         | the learner's AEC rewards since its previous action: the game's terminal result |
|                | (+1 / -1 / 0, rank based for 3+ players); an illegal action ends the game with  |
|                | -1 (PettingZoo classic, ``illegal_action="lose"``) and ``info["illegal_move"]``  |
| end of episode | ``terminated`` at the game's end, ``truncated`` at the move cap (``max_steps``); |
|                | ``info`` then holds ``outcome`` (win / draw / loss), ``opponent``, ``seat`` and  |
|                | the AEC env's final info for the learner (``steps``, scores, ``truncated_by_cap``) |

Opponents (``opponent=``), drawn once per episode for all the other players:

- an agent spec string, built by ``tabletop_arena.agents.make_agent``: ``"random"``,
  ``"heuristic"``, ``"mcts:200"``, ``"ppo:NAME"`` (a shipped agent) or ``"ppo:PATH"`` (a checkpoint);
- any callable policy ``policy(observation, mask) -> action`` (the opponent's own flat observation
  and its int8 mask);
- an agent object with ``act(obs_dict, state=None)`` (the ``tabletop_arena.agents.Agent`` protocol);
- a list of the above: one is drawn uniformly per episode (``info["opponent"]`` names it).

Layering: ``envs/`` never imports ``agents/`` at module level. Spec strings are the one exception,
and it is lazy: ``_agent_from_spec`` imports ``tabletop_arena.agents`` inside the call, only when a
spec string is given, so ``import tabletop_arena.envs`` stays free of agents (and of torch).

For subclasses (e.g. a self-play trainer with a pool of frozen snapshots): override
``sample_opponents(slots)`` to choose each episode's opponents, ``sample_seat()`` to choose the seat,
and ``shaping_reward()`` to add a dense reward term (the base adds none).

Gymnasium's wrappers (``gymnasium.make`` adds ``PassiveEnvChecker`` and ``OrderEnforcing``) no
longer forward unknown attributes in Gymnasium 1.x. The registered ids therefore add one outer
``ActionMasks`` wrapper, so ``gymnasium.make(id).action_masks()`` works; under any further wrappers
use ``env.get_wrapper_attr("action_masks")()`` (what SB3's vec envs call) or
``env.unwrapped.action_masks()``. Vectorised: ``gymnasium.make_vec(id, num_envs=8,
vectorization_mode="sync" | "async")`` gives ``info["action_mask"]`` stacked as ``(num_envs, N)``;
``envs.call("action_masks")`` gives one mask per sub-env.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium
import numpy as np

from . import make_raw, resolve  # the registry: envs/__init__ has run when this module loads
from .core.game import ConfigError
from .core.opponents import collect_rewards, play_opponents

#: Gymnasium ids: ``tabletop_arena/<Game>-v<version>`` for each registered ``<game>_v<version>``
GYMNASIUM_NAMESPACE = "tabletop_arena"
_RESETS_BEFORE_GIVING_UP = 100


def gymnasium_id(name: str) -> str:
    """``peacekeepers_v0`` -> ``tabletop_arena/Peacekeepers-v0``."""
    base, _, version = name.rpartition("_v")
    return f"{GYMNASIUM_NAMESPACE}/{base.capitalize()}-v{version}"


class _PolicyAgent:
    """Adapts a callable ``policy(observation, mask) -> action`` to the agent protocol."""

    needs_state = False

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], Any]):
        self.policy = policy
        self.name = getattr(policy, "__name__", None) or type(policy).__name__

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.policy, "reset", None)
        if callable(reset):
            reset(seed)

    def act(self, obs: dict, state: Any = None) -> int:
        return self.policy(obs["observation"], obs["action_mask"])


def _agent_from_spec(spec: str, game, seed: int):
    """Build an agent from a spec string. The one place envs/ reaches into agents/: imported here,
    lazily, so that importing envs never loads agents (nor torch, which ``ppo:`` agents need)."""
    from ..agents.registry import make_agent

    return make_agent(spec, game, seed=seed)


def _label(opponent) -> str:
    if isinstance(opponent, str):
        return opponent.strip()
    return str(getattr(opponent, "spec", None) or getattr(opponent, "name", None)
               or getattr(opponent, "__name__", None) or type(opponent).__name__)


class LearnerSeatEnv(gymnasium.Env):
    """What the single-agent views of an AEC game share (``SingleAgentEnv`` here, self-play's
    ``train.selfplay.SelfPlayEnv``): the learner's seat ``self.learner`` among ``self._names`` of
    ``self.aec``, the per-player reward totals and the outcome. A subclass sets ``aec``,
    ``_names``, ``learner`` and ``_totals``, names this episode's opponents in ``_opponent_name``
    and plays them with ``envs.core.opponents`` (``play_opponents`` / ``opponent_turns``: the
    opponents' moves checked before they are played, their rewards collected)."""

    aec: Any
    _names: list
    learner: int
    _totals: np.ndarray

    def _opponent_name(self) -> str:
        return str(getattr(self, "opponent_label", ""))

    def _observe(self) -> np.ndarray:
        return self.aec.observe(self._names[self.learner])["observation"]

    def _collect(self) -> None:
        collect_rewards(self.aec, self._totals)

    def outcome(self) -> str:
        """win / draw / loss of the learner from the players' totals (win = strictly highest)."""
        mine = self._totals[self.learner]
        others = np.delete(self._totals, self.learner)
        best = others.max() if len(others) else 0.0  # one player: the sign of the return
        return "win" if mine > best else "draw" if mine == best else "loss"


class SingleAgentEnv(LearnerSeatEnv):
    """One player of a registered game against opponents stepped inside ``step()``.

    Args:
        game: a registered env name (``peacekeepers_v0`` or just ``peacekeepers``).
        opponent: agent spec string, callable policy, agent object, or a list of these (one drawn
            per episode). Default ``"random"``.
        seat: the learner's player index, or None for a uniformly random seat each episode.
        render_mode: None, ``"ansi"`` (returns the text), ``"rgb_array"`` or ``"human"`` (prints the
            position after reset and after each of the learner's steps; ``render()`` returns None).
        max_steps: the AEC move cap (all players' actions); the episode is truncated there (None:
            the game's ``max_game_length()``, 1000 where it has none).
        registered_as: the game a Gymnasium id stands for (``register_gymnasium`` sets it): a
            ``game`` naming another one (``gymnasium.make("tabletop_arena/Zaka-v0",
            game="warbah_v0")``) is refused rather than silently building that other game.
        **options: the game's options (``envs.make(game, **options)``), ``illegal_action`` included.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, game: str, opponent: Any = "random", seat: int | None = None,
                 render_mode: str | None = None, max_steps: int | None = None, *,
                 registered_as: str | None = None, **options):
        super().__init__()
        if registered_as is not None and game not in (registered_as, registered_as.rpartition("_v")[0]):
            try:
                other = f": make {gymnasium_id(resolve(game))!r} instead" if isinstance(game, str) else ""
            except KeyError:
                other = ""
            raise ConfigError(f"{gymnasium_id(registered_as)} is {registered_as}; game={game!r} "
                              f"cannot change it{other}")

        self.metadata = {k: (list(v) if isinstance(v, list) else v) for k, v in self.metadata.items()}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                              f"got {render_mode!r}")
        self.game_id = resolve(game)
        self.options = dict(options)
        self.aec = make_raw(self.game_id, max_steps=max_steps, **self.options)
        self.game = self.aec.game
        self.render_mode = render_mode
        self._names = list(self.aec.possible_agents)
        self.num_players = len(self._names)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < self.num_players):
            raise ConfigError(f"seat must be None or a player index 0..{self.num_players - 1}, "
                              f"got {seat!r}")
        self.seat = None if seat is None else int(seat)
        n, k = self.game.num_actions, self.game.observation_size
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, (k,), np.float32)
        self.action_space: gymnasium.spaces.Discrete = gymnasium.spaces.Discrete(n)
        self.opponent_choices = self._opponent_choices(opponent)
        self._built: dict[tuple[int, int], Any] = {}  # (choice index, player index) -> agent
        for slot in range(min(1, self.num_players - 1)):  # build one of each now: bad specs fail here
            for i in range(len(self.opponent_choices)):
                self._opponent_agent(i, slot)
        self.learner = 0
        self.opponents: dict[int, Any] = {}
        self.opponent_label = ""
        self._totals = np.zeros(self.num_players)
        self._done = True
        self._steps = 0

    # -- opponents and seats (override in subclasses) ---------------------------------------------
    @staticmethod
    def _opponent_choices(opponent) -> list:
        choices = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        if not choices:
            raise ConfigError("opponent: an empty list; give a spec, a policy or a list of them")
        for o in choices:
            if isinstance(o, str):
                if not o.strip():
                    raise ConfigError("opponent: an empty spec string")
            elif not (callable(getattr(o, "act", None)) or callable(o)):
                raise ConfigError(f"opponent must be an agent spec string, a callable "
                                  f"policy(observation, mask) -> action, an agent with act(), or a "
                                  f"list of these; got {o!r}")
        return choices

    def _opponent_agent(self, choice: int, slot: int):
        """The agent for opponent choice ``choice`` playing player ``slot`` (built once, reused)."""
        key = (choice, slot)
        agent = self._built.get(key)
        if agent is None:
            o = self.opponent_choices[choice]
            if isinstance(o, str):
                agent = _agent_from_spec(o, self.game, seed=choice * 1000 + slot)
            elif callable(getattr(o, "act", None)):
                agent = o
            else:
                agent = _PolicyAgent(o)
            self._built[key] = agent
        return agent

    def sample_opponents(self, slots: list[int]) -> tuple[str, dict[int, Any]]:
        """This episode's opponents: ``(label, {player index: agent})`` for the players ``slots``.

        The base draws one of ``opponent_choices`` uniformly (for all the opponents at once) and
        re-seeds each agent from the env's generator. Override for a weighted pool or snapshots.
        """
        choice = int(self.np_random.integers(len(self.opponent_choices)))
        out = {}
        for slot in slots:
            agent = self._opponent_agent(choice, slot)
            agent.reset(int(self.np_random.integers(2**63)))
            out[slot] = agent
        return _label(self.opponent_choices[choice]), out

    def sample_seat(self) -> int:
        """The learner's player index this episode (``seat``, or a uniform draw when None)."""
        if self.seat is not None:
            return self.seat
        return int(self.np_random.integers(self.num_players))

    def shaping_reward(self) -> float:
        """A dense reward term added to each learner transition; the base adds none (subclasses
        may, e.g. potential-based score shaping)."""
        return 0.0

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        seat = options.pop("seat", None)
        if options:
            raise ConfigError(f"reset options: only 'seat' is known, got {sorted(options)}")
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.num_players):
            raise ConfigError(f"reset option seat must be 0..{self.num_players - 1}, got {seat!r}")
        for _ in range(_RESETS_BEFORE_GIVING_UP):
            self.aec.reset(seed=int(self.np_random.integers(2**63)))
            self.learner = int(seat) if seat is not None else self.sample_seat()
            slots = [i for i in range(self.num_players) if i != self.learner]
            self.opponent_label, self.opponents = self.sample_opponents(slots)
            self._totals[:] = 0.0
            self._steps = 0
            self._done = False
            self._advance()
            if not self._done:  # a game over before the learner's first move teaches nothing
                if self.render_mode == "human":
                    self.render()
                return self._observe(), self._info()
        raise RuntimeError(f"{self.game_id}: {_RESETS_BEFORE_GIVING_UP} games in a row ended before "
                           f"player {self.learner} could move")

    def step(self, action):
        if self._done:
            raise RuntimeError("step() after the episode ended; call reset()")
        before = self._totals[self.learner]
        self.aec.step(action)
        self._steps += 1
        self._collect()
        self._advance()
        reward = float(self._totals[self.learner] - before) + float(self.shaping_reward())
        terminated = truncated = False
        if self._done:
            name = self._names[self.learner]
            truncated = bool(self.aec.truncations[name]) and not bool(self.aec.terminations[name])
            terminated = not truncated
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over)."""
        if self._done:
            return np.zeros(self.action_space.n, bool)
        return self.aec.action_masks()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.aec.state_ is None:
            raise RuntimeError("render() before reset()")
        if self.render_mode == "rgb_array":
            return self.aec.render_rgb()
        text = self.aec.state_.render_text(observer=None, color=self.render_mode == "human")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        self.aec.close()

    # -- internals ------------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        me = self._names[self.learner]
        mask = np.zeros(self.action_space.n, np.int8) if self._done else \
            self.aec.observe(me)["action_mask"].copy()
        info: dict[str, Any] = {"action_mask": mask, "seat": self.learner,
                                "opponent": self.opponent_label}
        if self._done:
            info.update(self.aec.infos.get(me, {}))
            info["outcome"] = self.outcome()
            info["learner_steps"] = self._steps
            info.setdefault("truncated_by_cap", False)
        return info

    def _advance(self) -> None:
        """Step the opponents until the learner is to move or the game is over
        (``envs.core.opponents.play_opponents``)."""
        self._done = play_opponents(self.aec, (self.learner,), self.opponents, self.np_random,
                                    self._opponent_name(), self._totals)


def make_single_agent(name: str, opponent: Any = "random", seat: int | None = None,
                      **options) -> SingleAgentEnv:
    """The single-agent ``gymnasium.Env`` of game ``name`` (see the module docstring)."""
    return SingleAgentEnv(name, opponent=opponent, seat=seat, **options)


class ActionMasks(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Outermost wrapper of the registered ids: makes ``gymnasium.make(id).action_masks()`` work
    (Gymnasium 1.x wrappers forward no attributes; this one asks the chain below for it)."""

    def __init__(self, env: gymnasium.Env):
        gymnasium.utils.RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()


def register_gymnasium(names: Sequence[str]) -> None:
    """Register ``tabletop_arena/<Game>-v<k>`` with Gymnasium for each env name (idempotent)."""
    from gymnasium.envs.registration import WrapperSpec

    masks = WrapperSpec("ActionMasks", f"{__name__}:ActionMasks", kwargs={})
    for name in names:
        env_id = gymnasium_id(name)
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(id=env_id, entry_point=f"{__name__}:SingleAgentEnv",
                           kwargs={"game": name, "registered_as": name},
                           additional_wrappers=(masks,))


# Importing this module registers every game with Gymnasium (envs/__init__ is loaded first);
# importing tabletop_arena imports it once Gymnasium is loaded (tabletop_arena/_gymnasium.py).
from . import names as _registered_names  # noqa: E402

register_gymnasium(_registered_names())
