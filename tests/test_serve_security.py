"""``arena serve`` attacked as a web page, a local program or a network client would (issue 40),
through a real HTTP server on a free loopback port: every attack is refused with a 4xx, nothing a
request names is opened (an audit hook records every file the process opens), nothing crafted is
unpickled (a marker file would be written), and no answer carries a traceback or a server path.
"""
from __future__ import annotations

import base64
import json
import os
import pickle
import re
import socket
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.app import offer
from tabletop_arena.app import serve as serve_module
from tabletop_arena.app.serve import make_server

# ---------------------------------------------------------------------------------- spying ----
_OPENED: list[str] | None = None   # paths opened while a test records, by any thread


def _audit(event: str, args) -> None:
    if _OPENED is not None and event in ("open", "os.listdir", "os.scandir", "shutil.copyfile"):
        target = args[0] if args else None
        if isinstance(target, (str, bytes, os.PathLike)):
            _OPENED.append(os.fsdecode(target))


sys.addaudithook(_audit)   # cannot be removed; it does nothing unless a test records


class opened_files:
    """``with opened_files() as seen:`` every path opened meanwhile, by any thread."""

    def __enter__(self) -> list[str]:
        global _OPENED
        _OPENED = []
        return _OPENED

    def __exit__(self, *exc) -> None:
        global _OPENED
        _OPENED = None


class _Marker:
    """Unpickling this writes a file: the proof that a crafted checkpoint's code ran."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "code ran"))


def crafted_checkpoint(path: Path, marker: Path, game_id: str = "zaka_v0") -> Path:
    """A pickled (SB3) checkpoint for ``game_id`` whose ``data`` member writes ``marker`` when
    unpickled, the way ``stable_baselines3`` reads it (cloudpickle of a ``:serialized:`` entry)."""
    from tabletop_arena.agents.ppo import game_metadata

    meta = dict(game_metadata(envs.make_game(game_id), game_id), format="tabletop-arena-ppo/1")
    payload = base64.b64encode(pickle.dumps(_Marker(marker), protocol=4)).decode()
    data = {"policy_class": {":type:": "<class 'type'>", ":serialized:": payload}}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", b"not weights")
        zf.writestr("arena_meta.json", json.dumps(meta))
    return path


# ------------------------------------------------------------------------------------ server ----
@pytest.fixture(scope="module")
def server():
    srv = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def host_of(srv) -> str:
    return f"127.0.0.1:{srv.server_address[1]}"


def page(srv, headers: dict | None = None) -> tuple[int, dict, bytes]:
    return raw(srv, "GET", "/", headers or {})


def token_of(srv) -> str:
    """A fresh page token, read from the page ("" from a server that has none)."""
    _, _, body = page(srv)
    found = re.search(rb'name="arena-token" content="([^"]+)"', body)
    return found.group(1).decode() if found else ""


def raw(srv, method: str, path: str, headers: dict, body: bytes = b"", content_length: bool = True,
        timeout: float = 20.0) -> tuple[int, dict, bytes]:
    """One request over a fresh connection, headers exactly as given (``Host`` defaults to the
    server's; ``Content-Length`` to the body's unless given or ``content_length`` is False)."""
    head = {"Host": host_of(srv), "Connection": "close"}
    head.update(headers)
    if body and content_length and not any(k.lower() == "content-length" for k in head):
        head["Content-Length"] = str(len(body))
    lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in head.items()]
    with socket.create_connection(srv.server_address[:2], timeout=timeout) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        return read_response(sock)


def read_response(sock) -> tuple[int, dict, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def api(srv, method: str, path: str, body=None, token: str | None = None, headers: dict | None = None,
        content_type: str = "application/json") -> tuple[int, dict, dict]:
    """A well-formed API call with ``token`` (default: a fresh page's); the answer as JSON."""
    head = {"X-Arena-Token": token_of(srv) if token is None else token}
    data = b""
    if method == "POST":
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        head["Content-Type"] = content_type
    head.update(headers or {})
    status, answer_headers, raw_body = raw(srv, method, path, head, data)
    assert_clean(raw_body)
    try:
        parsed = json.loads(raw_body) if raw_body else {}
    except ValueError:
        parsed = {"raw": raw_body.decode("latin-1")}
    return status, answer_headers, parsed


SERVER_PATHS = [p for p in {str(Path(serve_module.__file__).resolve().parents[1]), os.getcwd(), str(Path.home())}
                if len(p) > 1]


def assert_clean(body: bytes) -> None:
    text = body.decode("utf-8", "replace")
    assert "Traceback" not in text and 'File "' not in text, text
    for root in SERVER_PATHS:
        assert root not in text, f"the answer shows the server path {root}: {text}"


# ------------------------------------------------------------------- files named in a request ----
@pytest.fixture
def crafted(tmp_path, monkeypatch):
    """A crafted pickled checkpoint (writes ``marker`` when unpickled) at tmp_path/evil.zip, a
    secret rules file, and the server's working folder at tmp_path/work (for relative paths)."""
    marker = tmp_path / "MARKER"
    evil = crafted_checkpoint(tmp_path / "evil.zip", marker)
    secret = tmp_path / "secret.yaml"
    secret.write_text("root:TOPSECRET-LINE: 1\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "evil.zip").write_bytes(evil.read_bytes())
    monkeypatch.chdir(work)
    return {"marker": marker, "evil": evil, "secret": secret, "dir": tmp_path}


def path_specs(evil: Path) -> list[str]:
    absolute, relative, dotdot = str(evil), "evil.zip", "../evil.zip"
    home = "~/" + os.path.relpath(evil, Path.home()) if str(evil).startswith(str(Path.home())) else "~/evil.zip"
    specs = []
    for ref in (absolute, relative, dotdot, home, "./evil.zip", f"{evil.parent}/../{evil.parent.name}/evil.zip"):
        specs += [f"ppo:{ref}", f"puct:4:{ref}", f"rollout:2:{ref}", f"rollout:2,k=2,by=random:{ref}",
                  f"vlook:{ref}"]
    return specs


def test_opponents_that_name_a_file_are_refused_and_never_opened(server, crafted):
    specs = path_specs(crafted["evil"])
    token = token_of(server)
    with opened_files() as seen:
        answers = [api(server, "POST", "/api/new", {"game": "zaka", "opponents": [spec]}, token=token)
                   for spec in specs]
    for spec, (status, _, body) in zip(specs, answers):
        assert status in (400, 403), (spec, status, body)
        assert "not an agent this server offers" in body["error"], (spec, body)
    touched = [p for p in seen if str(crafted["dir"]) in os.path.abspath(p) or p.endswith("evil.zip")]
    assert touched == [], f"a request opened {touched}"
    assert not crafted["marker"].exists(), "the crafted checkpoint's code ran"


def test_refusals_do_not_tell_whether_a_path_exists(server, crafted):
    token = token_of(server)
    here = api(server, "POST", "/api/new", {"game": "zaka", "opponents": [f"ppo:{crafted['evil']}"]}, token=token)
    gone = api(server, "POST", "/api/new", {"game": "zaka", "opponents": [f"ppo:{crafted['dir']}/nothing.zip"]},
               token=token)
    assert here[0] == gone[0]
    assert here[2]["error"].replace("evil.zip", "nothing.zip") == gone[2]["error"]


def test_file_options_are_refused_by_name_and_never_read(server, crafted):
    secret = str(crafted["secret"])
    token = token_of(server)
    bodies = [{"game": game, "options": {"config_path": secret}} for game in envs.names()
              if "config_path" in serve_module.file_options(game)]
    assert len(bodies) >= 4   # every game with a rules file takes config_path
    bodies += [{"game": "zaka", "options": f"config_path={secret}"},
               {"game": "zaka", "options": json.dumps({"config_path": "/etc/shadow"})},
               {"game": "zaka", "options": {"config_path": "../secret.yaml"}},
               {"game": "peacekeepers", "options": {"mode": "competitive", "config_path": "/proc/self/environ"}}]
    with opened_files() as seen:
        answers = [api(server, "POST", "/api/new", body, token=token) for body in bodies]
    for body, (status, _, answer) in zip(bodies, answers):
        assert status == 403 and "names a file on the server" in answer["error"], (body, answer)
        assert "TOPSECRET" not in json.dumps(answer)
    assert [p for p in seen if "secret" in p or "shadow" in p or "environ" in p] == []


def test_every_file_valued_option_of_every_game_is_refused():
    """The class of config_path: any option declared as a file (os.PathLike), in every game."""
    from tabletop_arena.envs.core.options import Option, OptionTable

    for game in envs.names():
        table = serve_module.option_table(game)
        assert table is not None, f"{game} declares no option table"
        declared = [o.name for o in table if os.PathLike in o.kinds()]
        assert serve_module.file_options(game) == declared
        for name in declared:
            with pytest.raises(serve_module.RequestError, match="names a file"):
                serve_module.check_request_options(game, {name: "x.yaml"})
    fake = OptionTable("fake", Option("layout_file", os.PathLike, None))
    assert [o.name for o in fake if os.PathLike in o.kinds()] == ["layout_file"]


# --------------------------------------------------------------------------- cross-site calls ----
def new_game_body() -> bytes:
    return json.dumps({"game": "zaka", "opponents": ["random"], "seed": 3}).encode()


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "", "application/jsonx",
                                          "text/json"])
def test_posts_that_a_cross_site_form_can_send_are_refused(server, content_type):
    head = {"X-Arena-Token": token_of(server)}
    if content_type:
        head["Content-Type"] = content_type
    status, headers, body = raw(server, "POST", "/api/new", head, new_game_body())
    assert status == 415, (content_type, status, body)
    assert_clean(body)


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "https://127.0.0.1", "http://127.0.0.1:1",
                                    "http://localhost.evil.example"])
def test_a_foreign_origin_is_refused(server, origin):
    token = token_of(server)
    for method, path in (("POST", "/api/new"), ("GET", "/api/catalog"), ("GET", "/")):
        status, _, body = api(server, method, path, {"game": "zaka", "opponents": ["random"]}, token=token,
                              headers={"Origin": origin})
        assert status == 403 and "another site" in body["error"], (origin, path, status, body)
    status, _, _ = api(server, "GET", "/api/catalog", token=token,
                       headers={"Origin": f"http://{host_of(server)}"})   # the page itself
    assert status == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "attacker.test:{port}",
                                  "127.0.0.1:1", "localhost.:{port}", "", "127.0.0.1:{port}:x"])
def test_a_foreign_host_is_refused_against_dns_rebinding(server, host):
    host = host.format(port=server.server_address[1])
    for method, path in (("GET", "/"), ("GET", "/api/catalog"), ("POST", "/api/new")):
        status, _, body = api(server, method, path, {"game": "zaka", "opponents": ["random"]},
                              token=token_of(server), headers={"Host": host})
        assert status == 403, (host, path, status, body)
        assert "token" not in body   # the page (and its token) is not handed to a rebinding page


def test_local_names_of_the_server_are_served(server):
    port = server.server_address[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        status, _, body = raw(server, "GET", "/", {"Host": host})
        assert status == 200 and b"arena-token" in body, host


def test_every_api_call_needs_the_page_token(server):
    good = token_of(server)
    status, _, st = api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"], "seed": 1}, token=good)
    assert status == 200
    nonce, _, mac = good.partition(".")
    other = "B" if nonce.endswith("A") else "A"   # a nonce ending in A made this 'forgery' the real token
    forged = [None, "", "x", good + "x", f"{nonce}.{'0' * len(mac)}", f"{nonce[:-1]}{other}.{mac}", "." + mac,
              f"{nonce}.", good.upper(), "a" * 5000]
    calls = [("GET", "/api/catalog", None), ("GET", f"/api/state?id={st['id']}", None),
             ("GET", f"/api/board.png?id={st['id']}", None),
             ("POST", "/api/new", {"game": "zaka", "opponents": ["random"]}),
             ("POST", "/api/move", {"id": st["id"], "action": st["legal"][0][0]})]
    for token in forged:
        for method, path, body in calls:
            headers = {} if token is None else {"X-Arena-Token": token}
            data = json.dumps(body).encode() if body is not None else b""
            if data:
                headers["Content-Type"] = "application/json"
            status, _, answer = raw(server, method, path, headers, data)
            assert status == 403, (token, path, status, answer)
            assert b"page token" in answer
    # the board picture takes the token in its URL (an <img> sends no header); that URL works
    status, headers, png = raw(server, "GET", st["picture"], {})
    assert status == 200 and png[:4] == b"\x89PNG" and headers["x-content-type-options"] == "nosniff"
    status, _, _ = raw(server, "GET", f"/api/board.png?id={st['id']}&token=forged", {})
    assert status == 403
    # nothing moved
    status, _, again = api(server, "GET", f"/api/state?id={st['id']}", token=good)
    assert status == 200 and again["moves"] == st["moves"]


def test_a_game_belongs_to_the_page_that_started_it(server):
    mine, other = token_of(server), token_of(server)
    assert mine != other   # a new token each page load
    status, _, st = api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"]}, token=mine)
    assert status == 200
    for method, path, body in (("GET", f"/api/state?id={st['id']}", None),
                               ("POST", "/api/move", {"id": st["id"], "action": st["legal"][0][0]})):
        status, _, answer = api(server, method, path, body, token=other)
        assert status == 404, answer
    status, _, _ = raw(server, "GET", st["picture"].replace(mine, other), {})
    assert status == 404


# ------------------------------------------------------------------------- malformed bodies ----
def post_raw(srv, headers: dict, body: bytes, content_length: bool = True, timeout: float = 20.0):
    head = {"X-Arena-Token": token_of(srv), "Content-Type": "application/json"}
    head.update(headers)
    status, answer_headers, raw_body = raw(srv, "POST", "/api/new", head, body,
                                           content_length=content_length, timeout=timeout)
    assert_clean(raw_body)
    return status, json.loads(raw_body)["error"] if raw_body else ""


@pytest.mark.parametrize("length, status, words", [
    ("-1", 400, "Content-Length"), ("abc", 400, "Content-Length"), ("+5", 400, "Content-Length"),
    ("1e3", 400, "Content-Length"), ("0x10", 400, "Content-Length"), ("5, 5", 400, "Content-Length"),
    ("99999999999", 413, "too large"), (str((1 << 16) + 1), 413, "too large"),
])
def test_bad_content_lengths_are_refused_without_reading_the_body(server, length, status, words):
    # the body is never sent in full: an answer proves the server did not wait to read it
    got, error = post_raw(server, {"Content-Length": length}, b'{"game": "zaka"', timeout=10)
    assert got == status and words in error, (length, got, error)


def test_a_post_without_a_length_is_refused(server):
    status, error = post_raw(server, {}, b"", content_length=False)
    assert status == 411 and "Content-Length" in error
    status, error = post_raw(server, {"Transfer-Encoding": "chunked"}, b"5\r\n{}\r\n0\r\n\r\n", content_length=False)
    assert status == 411


@pytest.mark.parametrize("body, words", [
    (b"[" * 30000 + b"]" * 30000, "nested too deeply"),
    (b'{"game": "zaka", "options": ' + b'{"a": ' * 40 + b"1" + b"}" * 41, "nested too deeply"),
    (b'{"game": "zaka", "seed": ' + b"7" * 5001 + b"}", "too many digits"),
    (b'{"game": "zaka", "seed": -' + b"7" * 5001 + b"}", "too many digits"),
    (b'{"game": "zaka\xff\xfe"}', "not UTF-8"),
    (b'\xef\xbb\xbf{"game": "zaka"}', "not JSON"),
    (b'{"game": "zaka", "seed": NaN}', "NaN"),
    (b'{"game": "zaka", "seed": Infinity}', "Infinity"),
    (b'{"game": "zaka", "seed": 18446744073709551616}', "seed"),
    (b'{"game": "zaka", "opponents": ' + json.dumps(["random"] * 50).encode() + b"}", "opponents"),
    (b'{"game": "zaka", "evil": 1}', "unknown field"),
])
def test_malformed_bodies_get_a_400_with_the_reason(server, body, words):
    status, error = post_raw(server, {}, body)
    assert status == 400 and words in error, (body[:60], status, error)


def test_malformed_moves_get_a_400(server):
    token = token_of(server)
    status, _, st = api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"]}, token=token)
    for body, words in (({"id": st["id"], "action": "1"}, "integer"), ({"id": st["id"], "action": 10**400}, "not a legal"),
                        ({"id": st["id"], "action": -5}, "out of range"), ({"id": ["x"], "action": 1}, "id"),
                        ({"id": st["id"], "action": True}, "integer")):
        status, _, answer = api(server, "POST", "/api/move", body, token=token)
        assert status == 400 and words in answer["error"], (body, answer)


def test_malformed_requests_are_answered_in_json_without_details(server):
    for line in (b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"PUT /api/new HTTP/1.1\r\n\r\n",
                 b"OPTIONS /api/new HTTP/1.1\r\nOrigin: http://evil.example\r\n\r\n",
                 b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 120 + b"\r\n"):
        with socket.create_connection(server.server_address[:2], timeout=20) as sock:
            sock.sendall(line)
            status, headers, body = read_response(sock)
        assert 400 <= status < 600 and status != 500, (line[:30], status)
        assert headers.get("content-type", "").startswith("application/json")
        assert headers.get("x-content-type-options") == "nosniff"
        assert "access-control-allow-origin" not in headers   # no CORS, so no preflight passes
        assert_clean(body)


def test_an_unexpected_error_is_a_500_without_details(server, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError(f"secret detail at {Path(serve_module.__file__).resolve()}")
    monkeypatch.setattr(serve_module, "state_json", broken)
    status, _, body = api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"]})
    assert status == 500 and body == {"error": "internal error (the server's terminal has the details)"}
    assert "secret detail" in capsys.readouterr().err   # the details are on the server's terminal


def test_error_messages_carry_no_server_path(server, monkeypatch):
    from tabletop_arena.app import cli_common

    where = str(Path(serve_module.__file__).resolve().parents[1] / "checkpoints" / "zaka_v0" / "x.zip")

    def failing(spec, game, seed=None, **kwargs):
        raise cli_common.CLIError(f"agent {spec!r}: corrupt checkpoint {where}: line 1 of the file")
    monkeypatch.setattr(offer, "make_agent", failing)   # where the server looks it up
    status, _, body = api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["ppo:zaka"]})
    assert status == 400 and "ppo:zaka" in body["error"] and "line 1" not in body["error"]
    assert serve_module.scrub(f"no file {where}") == "no file …/checkpoints/zaka_v0/x.zip"


# ---------------------------------------------------------------------------- search budgets ----
@pytest.mark.parametrize("spec", ["mcts:3000", "mcts:401", "puct:5000:zaka", "puct:41:zaka", "rollout:2:zaka",
                                  "rollout:101,by=random:zaka", "rollout:50,k=10,by=random:zaka",
                                  "rollout:1,k=500,by=random:zaka", "rollout:64,k=16,gate=1:zaka",
                                  "rollout:1,k=2,by=random,alloc=halving,moves=20050:zaka",
                                  "mcts:99999999999999999999"])
def test_search_budgets_over_the_cap_are_refused(server, spec):
    status, _, body = api(server, "POST", "/api/new", {"game": "zaka", "opponents": [spec]})
    assert status == 400, (spec, body)
    assert "at most 400 (arena serve --max-budget)" in body["error"] or "whole number" in body["error"], body


def test_the_budget_cap_is_set_on_the_command_line():
    allowed = offer.AgentAllowList(max_budget=50)
    assert allowed.check("mcts:50", "zaka_v0") == "mcts:50"
    # a budget in moves is charged as MOVES_A_CHARGED_ROLLOUT moves a rollout
    from tabletop_arena.agents.registry import MOVES_A_CHARGED_ROLLOUT
    fits = f"rollout:1,k=2,by=random,alloc=halving,moves={50 * MOVES_A_CHARGED_ROLLOUT}:zaka"
    assert allowed.check(fits, "zaka_v0") == fits
    with pytest.raises(serve_module.RequestError, match="at most 50"):
        allowed.check(fits.replace(f"moves={50 * MOVES_A_CHARGED_ROLLOUT}", f"moves={50 * MOVES_A_CHARGED_ROLLOUT + 1}"), "zaka_v0")
    for spec in ("mcts", "mcts:51", "puct:6:zaka", "rollout:13,by=random:zaka", "rollout:1:zaka"):   # mcts: 200
        with pytest.raises(serve_module.RequestError, match="at most 50"):
            allowed.check(spec, "zaka_v0")
    assert [s for s, _ in allowed.offered("zaka_v0") if s.startswith("mcts")] == ["mcts:50"]
    # the shipped entries' strongest specs are offered as listed, whatever the cap
    from tabletop_arena.agents.shipped import shipped_agents
    for entry in shipped_agents().values():
        if entry.get("strongest"):
            assert allowed.check(entry["strongest"], entry["game"]) == entry["strongest"]
            assert entry["strongest"] in [s for s, _ in allowed.offered(entry["game"])]


def test_specs_are_checked_strictly():
    allowed = offer.AgentAllowList()
    for spec in ("MCTS:5", "mcts: 5", " mcts:5", "mcts:-5", "mcts:0", "mcts:1e3", "random:1", "heuristic:x",
                 "ppo:", "puct:5", "puct::zaka", "rollout:5,k=x:zaka", "rollout:5,evil=1:zaka", "exec:x",
                 "ppo:zaka\x00", "ppo:ZAKA", "ppo:zaka/../zaka", "vlook:zaka", "ppo:gorgasali"):
        with pytest.raises(serve_module.RequestError):
            allowed.check(spec, "zaka_v0")
    # search weighted by its cost in MCTS simulations: a puct one 10, a rollout of the network 100
    for spec in ("mcts:400", "puct:40:zaka", "rollout:1:zaka", "rollout:100,by=random:zaka",
                 "rollout:25,k=16,by=random,alloc=halving:zaka"):
        assert allowed.check(spec, "zaka_v0") == spec


# ----------------------------------------------------------------------- sessions per client ----
def test_one_client_flooding_the_server_does_not_evict_another_clients_game(server, monkeypatch):
    monkeypatch.setattr(server, "sessions", serve_module.Sessions(limit=12))
    victim = token_of(server)
    status, _, st = api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"]}, token=victim)
    assert status == 200
    attacker = token_of(server)
    for _ in range(30):   # one page token
        assert api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"]}, token=attacker)[0] == 200
    for _ in range(30):   # a new page token for every game
        assert api(server, "POST", "/api/new", {"game": "zaka", "opponents": ["random"]})[0] == 200
    status, _, again = api(server, "GET", f"/api/state?id={st['id']}", token=victim)
    assert status == 200 and again["id"] == st["id"]
    assert len(server.sessions) <= 12


def test_the_biggest_holder_loses_a_game_when_the_server_is_full():
    sessions = serve_module.Sessions(limit=6, per_page=4)
    victim = sessions.add("v", page="v", address="10.0.0.1")
    for i in range(20):   # one address, many pages
        sessions.add(f"a{i}", page=f"a{i % 5}", address="10.0.0.2")
    assert sessions.get(victim, "v")[0] == "v"
    for i in range(20):   # many addresses, one game each
        sessions.add(f"b{i}", page=f"b{i}", address=f"10.0.1.{i}")
    assert sessions.get(victim, "v")[0] == "v"
    assert len(sessions) == 6


# -------------------------------------------------------------------------------- 20 players ----
def test_twenty_players_at_once_play_whole_games_without_connection_errors(server):
    assert server.request_queue_size >= 20
    players, errors, finished = 20, [], []
    start = threading.Barrier(players)

    def player(index: int) -> None:
        rng = np.random.default_rng(index)
        try:
            start.wait(timeout=60)
            token = token_of(server)
            status, _, st = api(server, "POST", "/api/new",
                                {"game": "peacekeepers", "options": {"mode": "competitive", "num_players": 2},
                                 "opponents": ["random"], "seed": index}, token=token)
            assert status == 200, st
            while not st["over"]:
                action = st["legal"][int(rng.integers(len(st["legal"])))][0]
                status, _, st = api(server, "POST", "/api/move", {"id": st["id"], "action": action}, token=token)
                assert status == 200, st
            finished.append(index)
        except Exception as exc:  # noqa: BLE001 - every failure is reported below
            errors.append(f"player {index}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=player, args=(i,)) for i in range(players)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [] and sorted(finished) == list(range(players))


# ----------------------------------------------------------------------------------- headers ----
def test_security_headers(server):
    status, headers, body = page(server)
    assert status == 200
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"
    csp = headers["content-security-policy"]
    nonce = re.search(r"script-src 'nonce-([A-Za-z0-9_-]+)'", csp).group(1)
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    scripts = re.findall(rb"<script[^>]*>", body)
    assert scripts and all(f'nonce="{nonce}"'.encode() in s for s in scripts)   # no other script runs
    assert re.search(rb"\son[a-z]+=", body) is None   # no inline event handlers
    assert headers["cache-control"] == "no-store"   # the token is not kept in a cache
    assert page(server)[1]["content-security-policy"] != csp   # a new nonce each load
    status, headers, _ = api(server, "GET", "/api/catalog")
    assert status == 200 and headers["x-content-type-options"] == "nosniff"
    assert headers["content-security-policy"].startswith("default-src 'none'")
    assert headers.get("server", "").startswith("TabletopArena") and "Python" not in headers.get("server", "")


# ----------------------------------------------------------------------------------- binding ----
def test_listening_beyond_this_machine_prints_a_warning(monkeypatch, capsys):
    for host in ("0.0.0.0", "::", "192.168.1.20", "myhost.example"):
        warning = serve_module.exposure_warning(host, 8000)
        assert warning and "anyone who can reach" in warning, host
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert serve_module.exposure_warning(host, 8000) is None, host
    # arena serve --host 0.0.0.0, bound to loopback here (the test does not open a port to the network)
    real = serve_module.make_server

    def on_loopback(host, port, *args, **kwargs):
        srv = real("127.0.0.1", 0, *args, **kwargs)
        monkeypatch.setattr(srv, "serve_forever", lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
        return srv
    monkeypatch.setattr(serve_module, "make_server", on_loopback)
    from tabletop_arena.app.cli import main
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 0
    err = capsys.readouterr().err
    assert "anyone who can reach this port can play" in err and "cannot name files" in err
    assert main(["serve", "--port", "0"]) == 0
    assert "anyone who can reach" not in capsys.readouterr().err


def test_hosts_accepted_when_listening_everywhere():
    hosts = serve_module.AllowedHosts("0.0.0.0", 8000)
    assert hosts.allows("192.168.1.20:8000") and hosts.allows("[fe80::1]:8000") and hosts.allows("localhost:8000")
    assert not hosts.allows("evil.example:8000") and not hosts.allows("192.168.1.20:8001")
    named = serve_module.AllowedHosts("arena.lan", 80)
    assert named.allows("arena.lan") and named.allows("ARENA.lan:80") and not named.allows("arena.lan.evil:80")


# ------------------------------------------------------------------- agents from the command line ----
def test_a_checkpoint_named_on_the_command_line_is_offered_by_name(monkeypatch):
    from tabletop_arena.agents.shipped import shipped_agents

    path = shipped_agents()["gorgasali"]["file"]   # a value.pt: tensors, loaded with weights_only
    entry = offer.command_line_agent(f"mine={path}")
    assert (entry.kind, entry.game, entry.command_line) == ("vlook", "gorgasali_v0", True)
    allowed = offer.AgentAllowList(command_line=[entry])
    assert "vlook:mine" in [s for s, _ in allowed.offered("gorgasali_v0")]
    assert allowed.check("vlook:mine", "gorgasali_v0") == f"vlook:{entry.path}"
    srv = make_server("127.0.0.1", 0, allowed=allowed)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        status, _, st = api(srv, "POST", "/api/new", {"game": "gorgasali", "options": {"num_players": 2},
                                                      "opponents": ["vlook:mine"], "seed": 5})
        assert status == 200, st
        assert st["players"][1] == "player_1 (vlook:mine)"   # the name, never the path
        assert entry.path not in json.dumps(st)
        status, _, body = api(srv, "POST", "/api/new", {"game": "gorgasali", "opponents": [f"vlook:{path}"]})
        assert status == 403
    finally:
        srv.shutdown()
        srv.server_close()
    for bad in ("mine", "=x", "a/b=x", f"../x={path}", "mine=/nonexistent/file.zip"):
        with pytest.raises(ValueError, match="--agent"):
            offer.command_line_agent(bad)
    with pytest.raises(ValueError, match="taken"):
        offer.AgentAllowList(command_line=[offer.command_line_agent(f"zaka={path}")])


def test_serve_refuses_a_preset_opponent_that_names_a_file(tmp_path, capsys, monkeypatch):
    from tabletop_arena.app.cli import main

    def stop():   # were a preset accepted, the server would stop at once instead of serving
        raise KeyboardInterrupt
    monkeypatch.setattr(serve_module.ArenaServer, "serve_forever", lambda self, *a: stop())

    marker = tmp_path / "MARKER"
    evil = crafted_checkpoint(tmp_path / "evil.zip", marker)
    assert main(["serve", "zaka", "--opponents", "mcts:5000", "--port", "0"]) == 2
    assert "at most 400" in capsys.readouterr().err
    with opened_files() as seen:
        assert main(["serve", "zaka", "--opponents", f"ppo:{evil}", "--port", "0"]) == 2
    assert "by name, not by path" in capsys.readouterr().err
    assert not marker.exists() and [p for p in seen if p.endswith("evil.zip")] == []


def test_serve_agent_refuses_a_pickled_checkpoint_unless_trusted(tmp_path, capsys, monkeypatch):
    """``arena serve --agent NAME=PATH`` loads the file once at start: a pickled one is refused
    (nothing runs) unless ``--trust-checkpoint``, which is the opt-in to running its code."""
    from tabletop_arena.app.cli import main

    def stop():   # were the file accepted, the server would stop at once instead of serving
        raise KeyboardInterrupt
    monkeypatch.setattr(serve_module.ArenaServer, "serve_forever", lambda self, *a: stop())
    marker = tmp_path / "MARKER"
    evil = crafted_checkpoint(tmp_path / "evil.zip", marker)
    argv = ["serve", "zaka", "--agent", f"evil={evil}", "--opponents", "ppo:evil", "--port", "0"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "pickled checkpoint" in err and "--trust-checkpoint" in err and len(err.strip().splitlines()) == 1
    assert not marker.exists()
    assert main(argv + ["--trust-checkpoint"]) == 2   # trusted: SB3's loader runs the code, then fails
    assert marker.exists()
