"""Build agents from short command-line specs, for any registered game.

| spec          | agent                                                                    |
|---------------|--------------------------------------------------------------------------|
| ``random``    | uniformly random legal moves (``agents.base.RandomAgent``)               |
| ``heuristic`` | the game's rule-based baseline: ``agents.<game>.HeuristicAgent``         |
|               | (``agents.peacekeepers`` for ``peacekeepers_v0``)                        |
| ``mcts[:N]``  | UCT / determinized MCTS with N simulations per move (default 200)        |
| ``ppo:NAME``  | a shipped agent by name, e.g. ``ppo:peacekeepers`` (``agents.shipped``)  |
| ``ppo:PATH``  | a MaskablePPO checkpoint written by ``arena train`` (``agents.ppo``)     |
| ``puct:N:REF``| the checkpoint ``REF`` (a shipped name or a path, as for ``ppo``) with N |
|               | simulations of policy-and-value guided search per move (``agents.puct``) |
| ``rollout:N:REF``| the checkpoint ``REF`` improved at play time by N of its own rollouts |
|               | per candidate move, where it is unsure (``agents.rollout``); settings   |
|               | after N: ``rollout:64,k=10,gate=1,by=random:peacekeepers`` (top 10      |
|               | moves, always search, uniformly random rollouts)                         |
| ``vlook:REF`` | the heuristic with a learned value's one-step lookahead at the phases    |
|               | its training accepted (``agents.lookahead``; ``REF``: a shipped name or  |
|               | a ``value.pt`` from ``algorithm: value_lookahead``)                      |

    from tabletop_arena.agents.registry import make_agent
    agent = make_agent("mcts:100", envs.make_game("peacekeepers_v0"), seed=0)

Game-specific modules are found by convention, so a new game gets its baseline by adding
``agents/<game base name>.py`` with ``class HeuristicAgent(BaseAgent)`` and
``HeuristicAgent(game, seed=None)``; nothing here needs to change.
"""
from __future__ import annotations

import importlib
import importlib.util

from ..envs.core.game import Game
from .base import BaseAgent, RandomAgent

KINDS = ("random", "heuristic", "mcts[:N]", "ppo:NAME", "ppo:PATH", "puct:N:NAME", "puct:N:PATH",
         "rollout:N:NAME", "rollout:N:PATH", "vlook:NAME", "vlook:PATH")
DEFAULT_MCTS_SIMULATIONS = 200


class AgentSpecError(ValueError):
    """An agent spec that names no known agent or has a malformed argument."""


def game_base_name(game_or_name) -> str:
    """``peacekeepers_v0`` (or a Game with that name) -> ``peacekeepers``."""
    name = game_or_name if isinstance(game_or_name, str) else game_or_name.name
    return str(name).split("_v")[0]


def heuristic_module_name(game_or_name) -> str:
    return f"{__package__}.{game_base_name(game_or_name)}"


def has_heuristic(game_or_name) -> bool:
    """Whether ``agents.<game>`` exists (without importing it)."""
    try:
        return importlib.util.find_spec(heuristic_module_name(game_or_name)) is not None
    except (ImportError, ValueError):
        return False


def agent_names(game_name) -> list[str]:
    """The agent specs available for a game (``ppo:PATH`` needs a checkpoint path)."""
    out = ["random"]
    if has_heuristic(game_name):
        out.append("heuristic")
    out += ["mcts", "mcts:N", "ppo:PATH", "puct:N:PATH", "rollout:N:PATH"]
    if has_heuristic(game_name):
        out.append("vlook:PATH")
    return out


def _heuristic(game, seed):
    module_name = heuristic_module_name(game)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:  # the module exists but one of its imports is missing
            raise
        raise AgentSpecError(
            f"no rule-based baseline for {game.name!r}: expected module "
            f"{module_name} (agents/{game_base_name(game)}.py) defining HeuristicAgent(game, seed=None); "
            f"available agents: {agent_names(game.name)}") from None
    cls = getattr(module, "HeuristicAgent", None)
    if cls is None:
        raise AgentSpecError(f"{module_name} defines no HeuristicAgent class")
    return cls(game, seed=seed)


def _checkpoint(ref: str, kind: str = "ppo") -> str:
    """The checkpoint path of a ``ppo:`` / ``puct:N:`` / ``rollout:N:`` reference (``kind`` ppo) or a
    ``vlook:`` one (``kind`` vlook): a shipped name or a path."""
    from .shipped import ShippedAgentError, resolve_checkpoint
    try:
        return resolve_checkpoint(ref, kind)
    except ShippedAgentError as exc:
        raise AgentSpecError(str(exc)) from None


def _rollout_settings(items: list[str], spec: str) -> dict:
    """``k=K``, ``gate=G``, ``floor=P``, ``by=policy|random``, ``alloc=uniform|halving`` after
    ``rollout:N`` (comma separated)."""
    out: dict = {}
    names = {"k": "top_k", "gate": "gate", "floor": "min_prior", "by": "by", "alloc": "allocation"}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or key not in names or names[key] in out:
            raise AgentSpecError(f"rollout settings are k=K, gate=G, floor=P, by=policy|random, "
                                 f"alloc=uniform|halving, each once "
                                 f"(e.g. rollout:64,k=10,gate=1,by=random:peacekeepers), got {item!r} in {spec!r}")
        try:
            if key == "k":
                if not value.isdigit():
                    raise ValueError(value)
                out["top_k"] = int(value)
            elif key == "by":
                if value not in ("policy", "random"):
                    raise ValueError(value)
                out["by"] = value
            elif key == "alloc":
                if value not in ("uniform", "halving"):
                    raise ValueError(value)
                out["allocation"] = value
            else:
                out[names[key]] = float(value)
        except ValueError:
            raise AgentSpecError(f"rollout setting {key}: bad value {value!r} in {spec!r}") from None
    return out


def make_agent(spec: str, game: Game, seed: int | None = None) -> BaseAgent:
    """Build the agent named by ``spec`` for ``game`` (an ``envs.core.game.Game``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string, got {spec!r}; known: {KINDS}")
    spec = spec.strip()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "random":
        if arg:
            raise AgentSpecError(f"'random' takes no argument, got {spec!r}")
        agent: BaseAgent = RandomAgent(seed)
    elif kind == "heuristic":
        if arg:
            raise AgentSpecError(f"'heuristic' takes no argument, got {spec!r}")
        agent = _heuristic(game, seed)
    elif kind == "mcts":
        sims = DEFAULT_MCTS_SIMULATIONS
        if arg:
            try:
                sims = int(arg)
            except ValueError:
                raise AgentSpecError(f"mcts:N needs an integer number of simulations, got {spec!r}") from None
            if sims < 1:
                raise AgentSpecError(f"mcts:N needs N >= 1, got {spec!r}")
        from .mcts import MCTSAgent
        agent = MCTSAgent(game, simulations=sims, seed=seed)
    elif kind == "ppo":
        if not arg:
            raise AgentSpecError("ppo needs a shipped agent's name or a checkpoint path: ppo:NAME "
                                 "(e.g. ppo:peacekeepers) or ppo:PATH (e.g. ppo:runs/x/final.zip)")
        from .ppo import PPOAgent  # imports torch: only when asked for
        agent = PPOAgent(_checkpoint(arg), game, seed=seed)
    elif kind in ("puct", "rollout"):
        n, _, ref = arg.partition(":")
        settings: dict = {}
        if kind == "rollout":
            n, *extra = n.split(",")
            settings = _rollout_settings(extra, spec)
        count = int(n) if n.isdigit() else 0   # digits only: no sign, space or "1e3" coerced
        if count < 1 or not ref:
            what, example = (("simulations", "puct:64:zaka") if kind == "puct"
                             else ("rollouts per candidate move", "rollout:16:zaka"))
            raise AgentSpecError(f"{kind} needs a number of {what} and a checkpoint: {kind}:N:NAME or "
                                 f"{kind}:N:PATH with N >= 1 (e.g. {example}), got {spec!r}")
        path = _checkpoint(ref)
        if kind == "puct":
            from .puct import PUCTAgent  # imports torch: only when asked for
            agent = PUCTAgent(path, game, simulations=count, seed=seed)
        else:
            from .rollout import RolloutAgent
            by_random = settings.pop("by", "policy") == "random"
            try:
                agent = RolloutAgent(path, game, rollouts=count, seed=seed,
                                     rollout_agent=RandomAgent(seed) if by_random else None, **settings)
            except ValueError as exc:   # a setting out of range (k=0, gate=2): the spec's fault
                if type(exc) is not ValueError:   # checkpoint errors keep their own type
                    raise
                raise AgentSpecError(f"rollout setting out of range: {exc}") from None
    elif kind == "vlook":
        if not arg:
            raise AgentSpecError("vlook needs a shipped agent's name or a value checkpoint: vlook:NAME "
                                 "(e.g. vlook:gorgasali) or vlook:PATH (e.g. vlook:runs/x/value.pt)")
        from .lookahead import ValueLookaheadAgent  # imports torch: only when asked for
        agent = ValueLookaheadAgent(_checkpoint(arg, "vlook"), game, seed=seed)
    else:
        raise AgentSpecError(f"unknown agent {spec!r}; known: {', '.join(KINDS)}")
    agent.name = spec
    agent.spec = spec
    return agent
