"""``arena games`` (app/games_cli.py): an evaluation's games listed from its journal, and one of
them replayed move by move by the engine. The listing counts what the report counts; a shown game
is the engine's replay of the recorded moves; a journal that does not replay (edited, other code)
is refused with one line; no agent or checkpoint is loaded."""
import json
from pathlib import Path

import pytest

from tabletop_arena import envs
from tabletop_arena.app.cli import main
from tabletop_arena.app.games_cli import labels_of
from tabletop_arena.train.eval_journal import JOURNAL, read_games
from tabletop_arena.train.eval_schedule import history_digest
from tabletop_arena.train.evaluate import evaluate

AGENTS = ["mcts:2", "random"]


@pytest.fixture(scope="module")
def zaka(tmp_path_factory):
    out = tmp_path_factory.mktemp("zaka")
    report = evaluate("zaka", AGENTS, games=12, workers=1, seed=5, progress=False, bootstrap=20, out=out)
    return out, report


def arena(capsys, *argv) -> tuple[int, str, str]:
    code = main(["games", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def rows(text: str) -> list[list[str]]:
    """The listing's game rows, split on whitespace."""
    return [w for w in (line.split() for line in text.splitlines()) if len(w) > 2 and w[0].isdigit() and w[1].isdigit()]


def test_the_list_holds_every_game_and_the_filters_count_what_the_report_counts(zaka, capsys):
    out, report = zaka
    code, text, _ = arena(capsys, out)
    assert code == 0 and len(rows(text)) == report.data["total_games"] == 12
    for name in AGENTS:
        stats = report.data["per_agent"][name]
        for result, key in (("win", "wins"), ("draw", "draws"), ("loss", "losses")):
            code, text, _ = arena(capsys, out, "--agent", name, "--result", result)
            assert code == 0 and len(rows(text)) == stats[key], (name, result)
    # the winner column names the player the report's records make first
    _, games = read_games(Path(out) / JOURNAL)
    for row, rec in zip(rows(arena(capsys, out)[1]), games):
        best = max(range(len(rec.returns)), key=rec.returns.__getitem__)
        assert row[-1] == AGENTS[rec.arrangement[best]] and row[-2] == f"player_{best}"


def test_details_end_each_row_with_how_the_engine_says_the_game_ended(capsys, tmp_path):
    # Warbah's final_info names the ending and the turn; a listed row carries them
    from tabletop_arena.train.play import game_result
    evaluate("warbah", ["heuristic", "random"], games=4, workers=1, seed=2, progress=False, bootstrap=5, out=tmp_path)
    run, games = read_games(tmp_path / JOURNAL)
    game = envs.make_game("warbah_v0", **run["options"])
    code, text, _ = arena(capsys, tmp_path, "--details")
    listed = [line for line in text.splitlines() if line.split() and line.split()[0].isdigit()
              and line.split()[1].isdigit()]
    assert code == 0 and len(listed) == 4
    endings = {}
    for line, rec in zip(listed, games):
        result = game_result(game.replay(rec.engine_seed, rec.history))
        details = result.details_text()
        assert "ending=" in details and line.endswith(f"({details})")
        endings[result.details["ending"]] = endings.get(result.details["ending"], 0) + 1
    # and a line counts each ending over the listed games
    tally = next(line for line in text.splitlines() if line.startswith("ending: "))
    assert sorted(tally[len("ending: "):].split(", ")) == sorted(f"{e} {n}" for e, n in endings.items())


def test_a_game_is_shown_move_by_move_as_the_engine_replays_it(zaka, capsys):
    out, _ = zaka
    _, games = read_games(Path(out) / JOURNAL)
    rec = games[3]
    game = envs.make_game("zaka_v0", num_players=2)
    code, text, _ = arena(capsys, out, 4, "--no-color")
    assert code == 0
    moves = [line for line in text.splitlines() if line[:5].strip().isdigit() and "[" in line]
    assert len(moves) == rec.length
    state = game.new_initial_state(rec.engine_seed)
    for line, action in zip(moves, rec.history):   # each move's words, the player who made it
        player = game.seat_owner(state.current_player)
        assert line.rstrip().endswith(state.action_to_str(action))
        assert f"player_{player} ({AGENTS[rec.arrangement[player]]})" in line
        state.apply(action)
    assert state.render_text(observer=None, color=False) in text
    winner = max(range(2), key=rec.returns.__getitem__)
    assert f"Winner: player_{winner} ({AGENTS[rec.arrangement[winner]]})" in text


def test_at_and_observer_show_the_position_that_seat_sees_there(zaka, capsys):
    out, _ = zaka
    _, games = read_games(Path(out) / JOURNAL)
    rec = games[0]
    game = envs.make_game("zaka_v0", num_players=2)
    state = game.replay(rec.engine_seed, rec.history[:10])
    code, text, _ = arena(capsys, out, 1, "--at", 10, "--observer", 1, "--no-color", "--no-log")
    assert code == 0
    assert state.render_text(observer=1, color=False) in text
    assert state.render_text(observer=None, color=False) not in text   # the other hand is hidden
    assert f"after move 10 of {rec.length}" in text


def test_no_checkpoint_is_read(zaka, capsys, tmp_path):
    # the run names a checkpoint that is not there: the games list and replay all the same
    out, _ = zaka
    lines = (Path(out) / JOURNAL).read_text().splitlines()
    head = json.loads(lines[0])
    head["run"]["agents"][1] = head["run"]["names"][1] = "ppo:/nonexistent/net.zip"
    (tmp_path / JOURNAL).write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    assert arena(capsys, tmp_path)[0] == 0
    code, text, _ = arena(capsys, tmp_path, 2, "--no-log")
    assert code == 0 and "ppo:/nonexistent/net.zip" in text


def test_a_journal_without_games_lists_none_and_shows_none(zaka, capsys, tmp_path):
    out, _ = zaka
    (tmp_path / JOURNAL).write_text((Path(out) / JOURNAL).read_text().splitlines()[0] + "\n")
    code, text, _ = arena(capsys, tmp_path)
    assert code == 0 and rows(text) == [] and "0 games" in text
    code, _, err = arena(capsys, tmp_path, 1)
    assert code == 2 and "holds no finished game yet" in err


def _edit(out: Path, tmp_path: Path, change) -> Path:
    lines = (out / JOURNAL).read_text().splitlines()
    d = json.loads(lines[1])
    change(d["games"][0])
    (tmp_path / JOURNAL).write_text("\n".join([lines[0], json.dumps(d), *lines[2:]]) + "\n")
    return tmp_path


def _illegal(g):   # a move the position does not allow, with a digest that fits it
    g["history"][5] = 10_000
    g["history_hash"] = history_digest(g["arrangement"], g["history"])


def _returns(g):   # a loss written as a win (returns are not in the digest)
    g["returns"] = [-x for x in g["returns"]]


def _history(g):   # a move taken out, the digest left as it was
    g["history"] = g["history"][:-1]


@pytest.mark.parametrize("change, message", [
    (_illegal, "game 1 does not replay: .*10000"),
    (_returns, "game 1 does not replay: its recorded result is not what its moves give"),
    (_history, "line 2: its history does not match its digest"),
])
def test_a_journal_that_does_not_replay_is_refused_in_one_line(zaka, capsys, tmp_path, change, message):
    import re
    out, _ = zaka
    folder = _edit(Path(out), tmp_path, change)
    before = (folder / JOURNAL).read_bytes()
    code, text, err = arena(capsys, folder, 1)
    assert code == 2 and text == "" and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err
    assert (folder / JOURNAL).read_bytes() == before


@pytest.mark.parametrize("argv, message", [
    (["{out}", "13"], "no game 13: the journal holds games 1-12"),
    (["{out}", "1", "--at", "100000"], "--at 100000: game 1 has"),
    (["{out}", "1", "--observer", "9"], "--observer 9: the game has seats 0-3"),
    (["{out}", "--result", "loss"], "--result needs --agent"),
    (["{out}", "--agent", "heuristic"], "--agent heuristic: not one of this evaluation's agents"),
    (["{out}", "1", "--agent", "random"], "are for the list"),
    (["{out}", "--at", "3"], "give its number N"),
    (["{out}", "--no-log"], "give its number N"),
    (["{out}", "2", "--details"], "are for the list"),
    (["{out}/nothing"], "no games journal at"),
    (["{out}/report.json"], "not an evaluation's games journal"),
])
def test_bad_arguments_are_one_line_errors(zaka, capsys, argv, message):
    out, _ = zaka
    code, text, err = arena(capsys, *[a.format(out=out) for a in argv])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("game_id", envs.names())
def test_every_game_lists_and_replays(game_id, tmp_path, capsys):
    # the viewer's conformance: every registered game's journal (players and seats apart, as
    # Zaka's two armies a player) lists its games and shows each with the engine's result
    from tabletop_arena.train.play import game_result
    evaluate(game_id, ["random", "random"], games=2, workers=1, seed=1, progress=False, bootstrap=5,
             out=tmp_path, names=["random_a", "random_b"])
    code, text, _ = arena(capsys, tmp_path)
    assert code == 0 and len(rows(text)) == 2
    run, games = read_games(tmp_path / JOURNAL)
    game = envs.make_game(game_id, **run["options"])
    for n, rec in enumerate(games, start=1):
        code, text, _ = arena(capsys, tmp_path, n, "--no-color")
        labels = [f"player_{i} ({run['names'][e]})" for i, e in enumerate(rec.arrangement)]
        assert code == 0
        assert game_result(game.replay(rec.engine_seed, rec.history)).text(labels) in text
        assert labels == labels_of(run, rec)


def test_record_writes_a_gif(zaka, capsys, tmp_path):
    pytest.importorskip("PIL")
    out, _ = zaka
    code, text, _ = arena(capsys, out, 1, "--at", 6, "--no-log", "--record", tmp_path / "g.gif")
    assert code == 0 and (tmp_path / "g.gif").read_bytes()[:6] in (b"GIF89a", b"GIF87a")


def test_arena_eval_says_how_to_see_its_games_and_that_command_works(tmp_path, capsys):
    assert main(["eval", "zaka", "--agents", "random", "heuristic", "--games", "2", "--workers", "1",
                 "--out", str(tmp_path / "ev"), "--no-progress", "--seed", "2"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("games: "))
    listing = line.split("games: arena ")[1].split(" lists them")[0].split()
    assert main(listing) == 0 and len(rows(capsys.readouterr().out)) == 2
