"""arena eval's games journal and --resume (train/evaluate.py, train/journal.py): a stopped or
killed evaluation continues to the same games as an unbroken one, and a journal that is not this
evaluation's (other settings, another checkpoint, an edited or damaged line) is refused, changing
nothing."""
import json
import shutil
from pathlib import Path

import pytest

from tabletop_arena import envs
from tabletop_arena.agents.registry import checkpoint_for
from tabletop_arena.app.cli import main
from tabletop_arena.train.eval_journal import JOURNAL, JournalError, run_identity
from tabletop_arena.train.evaluate import evaluate
from tabletop_arena.train.journal import Appender
from tests.scripts import load_script

AGENTS = ["heuristic", "random"]


def run(out, resume=False, **kw):
    args = dict(games=12, workers=1, seed=3, progress=False, bootstrap=20)
    args.update(kw)
    return evaluate("zaka", AGENTS, out=out, resume=resume, **args)


def lines(folder) -> list[str]:
    return (Path(folder) / JOURNAL).read_text().splitlines()


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("full")
    return out, run(out)


def test_the_journal_holds_every_block_once(full):
    out, report = full
    body = [json.loads(x) for x in lines(out)[1:]]
    assert sorted(b["block"] for b in body) == list(range(6))   # 12 games, 2 seatings a block
    assert sum(len(b["games"]) for b in body) == report.data["total_games"] == 12


def test_a_killed_evaluation_resumes_to_the_same_games(full, tmp_path):
    out, report = full
    kept = lines(out)[:3]   # the header and two blocks, then a line cut by the kill
    (tmp_path / JOURNAL).write_text("\n".join(kept) + "\n" + lines(out)[3][:40])
    again = run(tmp_path, resume=True)
    assert again.data["settings"]["resumed_games"] == 4
    assert [r.history_hash for r in again.records] == [r.history_hash for r in report.records]
    assert again.data["per_agent"] == report.data["per_agent"]
    # the two blocks were read back, not played again: their timings are the first run's
    first = {(r.block, r.arrangement): r.cpu for r in report.records}
    read = [r for r in again.records if r.block in (json.loads(kept[1])["block"], json.loads(kept[2])["block"])]
    assert len(read) == 4 and all(r.cpu == first[(r.block, r.arrangement)] for r in read)
    assert sorted(json.loads(x)["block"] for x in lines(tmp_path)[1:]) == list(range(6))


def test_a_finished_evaluation_resumes_without_a_game(full, tmp_path):
    out, report = full
    shutil.copy(Path(out) / JOURNAL, tmp_path / JOURNAL)
    again = run(tmp_path, resume=True, workers=2)   # workers are not part of what must match
    assert again.data["settings"]["resumed_games"] == 12
    assert again.data["per_agent"] == report.data["per_agent"]


def test_resume_replays_each_saved_game_once(full, tmp_path, monkeypatch):
    # the journal is read before the lock (a wrong folder changes nothing) and again under it
    # (another run may have added blocks): the second reading replays only lines it has not seen
    from tabletop_arena.train import eval_journal as ev
    out, _ = full
    shutil.copy(Path(out) / JOURNAL, tmp_path / JOURNAL)
    replays = []
    real = ev._check_replay
    monkeypatch.setattr(ev, "_check_replay", lambda *a: (replays.append(a[1].block), real(*a))[1])
    again = run(tmp_path, resume=True)
    assert again.data["settings"]["resumed_games"] == 12
    assert sorted(replays) == sorted(r.block for r in again.records)   # 12 games, each once


@pytest.mark.parametrize("change", [{"seed": 4}, {"games": 14}, {"opening_moves": 1}, {"max_steps": 500}])
def test_resume_refuses_another_evaluations_journal(full, tmp_path, change):
    out, _ = full
    shutil.copy(Path(out) / JOURNAL, tmp_path / JOURNAL)
    before = (tmp_path / JOURNAL).read_bytes()
    with pytest.raises(JournalError, match="another evaluation's games"):
        run(tmp_path, resume=True, **change)
    assert (tmp_path / JOURNAL).read_bytes() == before


def _edit_returns(body: list[str]) -> list[str]:
    d = json.loads(body[1])
    d["games"][0]["returns"] = [-x for x in d["games"][0]["returns"]]   # a loss written as a win
    return [body[0], json.dumps(d), *body[2:]]


def _edit_history(body: list[str]) -> list[str]:
    d = json.loads(body[1])
    d["games"][0]["history"] = d["games"][0]["history"][:-1]
    return [body[0], json.dumps(d), *body[2:]]


def _edit_seeds(body: list[str]) -> list[str]:
    d = json.loads(body[1])
    d["games"][0]["agent_seeds"][0] += 1
    return [body[0], json.dumps(d), *body[2:]]


DAMAGE = {
    "a result edited": (_edit_returns, "line 2: its recorded result is not what its moves give"),
    "a move taken out": (_edit_history, "line 2: its history does not match its digest"),
    "another seed": (_edit_seeds, "line 2: its seeds are not this evaluation's"),
    "a block twice": (lambda b: [*b, b[1]], f"line {7 + 1}: block .* is in the journal twice"),
    "a block out of range": (lambda b: [*b, json.dumps({"block": 6, "games": []})], "block 6 is not one of"),
    "not JSON": (lambda b: [b[0], "{not json", *b[1:]], "line 2: "),
    "half a block": (lambda b: [b[0], json.dumps({**json.loads(b[1]), "games": json.loads(b[1])["games"][:1]})],
                     "line 2: the block's 2 games are not all there"),
    "not a journal": (lambda b: ["round,seats,returns", *b[1:]], "not an evaluation's games journal"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_journal_is_refused_naming_the_line(full, tmp_path, damage):
    out, _ = full
    edit, message = DAMAGE[damage]
    (tmp_path / JOURNAL).write_text("\n".join(edit(lines(out))) + "\n")
    before = (tmp_path / JOURNAL).read_bytes()
    with pytest.raises(JournalError, match=message):
        run(tmp_path, resume=True)
    assert (tmp_path / JOURNAL).read_bytes() == before


def test_a_journal_that_is_not_text_is_refused(tmp_path):
    (tmp_path / JOURNAL).write_bytes(bytes(range(256)) * 4)
    with pytest.raises(JournalError, match="not an evaluation's games journal \\(not UTF-8 text\\)"):
        run(tmp_path, resume=True)
    assert (tmp_path / JOURNAL).read_bytes() == bytes(range(256)) * 4


def test_resume_needs_a_journal_and_a_folder(tmp_path):
    with pytest.raises(JournalError, match="no games journal to continue"):
        run(tmp_path, resume=True)
    with pytest.raises(ValueError, match="give out"):
        evaluate("zaka", AGENTS, games=2, workers=1, progress=False, resume=True)


def test_a_new_evaluation_starts_the_journal_over(full, tmp_path):
    out, _ = full
    shutil.copy(Path(out) / JOURNAL, tmp_path / JOURNAL)
    run(tmp_path, games=4, seed=5)
    body = lines(tmp_path)
    assert json.loads(body[0])["run"]["seed"] == 5
    assert sorted(json.loads(x)["block"] for x in body[1:]) == [0, 1]


def test_one_journal_has_one_writer(tmp_path):
    live = Appender(tmp_path / JOURNAL, "{}", lambda p: JournalError(f"busy {p}"))   # a running evaluation
    try:
        with pytest.raises(JournalError, match="being written by another evaluation"):
            run(tmp_path, games=2)
    finally:
        live.close()


def test_a_rewritten_file_keeps_its_lock_and_goes_on_appending(tmp_path):
    path = tmp_path / "games.jsonl"
    busy = []

    def refuse(p):
        busy.append(p)
        return JournalError("busy")
    w = Appender(path, "head", refuse)
    for line in ("a", "b", "c"):
        w.add(line)
    w.rewrite(["a", "c"])
    with pytest.raises(JournalError):   # the new file is held as the old one was
        Appender(path, "head", refuse)
    w.add("d")
    w.close()
    assert path.read_text() == "head\na\nc\nd\n" and busy == [path]
    assert not (tmp_path / "games.jsonl.rewrite").exists()
    with Appender(path, "head", refuse) as again, pytest.raises(ValueError, match="no newline"):
        again.rewrite(["x\ny"])
    assert path.read_text() == "head\na\nc\nd\n"


@pytest.mark.parametrize("how", ["replaced", "deleted"])
def test_a_file_replaced_or_deleted_under_a_writer_stops_it(tmp_path, how):
    # what a `git stash` does to a ladder's games file mid-run: the file is replaced by another
    # (a new inode), and lines written to the old one would be lost without a word
    from tabletop_arena.envs.core.errors import ArenaError
    path = tmp_path / "games.csv"
    w = Appender(path, "head", lambda p: JournalError("busy"))
    w.add("a")
    if how == "replaced":
        other = tmp_path / "other"
        other.write_text("head\n")
        other.replace(path)
    else:
        path.unlink()
    with pytest.raises(ArenaError, match=f"{how} while this run was writing it"):
        w.add("b")
    w.close()
    assert (path.read_text() == "head\n") if how == "replaced" else not path.exists()


def test_a_checkpoint_counts_by_its_content(tmp_path):
    game = envs.make_game("zaka")
    path = tmp_path / "agent.zip"
    shutil.copy(checkpoint_for("zaka"), path)

    def identity():
        return run_identity(game, "zaka_v0", [f"ppo:{path}", "heuristic"], ["a", "b"], [0, 1], 0, 2, 2, 600)

    before = identity()
    with open(path, "ab") as fh:   # another file at the same path
        fh.write(b"\0")
    after = identity()
    assert before["file_sha256"][f"ppo:{path}"] != after["file_sha256"][f"ppo:{path}"]
    assert {k: v for k, v in before.items() if k != "file_sha256"} == \
        {k: v for k, v in after.items() if k != "file_sha256"}


def test_arena_eval_resume_on_the_command_line(tmp_path, capsys):
    base = ["eval", "zaka", "--agents", *AGENTS, "--games", "4", "--workers", "1", "--seed", "9",
            "--out", str(tmp_path), "--no-progress"]
    assert main(base) == 0
    first = json.loads((tmp_path / "report.json").read_text())
    assert main([*base, "--resume"]) == 0
    again = json.loads((tmp_path / "report.json").read_text())
    assert again["settings"]["resumed_games"] == 4 and again["per_agent"] == first["per_agent"]
    capsys.readouterr()
    assert main([*base[:-3], "--seed", "10", "--out", str(tmp_path), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "another evaluation's games (seed: was 9, now 10)" in err[0]


def test_a_journals_games_are_timed_again_with_the_same_moves(full, tmp_path, capsys):
    """scripts/retime_journal.py plays a journal's games again from their seeds (the same moves,
    new CPU timings), and says so when a game does not replay (a changed seed) or the agent index
    is not the run's."""
    out, report = full
    script = load_script("retime_journal")
    rows = script.retime(Path(out) / JOURNAL, 0, over=0.0)
    assert len(rows) == 12 and all(r["same_moves"] for r in rows)
    assert all(r["decisions"] > 0 and r["longest"] > 0 for r in rows)
    assert script.main([str(Path(out) / JOURNAL), "--agent", "0", "--over", "0", "--limit", "2"]) == 0
    assert "2 games: longest decision now" in capsys.readouterr().out
    body = lines(out)
    block = json.loads(body[1])
    block["games"][0]["engine_seed"] += 1          # another deal: other moves than the recorded ones
    (tmp_path / JOURNAL).write_text("\n".join([body[0], json.dumps(block)]) + "\n")
    assert script.main([str(tmp_path / JOURNAL), "--over", "0"]) == 1
    assert "DIFFERENT MOVES" in capsys.readouterr().out
    assert script.main([str(tmp_path / JOURNAL), "--agent", "5"]) == 2
    assert "the run has agents 0..1" in capsys.readouterr().err
