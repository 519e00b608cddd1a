"""Rating ladders (issue 46): the files, the anchoring, resuming, placing an agent, difficulty
levels, the generated page, ``arena ladder`` and ``arena play --level``.

The ladders here are tiny (random, heuristic, mcts:2; two games a pairing) so that every game runs
in CI; the published ones (checkpoints/ladder/) are made by ``arena ladder GAME``.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from tabletop_arena import envs
from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.agents.registry import checkpoint_for
from tabletop_arena.app import ladder_page
from tabletop_arena.app.cli import main
from tabletop_arena.train import eval_journal, ladder, ladder_fit, levels
from tabletop_arena.train.stops import Stopped
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
TINY = ["random", "heuristic", "mcts:2"]
#: on every game: one simulation a move (each a random rollout of up to 300 moves) keeps the long
#: games (Zaberias, Gorgasali) to seconds
EVERY = ["random", "heuristic", "mcts:1"]


def _tiny(game, folder, num_players=2, specs=TINY, games=2, **kw):
    return ladder.run_ladder(game, num_players, games=games, specs=specs, folder=folder, progress=False,
                             bootstrap=20, **kw)


def _seat_balanced(rows):
    """Every table of every round plays every seat arrangement once."""
    tables: dict = {}
    for r in rows:
        tables.setdefault((r["round"], tuple(sorted(r["seats"]))), []).append(tuple(r["seats"]))
    for (_, table), seatings in tables.items():
        assert len(seatings) == len(set(seatings)) == math.factorial(len(table))


@pytest.mark.parametrize("game", envs.names())
def test_tiny_ladder_on_every_game_writes_the_files_anchored_at_random(game, tmp_path):
    run = _tiny(game, tmp_path, specs=EVERY)
    name = ladder.ladder_name(game, 2)
    assert run.csv_path == tmp_path / f"{name}.csv" and run.json_path == tmp_path / f"{name}.json"
    rows = ladder.read_games(run.csv_path)
    assert len(rows) == run.played == 6   # 3 pairings x 2 games
    assert Counter(tuple(sorted(r["seats"])) for r in rows) == {p: 2 for p in
                                                                [("heuristic", "random"), ("mcts:1", "random"),
                                                                 ("heuristic", "mcts:1")]}
    _seat_balanced(rows)
    data = json.loads(run.json_path.read_text())
    assert data == run.data and data["format"] == levels.FORMAT
    assert data["game"] == game and data["num_players"] == 2 and data["roster"] == EVERY
    assert data["games"] == data["scheduled_games"] == 6 and data["complete"] and data["games_per_pairing"] == {"min": 2, "max": 2, "target": 2}
    assert data["ratings"]["random"]["rating"] == 0 and data["ratings"]["random"]["ci95"] == [0, 0]
    for spec in EVERY:
        r = data["ratings"][spec]
        assert r["games"] == 4 and r["ci95"][0] <= r["rating"] <= r["ci95"][1]
    assert data["command"] == f"arena ladder {game.split('_v')[0]} --players 2 --games 2"
    assert data["cpu_minutes"] >= 0 and "UTC" in data["updated"]


def test_multi_player_ladder_plays_subsets_seat_balanced_and_fits_finishing_orders(tmp_path):
    specs = ["random", "heuristic", "mcts:2", "mcts:4"]
    run = _tiny("zaka", tmp_path, num_players=3, specs=specs, games=1)
    rows = ladder.read_games(run.csv_path)
    # 4 tables of 3, every arrangement once: 24 games; a pair shares 2 tables x 6 arrangements
    assert len(rows) == 24 and {tuple(sorted(r["seats"])) for r in rows} == \
        {tuple(sorted(t)) for t in [specs[:3], specs[1:], [specs[0], *specs[2:]], [*specs[:2], specs[3]]]}
    _seat_balanced(rows)
    assert {(p["a"], p["b"]): p["games"] for p in run.data["pairs"]} == \
        {(a, b): 12 for i, a in enumerate(specs) for b in specs[i + 1:]}
    assert run.data["games_per_pairing"]["min"] == 12 and run.data["ratings"]["random"]["rating"] == 0
    # the fit is on whole finishing orders: a table's winner beats both others in one observation
    fit = ladder_fit.fit_ladder(rows, specs, bootstrap=0)
    assert fit["ratings"]["random"]["rating"] == 0 and all(fit["ratings"][s]["rating"] is not None for s in specs)


def _game(rnd, seats, winner):
    return {"round": rnd, "seats": list(seats), "returns": [1.0 if s == winner else -1.0 for s in seats]}


def _width(fit, spec):
    lo, hi = fit["ratings"][spec]["ci95"]
    return hi - lo


def test_the_bootstrap_resamples_blocks_not_games():
    # a block (one round of one table: the same start, every seat arrangement) whose games cancel
    # (the first seat wins both) says nothing about strength: every block resample is 0, not a spread
    cancel = [_game(r, seats, seats[0]) for r in range(30) for seats in (("x", "random"), ("random", "x"))]
    fit = ladder_fit.fit_ladder(cancel, ["random", "x"])
    assert fit["ratings"]["x"]["rating"] == 0 and fit["ratings"]["x"]["ci95"] == [0.0, 0.0]
    # every block two identical games: as much information as one game a block, so the interval is
    # that of the data with each block counted once, wider than resampling the games one by one
    # (each game its own round = its own block)
    winners = ["x"] * 26 + ["random"] * 14
    twice = [_game(r, seats, w) for r, w in enumerate(winners) for seats in (("x", "random"), ("random", "x"))]
    once = [g for g in twice if g["seats"][0] == "x"]
    by_game = [dict(g, round=i) for i, g in enumerate(twice)]
    fits = {name: ladder_fit.fit_ladder(rows, ["random", "x"])
            for name, rows in (("twice", twice), ("once", once), ("by_game", by_game))}
    # the point estimate uses every game: resampling does not change it
    assert fits["twice"]["ratings"]["x"]["rating"] == fits["by_game"]["ratings"]["x"]["rating"] == \
        ladder_fit.fit_ladder(twice, ["random", "x"], bootstrap=0)["ratings"]["x"]["rating"]
    assert _width(fits["twice"], "x") == pytest.approx(_width(fits["once"], "x"), rel=0.1)
    assert _width(fits["twice"], "x") > 1.25 * _width(fits["by_game"], "x")
    # seeded: the same seed gives the same resamples whatever the order of the rows, another seed others
    assert ladder_fit.fit_ladder(twice[::-1], ["random", "x"]) == fits["twice"]
    assert ladder_fit.fit_ladder(twice, ["random", "x"], seed=1)["bootstrap"] != fits["twice"]["bootstrap"]


def test_a_placements_interval_resamples_its_blocks():
    data = {"ratings": {"random": {"rating": 0.0}}}   # no ladder resamples: the anchor held at 0
    cancel = [_game(r, seats, seats[0]) for r in range(30) for seats in (("new", "random"), ("random", "new"))]
    rating, ci, _ = ladder_fit.place_rating(data, cancel, "new", ["random"], bootstrap=50)
    assert rating == 0 and ci == (0.0, 0.0)


def test_zaka_3p_is_a_finished_published_ladder():
    assert any(d["name"] == "zaka_3p" and d["complete"] for d in levels.all_ladders())


#: one case a finished ladder (each refit and bootstrap takes seconds: pytest -n spreads them)
@pytest.mark.parametrize("name", sorted(d["name"] for d in levels.all_ladders() if d["complete"]))
def test_the_published_ladders_are_the_fit_of_their_games(name):
    """Each finished ladder's ratings, intervals and pairings are what its saved games give (so a
    change of the fit needs the data refitted: ``arena ladder GAME --players N`` refits a finished
    ladder without playing); the block bootstrap left the points as they were."""
    data = next(d for d in levels.all_ladders() if d["name"] == name)
    csv_path, _ = levels.paths(data["game"], data["num_players"])
    rows = ladder.read_games(csv_path)
    # a block is a round of a table: one start (engine seed) each, every seat arrangement once
    seeds: dict = {}
    for r in rows:
        seeds.setdefault((r["round"], tuple(sorted(r["seats"]))), set()).add(r["engine_seed"])
    assert all(len(v) == 1 for v in seeds.values()) and len(set().union(*seeds.values())) == len(seeds)
    _seat_balanced(rows)
    fit = ladder_fit.fit_ladder(rows, data["roster"], bootstrap=len(data["bootstrap"]),
                                seed=data["settings"]["seed"])
    assert (fit["ratings"], fit["pairs"], fit["bootstrap"]) == (data["ratings"], data["pairs"], data["bootstrap"]), \
        f"{data['name']}: its JSON is not the fit of its games: run {data['command']}"
    if data["name"] == "zaka_3p":   # the points before the block bootstrap (8875fa4)
        assert {s: r["rating"] for s, r in data["ratings"].items()} == \
            {"random": 0.0, "heuristic": 251.0, "mcts:4": 19.8, "mcts:16": 43.1, "mcts:64": 126.9}


@pytest.mark.parametrize("name", sorted(d["name"] for d in levels.all_ladders()))
def test_the_published_ladders_games_replay(name):
    """Every roster agent's cheapest recorded game of each published ladder, played again from its
    seeds, makes the same moves and results: an engine or agent change that alters the games (a
    different draw, a rule change) would leave the published ratings describing other code. Games
    recorded above 3 CPU seconds are left out (Peacekeepers' rollout agent)."""
    data = next(d for d in levels.all_ladders() if d["name"] == name)
    replays = ladder.replay_games(data["game"], data["num_players"], max_cpu=3.0)
    assert sorted(s for r in replays for s in r.specs) == sorted(data["roster"])   # one game each
    played = [r for r in replays if r.again is not None]
    assert played and {s for r in played for s in r.specs} >= {"random", "heuristic"}
    assert all(r.same for r in played), "\n".join(r.text() for r in played if not r.same)


def test_a_replayed_game_that_differs_from_its_row_says_what_changed(tmp_path, capsys):
    _tiny("zaka", tmp_path)
    csv_path, _ = levels.paths("zaka_v0", 2, tmp_path)
    lines = csv_path.read_text().splitlines(keepends=True)
    fields = lines[1].split(",")
    fields[-2] = "0" * 16   # history_hash of the first game: not the game its seeds play
    lines[1] = ",".join(fields)
    csv_path.write_text("".join(lines))
    replays = ladder.replay_games("zaka", 2, folder=tmp_path)
    bad = [r for r in replays if not r.same]
    assert bad and all(r.row["history_hash"] == "0" * 16 for r in bad)
    assert "DIFFERS" in bad[0].text() and "history_hash '0000000000000000' -> " in bad[0].text()
    assert main(["ladder", "zaka", "--dir", str(tmp_path), "--replay"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "same" in out
    skipped = ladder.replay_games("zaka", 2, folder=tmp_path, max_cpu=-1.0)   # every game costs more
    assert all(r.again is None and not r.same and r.text().startswith("skipped") for r in skipped)


def test_a_stopped_ladder_resumes_without_replaying_a_game(tmp_path, monkeypatch):
    whole = _tiny("zaka", tmp_path / "whole")
    folder = tmp_path / "parts"
    first = _tiny("zaka", folder, max_games=2)
    assert first.played == 2 and not first.data["complete"]
    # a process killed while writing a row leaves half a line: it is cut, and that game played again
    with open(first.csv_path, "a") as fh:
        fh.write('1,"[""random"", ""mcts')
    calls = []
    real = ladder._play_task

    def stop_after_one(task):
        if calls:
            raise Stopped(2)   # SIGINT, as train.stops raises it in a run of arena
        calls.append(task.key)
        return real(task)

    monkeypatch.setattr(ladder, "_play_task", stop_after_one)
    with pytest.raises(Stopped) as stop:
        _tiny("zaka", folder)
    assert "1 new games saved (3 of 6" in str(stop.value.detail) and "continues with the 3 left" in stop.value.detail
    assert len(ladder.read_games(first.csv_path)) == 3
    assert json.loads(first.json_path.read_text())["games"] == 3   # the stop wrote the ratings too
    replayed = []

    def count(task):
        replayed.append(task.key)
        return real(task)

    monkeypatch.setattr(ladder, "_play_task", count)
    done = {(r["round"], tuple(r["seats"])) for r in ladder.read_games(first.csv_path)}
    rest = _tiny("zaka", folder)
    assert rest.played == 3 and len(replayed) == 3 and not done & set(replayed)
    rows = ladder.read_games(rest.csv_path)

    def games(rs):
        return sorted((r["round"], tuple(r["seats"]), tuple(r["returns"]), r["history_hash"]) for r in rs)
    assert games(rows) == games(ladder.read_games(whole.csv_path))   # the same games as one run
    assert rest.data["ratings"] == whole.data["ratings"]
    replayed.clear()
    again = _tiny("zaka", folder)   # finished: nothing is played, the data stay
    assert again.played == 0 and not replayed and again.data["updated"] == rest.data["updated"]


def test_a_rows_cpu_seconds_leave_out_building_its_players(tmp_path, monkeypatch):
    """The clock of a game starts after its players are built: the first game a worker plays does
    not count loading a network (or importing torch) as its own CPU time."""
    import sys
    import time

    from tabletop_arena.train import evaluate as ev

    events: list[str] = []
    real_make, real_clock = ev.make_agent, time.process_time

    def make(*args, **kw):
        events.append("build")
        return real_make(*args, **kw)

    def clock():
        if sys._getframe(1).f_code.co_name == "_play_task":
            events.append("clock")
        return real_clock()

    monkeypatch.setattr(ev, "make_agent", make)
    monkeypatch.setattr(ladder.time, "process_time", clock)
    _tiny("zaka", tmp_path, specs=["random", "heuristic"], max_games=1)
    assert events == ["build", "build", "clock", "clock"]


def test_a_ladder_being_played_refuses_a_second_run_on_its_games(tmp_path):
    """Two runs on one games file would play the same games twice and save both: the second is
    refused before it plays or writes a game (the first holds the file locked while it plays)."""
    _tiny("zaka", tmp_path, max_games=2)
    csv_path, _ = levels.paths("zaka_v0", 2, tmp_path)
    before = csv_path.read_bytes()
    first = ladder._Appender(csv_path)   # what a running ladder holds
    try:
        with pytest.raises(levels.LadderError, match="being played by another run right now"):
            _tiny("zaka", tmp_path)
        assert csv_path.read_bytes() == before
        placing = ladder._Appender(tmp_path / "placed" / "games.csv")   # a placement's games, the same
        with pytest.raises(levels.LadderError, match="being played by another run right now"):
            ladder.place("mcts:4", "zaka", 2, games=2, folder=tmp_path, out=tmp_path / "placed",
                         progress=False, anchors=["random"])
        placing.close()
    finally:
        first.close()
    assert _tiny("zaka", tmp_path).played == 4   # once the first is done, the ladder goes on


def _sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_a_replaced_checkpoint_stops_the_ladder_until_its_games_are_played_again(tmp_path):
    """The JSON records the sha256 of each roster checkpoint; a file replaced at the same path would
    put two networks' games under one name, so the ladder is refused (changing nothing) until
    --redo takes that agent's games out and plays them again from the same seeds."""
    net = tmp_path / "net.zip"
    shutil.copy(checkpoint_for("zaka"), net)
    spec = f"ppo:{net}"
    specs = ["random", "heuristic", spec]
    first = _tiny("zaka", tmp_path / "l", specs=specs, max_games=4)
    assert first.data["file_sha256"] == {spec: _sha(net)}
    old_rows = ladder.read_games(first.csv_path)
    with zipfile.ZipFile(net, "a") as zf:   # another file at the same path (here: the same weights)
        zf.comment = b"another file"
    before = (first.csv_path.read_bytes(), first.json_path.read_bytes())
    with pytest.raises(levels.LadderError, match=r"checkpoint is not the file the games .* --redo ppo:"):
        _tiny("zaka", tmp_path / "l", specs=specs)
    with pytest.raises(levels.LadderError, match="no longer play from the files"):
        ladder.place("random", "zaka", 2, games=2, folder=tmp_path / "l", anchors=[spec, "heuristic"],
                     progress=False)
    assert (first.csv_path.read_bytes(), first.json_path.read_bytes()) == before
    with pytest.raises(levels.LadderError, match="not on it"):
        _tiny("zaka", tmp_path / "l", specs=specs, redo=["mcts:2"])
    again = _tiny("zaka", tmp_path / "l", specs=specs, redo=[spec])
    theirs = [r for r in old_rows if spec in r["seats"]]
    assert theirs and again.played == 6 - len(old_rows) + len(theirs)   # the rest, and its games again
    assert again.data["file_sha256"] == {spec: _sha(net)} and again.data["complete"]
    rows = ladder.read_games(again.csv_path)

    def games(rs):
        return sorted((r["round"], tuple(r["seats"]), r["history_hash"]) for r in rs)
    whole = _tiny("zaka", tmp_path / "whole", specs=specs)   # the same games as one unbroken run
    assert games(rows) == games(ladder.read_games(whole.csv_path))
    assert not list((tmp_path / "l").glob("*.rewrite"))
    assert _tiny("zaka", tmp_path / "l", specs=specs).played == 0   # the file now matches


def test_the_published_ladders_record_the_files_their_games_were_played_with():
    """A shipped network replaced without its ladder games played again fails here at once (the
    replay test below catches it only when the cheapest game happens to change)."""
    for data in levels.all_ladders():
        game = ladder.build_game(data["game"], data["num_players"])
        assert data["file_sha256"] == eval_journal.file_digests(game, data["roster"]), \
            f"{data['name']}: a roster checkpoint changed since its games: {data['command']} --redo SPEC"


def test_a_ladder_refuses_other_settings_and_a_roster_without_random(tmp_path):
    _tiny("zaka", tmp_path, max_games=1)
    with pytest.raises(levels.LadderError, match="seed=0"):
        ladder.run_ladder("zaka", 2, games=2, specs=TINY, folder=tmp_path, seed=5, progress=False)
    with pytest.raises(levels.LadderError, match="includes 'random'"):
        ladder.run_ladder("zaka", 2, specs=["heuristic", "mcts:2"], folder=tmp_path / "b", progress=False)
    with pytest.raises(levels.LadderError, match="cannot be played by 5 players"):
        ladder.run_ladder("zaka", 5, specs=TINY, folder=tmp_path / "c", progress=False)


def test_the_roster_is_random_heuristic_three_mcts_and_the_shipped_agents_of_the_player_count():
    assert ladder.roster("zaka", 2) == ["random", "heuristic", "mcts:4", "mcts:16", "mcts:64", "ppo:zaka",
                                        "rollout:16:zaka"]
    assert ladder.roster("zaka", 3) == ["random", "heuristic", "mcts:4", "mcts:16", "mcts:64"]
    pk4 = ladder.roster("peacekeepers", 4)
    assert "ppo:peacekeepers_4p" in pk4 and "ppo:peacekeepers" not in pk4
    assert ladder.roster("gorgasali", 2)[-1] == "vlook:gorgasali" and "vlook:gorgasali" not in ladder.roster("gorgasali", 3)


# ------------------------------------------------------------------------------- placing ----
def test_fit_one_holds_the_anchors_and_matches_bradley_terry():
    # 300 wins and 100 losses against an anchor at 0, 200 and 200 against one at 400
    rows = ([{"seats": ["new", "a"], "returns": [1.0, -1.0]}] * 300 + [{"seats": ["new", "a"], "returns": [-1.0, 1.0]}] * 100
            + [{"seats": ["b", "new"], "returns": [1.0, -1.0]}] * 200 + [{"seats": ["b", "new"], "returns": [-1.0, 1.0]}] * 200)
    alone = ladder_fit.fit_one(rows[:400], "new", {"a": 0.0})
    assert alone == pytest.approx(400 * math.log10(300.5 / 100.5), abs=0.05)   # with one virtual draw
    both = ladder_fit.fit_one(rows, "new", {"a": 0.0, "b": 400.0})
    # the maximum-likelihood strength: 300/(1+q) + 200/(1+q*10) ... solved by bisection here
    def score(r):
        p_a, p_b = 1 / (1 + 10 ** (-r / 400)), 1 / (1 + 10 ** ((400 - r) / 400))
        return (300.5 - 401 * p_a) + (200.5 - 401 * p_b)
    lo, hi = 0.0, 400.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if score(mid) > 0 else (lo, mid)
    assert both == pytest.approx(lo, abs=0.05)


def test_a_record_no_finite_rating_fits_is_called_a_bound_where_ratings_are_shown():
    """An agent first in every game (or, with 2 players, last in every one) has a rating only
    because of the prior's virtual draws: the table, the page and a placement say it is a bound."""
    rows = ([_game(r, s, "x") for r in range(10) for s in (("x", "random"), ("random", "x"))]
            + [_game(r, s, w) for r, w in enumerate(["y", "random"] * 5) for s in (("y", "random"), ("random", "y"))]
            + [_game(r, s, "x") for r in range(10) for s in (("x", "y"), ("y", "x"))]
            + [_game(r, s, "random") for r in range(10) for s in (("z", "random"), ("random", "z"))]
            + [_game(r, s, "x") for r in range(10) for s in (("x", "z"), ("z", "x"))])
    fit = ladder_fit.fit_ladder(rows, ["random", "x", "y", "z"], bootstrap=0)
    data = {"name": "g_2p", "num_players": 2, "roster": ["random", "x", "y", "z"], "games": len(rows),
            "games_per_pairing": {"min": 20, "max": 20, "target": 20}, "cpu_minutes": 0.0, "ratings": fit["ratings"]}
    assert ladder.unbounded_ratings(data) == [("x", "lower"), ("z", "upper")]
    assert fit["ratings"]["x"]["rating"] > 0 > fit["ratings"]["z"]["rating"]   # finite: held by the prior
    text = ladder.ratings_table(data)
    assert "note: x came first in every game it played" in text and "a lower bound" in text
    assert "note: z lost every game" in text and "an upper bound" in text and "note: y" not in text
    page = "\n".join(ladder_page._unbounded_lines(data))
    assert "`x` came first in all its 60 games" in page and "`z` lost all its 40 games" in page
    # with more players only first place in every game is unbounded (other places still order an agent)
    three = dict(data, num_players=3)
    assert ladder.unbounded_ratings(three) == [("x", "lower")]
    placed = ladder.Placement("zaka_v0", 2, "x", 900.0, (800.0, 1000.0), 20, [{"spec": "random", "rating": 0.0, "games": 20,
                                                                        "wins": 20, "draws": 0, "losses": 0}], 0.0)
    assert "note: won every game" in placed.text()
    one_loss = dataclasses.replace(placed, anchors=[dict(placed.anchors[0], wins=19, losses=1)])
    assert "note:" not in one_loss.text()


def test_placing_an_agent_plays_the_anchors_only_and_fits_it_alone(tmp_path):
    run = _tiny("zaka", tmp_path)
    before = run.csv_path.read_bytes(), run.json_path.read_bytes()
    placed = ladder.place("mcts:4", "zaka", 2, games=2, folder=tmp_path, progress=False, bootstrap=30,
                          out=tmp_path / "placed")
    assert (run.csv_path.read_bytes(), run.json_path.read_bytes()) == before   # the roster's games stay
    assert placed.label == "mcts:4" and placed.games == 6
    assert [a["spec"] for a in placed.anchors] == TINY and all(a["games"] == 2 for a in placed.anchors)
    assert [a["rating"] for a in placed.anchors] == [run.data["ratings"][s]["rating"] for s in TINY]
    assert placed.ci95[0] <= placed.rating <= placed.ci95[1]
    rows = ladder.read_games(tmp_path / "placed" / "games.csv")
    assert len(rows) == 6 and all("mcts:4" in r["seats"] for r in rows)
    _seat_balanced(rows)
    assert json.loads((tmp_path / "placed" / "placement.json").read_text())["rating"] == placed.rating
    assert "mcts:4 on the zaka_2p ladder: rating" in placed.text()
    # the same call again continues from its games file: nothing is played, the same answer
    again = ladder.place("mcts:4", "zaka", 2, games=2, folder=tmp_path, progress=False, bootstrap=30,
                         out=tmp_path / "placed")
    assert again == placed


def test_place_takes_an_agent_object_and_anchors(tmp_path):
    _tiny("zaka", tmp_path)
    me = RandomAgent(3)
    me.name = "my-random"
    placed = ladder.place(me, "zaka_v0", 2, games=2, anchors=["random", "heuristic"], folder=tmp_path,
                          progress=False, bootstrap=10)
    assert placed.label == "my-random" and placed.games == 4
    assert [a["spec"] for a in placed.anchors] == ["random", "heuristic"]
    with pytest.raises(levels.LadderError, match="workers=1"):
        ladder.place(me, "zaka", 2, workers=2, folder=tmp_path, progress=False)
    with pytest.raises(levels.LadderError, match="must be rated agents"):
        ladder.place("mcts:4", "zaka", 2, anchors=["mcts:99"], folder=tmp_path, progress=False)
    with pytest.raises(levels.LadderError, match="no ladder data for zaka_v0 with 3 players"):
        ladder.place("mcts:4", "zaka", 3, folder=tmp_path, progress=False)


# -------------------------------------------------------------------------------- levels ----
def _data(ratings: dict[str, float]) -> dict:
    return {"name": "x_2p", "options": {}, "ratings": {s: {"rating": r, "ci95": [r - 50, r + 50]} for s, r in ratings.items()}}


def test_levels_are_steps_of_about_200_up_from_random():
    got = levels.derive_levels(_data({"random": 0, "a": 180, "b": 390, "c": 600, "d": 820, "e": 850}))
    assert [(lv.number, lv.name, lv.spec, lv.step) for lv in got] == [
        (1, "Beginner", "random", None), (2, "Casual", "a", 180), (3, "Intermediate", "b", 210),
        (4, "Advanced", "c", 210), (5, "Master", "d", 220)]   # e: 30 above d, no level of its own
    # several chains of five: the one with steps closest to 200
    got = levels.derive_levels(_data({"random": 0, "m1": 150, "m2": 200, "m3": 400, "m4": 420, "h": 600,
                                      "p": 800, "q": 1000}))
    assert [lv.spec for lv in got] == ["random", "m2", "m3", "h", "p"]   # steps 200, 200, 200, 200


def test_levels_are_absent_where_the_roster_has_no_agent_far_enough_below():
    got = levels.derive_levels(_data({"random": 0, "heuristic": 900, "ppo": 950}))
    assert [(lv.number, lv.spec) for lv in got] == [(1, "random"), (2, "heuristic")]   # ppo: 50 above heuristic
    assert all(b.rating - a.rating >= levels.LEVEL_MIN_STEP for a, b in zip(got, got[1:]))
    assert "levels 3, 4, 5: absent" in levels.level_table(got)
    # no rating for random: the weakest rated agent is level 1
    assert levels.derive_levels(_data({"x": -100, "y": 120}))[0].spec == "x"
    assert levels.derive_levels(_data({})) == []


def test_levels_come_from_a_ladders_data_and_say_when_there_is_none(tmp_path):
    with pytest.raises(levels.LadderError, match="no difficulty levels for zaka_v0 with 2 players yet"):
        levels.levels_for("zaka", 2, folder=tmp_path)
    run = _tiny("zaka", tmp_path)
    got = levels.levels_for("zaka", 2, folder=tmp_path)
    assert got == levels.derive_levels(run.data) and got[0].number == 1 and got[0].spec == "random"
    game = envs.make_game("zaka_v0", num_players=2)
    assert levels.levels_for("zaka", 2, options=game.options(), folder=tmp_path) == got
    other = envs.make_game("zaka_v0", num_players=2, rules={"two_player_friendly": "army"})
    with pytest.raises(levels.LadderError, match="options differ"):
        levels.levels_for("zaka", 2, options=other.options(), folder=tmp_path)
    missing = next(n for n in range(1, 6) if n not in {lv.number for lv in got})
    with pytest.raises(levels.LadderError, match=f"has no level {missing}"):
        levels.level_spec("zaka", 2, missing, folder=tmp_path)


# ---------------------------------------------------------------------------------- page ----
def test_the_page_is_generated_from_the_data(tmp_path):
    run = _tiny("zaka", tmp_path / "data")
    _tiny("zaka", tmp_path / "data", num_players=3, specs=["random", "heuristic", "mcts:2"], games=1, max_games=3)
    costs = {"zaka_3p": {"engine": 0.01, "random": 0.0, "heuristic": 0.01, "mcts:2": 0.1}}
    (tmp_path / "data" / "costs.json").write_text(json.dumps(costs))
    docs = tmp_path / "docs"
    written = ladder_page.write_page(tmp_path / "data", docs)
    assert written == [docs / "ladder.md", docs / "images" / "ladder_zaka.png", docs / "images" / "ladder_all.png"]
    for picture in written[1:]:
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (docs / "ladder.md").read_text()
    assert page == ladder_page.page_text(levels.all_ladders(tmp_path / "data"), costs)
    for spec, r in run.data["ratings"].items():
        lo, hi = r["ci95"]
        assert f"| `{spec}` | {r['rating']:.0f} | {lo:.0f} to {hi:.0f} | 4 | " in page
    assert "`arena ladder zaka --players 2 --games 2`" in page and run.data["updated"] in page
    assert "| [Zaka](#zaka-3-players) | 3 | partial (3 of 6 games, 3 a pairing)" in page
    assert "Not run yet: `arena ladder warbah --players 3`" in page
    assert "![Zaka ladder: ratings with 95% intervals](images/ladder_zaka.png)" in page
    assert "![Warbah ladder" not in page   # no plot without data
    assert "Difficulty levels (`--level N`):" in page


def test_a_partial_tables_time_left_is_estimated_from_its_own_games():
    """A table with games estimates the rest from them (the agents' costs in costs.json are a few
    games each against the heuristic: Peacekeepers 2p's rollout agent measured 86 s a game there and
    played its ladder games in 9-20 s); a table without games falls back to costs.json."""
    costs = {"zaka_2p": {"engine": 1.0, "random": 0.0, "heuristic": 9.0}}
    data = {"games": 5, "scheduled_games": 20, "cpu_minutes": 30.0, "roster": ["random", "heuristic"],
            "settings": {"games": 20}, "ratings": {"random": {"games": 5}, "heuristic": {"games": 5}}}
    assert ladder_page.estimate_cpu_hours("zaka_2p", 2, costs, data) == pytest.approx(1.5)   # 6 min a game x 15
    assert ladder_page.estimate_cpu_hours("zaka_2p", 2, {}, data) == pytest.approx(1.5)      # costs not needed
    started = dict(data, games=0, cpu_minutes=0.0, ratings={"random": {"games": 0}, "heuristic": {"games": 0}})
    # 20 games, each agent in all of them: 20 x its 9 s (or 0 s) plus the engine's 1 s a game
    assert ladder_page.estimate_cpu_hours("zaka_2p", 2, costs, started) == pytest.approx((20 * 9 + 20 * 1) / 3600)
    assert ladder_page.estimate_cpu_hours("zaka_2p", 2, {}, started) is None
    assert ladder_page.estimate_cpu_hours("zaka_2p", 2, costs, dict(data, games=20)) == 0.0


def test_the_committed_page_is_the_one_the_committed_data_give():
    page = ROOT / "docs" / "ladder.md"
    assert page.read_text() == ladder_page.page_text(levels.all_ladders(), ladder_page.read_costs()), \
        "docs/ladder.md is stale: run arena ladder --page"
    for data in levels.all_ladders():
        assert (ROOT / "docs" / "images" / ladder_page.plot_name(data["game"])).is_file()
    # the README shows every published table in one picture
    assert f"](docs/images/{ladder_page.OVERVIEW})" in (ROOT / "README.md").read_text()
    assert (ROOT / "docs" / "images" / ladder_page.OVERVIEW).is_file()


# ----------------------------------------------------------------------------------- CLI ----
def test_arena_ladder_runs_shows_places_and_writes_the_page(tmp_path, capsys):
    d = str(tmp_path)
    assert main(["ladder", "zaka", "--games", "2", "--dir", d, "--roster", *TINY, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "zaka_2p: 6 games, 2-2 a pairing" in out and "difficulty levels" in out and "6 games played now" in out
    assert main(["ladder", "zaka", "--dir", d, "--show"]) == 0
    assert "random" in capsys.readouterr().out
    assert main(["ladder", "zaka", "--dir", d, "--add", "mcts:4", "--games", "2", "--no-progress"]) == 0
    assert "mcts:4 on the zaka_2p ladder: rating" in capsys.readouterr().out
    (tmp_path / "docs").mkdir()
    assert main(["ladder", "--page", "--dir", d, "--docs", str(tmp_path / "docs")]) == 0
    assert (tmp_path / "docs" / "ladder.md").is_file()


@pytest.mark.parametrize("argv, words", [
    (["ladder"], "which game?"),
    (["ladder", "zakka"], "unknown game 'zakka'"),
    (["ladder", "zaka", "--players", "5"], "cannot be played by 5 players"),
    (["ladder", "zaka", "--roster", "random", "heuristic"], "needs --dir"),
    (["ladder", "zaka", "--page"], "--page writes the page"),
    (["ladder", "zaka", "--anchors", "random", "--dir", "X"], "--anchors and --out go with --add"),
    (["ladder", "zaka", "--players", "3", "--show", "--dir", "X"], "no ladder data for zaka_v0 with 3 players"),
    (["ladder", "zaka", "--add", "mctz:4", "--dir", "X"], "did you mean 'mcts:4'"),
    (["ladder", "zaka", "--replay-max-cpu", "5"], "--replay-max-cpu goes with --replay"),
    (["ladder", "zaka", "--replay", "--replay-max-cpu", "nan"], "expected seconds above 0"),
    (["ladder", "zaka", "--replay", "--show"], "--replay plays recorded games again"),
    (["ladder", "zaka", "--players", "3", "--replay", "--dir", "X"], "no ladder data for zaka_v0 with 3 players"),
    (["ladder", "zaka", "--replay", "--games", "4"], "--replay (the games and seeds come from the ladder's data) "
                                                     "takes no --games"),
    (["ladder", "zaka", "--replay", "--seed", "0", "--workers", "2"], "takes no --seed, --workers"),
    (["ladder", "zaka", "--replay", "--out", "X"], "takes no --out"),
    (["ladder", "zaka", "--show", "--seed", "3"], "--show (it plays nothing) takes no --seed"),
    (["ladder", "--page", "--replay"], "--page takes no --replay"),
    (["ladder", "zaka", "--add", "random", "--redo", "heuristic", "--dir", "X"], "--redo plays a roster agent"),
    (["ladder", "zaka", "--show", "--redo", "heuristic"], "takes no --redo"),
    (["ladder", "--page", "--workers", "2"], "--page takes no --workers"),
    (["ladder", "--page", "--players", "3"], "--page writes every player count's tables"),
    (["play", "zaka", "--level", "3", "--opponents", "random"], "--level picks the opponents"),
    (["play", "zaka", "--level", "6"], "expected an integer from 1 to 5"),
])
def test_ladder_and_level_misuse_is_one_line(argv, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_games_file_that_is_not_text_is_refused_in_one_line_naming_it(tmp_path, capsys):
    # the class of the eval journal's: a damaged (binary) file is a line naming it, not a decoding traceback
    games = tmp_path / "zaka_2p.csv"
    games.write_bytes(bytes(range(256)) * 4)
    assert main(["ladder", "zaka", "--dir", str(tmp_path), "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{games}: not UTF-8 text" in err and len(err.splitlines()) == 1
    assert games.read_bytes() == bytes(range(256)) * 4


def test_arena_play_level_plays_the_levels_agent(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(levels, "ladder_dir", lambda: tmp_path)
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["play", "zaka", "--level", "5"]) == 2
    assert "no difficulty levels for zaka_v0 with 2 players yet" in capsys.readouterr().err
    run = _tiny("zaka", tmp_path)
    top = levels.derive_levels(run.data)[-1]
    assert main(["play", "zaka", "--level", str(top.number), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert f"level {top.number} {top.name}: {top.spec}, rating {top.rating:.0f} on the zaka_2p ladder" in out
    assert f"player_1 ({top.spec})" in out
    assert main(["play", "zaka", "--level", "5", "--opt", "rules.two_player_friendly=army"]) == 2
    assert "options differ" in capsys.readouterr().err


# ---------------------------------------------------------------------------------- serve ----
def _synthetic(folder: Path, game_id: str, n: int, ratings: dict[str, float]) -> None:
    """A ladder's JSON with only what the levels read (format, name, options, ratings)."""
    game = envs.make_game(game_id, num_players=n)
    data = {"format": levels.FORMAT, "name": levels.ladder_name(game_id, n), "game": game_id, "num_players": n,
            "options": json.loads(json.dumps(game.options(), default=str)),
            "ratings": {s: {"rating": r, "ci95": [r - 40, r + 40]} for s, r in ratings.items()}}
    (folder / f"{levels.ladder_name(game_id, n)}.json").write_text(json.dumps(data))


def test_serve_offers_the_levels_and_maps_a_level_through_the_allow_list(tmp_path, monkeypatch):
    from tabletop_arena.app import offer, serve

    monkeypatch.setattr(levels, "ladder_dir", lambda: tmp_path)
    _synthetic(tmp_path, "zaka_v0", 2, {"random": 0, "mcts:8": 200, "mcts:300": 420, "heuristic": 640})
    allowed = offer.AgentAllowList(max_budget=200)
    offered = serve.offered_levels("zaka_v0", allowed)
    assert [(o["players"], o["level"], o["name"], o["spec"], o["rating"]) for o in offered] == [
        (2, 1, "Beginner", "random", 0), (2, 2, "Casual", "mcts:8", 200),
        (2, 3, "Intermediate", "mcts:300", 420), (2, 4, "Advanced", "heuristic", 640)]
    assert [o.get("refused") is not None for o in offered] == [False, False, True, False]
    assert "allows at most 200" in offered[2]["refused"]
    zaka = next(g for g in serve.catalog(allowed=allowed)["games"] if g["id"] == "zaka_v0")
    assert zaka["levels"] == offered
    match = serve.new_match({"game": "zaka", "level": 4, "seed": 1}, allowed)
    assert match.specs == {1: "heuristic"}
    with pytest.raises(offer.RequestError, match="allows at most 200"):   # the level's agent, still checked
        serve.new_match({"game": "zaka", "level": 3}, allowed)
    for body, words in [({"game": "zaka", "level": 4, "opponents": ["random"]}, "a level or opponents"),
                        ({"game": "zaka", "level": "5"}, "whole number 1..5"),
                        ({"game": "zaka", "level": True}, "whole number 1..5"),
                        ({"game": "zaka", "level": 9}, "whole number 1..5"),
                        ({"game": "zaka", "level": 5}, "has no level 5"),
                        ({"game": "zaka", "level": 3, "options": {"num_players": 3}}, "no difficulty levels for zaka_v0 with 3"),
                        ({"game": "zaka", "level": 3, "options": {"rules": {"two_player_friendly": "army"}}}, "options differ")]:
        with pytest.raises(offer.RequestError, match=words):
            serve.new_match(body, allowed)


# ------------------------------------------------------------------------------ the docs ----
def test_the_placing_example_of_the_integrations_page_runs(tmp_path, monkeypatch):
    """docs/integrations.md's Python example (place your own agent object) runs as written, on a
    tiny 3-player Zaka ladder in place of the published one, and prints the agent's rating."""
    import re
    text = (ROOT / "docs" / "integrations.md").read_text()
    found = re.findall(r"<!-- ladder: place -->\n```python\n(.*?)```", text, re.S)
    assert len(found) == 1, "docs/integrations.md has no placing example"
    code, n = re.subn(r"^GAME, PLAYERS, GAMES = .*$", 'GAME, PLAYERS, GAMES = "zaka", 3, 1', found[0], flags=re.M)
    assert n == 1
    monkeypatch.setattr(levels, "ladder_dir", lambda: tmp_path)
    _tiny("zaka", tmp_path, num_players=3, games=1)
    ns: dict = {"__name__": "ladder_place_example"}
    exec(compile(code, "docs/integrations.md#ladder-place", "exec"), ns)
    placed = ns["placed"]
    assert placed.label == "first-legal" and placed.num_players == 3 and placed.games > 0
    assert ns["low"] <= placed.rating <= ns["high"]
    assert [a["spec"] for a in placed.anchors] == TINY


def test_a_ladders_time_left_counts_each_game_at_its_players_cost():
    """``cpu_minutes_left``: the games left each at the mean CPU time of the games the same players
    played so far (a re-played expensive agent leaves its pairings behind the cheap ones, so the
    mean of all games, which the cheap ones dominate, would be too low), at the mean of all games
    where those players have none yet."""
    specs = ["random", "heuristic", "slow"]
    tasks = ladder.schedule(specs, 2, 4, 0, 0)   # 3 pairings x 4 games
    cost = {("heuristic", "random"): 1.0, ("random", "slow"): 100.0, ("heuristic", "slow"): 50.0}
    rows = []
    for t in tasks:
        pair = tuple(sorted(t.seats))
        if pair == ("heuristic", "slow"):
            continue                      # none of these yet
        if pair == ("random", "slow") and t.round > 0:
            continue                      # one block of two
        rows.append({"round": t.round, "seats": list(t.seats), "cpu_seconds": cost[pair]})
    assert len(rows) == 6 and len(tasks) == 12
    overall = (4 * 1.0 + 2 * 100.0) / 6
    want = (2 * 100.0 + 4 * overall) / 60   # random-slow at its own 100 s, heuristic-slow at the mean
    played = {(r["round"], tuple(r["seats"])) for r in rows}
    left = [t for t in tasks if t.key not in played]
    assert len(left) == 6
    assert ladder._cpu_minutes_left(rows, left) == pytest.approx(round(want, 1))
    # a table with no games yet (e.g. after --redo took out every game of an agent): at the
    # measured seconds of its agents' moves plus the engine's, where costs.json has all of them
    costs = {"engine": 0.5, "heuristic": 0.2, "slow": 60.0, "measured": "2026-12-01", "games_each": 2}
    want = (2 * 100.0 + 4 * (0.2 + 60.0 + 0.5)) / 60
    assert ladder._cpu_minutes_left(rows, left, costs) == pytest.approx(round(want, 1))
    assert ladder._cpu_minutes_left(rows, left, {"heuristic": 0.2}) == \
        ladder._cpu_minutes_left(rows, left)   # "slow" not measured: the mean of all games
    assert ladder._cpu_minutes_left([], tasks) is None
    full = [{"round": t.round, "seats": list(t.seats), "cpu_seconds": 1.0} for t in tasks]
    assert ladder._cpu_minutes_left(full, []) == 0.0
    data = {"games": 6, "scheduled_games": 12, "cpu_minutes": 3.4, "cpu_minutes_left": 120.0}
    assert ladder_page.estimate_cpu_hours("x_2p", 2, {}, data) == pytest.approx(2.0)   # the JSON's, not 3.4 / 6 x 6


def test_measuring_some_agents_costs_leaves_the_rest_of_the_entry_as_it_was(tmp_path, monkeypatch):
    """scripts/ladder_costs.py --agents SPEC --write writes those agents' seconds with their own date
    and games; the engine's seconds and the date of the roster's measurement stay (they were stamped
    over once, 2026-12-02: the engine re-measured under load, every agent dated that day)."""
    script = load_script("ladder_costs")
    monkeypatch.setattr(levels, "ladder_dir", lambda: tmp_path)
    found = {"engine": 9.9, "random": 0.0, "slow": 60.0}
    monkeypatch.setattr(script, "measure", lambda game, players, games, specs=None:
                        {k: v for k, v in found.items() if specs is None or k == "engine" or k in specs})
    old = {"zaka_2p": {"engine": 0.5, "random": 0.0, "slow": 50.0, "gone": 1.0, "measured": "2026-11-30",
                       "games_each": 4}}
    (tmp_path / "costs.json").write_text(json.dumps(old))
    monkeypatch.setattr("sys.argv", ["ladder_costs.py", "zaka", "--agents", "slow", "--games", "2", "--write"])
    script.main()
    entry = json.loads((tmp_path / "costs.json").read_text())["zaka_2p"]
    assert {k: entry[k] for k in ("engine", "measured", "games_each", "slow", "gone")} == \
        {"engine": 0.5, "measured": "2026-11-30", "games_each": 4, "slow": 60.0, "gone": 1.0}
    assert list(entry["agents_measured"]) == ["slow"] and entry["agents_measured"]["slow"]["games_each"] == 2
    assert levels.agent_costs(entry) == {"random": 0.0, "slow": 60.0, "gone": 1.0}
    monkeypatch.setattr("sys.argv", ["ladder_costs.py", "zaka", "--write"])   # the whole roster
    script.main()
    entry = json.loads((tmp_path / "costs.json").read_text())["zaka_2p"]
    assert levels.agent_costs(entry) == {"random": 0.0, "slow": 60.0} and entry["engine"] == 9.9
    assert "agents_measured" not in entry and entry["games_each"] == 2


@pytest.mark.parametrize("name", sorted(levels.read_costs()))
def test_the_published_costs_are_seconds_for_every_agent(name):
    entry = levels.read_costs()[name]
    costs = levels.agent_costs(entry)
    assert costs and all(v >= 0 for v in costs.values()) and entry["engine"] > 0
