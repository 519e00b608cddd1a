"""``arena serve``: a local web page where a person plays any game against any agent.

One command, no account, no internet: the standard library's HTTP server, one static page
(``train/static/play.html``, package data, no outside assets) and a small JSON API over
``train.play.Match``. Games live in memory, one per session id (the newest ``MAX_SESSIONS``).

| method, path                | body / query                         | answer                          |
|-----------------------------|--------------------------------------|---------------------------------|
| GET  /                      |                                      | the page                        |
| GET  /api/catalog           |                                      | games, variants, agents, presets|
| POST /api/new               | game, options, opponents, seat, seed | state                           |
| GET  /api/state             | ?id=SESSION                          | state                           |
| POST /api/move              | id, action                           | state (after the agents' moves) |
| GET  /api/board.png         | ?id=SESSION&v=MOVES                  | the board picture (PNG)         |

A *state* is JSON: ``id, game, options, seed, seat, players (labels), to_move, your_turn, phase,
legal ([[action, text], ...], yours only), log ([{number, player, who, action, text}, ...]),
text (the position as text, from your seat's view), picture (URL), over, result``. Errors answer
``{"error": "..."}`` with status 400 (bad request), 404 (no such session) or 500.
"""
from __future__ import annotations

import collections
import io
import json
import secrets
import sys
import threading
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from .. import envs
from ..envs.core.resources import data_path
from .play import Match, MatchError

MAX_SESSIONS = 200
DEFAULT_OPPONENTS = {"default": "heuristic"}
MAX_BODY = 1 << 16


class RequestError(Exception):
    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------------- catalog ----
def catalog(defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """Games (with variants and player counts), the agents offered per game, and the presets."""
    from ..agents.registry import has_heuristic
    from ..agents.shipped import agent_kind, shipped_agents

    shipped = shipped_agents()
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
        agents = (["heuristic"] if has_heuristic(name) else []) + ["random", "mcts:50", "mcts:200"]
        agents += [f"{agent_kind(e)}:{n}" for n, e in shipped.items() if e.get("game") == name]
        games.append({"id": name, "description": sp.description, "players": sp.players,
                      "default_options": json.loads(json.dumps(default_game.options(), default=str)),
                      "variants": variants, "agents": agents,
                      "shipped": {f"{agent_kind(e)}:{n}": e.get("variant", "") for n, e in shipped.items()
                                  if e.get("game") == name}})
    return {"games": games, "defaults": dict(defaults or {})}


# ---------------------------------------------------------------------------------- pictures ----
def board_png(match: Match) -> bytes:
    """The position as a PNG, from the person's seat (the game's rgb_array picture)."""
    from PIL import Image

    rgb = match.state.render_rgb(observer=match.observer())   # State.render_rgb: every game draws one
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


# ---------------------------------------------------------------------------------- sessions ----
class Sessions:
    """Matches by session id, newest last; the oldest go when there are more than ``limit``."""

    def __init__(self, limit: int = MAX_SESSIONS):
        self.limit = limit
        self._items: collections.OrderedDict[str, tuple[Match, threading.Lock]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def add(self, match: Match) -> str:
        sid = secrets.token_urlsafe(12)
        with self._lock:
            self._items[sid] = (match, threading.Lock())
            while len(self._items) > self.limit:
                self._items.popitem(last=False)
        return sid

    def get(self, sid: str | None) -> tuple[Match, threading.Lock]:
        with self._lock:
            key = sid or ""
            item = self._items.get(key)
            if item is None:
                raise RequestError("no such game (the server was restarted or the game expired): "
                                   "start a new one", HTTPStatus.NOT_FOUND)
            self._items.move_to_end(key)
            return item


def state_json(sid: str, match: Match) -> dict[str, Any]:
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
        "picture": f"/api/board.png?id={sid}&v={len(st.history)}",
        "over": over, "result": None if result is None else result.to_dict(match.labels),
    }


def new_match(body: dict[str, Any]) -> Match:
    """A Match from a /api/new body; every mistake is a RequestError with a readable message."""
    from .cli_common import CLIError, make_agent, make_game, one_line, parse_env_options, resolve_game

    game = body.get("game")
    if not isinstance(game, str) or not game:
        raise RequestError("choose a game")
    options = body.get("options") or {}
    seat = body.get("seat", 0)
    seed = body.get("seed")
    opponents = body.get("opponents") or ["heuristic"]
    try:
        if isinstance(options, str):  # the page's text box: a JSON object or KEY=VALUE pairs
            options = parse_env_options([options]) if options.strip() else {}
        if not isinstance(options, dict):
            raise RequestError(f"options must be a JSON object, got {options!r}")
        if isinstance(opponents, str):
            opponents = opponents.split()
        if not isinstance(opponents, list) or not all(isinstance(o, str) and o for o in opponents):
            raise RequestError(f"opponents must be agent specs, got {opponents!r}")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise RequestError(f"seat must be an integer, got {seat!r}")
        if seed in ("", None):
            seed = secrets.randbelow(1_000_000)  # short enough to note down and replay
        elif not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise RequestError(f"seed must be a non-negative integer, got {seed!r}")
        game_id = resolve_game(game)
        game_obj = make_game(game_id, options)
        return Match(game_id, options, human=seat, opponents=opponents, seed=seed,
                     agent_factory=make_agent, game_obj=game_obj)
    except CLIError as exc:
        raise RequestError(one_line(exc.message) + (f" ({one_line(exc.hint)})" if exc.hint else "")) from None
    except MatchError as exc:
        raise RequestError(str(exc)) from None


# ----------------------------------------------------------------------------------- server ----
class ArenaServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, defaults: dict[str, Any] | None = None, quiet: bool = True):
        super().__init__(address, Handler)
        self.sessions = Sessions()
        self.defaults = dict(defaults or {})
        self.quiet = quiet
        self._catalog: dict[str, Any] | None = None
        self.page = data_path("train", "static", "play.html").read_bytes()

    def catalog(self) -> dict[str, Any]:
        if self._catalog is None:
            self._catalog = catalog(self.defaults)
        return self._catalog

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        if isinstance(host, (bytes, bytearray)):   # typeshed allows bytes; AF_INET gives str
            host = host.decode()
        return f"http://{host}:{port}/"


class Handler(BaseHTTPRequestHandler):
    server: ArenaServer
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet by default; errors are printed where they happen
        if not self.server.quiet:
            super().log_message(fmt, *args)

    # -- answers ---------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str, cache: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600" if cache else "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8")

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise RequestError("request too large")
        raw = self.rfile.read(length) if length else b"{}"
        try:
            data = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            raise RequestError(f"the request is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise RequestError("the request must be a JSON object")
        return data

    def _handle(self, route) -> None:
        try:
            route()
        except RequestError as exc:
            self._json({"error": str(exc)}, exc.status)
        except Exception as exc:  # noqa: BLE001 - a bug: keep serving, show it on the page and here
            traceback.print_exc()
            self._json({"error": f"internal error: {type(exc).__name__}: {exc}"},
                       HTTPStatus.INTERNAL_SERVER_ERROR)

    # -- routes ----------------------------------------------------------------------------------
    def do_GET(self):
        self._handle(self._get)

    def do_HEAD(self):
        self._handle(self._get)

    def do_POST(self):
        self._handle(self._post)

    def _get(self):
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if url.path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        elif url.path == "/api/catalog":
            self._json(self.server.catalog())
        elif url.path == "/api/state":
            sid = query.get("id") or ""
            match, lock = self.server.sessions.get(sid)
            with lock:
                self._json(state_json(sid, match))
        elif url.path == "/api/board.png":
            match, lock = self.server.sessions.get(query.get("id"))
            try:
                with lock:
                    png = board_png(match)
            except ImportError:
                raise RequestError("pictures need Pillow (pip install pillow); the text view "
                                   "shows the position", HTTPStatus.NOT_IMPLEMENTED) from None
            self._send(HTTPStatus.OK, png, "image/png", cache=True)
        elif url.path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon", cache=True)
        else:
            raise RequestError(f"no page {url.path}", HTTPStatus.NOT_FOUND)

    def _post(self):
        url = urlparse(self.path)
        body = self._body()
        if url.path == "/api/new":
            match = new_match(body)
            sid = self.server.sessions.add(match)
            self._json(state_json(sid, match))
        elif url.path == "/api/move":
            sid = str(body.get("id") or "")
            match, lock = self.server.sessions.get(sid)
            action = body.get("action")
            if not isinstance(action, int) or isinstance(action, bool):
                raise RequestError(f"action must be an integer, got {action!r}")
            with lock:
                if match.over:
                    raise RequestError("the game is over: start a new one")
                if not match.human_to_move:
                    raise RequestError("it is not your turn")
                legal = dict(match.legal_moves())
                if action not in legal:
                    raise RequestError(f"action {action} is not a legal move here "
                                       f"({match.state.illegal_reason(action) if 0 <= action < match.game.num_actions else 'out of range'})")
                match.play(action)
                self._json(state_json(sid, match))
        else:
            raise RequestError(f"no API {url.path}", HTTPStatus.NOT_FOUND)


def make_server(host: str = "127.0.0.1", port: int = 8000, defaults: dict[str, Any] | None = None,
                quiet: bool = True) -> ArenaServer:
    """A server bound to ``host:port`` (port 0: a free one); call ``serve_forever()`` on it."""
    return ArenaServer((host, port), defaults=defaults, quiet=quiet)


def serve(host: str = "127.0.0.1", port: int = 8000, defaults: dict[str, Any] | None = None,
          open_browser: bool = False) -> int:
    """Run the server until Ctrl-C (``arena serve``)."""
    from .cli_common import CLIError

    try:
        server = make_server(host, port, defaults)
    except OSError as exc:
        raise CLIError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                       hint="another program may use the port: try --port 8001, or --port 0 for any free one") from None
    server.catalog()  # built once (about a second) before the first visitor asks
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
