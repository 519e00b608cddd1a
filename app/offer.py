"""What ``arena serve`` offers a page (app/serve.py): the allow-list of agents a request may name
(``AgentAllowList``: built-in agents, shipped agents by name and their ``strongest`` specs, the
checkpoints named on the command line, search budgets capped by ``--max-budget``), and the error
every refused request raises (``RequestError``: an HTTP status and the reason the page shows).
Nothing a request says opens a file: a request names an offered agent, never a path.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from http import HTTPStatus
from typing import Any

from .. import envs
from ..agents.lookahead import load_value
from ..agents.registry import AGENT_KINDS, SEARCH_COST, AgentKind, AgentSpecError, has_heuristic
from ..agents.shipped import agent_kind, shipped_agents
from .cli_common import CLIError, make_agent, one_line

MAX_SPEC_LENGTH = 200         # characters of one agent spec
#: the most search a move a request may choose, in MCTS simulations: mcts:400 is ~1.5 s of one
#: core a move on Zaka and Peacekeepers, ~3 s on Gorgasali, ~5 s on Zaberias, ~7.5 s on Warbah
#: (measured on the 2-core development machine)
DEFAULT_MAX_BUDGET = 400


class RequestError(Exception):
    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST):
        super().__init__(message)
        self.status = status


@dataclasses.dataclass(frozen=True)
class OfferedCheckpoint:
    """A checkpoint the page may play, by name: shipped, or named on the command line."""

    name: str
    kind: str          # "ppo" (ppo:, puct:, rollout: specs) or "vlook"
    game: str          # registered game id
    path: str          # never shown to a client
    note: str          # how the page describes it, e.g. "trained for 2 players"
    command_line: bool = False
    #: the options it was trained for, where they differ from the game's defaults: the page sets
    #: them when this agent is chosen (vlook:gorgasali: {"num_players": 2})
    options: dict = dataclasses.field(default_factory=dict, compare=False, hash=False)


def _positive_digits(text: str) -> int | None:
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) and int(text) >= 1 else None


def _search_budget(kind: AgentKind, count: int, settings: list[str], spec: str) -> int:
    """MCTS simulations' worth of search a move of a search spec (``AgentKind.budget``)."""
    assert kind.budget is not None, kind.name   # a kind with a count has a budget (register_kind)
    return kind.budget(count, settings, spec)


class AgentAllowList:
    """The opponents a request may choose: ``random``, ``heuristic``, ``mcts[:N]``, the shipped
    agents by name (``ppo:NAME``, ``puct:N:NAME``, ``rollout:N[,settings]:NAME``, ``vlook:NAME``)
    and their ``strongest`` specs exactly as listed, and the checkpoints named on the command line
    (the same forms). Every search budget is at most ``max_budget`` MCTS simulations a move (a
    rollout spec counts N x k rollouts; each kind weighted by its cost, ``SEARCH_COST``); the
    shipped ``strongest`` specs are offered as listed (their cost is in their reports). A request
    never names a file: a reference that is not one of these names is refused before anything is
    opened."""

    def __init__(self, max_budget: int = DEFAULT_MAX_BUDGET,
                 command_line: list[OfferedCheckpoint] | None = None, trust: bool = False):

        if isinstance(max_budget, bool) or not isinstance(max_budget, int) or max_budget < 1:
            raise ValueError(f"max_budget must be an integer >= 1, got {max_budget!r}")
        self.max_budget = max_budget
        self.trust = trust
        shipped = shipped_agents()
        self.checkpoints: dict[str, OfferedCheckpoint] = {
            name: OfferedCheckpoint(name, agent_kind(e), str(e.get("game")), str(e["file"]),
                                    f"trained for {e.get('variant') or 'the default variant'}",
                                    options=dict(e.get("options") or {}))
            for name, e in shipped.items()}
        #: spec -> (game, note) of each shipped entry's strongest spec
        self.strongest: dict[str, tuple[str, str]] = {
            str(e["strongest"]): (str(e.get("game")), f"search on {agent_kind(e)}:{name}, its strongest")
            for name, e in shipped.items() if e.get("strongest")}
        for entry in command_line or []:
            if entry.name in self.checkpoints:
                raise ValueError(f"agent name {entry.name!r} is taken (by "
                                 f"{'a shipped agent' if not self.checkpoints[entry.name].command_line else 'another --agent'})")
            self.checkpoints[entry.name] = entry

    # -- what the page lists ---------------------------------------------------------------
    def offered(self, game_id: str) -> list[tuple[str, str]]:
        """(spec, note) of the agents the catalog lists for ``game_id``."""

        out = [("heuristic", "rule-based")] if has_heuristic(game_id) else []
        out += [("random", "")]
        out += [(f"mcts:{n}", "") for n in (50, 200) if n <= self.max_budget]
        out += [(f"{c.kind}:{c.name}", c.note) for c in self.checkpoints.values() if c.game == game_id]
        out += [(spec, note) for spec, (game, note) in self.strongest.items() if game == game_id]
        return out

    def names(self, game_id: str) -> list[str]:
        return [n for n, c in self.checkpoints.items() if c.game == game_id]

    def fixed_options(self, spec: str) -> dict | None:
        """The options an offered agent plays (its checkpoint's variant, as changes to the game's
        defaults; ``{}``: the default variant), or None for agents that play any variant."""
        for entry in shipped_agents().values():
            if spec == entry.get("strongest"):
                return dict(entry.get("options") or {})
        word, _, arg = spec.partition(":")
        kind = AGENT_KINDS.get(word)
        ref = kind.reference(arg) if kind is not None else None
        if ref is None:
            return None
        offered = self.checkpoints.get(ref)
        return None if offered is None else dict(offered.options)

    # -- checking a request's spec ---------------------------------------------------------
    def _reference(self, spec: str, ref: str, kind: str, game_id: str) -> OfferedCheckpoint:
        entry = self.checkpoints.get(ref)
        if entry is None:
            offered = ", ".join(f"{c.kind}:{c.name}" for c in self.checkpoints.values() if c.game == game_id)
            raise RequestError(f"agent {spec!r}: {ref!r} is not an agent this server offers (a request "
                               f"cannot name a file; checkpoints are named on the server's command line: "
                               f"arena serve --agent NAME=PATH); offered for {game_id}: {offered or 'none'}",
                               HTTPStatus.FORBIDDEN)
        if entry.game != game_id:
            raise RequestError(f"agent {spec!r}: {ref!r} plays {entry.game}, not {game_id}")
        if entry.kind != kind:
            raise RequestError(f"agent {spec!r}: {ref!r} is a {entry.kind} agent: play it as {entry.kind}:{ref}")
        return entry

    def _budget(self, spec: str, budget: int) -> None:
        if budget > self.max_budget:
            raise RequestError(f"agent {spec!r} asks for {budget} MCTS simulations' worth of search a move "
                               f"(a puct simulation counts {SEARCH_COST['puct']}, a rollout N x k, "
                               f"{SEARCH_COST['rollout by policy']} each by the network); this server allows "
                               f"at most {self.max_budget} (arena serve --max-budget)")

    def check(self, spec: Any, game_id: str) -> str:
        """The spec ``agents.make_agent`` builds for the request's ``spec`` (a command-line
        checkpoint's name becomes its path), or RequestError (400 malformed or over budget, 403
        not offered); nothing is opened here."""
        return self._resolve(spec, game_id)[0]

    def _resolve(self, spec: Any, game_id: str) -> tuple[str, bool]:
        """(the spec to build, whether it reads a command-line checkpoint)."""

        if not isinstance(spec, str) or not spec or len(spec) > MAX_SPEC_LENGTH or spec != spec.strip():
            raise RequestError(f"an agent spec is a short text such as 'heuristic' or 'mcts:100', "
                               f"got {spec if not isinstance(spec, str) else spec[:MAX_SPEC_LENGTH]!r}")
        if spec in self.strongest:
            game, _ = self.strongest[spec]
            if game != game_id:
                raise RequestError(f"agent {spec!r} plays {game}, not {game_id}")
            return spec, False
        word, _, arg = spec.partition(":")
        kind = AGENT_KINDS.get(word)   # the kind as written: 'MCTS:5' is not one
        if kind is None:
            raise RequestError(f"unknown agent {spec!r}; this server offers "
                               f"{', '.join(k.syntax.replace('REF', 'NAME') for k in AGENT_KINDS.values())} "
                               f"(a search of at most {self.max_budget} MCTS simulations' worth a move) "
                               f"with the names in its list")
        if kind.count is None and kind.checkpoint is None:   # random, heuristic
            if arg:
                raise RequestError(f"{word!r} takes no argument, got {spec!r}")
            return spec, False
        if kind.checkpoint is None:   # mcts[:N], hroll[:N]
            sims = _positive_digits(arg) if arg else kind.default_count
            if sims is None:
                raise RequestError(f"{word}:N needs a whole number N >= 1, got {spec!r}")
            self._budget(spec, _search_budget(kind, sims, [], spec))
            return spec, False
        if kind.count is None:   # ppo:NAME, vlook:NAME
            entry = self._reference(spec, arg, kind.checkpoint, game_id)
            return (f"{word}:{entry.path}", True) if entry.command_line else (spec, False)
        # puct:N:NAME, rollout:N[,settings]:NAME
        head, _, ref = arg.partition(":")
        count_text, *settings = head.split(",") if kind.settings else (head,)
        count = _positive_digits(count_text)
        if count is None or not ref:
            raise RequestError(f"{word} needs a whole number N >= 1 and an agent name: "
                               f"{word}:N:NAME (e.g. {word}:16:{next(iter(self.names(game_id)), 'NAME')}), "
                               f"got {spec!r}")
        try:
            budget = _search_budget(kind, count, settings, spec)
        except AgentSpecError as exc:
            raise RequestError(str(exc)) from None
        entry = self._reference(spec, ref, kind.checkpoint, game_id)   # a path: refused as such, whatever N
        self._budget(spec, budget)
        return (f"{word}:{head}:{entry.path}", True) if entry.command_line else (spec, False)

    def build(self, spec: str, game, seed: int | None):
        """The agent for an allowed ``spec`` (checked again here), labelled with ``spec`` itself."""

        internal, command_line = self._resolve(spec, envs.resolve(game.name))
        try:
            agent = build_agent(internal, game, seed, trust=self.trust and command_line)
        except CLIError as exc:
            print(f"arena serve: agent {spec!r} could not be set up: {one_line(exc.message)}",
                  file=sys.stderr, flush=True)
            raise RequestError(f"agent {spec!r} could not be set up for this game and variant (the "
                               f"server's terminal says why)") from None
        agent.name = spec
        agent.spec = spec
        return agent


def build_agent(spec: str, game, seed: int | None, trust: bool = False):
    """``cli_common.make_agent``, passing ``trust`` (a command-line checkpoint under
    ``--trust-checkpoint``) where the loader takes it; shipped agents are never trusted."""
    import inspect


    if trust and "trust" in inspect.signature(make_agent).parameters:
        return make_agent(spec, game, seed=seed, trust=True)
    return make_agent(spec, game, seed=seed)


def command_line_agent(item: str, trust: bool = False) -> OfferedCheckpoint:
    """``NAME=PATH`` of ``arena serve --agent``: a checkpoint file the page offers as
    ``ppo:NAME`` (an ``arena train`` zip) or ``vlook:NAME`` (a ``value.pt``), for the game (and
    variant) it was trained on. It is loaded once here, so a bad or untrusted file stops the server
    from starting rather than failing on the page. ValueError with a one-line reason."""
    name, eq, path = item.partition("=")
    name = name.strip()
    if not eq or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}", name) or not path.strip():
        raise ValueError(f"--agent expects NAME=PATH with a NAME of letters, digits, '-' and '_' "
                         f"(e.g. --agent mine=runs/x/final.zip), got {item!r}")
    path = os.path.abspath(os.path.expanduser(path.strip()))
    if not os.path.isfile(path):
        raise ValueError(f"--agent {name}: no such file: {path}")
    kind = "vlook" if path.endswith(".pt") else "ppo"
    try:
        if kind == "vlook":
            _, meta = load_value(path)   # torch.load(weights_only=True): tensors and plain data only
        else:
            from ..agents.checkpoint import read_metadata
            meta = read_metadata(path)   # the JSON member only
        game_id = envs.resolve(str(meta.get("game")))
        options = dict(meta.get("options") or {})
        game = envs.make_game(game_id, **options)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"--agent {name}: {exc}") from None
    build_agent(f"{kind}:{path}", game, 0, trust=trust)   # a CLIError (untrusted, unfit) stops the start
    variant = ", ".join(f"{k}={v}" for k, v in options.items())
    defaults = envs.make_game(game_id).options()
    changed = {k: v for k, v in game.options().items() if defaults.get(k) != v}
    return OfferedCheckpoint(name, kind, game_id, path,
                             f"from the command line{', ' + variant if variant else ''}", command_line=True,
                             options=json.loads(json.dumps(changed, default=str)))
