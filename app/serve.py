"""``arena serve``: a local web page where a person plays any game against any agent.

One command, no account, no internet: the standard library's HTTP server, one static page
(``app/static/play.html``, package data, no outside assets) and a small JSON API over
``train.play.Match``. Games live in memory (``Sessions``).

| method, path                | body / query                         | answer                          |
|-----------------------------|--------------------------------------|---------------------------------|
| GET  /                      |                                      | the page, with a new page token |
| GET  /api/catalog           |                                      | games, variants, agents, presets|
| POST /api/new               | game, options, opponents, seat, seed | state                           |
| GET  /api/state             | ?id=SESSION                          | state                           |
| POST /api/move              | id, action                           | state (after the agents' moves) |
| GET  /api/board.png         | ?id=SESSION&v=MOVES&token=TOKEN      | the board picture (PNG)         |

A *state* is JSON: ``id, game, options, seed, seat, players (labels), to_move, your_turn, phase,
legal ([[action, text], ...], yours only), log ([{number, player, who, action, text}, ...]),
text (the position as text, from your seat's view), picture (URL), over, result``. Errors answer
``{"error": "..."}``: 400 (a malformed request, with the reason), 403 (a foreign Host or Origin, a
missing or wrong token, an agent this server does not offer), 404 (no such page or game), 411/413
(no or too large a Content-Length), 415 (a POST that is not ``application/json``) or 500 ("internal
error": the details go to the server's terminal, never to the page).

**Security** (docs: README "Security"; the model is Jupyter's token + Origin check). Any web page
the user visits can send requests to 127.0.0.1 (a cross-site form post) or reach it by DNS
rebinding, so:

- *Every request* must name the served address in ``Host`` (``localhost``, an IP address, or the
  ``--host`` name, with the server's port) and, when it has an ``Origin``, come from that same
  ``http://HOST``; else 403. A rebinding page's name is neither.
- *Every API call* carries the page token (header ``X-Arena-Token``; ``token=`` in the query of
  ``board.png``, which an ``<img>`` loads). Each page load gets a new one (an HMAC of a random
  nonce under a key made at start, compared with ``secrets.compare_digest``), which another site
  cannot read. Games belong to the page that started them.
- *POST* bodies are ``application/json`` (a cross-site form cannot send that type without a CORS
  preflight, which this server never grants) with a ``Content-Length`` of at most ``MAX_BODY``
  bytes, UTF-8, nested at most ``MAX_JSON_DEPTH`` deep; nothing more than that is read.
- *Nothing a request says opens a file.* Opponents come from an allow-list (``AgentAllowList``):
  built-in agents, shipped agents by name (and their ``strongest`` specs), and the checkpoints
  named on the command line (``arena serve --agent NAME=PATH``, offered as ``ppo:NAME``). Search
  budgets (``mcts:N``, ``puct:N``, ``rollout:N`` x its ``k``, each weighted by its cost in MCTS
  simulations: each kind's ``budget`` in ``agents.registry.AGENT_KINDS``, which also says which
  kinds take a checkpoint name) are capped by ``--max-budget``. Game options are checked against
  the game's option table, and options that name a file (``config_path``) are refused by name.
  Error messages carry no server path.
- *Cost per client*: ``MAX_GAMES_PER_PAGE`` games per page token; when ``MAX_SESSIONS`` are held,
  the game that goes belongs to the biggest holder (the client address, then the page, with the
  most games; among equals the newest), so one client flooding the server evicts its own games.
  At most ``MAX_CONNECTIONS`` connections are served at once, each idle one closed after
  ``CONNECTION_TIMEOUT`` seconds, with a listen backlog of ``REQUEST_QUEUE_SIZE``.
- Answers carry ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``,
  ``X-Frame-Options: DENY`` and a Content-Security-Policy (the page's script and style run by a
  per-response nonce; nothing else inline, nothing from elsewhere).
- The default address is 127.0.0.1; any other prints a warning (``exposure_warning``).
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import hmac
import io
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import tempfile
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from .. import envs
from ..agents.lookahead import load_value
from ..agents.registry import (
    AGENT_KINDS,
    SEARCH_COST,
    AgentKind,
    AgentSpecError,
    has_heuristic,
)
from ..agents.shipped import agent_kind, shipped_agents
from ..envs.core.resources import data_path
from ..train.levels import LEVEL_NAMES, LadderError, ladder_counts, level_spec, levels_for, players_of
from ..train.play import MatchError
from .cli_common import CLIError, make_agent, make_game, one_line, parse_env_options, resolve_game
from .match import Match

MAX_SESSIONS = 200            # games held in memory, all clients together
MAX_GAMES_PER_PAGE = 4        # games of one page token (the page plays its newest)
DEFAULT_OPPONENTS = {"default": "heuristic"}
MAX_BODY = 1 << 16            # bytes of a POST body
MAX_JSON_DEPTH = 32           # nesting of a POST body
MAX_OPPONENTS = 8             # agent specs in one /api/new
MAX_SPEC_LENGTH = 200         # characters of one agent spec
MAX_SEED = 2**63 - 1
#: the most search a move a request may choose, in MCTS simulations: mcts:400 is ~1.5 s of one
#: core a move on Zaka and Peacekeepers, ~3 s on Gorgasali, ~5 s on Zaberias, ~7.5 s on Warbah
#: (measured on the 2-core development machine)
DEFAULT_MAX_BUDGET = 400
MAX_CONNECTIONS = 64          # connections served at once (one thread each)
REQUEST_QUEUE_SIZE = 128      # listen backlog: 20 players connecting at once are all accepted
CONNECTION_TIMEOUT = 30.0     # seconds an idle or slow connection is kept
LINGER_SECONDS, LINGER_BYTES = 2.0, 2 * (1 << 16)   # what is read (and dropped) before a close
TOKEN_HEADER = "X-Arena-Token"
SERVER_NAME = "TabletopArena"
#: the page's placeholders, replaced for each response
PAGE_TOKEN = b"__ARENA_PAGE_TOKEN__"
PAGE_NONCE = b"__ARENA_CSP_NONCE__"
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                    ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin"),
                    ("Cross-Origin-Resource-Policy", "same-origin"))
API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


class RequestError(Exception):
    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST):
        super().__init__(message)
        self.status = status


# ------------------------------------------------------------------------------ error text ----
def _server_paths() -> list[str]:
    """Folders of this machine that an error message must not show (longest first)."""
    roots = {str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2]),
             os.getcwd(), str(Path.home()), sys.prefix, sys.exec_prefix, tempfile.gettempdir()}
    return sorted((r for r in roots if len(r) > 1), key=len, reverse=True)


_SERVER_PATHS = _server_paths()


def scrub(text: str) -> str:
    """``text`` with this machine's folders (package, working folder, home, Python) left out."""
    for root in _SERVER_PATHS:
        text = text.replace(root, "…")
    return text


# ---------------------------------------------------------------------------------- agents ----
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
            from ..agents.ppo import read_metadata
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


# ---------------------------------------------------------------------------------- catalog ----
def catalog(defaults: dict[str, Any] | None = None, allowed: AgentAllowList | None = None) -> dict[str, Any]:
    """Games (with variants and player counts), the agents offered per game, and the presets."""
    allowed = allowed or AgentAllowList()
    games = []
    for name in envs.names():
        sp = envs.spec(name)
        default_game = envs.make_game(name)
        variants = [{"name": "default", "options": {}, "players": default_game.num_agents}]
        for vname, opts in sp.variants.items():
            try:
                players = envs.make_game(name, **opts).num_agents
            except Exception:  # noqa: BLE001 - a variant that cannot be built is not offered
                continue
            variants.append({"name": vname, "options": opts, "players": players})
        offered = allowed.offered(name)
        fixed = {spec: allowed.fixed_options(spec) for spec, _ in offered}
        games.append({"id": name, "description": sp.description, "players": sp.players,
                      "default_options": json.loads(json.dumps(default_game.options(), default=str)),
                      "variants": variants, "agents": [spec for spec, _ in offered],
                      "notes": {spec: note for spec, note in offered if note},
                      "agent_options": {spec: opts for spec, opts in fixed.items() if opts is not None}})
    for entry in games:   # the difficulty levels of the ladders' data (train/levels.py)
        entry["levels"] = offered_levels(entry["id"], allowed)
    return {"games": games, "defaults": dict(defaults or {}), "max_budget": allowed.max_budget}


# ----------------------------------------------------------------------------------- levels ----
def offered_levels(game_id: str, allowed: AgentAllowList) -> list[dict[str, Any]]:
    """The difficulty levels of ``game_id`` (``train/levels.py``, from the committed ladder data), for
    each player count with data: number, name, agent, rating, and why this server refuses the agent
    where it does (a ``--max-budget`` below its search)."""

    out: list[dict[str, Any]] = []
    for n in ladder_counts(game_id):
        try:
            levels = levels_for(game_id, n)
        except LadderError:
            continue
        for lv in sorted(levels, key=lambda x: x.number):
            entry: dict[str, Any] = {"players": n, "level": lv.number, "name": lv.name, "spec": lv.spec,
                                     "rating": round(lv.rating)}
            try:
                allowed.check(lv.spec, game_id)
            except RequestError as exc:
                entry["refused"] = str(exc)
            out.append(entry)
    return out


def level_opponent(game_id: str, options: dict[str, Any], level: Any, opponents: Any) -> str:
    """The agent of difficulty ``level`` (1-5) for a /api/new request's game and options, from the
    committed ladder data; the request's opponents are then this spec, which the allow-list checks
    like any other."""

    if opponents:
        raise RequestError("choose a level or opponents, not both")
    if not isinstance(level, int) or isinstance(level, bool) or level not in LEVEL_NAMES:
        raise RequestError(f"level must be a whole number 1..{len(LEVEL_NAMES)}, got {str(level)[:20]!r}")
    game = make_game(game_id, options)
    try:
        return level_spec(game_id, players_of(game), level, options=game.options()).spec
    except LadderError as exc:
        raise RequestError(scrub(str(exc))) from None


# ---------------------------------------------------------------------------------- options ----
@functools.lru_cache(maxsize=None)
def option_table(game_id: str):
    """The game's ``OptionTable`` (``Game.OPTIONS``), or None."""
    return getattr(type(envs.make_game(game_id)), "OPTIONS", None)


def file_options(game_id: str) -> list[str]:
    """The options of ``game_id`` that name a file (declared ``os.PathLike``): never from a request."""
    table = option_table(game_id)
    return [] if table is None else [o.name for o in table if os.PathLike in o.kinds()]


def check_request_options(game_id: str, options: dict[str, Any]) -> None:
    """RequestError for an option a request may not set: one that names a file, or any option of a
    game that declares no option table (it cannot be checked)."""
    table = option_table(game_id)
    if table is None and options:
        raise RequestError(f"{game_id} declares no option table: the page plays its default variant only")
    for key in options:
        if not isinstance(key, str):
            raise RequestError("option names are text")
        if table is not None and key in table.names() and os.PathLike in table[key].kinds():
            raise RequestError(f"option {key!r} names a file on the server: the web page cannot set it "
                               f"(arena play --opt {key}=... can)", HTTPStatus.FORBIDDEN)


# ---------------------------------------------------------------------------------- pictures ----
def board_png(match: Match) -> bytes:
    """The position as a PNG, from the person's seat (the game's rgb_array picture)."""
    from PIL import Image

    rgb = match.state.render_rgb(observer=match.observer())   # State.render_rgb: every game draws one
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


# ---------------------------------------------------------------------------------- sessions ----
@dataclasses.dataclass
class _Session:
    match: Any
    lock: threading.Lock
    page: str            # the page token's id: the only page that may see or play this game
    address: str         # the client's address
    serial: int          # order of creation


class Sessions:
    """Matches by session id, least recently used first. A page keeps at most ``per_page`` games
    (its least recently used goes). When ``limit`` games are held, the one that goes is the least
    recently used game of the biggest holder: the client address with the most games, then its
    page with the most games; among equals, the newest holder (whose oldest game is the newest).
    A client that floods the server therefore evicts its own games, not the others'."""

    def __init__(self, limit: int = MAX_SESSIONS, per_page: int = MAX_GAMES_PER_PAGE):
        self.limit = limit
        self.per_page = per_page
        self._items: collections.OrderedDict[str, _Session] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._serial = 0

    def __len__(self) -> int:
        return len(self._items)

    @staticmethod
    def _biggest(groups: dict[str, list[_Session]]) -> str:
        """The key with the most games; among equals, the newest (its oldest game the newest)."""
        return max(groups, key=lambda key: (len(groups[key]), min(s.serial for s in groups[key])))

    def _evict_one(self) -> None:
        by_address: dict[str, list[_Session]] = collections.defaultdict(list)
        for item in self._items.values():
            by_address[item.address].append(item)
        address = self._biggest(by_address)
        by_page: dict[str, list[_Session]] = collections.defaultdict(list)
        for item in by_address[address]:
            by_page[item.page].append(item)
        victim_page = self._biggest(by_page)
        for sid, item in self._items.items():   # least recently used first
            if item.page == victim_page:
                del self._items[sid]
                return

    def add(self, match, page: str = "", address: str = "") -> str:
        sid = secrets.token_urlsafe(12)
        with self._lock:
            own = [s for s, item in self._items.items() if item.page == page]
            while len(own) >= self.per_page:
                del self._items[own.pop(0)]
            while len(self._items) >= self.limit:
                self._evict_one()
            self._serial += 1
            self._items[sid] = _Session(match, threading.Lock(), page, address, self._serial)
        return sid

    def get(self, sid: str | None, page: str = "") -> tuple[Any, threading.Lock]:
        with self._lock:
            key = sid or ""
            item = self._items.get(key)
            if item is None or not secrets.compare_digest(item.page.encode(), page.encode()):
                raise RequestError("no such game (the server was restarted or the game expired): "
                                   "start a new one", HTTPStatus.NOT_FOUND)
            self._items.move_to_end(key)
            return item.match, item.lock


class PageTokens:
    """Page tokens: ``NONCE.MAC``, the MAC an HMAC-SHA256 of a random nonce under a key made when
    the server starts. Nothing is stored, so no number of page loads can push a token out."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def _mac(self, nonce: str) -> str:
        return hmac.new(self._key, nonce.encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self) -> str:
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._mac(nonce)}"

    def page(self, token: str | None) -> str | None:
        """The page id (the nonce) of a valid token, else None."""
        if not token or len(token) > 100:
            return None
        nonce, dot, mac = token.partition(".")
        if not dot or not nonce or not re.fullmatch(r"[A-Za-z0-9_-]+", nonce):
            return None
        return nonce if secrets.compare_digest(mac.encode(), self._mac(nonce).encode()) else None


# ----------------------------------------------------------------------------- addresses ----
def is_loopback(host: str) -> bool:
    """Whether ``host`` (a listening address) is reachable from this machine only."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int) -> str | None:
    """The warning ``arena serve`` prints when it listens on more than this machine, else None."""
    if is_loopback(host):
        return None
    where = "every network interface" if host in ("", "0.0.0.0", "::") else host
    return (f"warning: listening on {where} (port {port}): anyone who can reach this port can play "
            f"here and spend this machine's CPU (there is no login). Requests still cannot name files; "
            f"the default, --host 127.0.0.1, keeps the page on this machine.")


def split_host(value: str) -> tuple[str, int | None] | None:
    """``Host`` header -> (lower-case name or IP, port or None); None when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, close, rest = value[1:].partition("]")
        if not close or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else ""
    else:
        name, colon, port_text = value.rpartition(":")
        if not colon:
            name, port_text = value, ""
    if not name or (port_text and not re.fullmatch(r"[0-9]{1,5}", port_text)):
        return None
    return name, int(port_text) if port_text else None


class AllowedHosts:
    """The ``Host`` names that address this server: IP addresses (a rebinding attack needs a name
    the attacker controls; an address is not one), ``localhost``, and the ``--host`` name (with the
    machine's own name when listening on every interface), each with the server's port."""

    def __init__(self, host: str, port: int):
        self.port = port
        self.names = {"localhost"}
        if host and not _is_ip(host):
            self.names.add(host.lower())
        if host in ("", "0.0.0.0", "::"):
            self.names.update({socket.gethostname().lower(), socket.getfqdn().lower()})

    def allows(self, value: str | None) -> bool:
        parts = split_host(value or "")
        if parts is None:
            return False
        name, port = parts
        if (port if port is not None else 80) != self.port:
            return False
        return name in self.names or _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------------------------ state ----
def state_json(sid: str, match: Match, token: str = "") -> dict[str, Any]:
    st = match.state
    over = match.over
    result = match.result()
    return {
        "id": sid, "game": match.game_id, "options": match.options, "seed": match.seed,
        "seat": match.human, "players": match.labels, "to_move": match.to_move,
        "your_turn": match.human_to_move, "phase": st.phase_name(), "moves": len(st.history),
        "legal": [[a, t] for a, t in match.legal_moves()],
        "log": [m.to_dict() for m in match.log],
        "text": st.render_text(observer=match.observer(), color=False),
        "picture": f"/api/board.png?id={sid}&v={len(st.history)}&token={token}",
        "over": over, "result": None if result is None else result.to_dict(match.labels),
    }


NEW_FIELDS = ("game", "options", "opponents", "seat", "seed", "level")


def new_match(body: dict[str, Any], allowed: AgentAllowList | None = None) -> Match:
    """A Match from a /api/new body; every mistake is a RequestError with a readable message."""

    allowed = allowed or AgentAllowList()
    unknown = [k for k in body if k not in NEW_FIELDS]
    if unknown:
        raise RequestError(f"unknown field {unknown[0][:40]!r}; a new game takes {', '.join(NEW_FIELDS)}")
    game = body.get("game")
    if not isinstance(game, str) or not game or len(game) > 100:
        raise RequestError("choose a game")
    options = body.get("options") or {}
    seat = body.get("seat", 0)
    seed = body.get("seed")
    opponents = body.get("opponents") or ["heuristic"]
    try:
        game_id = resolve_game(game)
        if isinstance(options, str):  # the page's text box: a JSON object or KEY=VALUE pairs
            options = parse_env_options([options]) if options.strip() else {}
        if not isinstance(options, dict):
            raise RequestError("options must be a JSON object or KEY=VALUE pairs")
        check_request_options(game_id, options)
        if body.get("level") is not None:   # a difficulty level: its agent, checked by the allow-list below
            opponents = [level_opponent(game_id, options, body["level"], body.get("opponents"))]
        if isinstance(opponents, str):
            opponents = opponents.split()
        if not isinstance(opponents, list) or not 1 <= len(opponents) <= MAX_OPPONENTS:
            raise RequestError(f"opponents must be a list of 1 to {MAX_OPPONENTS} agent specs")
        for spec in opponents:
            allowed.check(spec, game_id)   # before anything is built or opened
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise RequestError(f"seat must be an integer, got {seat!r}")
        if seed in ("", None):
            seed = secrets.randbelow(1_000_000)  # short enough to note down and replay
        elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
            raise RequestError(f"seed must be an integer 0..{MAX_SEED}")
        game_obj = make_game(game_id, options)
        return Match(game_id, options, human=seat, opponents=opponents, seed=seed,
                     agent_factory=allowed.build, game_obj=game_obj)
    except CLIError as exc:
        raise RequestError(scrub(one_line(exc.message) + (f" ({one_line(exc.hint)})" if exc.hint else ""))) from None
    except MatchError as exc:
        raise RequestError(scrub(str(exc))) from None


# ------------------------------------------------------------------------------- JSON bodies ----
def _refuse_constant(name: str):
    raise RequestError(f"the request is not JSON: {name} is not a JSON number")


def parse_body(raw: bytes) -> dict[str, Any]:
    """A POST body -> its JSON object; RequestError (400, with the reason) for anything else."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(f"the request is not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text or "{}", parse_constant=_refuse_constant)
    except RecursionError:
        raise RequestError(f"the request is nested too deeply (at most {MAX_JSON_DEPTH} levels)") from None
    except json.JSONDecodeError as exc:
        raise RequestError(f"the request is not JSON: {exc.msg} at character {exc.pos}") from None
    except ValueError:   # int("9" * 5000): Python's limit on the digits of an integer
        raise RequestError(f"a number in the request has too many digits (at most "
                           f"{sys.get_int_max_str_digits() or 4300})") from None
    if not isinstance(data, dict):
        raise RequestError("the request must be a JSON object")
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise RequestError(f"the request is nested too deeply (at most {MAX_JSON_DEPTH} levels)")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return data


# ----------------------------------------------------------------------------------- server ----
class ArenaServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = REQUEST_QUEUE_SIZE

    def __init__(self, address, defaults: dict[str, Any] | None = None, quiet: bool = True,
                 allowed: AgentAllowList | None = None):
        if ":" in str(address[0]):
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        self.sessions = Sessions()
        self.tokens = PageTokens()
        self.allowed = allowed or AgentAllowList()
        self.defaults = dict(defaults or {})
        self.quiet = quiet
        self._catalog: dict[str, Any] | None = None
        self._catalog_lock = threading.Lock()
        self.page = data_path("app", "static", "play.html").read_bytes()
        self.hosts = AllowedHosts(str(address[0]), int(self.server_address[1]))
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def catalog(self) -> dict[str, Any]:
        with self._catalog_lock:
            if self._catalog is None:
                self._catalog = catalog(self.defaults, self.allowed)
            return self._catalog

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        if isinstance(host, (bytes, bytearray)):   # typeshed allows bytes; AF_INET gives str
            host = host.decode()
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}/"

    # -- at most MAX_CONNECTIONS connections at once -----------------------------------------
    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\nRetry-After: 1\r\n\r\n")
            except OSError:
                pass
            self.close_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def shutdown_request(self, request):
        """Close after a short lingering read: a client whose body was refused unread gets the
        answer instead of a connection reset (at most ``LINGER_BYTES`` in ``LINGER_SECONDS``, discarded)."""
        try:
            request.shutdown(socket.SHUT_WR)
            request.settimeout(LINGER_SECONDS)
            deadline, drained = time.monotonic() + LINGER_SECONDS, 0
            while drained < LINGER_BYTES and time.monotonic() < deadline:
                chunk = request.recv(16384)
                if not chunk:
                    break
                drained += len(chunk)
        except OSError:
            pass
        self.close_request(request)


class Handler(BaseHTTPRequestHandler):
    server: ArenaServer
    protocol_version = "HTTP/1.1"
    server_version = SERVER_NAME
    sys_version = ""
    timeout = CONNECTION_TIMEOUT

    def log_message(self, fmt, *args):  # quiet by default; errors are printed where they happen
        if not self.server.quiet:
            super().log_message(fmt, *args)

    # -- answers ---------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str, cache: bool = False,
              csp: str = API_CSP) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "private, max-age=3600" if cache else "no-store")
        self.send_header("Content-Security-Policy", csp)
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8")

    def send_error(self, code, message=None, explain=None):
        """The standard library's own refusals (a malformed request line, an unknown method, too
        long headers) as JSON with the same headers, closing the connection."""
        self.close_connection = True
        try:
            short = self.responses[code][0]
        except KeyError:
            short = "error"
        text = message or short
        if not getattr(self, "command", None):
            self.command = "GET"   # no request line parsed: still answer with a body
        if getattr(self, "request_version", "HTTP/0.9") == "HTTP/0.9":
            self.request_version = "HTTP/1.1"   # never answer without a status line
        self._json({"error": scrub(str(text))}, code)

    def _page(self) -> None:
        token = self.server.tokens.issue()
        nonce = secrets.token_urlsafe(16)
        body = self.server.page.replace(PAGE_TOKEN, token.encode()).replace(PAGE_NONCE, nonce.encode())
        csp = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
               f"img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
               f"frame-ancestors 'none'")
        self._send(HTTPStatus.OK, body, "text/html; charset=utf-8", csp=csp)

    # -- checks every request passes -------------------------------------------------------------
    def _check_origin(self) -> None:
        """403 unless ``Host`` names this server and ``Origin`` (if sent) is this same server."""
        host = self.headers.get("Host")
        if not self.server.hosts.allows(host):
            raise RequestError("this server answers requests for its own address only (the Host "
                               "header names another: a page from another site?)", HTTPStatus.FORBIDDEN)
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() != f"http://{(host or '').strip().lower()}":
            raise RequestError("cross-site request refused (the Origin is another site)", HTTPStatus.FORBIDDEN)

    def _page_id(self, query: dict[str, str]) -> str:
        """The page token's id (header, or ``token=`` for the board picture); else 403."""
        token = self.headers.get(TOKEN_HEADER)
        if token is None and urlparse(self.path).path == "/api/board.png":
            token = query.get("token")
        page = self.server.tokens.page(token)
        if page is None:
            raise RequestError(f"missing or wrong page token ({TOKEN_HEADER}): reload the page",
                               HTTPStatus.FORBIDDEN)
        return page

    def _body(self) -> dict[str, Any]:
        ctype = self.headers.get("Content-Type", "")
        if ctype.split(";")[0].strip().lower() != "application/json":
            raise RequestError("a POST body must be Content-Type: application/json",
                               HTTPStatus.UNSUPPORTED_MEDIA_TYPE)
        if self.headers.get("Transfer-Encoding") is not None:
            raise RequestError("send the body with a Content-Length (chunked bodies are not read)",
                               HTTPStatus.LENGTH_REQUIRED)
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            raise RequestError("a POST needs a Content-Length", HTTPStatus.LENGTH_REQUIRED)
        if len(set(lengths)) != 1 or not re.fullmatch(r"[0-9]{1,12}", lengths[0].strip()):
            raise RequestError("Content-Length must be one whole number of bytes")
        length = int(lengths[0])
        if length > MAX_BODY:
            raise RequestError(f"request too large (at most {MAX_BODY} bytes)",
                               HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        try:
            raw = self.rfile.read(length) if length else b""
        except (TimeoutError, OSError):
            raise RequestError("the request body did not arrive", HTTPStatus.REQUEST_TIMEOUT) from None
        if len(raw) != length:
            raise RequestError("the request body is shorter than its Content-Length")
        self._body_read = True
        return parse_body(raw)

    def _handle(self, route) -> None:
        self._body_read = False
        try:
            route()
        except RequestError as exc:
            if self.command == "POST" and not self._body_read:
                self.close_connection = True   # an unread body must not be taken for a request
            self._json({"error": scrub(str(exc))}, exc.status)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:  # noqa: BLE001 - a bug: keep serving; the details stay on this machine
            print(f"arena serve: internal error answering {self.command} {urlparse(self.path).path}:",
                  file=sys.stderr, flush=True)
            traceback.print_exc()
            self.close_connection = True
            try:
                self._json({"error": "internal error (the server's terminal has the details)"},
                           HTTPStatus.INTERNAL_SERVER_ERROR)
            except OSError:
                pass

    # -- routes ----------------------------------------------------------------------------------
    def do_GET(self):
        self._handle(self._get)

    def do_HEAD(self):
        self._handle(self._get)

    def do_POST(self):
        self._handle(self._post)

    def _get(self):
        self._check_origin()
        if self.headers.get("Content-Length", "0").strip() not in ("", "0") or \
                self.headers.get("Transfer-Encoding") is not None:
            self.close_connection = True   # a body on a GET is not read: never a next request
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if url.path in ("/", "/index.html"):
            self._page()
            return
        if url.path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon", cache=True)
            return
        if not url.path.startswith("/api/"):
            raise RequestError("no such page", HTTPStatus.NOT_FOUND)
        page = self._page_id(query)
        if url.path == "/api/catalog":
            self._json(self.server.catalog())
        elif url.path == "/api/state":
            sid = query.get("id") or ""
            match, lock = self.server.sessions.get(sid, page)
            with lock:
                self._json(state_json(sid, match, self.headers.get(TOKEN_HEADER, "")))
        elif url.path == "/api/board.png":
            match, lock = self.server.sessions.get(query.get("id"), page)
            try:
                with lock:
                    png = board_png(match)
            except ImportError:
                raise RequestError("pictures need Pillow (pip install pillow); the text view "
                                   "shows the position", HTTPStatus.NOT_IMPLEMENTED) from None
            self._send(HTTPStatus.OK, png, "image/png", cache=True)
        else:
            raise RequestError("no such API", HTTPStatus.NOT_FOUND)

    def _post(self):
        self._check_origin()
        url = urlparse(self.path)
        if url.path not in ("/api/new", "/api/move"):
            raise RequestError("no such API", HTTPStatus.NOT_FOUND)
        page = self._page_id({})
        body = self._body()
        token = self.headers.get(TOKEN_HEADER, "")
        if url.path == "/api/new":
            match = new_match(body, self.server.allowed)
            self._json(state_json(self.server.sessions.add(match, page, str(self.client_address[0])),
                                  match, token))
            return
        sid = body.get("id")
        if not isinstance(sid, str) or len(sid) > 100:
            raise RequestError("id must be the game's id (a short text)")
        match, lock = self.server.sessions.get(sid, page)
        action = body.get("action")
        if not isinstance(action, int) or isinstance(action, bool):
            raise RequestError("action must be an integer")
        with lock:
            if match.over:
                raise RequestError("the game is over: start a new one")
            if not match.human_to_move:
                raise RequestError("it is not your turn")
            legal = dict(match.legal_moves())
            if action not in legal:
                why = (match.state.illegal_reason(action) if 0 <= action < match.game.num_actions
                       else "out of range")
                raise RequestError(f"action {action} is not a legal move here ({why})")
            match.play(action)
            self._json(state_json(sid, match, token))


def make_server(host: str = "127.0.0.1", port: int = 8000, defaults: dict[str, Any] | None = None,
                quiet: bool = True, allowed: AgentAllowList | None = None) -> ArenaServer:
    """A server bound to ``host:port`` (port 0: a free one); call ``serve_forever()`` on it."""
    return ArenaServer((host, port), defaults=defaults, quiet=quiet, allowed=allowed)


def preload_agents() -> None:
    """Load torch and the trained agents' code now, in the background, so that the first game
    against a trained agent starts in about a second instead of the ~20 s that importing torch
    took on a busy machine (the page says that it is loading meanwhile; ``arena serve`` builds
    preset opponents before it starts). A failure here changes nothing: the game that needs the
    agent reports it."""
    try:
        import torch  # noqa: F401  (the slow import: the networks' modules load it)

        from ..agents import ppo  # noqa: F401
    except Exception:  # noqa: BLE001 - best effort (no torch: the page's agents say so)
        pass


def serve(host: str = "127.0.0.1", port: int = 8000, defaults: dict[str, Any] | None = None,
          open_browser: bool = False, allowed: AgentAllowList | None = None) -> int:
    """Run the server until Ctrl-C (``arena serve``)."""

    try:
        server = make_server(host, port, defaults, allowed=allowed)
    except OSError as exc:
        raise CLIError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                       hint="another program may use the port: try --port 8001, or --port 0 for any free one") from None
    server.catalog()  # built once (about a second) before the first visitor asks
    threading.Thread(target=preload_agents, name="arena-preload", daemon=True).start()
    warning = exposure_warning(host, int(server.server_address[1]))
    if warning:
        print(warning, file=sys.stderr, flush=True)
    print(f"Tabletop Arena: open {server.url} in a browser (Ctrl-C stops the server)", flush=True)
    if open_browser:
        import webbrowser
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
