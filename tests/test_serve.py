"""``arena serve``'s JSON API (issue 23), through a real HTTP server on a free port (no browser:
tests/test_serve_browser.py drives the page itself)."""
from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.agents.shipped import agent_kind, shipped_agents
from tabletop_arena.app.serve import RequestError, Sessions, make_server


@pytest.fixture(scope="module")
def server():
    srv = make_server("127.0.0.1", 0, defaults={"game": "zaka_v0", "opponents": ["random"]})
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.token = page_token(srv)
    yield srv
    srv.shutdown()
    srv.server_close()


def page_token(server) -> str:
    """The token the page carries (a fresh one each load; "" from a server that gives none)."""
    with urllib.request.urlopen(server.url, timeout=60) as resp:
        found = re.search(rb'name="arena-token" content="([^"]+)"', resp.read())
    return found.group(1).decode() if found else ""


def call(server, path, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"X-Arena-Token": server.token if token is None else token}
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(server.url + path.lstrip("/"), data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.headers.get("Content-Type"), resp.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.headers.get("Content-Type"), exc.read()


def call_json(server, path, body=None, token=None):
    status, _, raw = call(server, path, body, token)
    return status, json.loads(raw)


def test_page_and_catalog(server):
    status, ctype, page = call(server, "/")
    assert status == 200 and ctype.startswith("text/html")
    assert b"<script" in page and b"http://" not in page and b"https://" not in page  # no outside assets
    status, cat = call_json(server, "/api/catalog")
    assert status == 200
    assert [g["id"] for g in cat["games"]] == envs.names()
    assert cat["defaults"] == {"game": "zaka_v0", "opponents": ["random"]}
    pk = next(g for g in cat["games"] if g["id"] == "peacekeepers_v0")
    assert {"heuristic", "random", "ppo:peacekeepers"} <= set(pk["agents"])
    assert pk["notes"]["ppo:peacekeepers"] == "trained for 2-player competitive"
    shipped = shipped_agents()
    for game in cat["games"]:   # every shipped agent, and its strongest spec, is on its game's list
        for name, entry in shipped.items():
            if entry["game"] == game["id"]:
                assert f"{agent_kind(entry)}:{name}" in game["agents"]
                assert entry.get("strongest", "random") in game["agents"]
    assert any(v["name"] == "competitive_4p" and v["players"] == 4 for v in pk["variants"])


@pytest.mark.parametrize("name", envs.names())
def test_new_game_and_picture_for_every_game(server, name):
    status, st = call_json(server, "/api/new", {"game": name, "opponents": ["random"], "seed": 2})
    assert status == 200, st
    assert st["game"] == name and st["players"][0] == "player_0 (you)" and not st["over"]
    assert st["your_turn"] and st["legal"] and all(isinstance(a, int) and t for a, t in st["legal"])
    status, ctype, png = call(server, st["picture"])
    assert status == 200 and ctype == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"


def test_play_to_the_end_and_see_the_result(server):
    status, st = call_json(server, "/api/new", {"game": "peacekeepers", "opponents": ["heuristic"],
                                                "seat": 1, "seed": 4})
    assert status == 200
    assert st["log"] and st["log"][0]["who"] == "player_0 (heuristic)"  # the agent opened
    rng = np.random.default_rng(0)
    while not st["over"]:
        before = len(st["log"])
        action = st["legal"][rng.integers(len(st["legal"]))][0]
        status, st = call_json(server, "/api/move", {"id": st["id"], "action": action})
        assert status == 200, st
        assert st["log"][before]["action"] == action and st["log"][before]["player"] == 1
    res = st["result"]
    assert st["legal"] == [] and st["to_move"] == -1
    assert res["headline"].startswith(("Winner: ", "No single winner", "Shared first place"))
    assert len(res["returns"]) == 2 and len(res["scores"]) == 2
    status, err = call_json(server, "/api/move", {"id": st["id"], "action": 0})
    assert status == 400 and "over" in err["error"]


def test_errors_are_readable(server):
    status, err = call_json(server, "/api/new", {"game": "peacekeeper"})
    assert status == 400 and "did you mean 'peacekeepers_v0'" in err["error"]
    status, err = call_json(server, "/api/new", {"game": "zaka", "options": "num_player=3"})
    assert status == 400 and "did you mean 'num_players'" in err["error"]
    status, err = call_json(server, "/api/new", {"game": "zaka", "opponents": ["nonsense"]})
    assert status == 400 and "unknown agent" in err["error"]
    status, err = call_json(server, "/api/new", {"game": "zaka", "opponents": ["ppo:peacekeepers"]})
    assert status == 400 and "plays peacekeepers_v0, not zaka_v0" in err["error"]
    status, err = call_json(server, "/api/new", {"game": "zaka", "seat": 3})
    assert status == 400 and "seat must be 0..1" in err["error"]
    status, st = call_json(server, "/api/new", {"game": "zaka", "options": "num_players=3", "seed": 1})
    assert status == 200 and len(st["players"]) == 3
    legal = {a for a, _ in st["legal"]}
    bad = next(a for a in range(1000) if a not in legal)
    status, err = call_json(server, "/api/move", {"id": st["id"], "action": bad})
    assert status == 400 and "not a legal move" in err["error"]
    status, again = call_json(server, f"/api/state?id={st['id']}")
    assert status == 200 and again["moves"] == st["moves"]  # nothing changed
    status, err = call_json(server, "/api/move", {"id": "nope", "action": 0})
    assert status == 404 and "new one" in err["error"]
    status, _, _ = call(server, "/nothing")
    assert status == 404


def test_sessions_keep_the_newest_of_a_page():
    sessions = Sessions(limit=10, per_page=2)
    ids = [sessions.add(object(), page="a") for _ in range(3)]
    with pytest.raises(RequestError):
        sessions.get(ids[0], "a")
    assert sessions.get(ids[2], "a")[0] is not None
    with pytest.raises(RequestError):   # another page does not see it
        sessions.get(ids[2], "b")
