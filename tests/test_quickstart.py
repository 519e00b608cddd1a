"""``arena quickstart`` (issue 47 items 1 and 5): a few CPU-minutes by default, the verdict in one
line at the top of the final output with the cost in CPU-minutes, a learning curve of two points
(the clone and the end), and a folder left by an interrupted start reused instead of stepped over.

Training and evaluation are replaced by recorders here (the real run is measured by hand: README,
Quickstart); tests/test_run_size.py runs a real tiny training."""
from __future__ import annotations

import re
from pathlib import Path

from tabletop_arena.app import cli
from tabletop_arena.app.quickstart import QUICKSTART_DEFAULT_TIMESTEPS, fresh_run_folder, interrupted_start


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


class _FakeReport:
    def __init__(self, names, games):
        self.names, self.games = names, games

    def pair(self, a, b):
        wins = self.games // 2 + 3
        return {"a": a, "b": b, "games": self.games, "wins": wins, "draws": 1, "losses": self.games - wins - 1,
                "win_rate": wins / self.games, "win_rate_ci95": [0.4, 0.6]}

    def agent(self, name):   # at more than 2 players: the agent against the table
        wins = self.games // 4 + 5
        return {"games": self.games, "wins": wins, "draws": 0, "losses": self.games - wins,
                "win_rate": wins / self.games, "win_rate_ci95": [0.2, 0.4]}


def _quickstart_calls(argv, monkeypatch, capsys, out):
    """``arena quickstart`` with training and evaluation replaced by recorders: what would have
    been trained (steps, seed, config keys) and evaluated, and the printed lines."""
    from tabletop_arena.app import quickstart as quickstart_mod
    from tabletop_arena.train import ppo

    calls: dict = {"evaluate": []}

    def fake_train(game, config_path=None, timesteps=None, seed=None, out=None, **overrides):
        calls["train"] = dict(game=game, config_path=config_path, timesteps=timesteps, seed=seed,
                              overrides=overrides)
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "curve.csv").write_text("timesteps,minutes,cpu_minutes,games,heuristic_win_rate,"
                                             "heuristic_ci_low,heuristic_ci_high\n0,1.0,0.5,100,0.44,0.35,0.54\n"
                                             f"{timesteps},2.0,1.5,100,0.47,0.38,0.57\n")
        return Path(out) / "final.zip"

    def fake_evaluate(game, agents, **kwargs):
        calls["evaluate"].append(dict(game=game, agents=agents, **kwargs))
        return _FakeReport(kwargs["names"], kwargs["games"])

    monkeypatch.setattr(ppo, "train", fake_train)
    monkeypatch.setattr(quickstart_mod, "evaluate", fake_evaluate)   # where quickstart looks it up
    code, stdout, err = run(argv + ["--out", str(out)], capsys)
    assert code == 0, err
    return calls, stdout


def test_the_default_run_is_short_and_peacekeepers_keeps_its_clone(monkeypatch, capsys, tmp_path):
    """Peacekeepers: 30k PPO steps (was 250k) after its config's 300-game clone (scale_with_run off,
    so the clone and the curve's 100 games stay); the curve has the clone's point and the end's
    (eval_interval past the last rollout); the other games run 30k steps with their warm start
    scaled (train/config.py). --timesteps / --set total_timesteps win; the seed reaches both."""
    calls, out = _quickstart_calls(["quickstart", "--seed", "3"], monkeypatch, capsys, tmp_path / "a")
    t = calls["train"]
    assert (t["game"], t["timesteps"], t["seed"]) == ("peacekeepers_v0", 30_000, 3)
    assert t["overrides"]["scale_with_run"] is False and t["overrides"]["checkpoint_interval"] == 30_000
    assert t["overrides"]["eval_interval"] == 30_720 + 1   # 15 rollouts of 8 x 256: never due in between
    assert t["overrides"]["eval_opponents"] == ["heuristic"]
    assert "cloning 300 heuristic games, then 30,000 PPO steps (configs/train/peacekeepers.yaml" in out
    assert [(e["agents"][1], e["games"], e["seed"]) for e in calls["evaluate"]] == [("heuristic", 400, 3),
                                                                                    ("random", 100, 3)]
    calls, _ = _quickstart_calls(["quickstart", "--timesteps", "500"], monkeypatch, capsys, tmp_path / "b")
    assert calls["train"]["timesteps"] == 500
    calls, _ = _quickstart_calls(["quickstart", "--set", "total_timesteps=700", "--games", "40"], monkeypatch,
                                 capsys, tmp_path / "c")
    assert calls["train"]["timesteps"] == 700
    assert [e["games"] for e in calls["evaluate"]] == [40, 20]
    calls, out = _quickstart_calls(["quickstart", "zaka"], monkeypatch, capsys, tmp_path / "d")
    assert calls["train"]["timesteps"] == QUICKSTART_DEFAULT_TIMESTEPS
    assert "scale_with_run" not in calls["train"]["overrides"]
    assert "cloning 36 heuristic games and 2 DAgger round(s) of 18, then 30,000 PPO steps" in out
    _, out = _quickstart_calls(["quickstart", "--opt", "num_players=4"], monkeypatch, capsys, tmp_path / "e")
    assert "configs/train/peacekeepers_4p.yaml" in out


def test_the_verdict_is_one_line_at_the_top_of_the_final_output(monkeypatch, capsys, tmp_path):
    _, out = _quickstart_calls(["quickstart"], monkeypatch, capsys, tmp_path)
    final = out.split("[2/2] ", 1)[1].split("\n\n", 1)[1].splitlines()
    assert final[0] == ("Your agent won 50.7% [40.0-60.0] of 400 games against the heuristic and 53.0% "
                        "[40.0-60.0] of 100 games against random (win = first place alone; [95% interval]).")
    assert final[1].startswith("It cost ") and " CPU-minutes (" in final[1] and "minutes wall)" in final[1]
    assert final[2].startswith("Learning curve (") and "44% after cloning -> 47% at 30,000 steps" in final[2]
    assert any(re.match(r"heuristic +203-1-196 +50\.7 \[ 40\.0,  60\.0\] +400$", line) for line in final), final
    assert any(line.startswith("A longer run plays better: arena quickstart --timesteps 250000") for line in final)


def test_four_players_evaluate_the_agent_in_one_seat_against_three(monkeypatch, capsys, tmp_path):
    """``arena quickstart --opt num_players=4``: each evaluation seats the agent once against a copy
    of the opponent in every other seat (two entrants in a 4-seat game were cycled: the agent held
    two seats), and the verdict is its first place against the table."""
    calls, out = _quickstart_calls(["quickstart", "--opt", "num_players=4"], monkeypatch, capsys, tmp_path)
    assert [e["agents"][1:] for e in calls["evaluate"]] == [["heuristic"] * 3, ["random"] * 3]
    assert [len(set(e["names"])) for e in calls["evaluate"]] == [4, 4]
    assert "Your agent won 26.2% [20.0-40.0] of 400 games against 3 heuristics and 30.0% [20.0-40.0] " \
           "of 100 games against 3 random players (win = first place alone" in out


def test_no_progress_and_set_seed_reach_training_and_evaluation(monkeypatch, capsys, tmp_path):
    calls, _ = _quickstart_calls(["quickstart", "--no-progress", "--set", "seed=5"], monkeypatch, capsys, tmp_path)
    assert calls["train"]["overrides"]["progress"] is False
    assert all(e["progress"] is False and e["seed"] == 5 for e in calls["evaluate"])
    assert calls["train"]["seed"] == 5 and "seed" not in calls["train"]["overrides"]


def test_a_folder_left_before_the_first_checkpoint_is_reused(tmp_path):
    """What a stopped quickstart leaves before its first checkpoint (config.yaml, the lock, the
    cloning log) holds nothing to resume: the next quickstart clears it and runs there; a folder
    with a checkpoint (resumable) or with other files is stepped over."""
    base = tmp_path / "runs" / "quickstart"
    assert fresh_run_folder(base) == base
    base.mkdir(parents=True)
    assert fresh_run_folder(base) == base  # empty: still free
    (base / "checkpoint.zip").write_bytes(b"x")
    assert fresh_run_folder(base) == base.with_name("quickstart-2")
    half = base.with_name("quickstart-2")
    half.mkdir()
    for name in ("config.yaml", ".lock", "imitation.csv"):
        (half / name).write_text("x")
    (half / "tb").mkdir()
    assert interrupted_start(half)
    assert fresh_run_folder(base) == half        # reused, not stepped over (it was quickstart-3)
    (half / "notes.txt").write_text("mine")
    assert not interrupted_start(half)
    assert fresh_run_folder(base) == base.with_name("quickstart-3")


def test_quickstart_says_it_reuses_the_folder_and_clears_it(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    half = tmp_path / "runs" / "quickstart"
    half.mkdir(parents=True)
    (half / "config.yaml").write_text("x")
    (half / ".lock").write_text("")
    from tabletop_arena.app import quickstart as quickstart_mod
    from tabletop_arena.train import ppo
    seen = {}

    def fake_train(game, out=None, **kw):
        seen["files"] = sorted(p.name for p in Path(out).iterdir())
        return Path(out) / "final.zip"
    monkeypatch.setattr(ppo, "train", fake_train)
    monkeypatch.setattr(quickstart_mod, "evaluate", lambda game, agents, **kw: _FakeReport(kw["names"], kw["games"]))
    code, out, err = run(["quickstart", "zaka", "--timesteps", "64"], capsys)
    assert code == 0, err
    assert "runs/quickstart holds a quickstart stopped before its first checkpoint (nothing to resume): " \
           "it is cleared and reused" in out
    assert seen["files"] == []


def test_a_running_quickstart_keeps_its_folder(tmp_path):
    """A folder whose lock a live run holds is not an interrupted start (not cleared)."""
    from tabletop_arena.train.run_control import RunLock
    half = tmp_path / "q"
    half.mkdir()
    (half / "config.yaml").write_text("x")
    with RunLock(half):
        assert not interrupted_start(half)
    assert interrupted_start(half)
