"""Build agents from short command-line specs, for any registered game.

``AGENT_KINDS`` is the one table of the spec kinds (``random``, ``heuristic``, ``mcts[:N]``,
``ppo:REF``, ``puct:N:REF``, ``rollout:N:REF``, ``vlook:REF``; REF: a shipped agent's name or a
checkpoint path): each ``AgentKind`` says its syntax, its one-line help, how it is built, whether it
needs torch, what checkpoint REF names, how its search budget is counted and whether it may be a
training opponent. ``make_agent`` dispatches through it, and the command line's help, ``arena
serve``'s catalogue checks, the training config's ``opponent_mix`` check and the agent-spec table
of docs/integrations.md (``specs_markdown``) are derived from it. A new kind is one
``register_kind(AgentKind(...))``.

    from tabletop_arena.agents.registry import make_agent
    agent = make_agent("mcts:100", "peacekeepers_v0", seed=0)     # or a Game, or an env
    agent = make_agent("vlook:gorgasali", "gorgasali_v0", options={"num_players": 2})

Game-specific modules are found by convention, so a new game gets its baseline by adding
``agents/<game base name>.py`` with ``class HeuristicAgent(BaseAgent)`` and
``HeuristicAgent(game, seed=None)``; nothing here needs to change.
"""
from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass
from typing import Callable

from .. import envs
from ..envs.core.game import Game
from . import shipped
from .base import BaseAgent, RandomAgent
from .heuristics import (
    AgentSpecError,
    NoHeuristicError,
    has_heuristic,
    heuristic_styles,
    make_heuristic,
)
from .lookahead import (
    PLAN_DEPTH,
    PLAN_ROLLOUTS,
    PLAN_Z,
    VROLL_DEPTH,
    VROLL_Z,
    TurnPlanAgent,
    ValueLookaheadAgent,
    ValueRolloutAgent,
)
from .mcts import MCTSAgent
from .rollout import HROLL_ROLLOUTS, TOP_K, HeuristicRolloutAgent, RolloutAgent

DEFAULT_MCTS_SIMULATIONS = 200
#: the most simulations / rollouts a spec may ask for a move (more is hours a move, not a setting)
MAX_SEARCH = 100_000
#: what one unit of each search costs, in MCTS simulations (CPU time a decision, Zaka / Peacekeepers:
#: an MCTS simulation 2.6 / 4.5 ms, a PUCT simulation 38 / 28 ms, a rollout played by the network
#: 16 / 610 ms, a uniformly random rollout 1.8 / 6.4 ms, a rollout played by the heuristic ~5 / ~20
#: ms, half a heuristic game): how ``arena serve`` weighs a budget
SEARCH_COST = {"mcts": 1, "puct": 10, "rollout by policy": 100, "rollout by random": 1, "rollout by heuristic": 3}
#: the legal moves ``hroll`` is charged for in ``arena serve``'s budget (it rolls out every legal
#: move, which a spec cannot know: Zaka averages ~9 at a choice, Peacekeepers ~45)
HROLL_CHARGED_MOVES = 16
#: a ``moves=M`` rollout budget is charged as M / this many rollouts in ``arena serve``'s budget (a
#: rollout's cost is its length, the rest of the game: ~40 moves on Zaka, ~130 on Peacekeepers)
MOVES_A_CHARGED_ROLLOUT = 50
#: what REF is, in every help text that lists the kinds
REF_HELP = "REF: a shipped agent's name (arena list) or a checkpoint path"


def agent_names(game_name) -> list[str]:
    """The agent specs available for a game (``ppo:PATH`` needs a checkpoint path), from
    ``AGENT_KINDS``: ``mcts[:N]`` is ``mcts`` and ``mcts:N``, a REF is written PATH."""
    out: list[str] = []
    for kind in AGENT_KINDS.values():
        if kind.available(game_name):
            bare, bracket, optional = kind.syntax.partition("[")
            out += [bare, bare + optional.rstrip("]")] if bracket else [kind.syntax.replace("REF", "PATH")]
    return out


def _heuristic(game, seed):
    try:
        return make_heuristic(game, seed)
    except NoHeuristicError as exc:
        raise AgentSpecError(f"{exc}; available agents: {agent_names(game.name)}") from None


def checkpoint_for(ref: str, kind: str = "ppo", game: Game | None = None, spec: str | None = None) -> str:
    """The checkpoint path of a ``ppo:`` / ``puct:N:`` / ``rollout:N:`` reference (``kind`` ppo) or a
    ``vlook:`` one (``kind`` vlook): a shipped name or a path. A name close to a shipped one gets a
    did-you-mean; a shipped agent of another game than ``game`` is refused in one short line."""
    spec = spec or f"{kind}:{ref}"
    try:
        path = shipped.resolve_checkpoint(ref, kind)
    except shipped.ShippedAgentError as exc:
        names = shipped.shipped_agents()
        close = difflib.get_close_matches(ref, list(names), n=1, cutoff=0.6)
        if close and ref not in names:
            raise AgentSpecError(f"no shipped agent named {ref!r} and no such file; did you mean "
                                 f"{spec[:len(spec) - len(ref)] + close[0]!r}?") from None
        raise AgentSpecError(str(exc)) from None
    entry = shipped.shipped_agents().get(ref) if path != ref else None
    if game is not None and entry is not None and entry.get("game") != game.name:
        raise AgentSpecError(f"{spec} was trained for {entry.get('game')}, not {game.name}")
    return path


def shipped_for(game_name: str) -> list[str]:
    """The specs of the shipped agents of ``game_name`` (``ppo:zaka``, ``vlook:gorgasali`` ...)."""
    return [f"{shipped.agent_kind(e)}:{n}" for n, e in shipped.shipped_agents().items()
            if e.get("game") == game_name]


def _rollout_settings(items: list[str], spec: str) -> dict:
    """``k=K``, ``gate=G``, ``floor=P``, ``by=policy|random``, ``alloc=uniform|halving``,
    ``moves=M`` after ``rollout:N`` (comma separated)."""
    out: dict = {}
    names = {"k": "top_k", "gate": "gate", "floor": "min_prior", "by": "by", "alloc": "allocation",
             "moves": "moves"}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or key not in names or names[key] in out:
            raise AgentSpecError(f"rollout settings are k=K, gate=G, floor=P, by=policy|random, "
                                 f"alloc=uniform|halving, moves=M, each once; got {item!r} in {spec!r}")
        try:
            if key in ("k", "moves"):
                if not value.isdigit():
                    raise ValueError(value)
                out[names[key]] = int(value)
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
        return envs.make_game(game, **dict(options or {}))
    inner = getattr(getattr(game, "unwrapped", None), "game", None)
    if isinstance(inner, Game):
        if options:
            raise TypeError("options= goes with a game id; this env is already built with its options")
        return inner
    raise TypeError(f"make_agent needs a game: a registered id such as 'peacekeepers_v0', an "
                    f"envs.make_game(...) Game or an envs.make(...) env, got {type(game).__name__}")


# ------------------------------------------------------------------------------ the kinds ----
#: ``build(game, arg, spec, seed, trust)``: the agent of ``kind:arg`` (``arg`` after the first ':')
Builder = Callable[[Game, str, str, "int | None", bool], BaseAgent]
#: ``budget(N, settings, spec)``: the MCTS simulations' worth of search a move of a spec with
#: count N and its settings (the items after N, comma separated); AgentSpecError for a bad setting
Budget = Callable[[int, "list[str]", str], int]


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent spec, ``name[:ARG]``: everything the command line, ``arena serve``, the
    training config and the docs say about it."""

    name: str                       #: the spec's first word, lower case (``puct``)
    syntax: str                     #: the spec's form: ``puct:N:REF`` (``[:N]`` optional; REF a name or path)
    help: str                       #: one line: what the agent plays
    build: Builder                  #: makes the agent (its argument checked, the same errors as ever)
    example: str                    #: a spec that works for some game (``puct:64:zaka``)
    needs_torch: bool = False       #: building it imports torch
    needs_heuristic: bool = False   #: only for a game with a rule-based baseline (``agents/<game>.py``)
    needs_styles: bool = False      #: only for a game whose rule-based baseline has two or more styles
    #: what REF names: a ``ppo`` checkpoint (an ``arena train`` zip) or a ``vlook`` one (a value.pt);
    #: None: no REF
    checkpoint: str | None = None
    #: the spec's number N: None (none), "optional" (``mcts[:N]``), "required" (``puct:N:REF``)
    count: str | None = None
    count_name: str = ""            #: what N counts (``simulations``)
    default_count: int | None = None   #: N when an optional count is left out (``mcts`` -> 200)
    settings: bool = False          #: N may carry ``,key=value`` settings (``rollout:64,k=10:REF``)
    budget: Budget | None = None    #: a search: how its cost a move is counted (``arena serve``)
    #: None: it may be a training opponent (``opponent_mix``); else the reason it may not
    not_opponent: str | None = None
    detail: str = ""                #: more than the one line, for the epilog and the docs

    def available(self, game_or_name) -> bool:
        """Whether this kind can play ``game_or_name`` at all (a checkpoint may still not fit)."""
        if self.needs_styles:
            return len(heuristic_styles(game_or_name)) > 1
        return not self.needs_heuristic or has_heuristic(game_or_name)

    def reference(self, arg: str) -> str | None:
        """The REF of ``kind:arg`` (the checkpoint's name or path), None without one."""
        if self.checkpoint is None:
            return None
        ref = arg.partition(":")[2] if self.count else arg
        return ref or None

    def forms(self) -> tuple[str, ...]:
        """The syntax with REF written both ways: ``ppo:NAME``, ``ppo:PATH``."""
        if "REF" not in self.syntax:
            return (self.syntax,)
        return (self.syntax.replace("REF", "NAME"), self.syntax.replace("REF", "PATH"))


#: every agent kind by name, in the order the help lists them; ``register_kind`` adds one
AGENT_KINDS: dict[str, AgentKind] = {}


def register_kind(kind: AgentKind) -> AgentKind:
    """Add ``kind`` to ``AGENT_KINDS`` (ValueError for a taken or malformed name)."""
    if not kind.name.isidentifier() or kind.name != kind.name.lower() or not kind.syntax.startswith(kind.name):
        raise ValueError(f"an agent kind's name is a lower-case word starting its syntax, got "
                         f"{kind.name!r} ({kind.syntax!r})")
    if kind.name in AGENT_KINDS or kind.name == "snapshot":   # snapshot: opponent_mix's own kind
        raise ValueError(f"agent kind {kind.name!r} is registered already")
    if (kind.default_count is not None) != (kind.count == "optional"):
        raise ValueError(f"agent kind {kind.name!r}: an optional count needs its default, and only it")
    if (kind.budget is not None) != (kind.count is not None) or ("REF" in kind.syntax) != (kind.checkpoint is not None):
        raise ValueError(f"agent kind {kind.name!r}: a count goes with a budget and REF with a checkpoint")
    AGENT_KINDS[kind.name] = kind
    return kind


def _takes_no_argument(arg: str, spec: str, name: str) -> None:
    if arg:
        raise AgentSpecError(f"'{name}' takes no argument, got {spec!r}")


def _build_random(game, arg, spec, seed, trust):
    _takes_no_argument(arg, spec, "random")
    return RandomAgent(seed)


def _build_heuristic(game, arg, spec, seed, trust):
    _takes_no_argument(arg, spec, "heuristic")
    return _heuristic(game, seed)


def _build_mcts(game, arg, spec, seed, trust):
    sims = DEFAULT_MCTS_SIMULATIONS
    if arg:
        try:
            sims = int(arg)
        except ValueError:
            raise AgentSpecError(f"mcts:N needs an integer number of simulations, got {spec!r}") from None
        if not 1 <= sims <= MAX_SEARCH:
            raise AgentSpecError(f"mcts:N needs N >= 1 and at most {MAX_SEARCH}, got {spec!r}")
    return MCTSAgent(game, simulations=sims, seed=seed)


def _build_ppo(game, arg, spec, seed, trust):
    if not arg:
        raise AgentSpecError("ppo needs a shipped agent's name or a checkpoint path: ppo:NAME "
                             "(e.g. ppo:peacekeepers) or ppo:PATH (e.g. ppo:runs/x/final.zip)")
    path = checkpoint_for(arg, game=game, spec=spec)
    from .ppo import PPOAgent  # imports torch: only when asked for
    return PPOAgent(path, game, seed=seed, trust=trust)


def _search_count(name: str, n: str, ref: str, spec: str) -> int:
    """N of ``puct:N:REF`` / ``rollout:N:REF``: digits only (no sign, space or "1e3" coerced)."""
    count = int(n) if n.isdigit() else 0
    if not 1 <= count <= MAX_SEARCH or not ref:
        kind = AGENT_KINDS[name]
        raise AgentSpecError(f"{name} needs a number of {kind.count_name} and a checkpoint: {name}:N:NAME or "
                             f"{name}:N:PATH with 1 <= N <= {MAX_SEARCH} (e.g. {kind.example}), got {spec!r}")
    return count


def _build_puct(game, arg, spec, seed, trust):
    n, _, ref = arg.partition(":")
    count = _search_count("puct", n, ref, spec)
    path = checkpoint_for(ref, game=game, spec=spec)
    from .puct import PUCTAgent  # imports torch: only when asked for
    return PUCTAgent(path, game, simulations=count, seed=seed, trust=trust)


def _build_rollout(game, arg, spec, seed, trust):
    head, _, ref = arg.partition(":")
    n, *extra = head.split(",")
    settings = _rollout_settings(extra, spec)
    count = _search_count("rollout", n, ref, spec)
    path = checkpoint_for(ref, game=game, spec=spec)
    by_random = settings.pop("by", "policy") == "random"
    try:
        return RolloutAgent(path, game, rollouts=count, seed=seed, trust=trust,
                            rollout_agent=RandomAgent(seed) if by_random else None, **settings)
    except ValueError as exc:   # a setting out of range (k=0, gate=2): the spec's fault
        if type(exc) is not ValueError:   # checkpoint errors keep their own type
            raise
        raise AgentSpecError(f"rollout setting out of range: {exc}") from None


def _rollout_count(arg: str, default: int, spec: str, what: str, example: str) -> int:
    """The optional N of ``hroll[:N]`` / ``hplan[:N]``: ``default`` without one, else 2..MAX_SEARCH."""
    if not arg:
        return default
    count = int(arg) if arg.isdigit() else 0
    if not 2 <= count <= MAX_SEARCH:
        raise AgentSpecError(f"{what}, 2 <= N <= {MAX_SEARCH} (e.g. {example}), got {spec!r}")
    return count


def _build_hroll(game, arg, spec, seed, trust):
    count = _rollout_count(arg, HROLL_ROLLOUTS, spec, "hroll:N needs a whole number of rollouts a move", "hroll:8")
    return HeuristicRolloutAgent(game, rollouts=count, seed=seed)


def _build_vlook(game, arg, spec, seed, trust):
    if not arg:
        raise AgentSpecError("vlook needs a shipped agent's name or a value checkpoint: vlook:NAME "
                             "(e.g. vlook:gorgasali) or vlook:PATH (e.g. vlook:runs/x/value.pt)")
    path = checkpoint_for(arg, "vlook", game=game, spec=spec)
    return ValueLookaheadAgent(path, game, seed=seed)


_SETTING_FORMS = {"depth": "depth=D", "z": "z=Z", "phases": "phases=P+Q"}


def _vroll_settings(items: list[str], spec: str, kind: str = "vroll", keys=("depth", "z", "phases")) -> dict:
    """``depth=D``, ``z=Z``, ``phases=P+Q`` after ``vroll:N`` (comma separated); ``plan`` takes the
    first two (``kind``, ``keys``)."""
    out: dict = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or key not in keys or key in out:
            forms = ", ".join(_SETTING_FORMS[k] for k in keys)
            raise AgentSpecError(f"{kind} settings are {forms}, each once; got {item!r} in {spec!r}")
        if key == "depth":
            if not value.isdigit() or not 1 <= int(value) <= MAX_SEARCH:
                raise AgentSpecError(f"{kind} setting depth: a whole number of moves 1..{MAX_SEARCH}, got {value!r} "
                                     f"in {spec!r}")
            out["depth"] = int(value)
        elif key == "z":
            try:
                z = float(value)
            except ValueError:
                z = float("nan")
            if not 0 <= z < float("inf"):
                raise AgentSpecError(f"{kind} setting z: a number >= 0, got {value!r} in {spec!r}")
            out["z"] = z
        else:
            names = value.split("+")
            if not all(n.isidentifier() for n in names):
                raise AgentSpecError(f"vroll setting phases: phase names joined by '+', got {value!r} in {spec!r}")
            out["phases"] = names
    return out


def _build_vroll(game, arg, spec, seed, trust):
    head, _, ref = arg.partition(":")
    n, *extra = head.split(",")
    settings = _vroll_settings(extra, spec)
    count = int(n) if n.isdigit() else 0
    if not 2 <= count <= MAX_SEARCH or not ref:
        raise AgentSpecError(f"vroll needs a number of rollouts a legal move and a value checkpoint: vroll:N:NAME "
                             f"or vroll:N:PATH with 2 <= N <= {MAX_SEARCH} (e.g. vroll:4:gorgasali_4p), got {spec!r}")
    path = checkpoint_for(ref, "vlook", game=game, spec=spec)
    phases = settings.get("phases")
    if phases is not None:
        unknown = game.unknown_phases(phases)
        if unknown:
            raise AgentSpecError(f"vroll setting phases: {unknown}, in {spec!r}")
    return ValueRolloutAgent(path, game, rollouts=count, seed=seed, depth=settings.get("depth", VROLL_DEPTH),
                             z=settings.get("z", VROLL_Z), roll_phases=phases)


def _build_plan(game, arg, spec, seed, trust):
    head, _, ref = arg.partition(":")
    n, *extra = head.split(",")
    settings = _vroll_settings(extra, spec, "plan", ("depth", "z"))
    count = int(n) if n.isdigit() else 0
    if not 2 <= count <= MAX_SEARCH or not ref:
        raise AgentSpecError(f"plan needs a number of rollouts a style and a value checkpoint: plan:N:NAME "
                             f"or plan:N:PATH with 2 <= N <= {MAX_SEARCH} (e.g. plan:4:zaberias_4p), got {spec!r}")
    path = checkpoint_for(ref, "vlook", game=game, spec=spec)
    try:
        return TurnPlanAgent(path, game, rollouts=count, seed=seed, depth=settings.get("depth", PLAN_DEPTH),
                             z=settings.get("z", PLAN_Z))
    except ValueError as exc:   # a heuristic with one style: nothing to plan
        raise AgentSpecError(f"{spec}: {exc}") from None


def _build_hplan(game, arg, spec, seed, trust):
    count = _rollout_count(arg, PLAN_ROLLOUTS, spec, "hplan:N needs a whole number of rollouts a style", "hplan:4")
    try:
        return TurnPlanAgent(None, game, rollouts=count, seed=seed)
    except ValueError as exc:   # a heuristic with one style: nothing to plan
        raise AgentSpecError(f"{spec}: {exc}") from None


def _plan_budget(count: int, settings: list[str], spec: str) -> int:
    """Charged as ``hroll``'s N rollouts of 16 legal moves (two styles of depth-150 rollouts once a
    turn cost less a move); the settings are checked."""
    _vroll_settings(settings, spec, "plan", ("depth", "z"))
    return count * HROLL_CHARGED_MOVES * SEARCH_COST["rollout by heuristic"]


def _vroll_budget(count: int, settings: list[str], spec: str) -> int:
    """Charged as ``hroll``'s N rollouts of 16 legal moves (its rollouts stop after depth moves:
    an upper bound); the settings are checked."""
    _vroll_settings(settings, spec)
    return count * HROLL_CHARGED_MOVES * SEARCH_COST["rollout by heuristic"]


def _rollout_budget(count: int, settings: list[str], spec: str) -> int:
    """N x k rollouts, each weighted by who plays them (the network or uniformly random moves); with
    ``moves=M``, at least M / ``MOVES_A_CHARGED_ROLLOUT`` rollouts."""
    parsed = _rollout_settings(settings, spec)
    rollouts = max(count * int(parsed.get("top_k", TOP_K)), -(-int(parsed.get("moves", 0)) // MOVES_A_CHARGED_ROLLOUT))
    return rollouts * SEARCH_COST[f"rollout by {parsed.get('by', 'policy')}"]


for _kind in (
    AgentKind("random", "random", "uniformly random legal moves", _build_random, "random"),
    AgentKind("heuristic", "heuristic", "the game's rule-based baseline (agents/<game>.py)",
              _build_heuristic, "heuristic", needs_heuristic=True),
    AgentKind("mcts", "mcts[:N]", f"UCT / determinized MCTS, N simulations with random rollouts a move "
              f"(default {DEFAULT_MCTS_SIMULATIONS})", _build_mcts, "mcts:100", count="optional", default_count=DEFAULT_MCTS_SIMULATIONS,
              count_name="simulations", budget=lambda n, settings, spec: n * SEARCH_COST["mcts"]),
    AgentKind("ppo", "ppo:REF", "a MaskablePPO checkpoint (a shipped one, e.g. ppo:peacekeepers, or a "
              "file of arena train)", _build_ppo, "ppo:peacekeepers", needs_torch=True, checkpoint="ppo"),
    AgentKind("puct", "puct:N:REF", "the checkpoint REF with N simulations of policy-and-value guided "
              "search a move", _build_puct, "puct:64:zaka", needs_torch=True, checkpoint="ppo",
              count="required", count_name="simulations",
              budget=lambda n, settings, spec: n * SEARCH_COST["puct"]),
    AgentKind("rollout", "rollout:N:REF", "the checkpoint REF improved by N of its own rollouts a candidate "
              "move where it is unsure", _build_rollout, "rollout:16:zaka", needs_torch=True, checkpoint="ppo", count="required",
              count_name="rollouts per candidate move", settings=True, budget=_rollout_budget,
              detail="settings after N: k=K candidates, gate=G, floor=P, by=policy|random, "
                     "alloc=uniform|halving, moves=M (with halving: a budget of about M simulated moves a "
                     "decision, N rollouts a candidate at least), e.g. rollout:64,k=16,gate=1,by=random,alloc=halving:peacekeepers"),
    AgentKind("hroll", "hroll[:N]", "the heuristic improved by N rollouts of every legal move, the "
              "heuristic moving every seat; a move replaces the heuristic's only when it gains 2 paired "
              "standard errors", _build_hroll, "hroll:8", needs_heuristic=True, count="optional",
              count_name="rollouts a legal move", default_count=HROLL_ROLLOUTS,
              budget=lambda n, settings, spec: n * HROLL_CHARGED_MOVES * SEARCH_COST["rollout by heuristic"],
              detail="default N 8, at least 2"),
    AgentKind("vlook", "vlook:REF", "the heuristic with a learned value's one-step lookahead (e.g. "
              "vlook:gorgasali, or a value.pt of algorithm: value_lookahead)", _build_vlook,
              "vlook:gorgasali", needs_torch=True, needs_heuristic=True, checkpoint="vlook"),
    AgentKind("vroll", "vroll:N:REF", "the value lookahead REF (a vlook checkpoint), and at its other "
              "decisions N short heuristic rollouts of every legal move scored by the value; a move replaces "
              "the heuristic's only when it gains z paired standard errors", _build_vroll, "vroll:4:gorgasali_4p",
              needs_torch=True, needs_heuristic=True, checkpoint="vlook", count="required",
              count_name="rollouts a legal move", settings=True, budget=_vroll_budget,
              detail=f"settings after N: depth=D heuristic moves before the value scores (default {VROLL_DEPTH}), "
                     f"z=Z (default {VROLL_Z:g}), phases=P+Q (default: every phase the value does not search), "
                     "e.g. vroll:4,depth=40,phases=act+start:gorgasali_4p"),
    AgentKind("plan", "plan:N:REF", "the heuristic, each own turn in the style (of its heuristic's styles) "
              "that N rollouts a style, scored by the value REF (a vlook checkpoint), say is best; the default "
              "style unless another gains z paired standard errors", _build_plan, "plan:4:zaberias_4p",
              needs_torch=True, needs_heuristic=True, needs_styles=True, checkpoint="vlook", count="required",
              count_name="rollouts a style", settings=True, budget=_plan_budget,
              detail=f"only for a game whose heuristic has two or more styles (Zaberias, Warbah); settings after N: "
                     f"depth=D engine actions before the value scores (default {PLAN_DEPTH}), z=Z (default "
                     f"{PLAN_Z:g}), e.g. plan:4,depth=150:zaberias_4p"),
    AgentKind("hplan", "hplan[:N]", "the heuristic, each own turn in the style (of its heuristic's styles) "
              "whose N rollouts a style to the end of the game do best; the default style unless another gains "
              "1 paired standard error", _build_hplan, "hplan:4", needs_heuristic=True, needs_styles=True,
              count="optional", count_name="rollouts a style", default_count=PLAN_ROLLOUTS,
              budget=lambda n, settings, spec: n * HROLL_CHARGED_MOVES * SEARCH_COST["rollout by heuristic"],
              detail="no network; only for a game whose heuristic has two or more styles (Zaberias, Warbah); "
                     f"default N {PLAN_ROLLOUTS}"),
):
    register_kind(_kind)
del _kind


def _kinds() -> tuple[str, ...]:
    return tuple(form for kind in AGENT_KINDS.values() for form in kind.forms())


def _kinds_short() -> str:
    return ", ".join(k.syntax for k in AGENT_KINDS.values())


def __getattr__(name: str):
    """``KINDS`` (every spec form, REF written NAME and PATH) and ``KINDS_SHORT`` (one line), made
    from ``AGENT_KINDS`` when read, so a kind registered later is in them."""
    if name == "KINDS":
        return _kinds()
    if name == "KINDS_SHORT":
        return _kinds_short()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def spec_kind(spec: str) -> tuple[AgentKind | None, str, str]:
    """(its kind or None, the kind's word as written, the argument) of an agent spec, as
    ``make_agent`` reads it (the kind in any case)."""
    word, _, arg = spec.strip().partition(":")
    return AGENT_KINDS.get(word.lower()), word, arg


def checkpoint_ref(spec: str) -> tuple[str, str] | None:
    """(checkpoint kind, REF) of a checkpoint-backed spec (``ppo:REF``, ``puct:N:REF``,
    ``rollout:N...:REF``, ``vlook:REF``; the kind ppo or vlook: what the file must be); None for
    other specs."""
    kind, _, arg = spec_kind(spec)
    ref = kind.reference(arg) if kind is not None else None
    return (str(kind.checkpoint), ref) if kind is not None and ref else None


def specs_help() -> str:
    """Every kind on one line, for an argparse help: ``random (...); heuristic (...); ...``."""
    return "; ".join(f"{k.syntax} ({k.help})" for k in AGENT_KINDS.values()) + f"; {REF_HELP}"


def specs_epilog() -> str:
    """Every kind, one a line, for a command's epilog."""
    width = max(len(k.syntax) for k in AGENT_KINDS.values())
    lines = [textwrap.fill(f"{k.help}; {k.detail}" if k.detail else k.help, 100, initial_indent=f"  {k.syntax:{width}s}  ",
                           subsequent_indent=" " * (width + 4)) for k in AGENT_KINDS.values()]
    return "agents:\n" + "\n".join(lines) + f"\n  ({REF_HELP})\n"


def _games_cell(kind: AgentKind) -> str:
    if kind.needs_styles:
        return "with a heuristic of two or more styles: " + ", ".join(
            g.split("_v")[0].capitalize() for g in envs.names() if kind.available(g))
    return "with a heuristic" if kind.needs_heuristic else "all"


def specs_markdown() -> str:
    """The agent-spec table of docs/integrations.md (``tests/test_docs.py`` keeps them equal)."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")

    rows = ["| spec | agent | games | needs torch | training opponent | example |", "|---|---|---|---|---|---|"]
    rows += [f"| `{k.syntax}` | {cell(k.help + ('; ' + k.detail if k.detail else ''))} | "
             f"{_games_cell(k)} | {'yes' if k.needs_torch else 'no'} | "
             f"{'yes' if k.not_opponent is None else 'no: ' + cell(k.not_opponent)} | `{k.example}` |"
             for k in AGENT_KINDS.values()]
    return "\n".join(rows) + f"\n\n{REF_HELP}.\n"


def make_agent(spec: str, game: Game | str, seed: int | None = None, trust: bool = False, *,
               options: dict | None = None) -> BaseAgent:
    """Build the agent named by ``spec`` for ``game``: an ``envs.core.game.Game``, a registered id
    (``"peacekeepers_v0"``, built with ``options``) or an env of this project; the kinds are
    ``AGENT_KINDS``.

        make_agent("ppo:peacekeepers", "peacekeepers_v0")
        make_agent("vlook:gorgasali", "gorgasali_v0", options={"num_players": 2})

    ``trust=True`` lets a ``ppo:`` / ``puct:`` / ``rollout:`` spec load a pickled (legacy) checkpoint,
    which runs any code the file carries (``agents.ppo``); safe checkpoints need no trust."""
    game = game_for_agent(game, options)
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string, got {spec!r}; "
                             f"known: {_kinds()}")
    spec = spec.strip()
    kind, word, arg = spec_kind(spec)
    if kind is None:
        close = difflib.get_close_matches(word.lower(), list(AGENT_KINDS), n=1, cutoff=0.6)
        # a close kind alone, else the kinds by name (arena eval --help gives their forms): the full
        # list of forms made this one line longer with every new kind
        if close:
            raise AgentSpecError(f"unknown agent {spec!r}; did you mean {close[0] + spec[len(word):]!r}?")
        raise AgentSpecError(f"unknown agent {spec!r}; agents: {', '.join(AGENT_KINDS)}")
    agent = kind.build(game, arg, spec, seed, trust)
    agent.name = spec
    agent.spec = spec
    return agent
