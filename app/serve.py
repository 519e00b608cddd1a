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
from ..envs.core.resources import data_path
from ..train.levels import LEVEL_NAMES, LadderError, ladder_counts, level_spec, levels_for, players_of
from ..train.play import MatchError
from .cli_common import CLIError, make_game, one_line, parse_env_options, resolve_game
from .hosts import AllowedHosts, exposure_warning
from .match import Match
from .offer import AgentAllowList, RequestError

MAX_SESSIONS = 200            # games held in memory, all clients together
MAX_GAMES_PER_PAGE = 4        # games of one page token (the page plays its newest)
DEFAULT_OPPONENTS = {"default": "heuristic"}
MAX_BODY = 1 << 16            # bytes of a POST body
MAX_JSON_DEPTH = 32           # nesting of a POST body
MAX_OPPONENTS = 8             # agent specs in one /api/new
MAX_SEED = 2**63 - 1
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


# ---------------------------------------------------------------------------------- catalog ----
def catalog(defaults: dict[str, Any] | None = None, allowed: AgentAllowList | None = None) -> dict[str, Any]:
    """Games (with variants and player counts), the agents offered per game, and the presets."""
    allowed = allowed or AgentAllowList()
    games: list[dict[str, Any]] = []
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
                      "default_options": default_game.options_json(),
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
