"""A tiny run is tiny (issue 44): a run shorter than its config (``--timesteps``) scales the
config's warm start and evaluations with it (train/config.py ``scale_to_run``), the SB3 and the
RLlib paths alike (both read ``load_config``); ``--set`` keys and ``scale_with_run: false`` keep
the config's sizes. One real ``arena train zaka --timesteps 4000`` (the smallest case) runs here;
the value-lookahead path's ``--timesteps`` is tested in tests/test_value_lookahead.py."""
from __future__ import annotations

import math

import pytest
import yaml

from tabletop_arena import envs
from tabletop_arena.train.config import CONFIG_DIR, RUN_SCALED, load_config, read_config_file, scale_to_run


def _ppo_configs():
    out = []
    for path in sorted(CONFIG_DIR.glob("*.yaml")):
        if read_config_file(path).get("algorithm") is None:
            out.append(path)
    return out


@pytest.mark.parametrize("path", _ppo_configs(), ids=lambda p: p.stem)
def test_a_4000_step_run_of_every_config_scales_its_warm_start_and_evaluations(path):
    data = read_config_file(path)
    notes: list[str] = []
    cfg = load_config(path, {"total_timesteps": 4000}, notes=notes)
    full = load_config(path)
    share = 4000 / full.total_timesteps
    for key, floor in RUN_SCALED.items():
        before, after = getattr(full, key), getattr(cfg, key)
        if key == "dagger_games" and not full.dagger_rounds:
            assert after == before   # no DAgger round: nothing to scale
            continue
        assert after == (before if before <= floor else max(floor, math.ceil(before * share))), key
        assert after <= max(floor, before)
    if any(getattr(full, k) > f for k, f in RUN_SCALED.items() if k != "dagger_games" or full.dagger_rounds):
        assert notes and notes[0].startswith(f"a 4,000-step run of {path.name} (written for "
                                             f"{data.get('total_timesteps', full.total_timesteps):,} steps)")
        assert "--set scale_with_run=false" in notes[0]
    # the full run, a --set key and the switch keep the config's sizes
    kept = load_config(path, {"total_timesteps": 4000, "scale_with_run": False})
    assert [getattr(kept, k) for k in RUN_SCALED] == [getattr(full, k) for k in RUN_SCALED]
    assert load_config(path, {"total_timesteps": 4000, "eval_games": 77}).eval_games == 77


def test_scale_to_run_rounds_up_and_never_grows():
    data = {"total_timesteps": 100_000, "bc_games": 300, "eval_games": 30, "dagger_rounds": 2,
            "dagger_games": 500}
    out, note = scale_to_run(data, 1_000_000, set())
    assert (out["bc_games"], out["eval_games"], out["dagger_games"]) == (30, 20, 50)
    assert "bc_games 300 -> 30" in note and data["bc_games"] == 300   # the input is not changed
    assert scale_to_run(dict(data, total_timesteps=2_000_000), 1_000_000, set()) == \
        (dict(data, total_timesteps=2_000_000), None)   # a longer run keeps the sizes
    assert scale_to_run(data, 1_000_000, {"bc_games": 300, "eval_games": 30, "dagger_games": 500})[1] is None


def test_the_rllib_path_reads_the_same_scaling():
    """train/rllib.py builds its config with load_config (notes printed like the SB3 path's)."""
    import inspect

    from tabletop_arena.train import rllib
    assert "load_config(config_path, overrides, game=game_id, notes=notes)" in inspect.getsource(rllib._config)


def test_the_smallest_tiny_run_clones_a_few_games_and_evaluates_a_few(tmp_path, capsys):
    """``arena train zaka --timesteps 4000``: 20 cloned games (not 2000), DAgger rounds of 10 (not
    1000), 20 evaluation games per opponent (not 200); measured 39 CPU s (2:53 wall at load 9)."""
    pytest.importorskip("torch")
    from tabletop_arena.app.cli import main
    out = tmp_path / "run"
    code = main(["train", "zaka", "--timesteps", "4000", "--no-progress", "--out", str(out)])
    stdout = capsys.readouterr().out
    assert code == 0
    assert stdout.splitlines()[0].startswith("a 4,000-step run of zaka.yaml (written for 1,700,000 steps)")
    assert "imitation: " in stdout and "from 20 heuristic games" in stdout
    assert "dagger round 1: " in stdout and " in 10 games vs heuristic" in stdout
    cfg = yaml.safe_load((out / "config.yaml").read_text())
    assert (cfg["bc_games"], cfg["dagger_games"], cfg["eval_games"]) == (20, 10, 20)
    curve = (out / "curve.csv").read_text().splitlines()
    assert len(curve) == 3 and all(row.split(",")[3] == "20" for row in curve[1:])
    assert (out / "final.zip").is_file()
    assert envs.resolve("zaka") == "zaka_v0"
