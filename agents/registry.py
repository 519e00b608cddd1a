"""Build agents from short command-line specs, for any registered game.

| spec          | agent                                                                    |
|---------------|--------------------------------------------------------------------------|
| ``random``    | uniformly random legal moves (``agents.base.RandomAgent``)               |
| ``heuristic`` | the game's rule-based baseline: ``agents.<game>.HeuristicAgent``         |
|               | (``agents.peacekeepers`` for ``peacekeepers_v0``)                        |
| ``mcts[:N]``  | UCT / determinized MCTS with N simulations per move (default 200)        |
| ``ppo:NAME``  | a shipped agent by name, e.g. ``ppo:peacekeepers`` (``agents.shipped``)  |
| ``ppo:PATH``  | a MaskablePPO checkpoint written by ``arena train`` (``agents.ppo``; a   |
|               | pickled one from before the safe format only with ``trust=True``)        |
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
    agent = make_agent("mcts:100", "peacekeepers_v0", seed=0)     # or a Game, or an env
    agent = make_agent("vlook:gorgasali", "gorgasali_v0", options={"num_players": 2})

Game-specific modules are found by convention, so a new game gets its baseline by adding
``agents/<game base name>.py`` with ``class HeuristicAgent(BaseAgent)`` and
``HeuristicAgent(game, seed=None)``; nothing here needs to change.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util

from ..envs.core.errors import ArenaError
from ..envs.core.game import Game
from .base import BaseAgent, RandomAgent

KINDS = ("random", "heuristic", "mcts[:N]", "ppo:NAME", "ppo:PATH", "puct:N:NAME", "puct:N:PATH",
         "rollout:N:NAME", "rollout:N:PATH", "vlook:NAME", "vlook:PATH")
#: the spec forms in one short line (REF: a shipped agent's name or a checkpoint path)
KINDS_SHORT = "random, heuristic, mcts[:N], ppo:NAME|PATH, puct:N:REF, rollout:N:REF, vlook:REF"
DEFAULT_MCTS_SIMULATIONS = 200
#: the most simulations / rollouts a spec may ask for a move (more is hours a move, not a setting)
MAX_SEARCH = 100_000


class AgentSpecError(ArenaError):
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


def checkpoint_for(ref: str, kind: str = "ppo", game: Game | None = None, spec: str | None = None) -> str:
    """The checkpoint path of a ``ppo:`` / ``puct:N:`` / ``rollout:N:`` reference (``kind`` ppo) or a
    ``vlook:`` one (``kind`` vlook): a shipped name or a path. A name close to a shipped one gets a
    did-you-mean; a shipped agent of another game than ``game`` is refused in one short line."""
    from .shipped import ShippedAgentError, resolve_checkpoint, shipped_agents
    spec = spec or f"{kind}:{ref}"
    try:
        path = resolve_checkpoint(ref, kind)
    except ShippedAgentError as exc:
        shipped = shipped_agents()
        close = difflib.get_close_matches(ref, list(shipped), n=1, cutoff=0.6)
        if close and ref not in shipped:
            raise AgentSpecError(f"no shipped agent named {ref!r} and no such file; did you mean "
                                 f"{spec[:len(spec) - len(ref)] + close[0]!r}?") from None
        raise AgentSpecError(str(exc)) from None
    entry = shipped_agents().get(ref) if path != ref else None
    if game is not None and entry is not None and entry.get("game") != game.name:
        raise AgentSpecError(f"{spec} was trained for {entry.get('game')}, not {game.name}")
    return path


def shipped_for(game_name: str) -> list[str]:
    """The specs of the shipped agents of ``game_name`` (``ppo:zaka``, ``vlook:gorgasali`` ...)."""
    from .shipped import agent_kind, shipped_agents
    return [f"{agent_kind(e)}:{n}" for n, e in shipped_agents().items() if e.get("game") == game_name]


def _rollout_settings(items: list[str], spec: str) -> dict:
    """``k=K``, ``gate=G``, ``floor=P``, ``by=policy|random``, ``alloc=uniform|halving`` after
    ``rollout:N`` (comma separated)."""
    out: dict = {}
    names = {"k": "top_k", "gate": "gate", "floor": "min_prior", "by": "by", "alloc": "allocation"}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or key not in names or names[key] in out:
            raise AgentSpecError(f"rollout settings are k=K, gate=G, floor=P, by=policy|random, "
                                 f"alloc=uniform|halving, each once; got {item!r} in {spec!r}")
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


def game_for_agent(game, options: dict | None = None) -> Game:
    """The ``Game`` an agent is built for: a ``Game`` as it is, a registered id or bare name
    (``"peacekeepers_v0"``, ``"zaka"``) built with ``options``, or an env of this project (its
    ``unwrapped.game``). Options go with an id only (a built game or env already has its own)."""
    if isinstance(game, Game):
        if options:
            raise TypeError("options= goes with a game id; this game is already built with its options")
        return game
    if isinstance(game, str):
        from .. import envs
        return envs.make_game(game, **dict(options or {}))
    inner = getattr(getattr(game, "unwrapped", None), "game", None)
    if isinstance(inner, Game):
        if options:
            raise TypeError("options= goes with a game id; this env is already built with its options")
        return inner
    raise TypeError(f"make_agent needs a game: a registered id such as 'peacekeepers_v0', an "
                    f"envs.make_game(...) Game or an envs.make(...) env, got {type(game).__name__}")


def make_agent(spec: str, game: Game | str, seed: int | None = None, trust: bool = False, *,
               options: dict | None = None) -> BaseAgent:
    """Build the agent named by ``spec`` for ``game``: an ``envs.core.game.Game``, a registered id
    (``"peacekeepers_v0"``, built with ``options``) or an env of this project.

        make_agent("ppo:peacekeepers", "peacekeepers_v0")
        make_agent("vlook:gorgasali", "gorgasali_v0", options={"num_players": 2})

    ``trust=True`` lets a ``ppo:`` / ``puct:`` / ``rollout:`` spec load a pickled (legacy) checkpoint,
    which runs any code the file carries (``agents.ppo``); safe checkpoints need no trust."""
    game = game_for_agent(game, options)
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
            if not 1 <= sims <= MAX_SEARCH:
                raise AgentSpecError(f"mcts:N needs N >= 1 and at most {MAX_SEARCH}, got {spec!r}")
        from .mcts import MCTSAgent
        agent = MCTSAgent(game, simulations=sims, seed=seed)
    elif kind == "ppo":
        if not arg:
            raise AgentSpecError("ppo needs a shipped agent's name or a checkpoint path: ppo:NAME "
                                 "(e.g. ppo:peacekeepers) or ppo:PATH (e.g. ppo:runs/x/final.zip)")
        path = checkpoint_for(arg, game=game, spec=spec)
        from .ppo import PPOAgent  # imports torch: only when asked for
        agent = PPOAgent(path, game, seed=seed, trust=trust)
    elif kind in ("puct", "rollout"):
        n, _, ref = arg.partition(":")
        settings: dict = {}
        if kind == "rollout":
            n, *extra = n.split(",")
            settings = _rollout_settings(extra, spec)
        count = int(n) if n.isdigit() else 0   # digits only: no sign, space or "1e3" coerced
        if not 1 <= count <= MAX_SEARCH or not ref:
            what, example = (("simulations", "puct:64:zaka") if kind == "puct"
                             else ("rollouts per candidate move", "rollout:16:zaka"))
            raise AgentSpecError(f"{kind} needs a number of {what} and a checkpoint: {kind}:N:NAME or "
                                 f"{kind}:N:PATH with 1 <= N <= {MAX_SEARCH} (e.g. {example}), got {spec!r}")
        path = checkpoint_for(ref, game=game, spec=spec)
        if kind == "puct":
            from .puct import PUCTAgent  # imports torch: only when asked for
            agent = PUCTAgent(path, game, simulations=count, seed=seed, trust=trust)
        else:
            from .rollout import RolloutAgent
            by_random = settings.pop("by", "policy") == "random"
            try:
                agent = RolloutAgent(path, game, rollouts=count, seed=seed, trust=trust,
                                     rollout_agent=RandomAgent(seed) if by_random else None, **settings)
            except ValueError as exc:   # a setting out of range (k=0, gate=2): the spec's fault
                if type(exc) is not ValueError:   # checkpoint errors keep their own type
                    raise
                raise AgentSpecError(f"rollout setting out of range: {exc}") from None
    elif kind == "vlook":
        if not arg:
            raise AgentSpecError("vlook needs a shipped agent's name or a value checkpoint: vlook:NAME "
                                 "(e.g. vlook:gorgasali) or vlook:PATH (e.g. vlook:runs/x/value.pt)")
        path = checkpoint_for(arg, "vlook", game=game, spec=spec)
        from .lookahead import ValueLookaheadAgent  # imports torch: only when asked for
        agent = ValueLookaheadAgent(path, game, seed=seed)
    else:
        names = ("random", "heuristic", "mcts", "ppo", "puct", "rollout", "vlook")
        close = difflib.get_close_matches(kind, names, n=1, cutoff=0.6)
        guess = f"did you mean {close[0] + spec[len(kind):]!r}? " if close else ""
        raise AgentSpecError(f"unknown agent {spec!r}; {guess}agents: {KINDS_SHORT}")
    agent.name = spec
    agent.spec = spec
    return agent
