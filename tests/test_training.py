"""Training pipeline smoke tests, for every registered game (``envs.names()``).

Per game: train a few hundred steps, resume to more, load the checkpoint as a ``ppo:PATH`` agent and
evaluate it; the self-play env plays every seat. Also: corrupt and mismatched checkpoints raise
``CheckpointError``; config validation errors; the ``arena train`` / ``arena eval`` sub-commands
through a tiny runner (the real ``arena`` lives in app/cli.py).
"""
from __future__ import annotations

import argparse
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop_arena import envs  # noqa: E402
from tabletop_arena.agents.ppo import CheckpointError, PPOAgent, read_metadata  # noqa: E402
from tabletop_arena.agents.registry import make_agent  # noqa: E402
from tabletop_arena.app import commands  # noqa: E402
from tabletop_arena.train.config import ConfigError, TrainConfig, from_dict, load_config, parse_overrides  # noqa: E402
from tabletop_arena.train.evaluate import evaluate  # noqa: E402
from tabletop_arena.train.ppo import train  # noqa: E402
from tabletop_arena.train.selfplay import SelfPlayEnv  # noqa: E402
from tests.ppo_recipes import ppo_config  # noqa: E402

GAMES = envs.names()

#: a tiny, fast setup: the game's own config with a small network and short rollouts
SMALL = dict(n_envs=2, n_steps=64, batch_size=64, n_epochs=1, net_arch=[32], cnn_channels=[4],
             cnn_hidden=32, vector_hidden=16, snapshot_interval=128, checkpoint_interval=128,
             eval_interval=0, eval_games=2, eval_opponents=["random"], progress=False,
             opponent_mix={"random": 0.5, "snapshot": 0.5}, bc_games=1, bc_epochs=1, dagger_rounds=0,
             board_channels=4, board_dilations=[1], features_dim=16, slot_dim=8, pair_dim=8)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One small run per registered game: {game: (run folder, game object)}."""
    out = {}
    for name in GAMES:
        run = tmp_path_factory.mktemp(name)
        path = train(name, config_path=ppo_config(name), timesteps=256, seed=1, out=run, **SMALL)
        cfg = load_config(ppo_config(name))
        out[name] = (run, path, envs.make_game(name, **cfg.env_options))
    return out


@pytest.mark.parametrize("name", GAMES)
def test_train_resume_load_evaluate(name, trained):
    run, path, game = trained[name]
    assert path == run / "final.zip"
    for f in ("checkpoint.zip", "final.zip", "policy.zip", "config.yaml", "progress.csv"):
        assert (run / f).is_file(), f
    assert any((run / "snapshots").glob("step_*.zip"))
    meta = read_metadata(path)
    assert meta["game"] == name and meta["timesteps"] >= 256
    assert meta["num_actions"] == game.num_actions and meta["observation_size"] == game.observation_size
    assert meta["config"]["n_envs"] == 2

    # resume: continues from the checkpoint up to the new total
    path2 = train(name, timesteps=384, out=run, resume=True)
    assert read_metadata(path2)["timesteps"] >= 384
    assert read_metadata(run / "checkpoint.zip")["timesteps"] == read_metadata(path2)["timesteps"]

    # the checkpoint as an agent, through the registry; the small policy-only file too
    for p in (path2, run / "policy.zip"):
        agent = make_agent(f"ppo:{p}", game, seed=0)
        assert isinstance(agent, PPOAgent)
    rep = evaluate(game, [lambda g, s: make_agent(f"ppo:{run / 'policy.zip'}", g, seed=s), "random"],
                   names=["ppo", "random"], games=2, workers=1, progress=False, bootstrap=0)
    assert rep.data["total_games"] >= 2
    assert rep.agent("ppo")["games"] >= 2 and rep.agent("random")["games"] >= 2


@pytest.mark.parametrize("name", GAMES)
def test_selfplay_env_plays_every_seat(name):
    cfg = load_config(ppo_config(name))
    env = SelfPlayEnv(name, cfg.env_options, {"random": 1.0}, seed=0, max_steps=cfg.max_steps)
    rng = np.random.default_rng(0)
    seats = set()
    for _ in range(6 * env.game.num_agents):
        obs, info = env.reset()
        assert obs.shape == (env.game.observation_size,) and obs.dtype == np.float32
        seats.add(info["learner_index"])
        done = False
        while not done:
            mask = env.action_masks()
            assert mask.any()
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        assert info["outcome"] in ("win", "draw", "loss")
    assert seats == set(range(env.game.num_agents))


class _Bad:
    """An opponent whose move is not allowed: the first masked-out action, or a float."""
    needs_state = False
    batchable = False

    def __init__(self, kind):
        self.kind = kind

    def act(self, obs, state=None):
        if self.kind == "float":
            return float(np.flatnonzero(obs["action_mask"])[0])
        return int(np.flatnonzero(obs["action_mask"] == 0)[0])


@pytest.mark.parametrize("kind", ["illegal", "float"])
@pytest.mark.parametrize("vec", ["single", "batched"])
def test_an_opponents_illegal_move_is_an_error_not_a_win(kind, vec):
    """Self-play steps the opponents through the AEC env, which would end the game with the
    offender losing: a buggy opponent would hand the learner free wins. Its move is checked first
    (envs.core.opponents.opponent_turns, as in SingleAgentEnv), in the plain env and
    in the batched vec env's generator path."""
    from tabletop_arena.envs.core.game import IllegalActionError
    from tabletop_arena.train.vecenv import SelfPlayVecEnv

    def make():
        env = SelfPlayEnv("zaka", {}, {"random": 1.0}, seed=0)
        env.pool.draw = lambda slots: ("bad", {s: _Bad(kind) for s in slots})
        return env

    with pytest.raises(IllegalActionError, match="opponent 'bad'"):
        if vec == "single":
            env = make()
            env.reset()
            for _ in range(200):  # the learner may move first: play until an opponent must move
                env.step(int(np.flatnonzero(env.action_masks())[0]))
        else:
            venv = SelfPlayVecEnv([make])
            venv.reset()
            for _ in range(200):
                venv.step(np.array([int(np.flatnonzero(venv.env_method("action_masks")[0])[0])]))


def test_resume_is_rejected_for_another_game_or_without_checkpoint(trained, tmp_path):
    name = GAMES[0]
    run, _, _ = trained[name]
    with pytest.raises(ConfigError, match="does not exist"):   # says why there is nothing to resume
        train(name, out=tmp_path / "empty", resume=True)
    with pytest.raises(ConfigError, match="already holds a run"):
        train(name, config_path=ppo_config(name), timesteps=64, out=run, **SMALL)
    with pytest.raises(ConfigError, match="cannot change"):
        train(name, out=run, resume=True, net_arch=[8])
    other = next((n for n in GAMES if n != name), None)
    if other is not None:
        with pytest.raises(CheckpointError):
            train(other, out=run, resume=True)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_corrupt_checkpoints(trained, tmp_path):
    name = GAMES[0]
    _, path, game = trained[name]
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"this is not a zip file")
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    plain = tmp_path / "plain.zip"  # a zip, but not a checkpoint
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("hello.txt", "hi")
    bad_meta = tmp_path / "bad_meta.zip"
    shutil.copy(path, bad_meta)
    with zipfile.ZipFile(bad_meta, "a") as zf:
        zf.writestr("arena_meta.json", "{not json")  # a second member of the same name wins on read
    broken_weights = tmp_path / "broken_weights.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(broken_weights, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, b"garbage" if item.filename == "policy.pt" else data)
    for bad, pattern in [(tmp_path / "missing.zip", "not found"), (garbage, "corrupt"),
                         (truncated, "corrupt"), (plain, "not a Tabletop Arena checkpoint"),
                         (bad_meta, "corrupt"), (broken_weights, "corrupt")]:
        with pytest.raises(CheckpointError, match=pattern):
            make_agent(f"ppo:{bad}", game)


def test_mismatched_checkpoint(trained):
    name = GAMES[0]
    _, path, game = trained[name]

    class OtherGame:
        name = "other_v0"
        num_actions = game.num_actions + 1
        observation_layout = [("vector", (3,))]
        observation_size = 3
        num_agents = 2
        num_seats = 2

        def options(self):
            return {}

    with pytest.raises(CheckpointError) as exc:
        PPOAgent(path, OtherGame())
    msg = str(exc.value)
    assert "game" in msg and "num_actions" in msg and "observation_layout" in msg
    # another variant of the same game: the options differ
    for opts in envs.variants(name).values():
        variant = envs.make_game(name, **opts)
        if variant.options() != game.options():
            with pytest.raises(CheckpointError, match="options"):
                make_agent(f"ppo:{path}", variant)
            break


def test_config_validation(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key.*n_env.*did you mean 'n_envs'"):
        from_dict({"n_env": 4})
    with pytest.raises(ConfigError, match="n_envs must be an int in 1.., got 'four'"):
        from_dict({"n_envs": "four"})
    with pytest.raises(ConfigError, match=r"n_envs must be an int in 1\.\., got 0"):
        from_dict({"n_envs": 0})
    with pytest.raises(ConfigError, match=r"vec_env must be a string \(from \['dummy', 'batched'\]\), got 'ray'"):
        from_dict({"vec_env": "ray"})
    with pytest.raises(ConfigError, match="gamma"):
        from_dict({"gamma": 1.5})
    with pytest.raises(ConfigError, match="batch_size"):
        from_dict({"batch_size": 4096, "n_steps": 64, "n_envs": 2})
    with pytest.raises(ConfigError, match="opponent_mix: unknown opponent"):
        from_dict({"opponent_mix": {"alphazero": 1.0}})
    with pytest.raises(ConfigError, match="weights must not all be zero"):
        from_dict({"opponent_mix": {"random": 0}})
    with pytest.raises(ConfigError, match="learning_rate must be a number in 0.0.., got True"):
        from_dict({"learning_rate": True})
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
    bad.write_text("n_envs: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("n_envs: 4\nseed: 1\nn_envs: 8\n")  # not the last one silently winning
    with pytest.raises(ConfigError, match="'n_envs' twice"):
        load_config(bad)
    with pytest.raises(ConfigError, match="opponent_mix: the key 'random' is given twice"):
        parse_overrides(["opponent_mix={random: 1, random: 0}"])
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    cfg = load_config(ppo_config(GAMES[0]), {"n_envs": 3, "seed": None})  # None: not overridden
    assert isinstance(cfg, TrainConfig) and cfg.n_envs == 3
    assert parse_overrides(["n_envs=4", "opponent_mix={random: 1}", "network=mlp"]) == \
        {"n_envs": 4, "opponent_mix": {"random": 1}, "network": "mlp"}
    with pytest.raises(ConfigError, match="key=value"):
        parse_overrides(["n_envs"])


def test_shipped_configs_are_valid():
    from tabletop_arena.train.config import CONFIG_DIR
    paths = sorted(CONFIG_DIR.glob("*.yaml"))
    assert len(paths) >= 2
    from tabletop_arena.train import search_distill, value_lookahead
    from tabletop_arena.train.config import read_config_file
    for path in paths:
        data = read_config_file(path)
        if value_lookahead.is_value_config(data):   # arena train's other algorithm (Gorgasali)
            assert isinstance(value_lookahead.from_dict(data, str(path)), value_lookahead.ValueLookaheadConfig)
        elif search_distill.is_distill_config(data):   # <game>_distill.yaml (tests/test_search_distill.py)
            assert isinstance(search_distill.from_dict(data, str(path)), search_distill.SearchDistillConfig)
        else:
            assert isinstance(load_config(path), TrainConfig), path


def test_a_config_file_extends_another(tmp_path):
    """``extends: other.yaml`` (relative to the file) takes the other's keys first; chains work,
    a circle, a non-string value and a missing parent are errors naming the file."""
    (tmp_path / "base.yaml").write_text("n_envs: 3\nseed: 5\nlearning_rate: 0.001\n")
    (tmp_path / "mid.yaml").write_text("extends: base.yaml\nseed: 6\n")
    (tmp_path / "top.yaml").write_text("extends: mid.yaml\nn_envs: 2\n")
    cfg = load_config(tmp_path / "top.yaml", {"learning_rate": 0.002})
    assert (cfg.n_envs, cfg.seed, cfg.learning_rate) == (2, 6, 0.002)
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\n")
    with pytest.raises(ConfigError, match="circle"):
        load_config(tmp_path / "a.yaml")
    (tmp_path / "bad.yaml").write_text("extends: 3\n")
    with pytest.raises(ConfigError, match="must name a config file"):
        load_config(tmp_path / "bad.yaml")
    (tmp_path / "orphan.yaml").write_text("extends: nowhere.yaml\n")
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "orphan.yaml")


def test_env_options_override_the_configs_key_by_key():
    """--opt keys override the config's env_options one by one: another option on the 4-player
    config keeps its 4 players (replacing the dict used to train 2 players without a word); a
    resume with the run's own options passes check_resume, another player count does not."""
    from tabletop_arena.train.config import CONFIG_DIR, check_resume, with_overrides
    cfg = load_config(CONFIG_DIR / "peacekeepers_4p.yaml", {"env_options": {"zones": "halves"}})
    assert cfg.env_options == {"mode": "competitive", "num_players": 4, "zones": "halves"}
    saved = {"env_options": {"mode": "competitive", "num_players": 4}, "seed": 0}
    assert with_overrides(saved, {"seed": 1}) == {"env_options": saved["env_options"], "seed": 1}
    merged = with_overrides({"rllib": {"num_env_runners": 2, "device": "cpu"}, "opponent_mix": {"random": 1.0}},
                            {"rllib": {"num_env_runners": 4}, "opponent_mix": {"heuristic": 1.0}})
    assert merged == {"rllib": {"num_env_runners": 4, "device": "cpu"}, "opponent_mix": {"heuristic": 1.0}}
    check_resume(saved, {"env_options": {"num_players": 4}}, None, "checkpoint")
    with pytest.raises(ConfigError, match="env_options cannot change when resuming"):
        check_resume(saved, {"env_options": {"num_players": 2}}, None, "checkpoint")


def test_a_player_count_picks_its_own_config():
    """``configs/train/<game>_<N>p.yaml`` is the default for N players where it exists (and says
    N players itself); other counts and games without one use ``<game>.yaml``."""
    from tabletop_arena.train.config import CONFIG_DIR, config_for_game, read_config_file
    assert config_for_game("peacekeepers_v0", {"num_players": 4}).name == "peacekeepers_4p.yaml"
    assert config_for_game("peacekeepers_v0", {"num_players": 2}).name == "peacekeepers.yaml"
    assert config_for_game("peacekeepers_v0").name == "peacekeepers.yaml"
    assert config_for_game("zaka_v0", {"num_players": 4}).name == "zaka_4p.yaml"
    assert config_for_game("zaka_v0", {"num_players": 3}).name == "zaka.yaml"
    cfg = load_config(None, {"env_options": {"num_players": 4}}, game="peacekeepers_v0")
    assert cfg.env_options == {"mode": "competitive", "num_players": 4} and cfg.total_timesteps == 400_000
    assert config_for_game("gorgasali_v0", {"num_players": 4}).name == "gorgasali_4p.yaml"
    variants = sorted(CONFIG_DIR.glob("*_*p.yaml"))
    assert variants
    for path in variants:   # any algorithm's config (gorgasali_4p.yaml is a value lookahead's)
        players = int(path.stem.rsplit("_", 1)[1][:-1])
        assert read_config_file(path)["env_options"]["num_players"] == players, path


def test_spatial_actions_auto_follows_the_variant():
    """``spatial_actions: auto`` takes the ranges the variant declares: Zaberias' MOVE block starts
    at 31 with 2 players, 37 with 3 and 43 with 4 (more city sites before it), so one fixed list
    could not fit them all; an explicit list is kept as given; mlp gets none."""
    import dataclasses

    from tabletop_arena.train.ppo import policy_kwargs
    cfg = load_config(None, None, game="zaberias_v0")
    assert cfg.spatial_actions == "auto"

    def spatial(kw):  # the cnn policy takes them itself, the board network in its extractor
        return kw["spatial_actions"] if "spatial_actions" in kw else \
            kw["features_extractor_kwargs"]["spatial_actions"]

    starts = {}
    for players in (2, 3, 4):
        game = envs.make_game("zaberias_v0", num_players=players)
        for network in ("board", "cnn"):  # the committed config uses board
            kw = policy_kwargs(game, dataclasses.replace(cfg, network=network))
            assert spatial(kw) == [[game.layout.MOVE, 3]], network
        starts[players] = game.layout.MOVE
    assert starts == {2: 31, 3: 37, 4: 43}
    game = envs.make_game("zaberias_v0", num_players=4)
    explicit = from_dict({"spatial_actions": [[43, 1]], "network": "cnn"})
    assert policy_kwargs(game, explicit)["spatial_actions"] == [[43, 1]]
    assert "spatial_actions" not in policy_kwargs(game, from_dict({"network": "mlp"}))
    assert "spatial_actions" not in policy_kwargs(envs.make_game("warbah_v0"), from_dict({}))
    assert parse_overrides(["spatial_actions=auto"]) == {"spatial_actions": "auto"}
    assert load_config(None, {"spatial_actions": "auto"}, game="peacekeepers_v0").spatial_actions == "auto"
    with pytest.raises(ConfigError, match="spatial_actions must be a list, got 'everywhere'"):
        from_dict({"spatial_actions": "everywhere"})
    with pytest.raises(ConfigError, match="need the cnn network"):
        from_dict({"spatial_actions": [[0, 1]], "network": "mlp"})


def test_cli_subcommands(trained, tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="arena")
    sub = parser.add_subparsers(dest="command", required=True)
    commands.register(sub)
    name = GAMES[0]
    _, path, game = trained[name]
    base = name.split("_v")[0]  # names without the version are accepted
    opts = json.dumps(game.options())
    args = parser.parse_args(["eval", base, "--agents", f"ppo:{path}", "random", "--games", "2",
                              "--workers", "1", "--out", str(tmp_path / "ev"), "--opt", opts,
                              "--no-progress", "--opening-moves", "1"])
    assert args.func(args) == 0
    assert "ppo" in capsys.readouterr().out
    assert (tmp_path / "ev" / "report.json").is_file()
    args = parser.parse_args(["eval", base, "--agents", "nonsense", "random", "--no-progress"])
    assert args.func(args) == 2
    assert "unknown agent" in capsys.readouterr().err
    ppo_cfg = str(ppo_config(name))   # Gorgasali's default trains a value lookahead
    args = parser.parse_args(["train", base, "--out", str(tmp_path / "t"), "--config", ppo_cfg, "--set", "n_env=2"])
    assert args.func(args) == 2
    assert "did you mean 'n_envs'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args(["train", "--help"])
    assert "--resume" in capsys.readouterr().out
    assert commands.parse_env_options(["mode=competitive,num_players=2", '{"zones": "halves"}']) == \
        {"mode": "competitive", "num_players": 2, "zones": "halves"}


@pytest.mark.parametrize("name", GAMES)
def test_score_reward_shaping_telescopes(name):
    cfg = load_config(ppo_config(name))
    env = SelfPlayEnv(name, cfg.env_options, {"random": 1.0}, seed=3, max_steps=cfg.max_steps, score_reward=0.1)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(4):
        env.reset()
        first = env._margin()
        total, done = 0.0, False
        while not done:
            _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += reward
            done = term or trunc
        result = env._totals[env.learner]
        final = env._margin()
        if final is None:
            assert total == pytest.approx(result)  # no scores: pure win/loss
            continue
        assert total == pytest.approx(result + 0.1 * (final - (first or 0.0)))
        checked += 1


def test_pool_drops_missing_heuristic_and_falls_back():
    from tabletop_arena.train.selfplay import OpponentPool

    class NoBaselineGame:
        name = "nobaseline_v0"

    with pytest.warns(UserWarning, match="no heuristic"):
        pool = OpponentPool(NoBaselineGame(), {"heuristic": 1.0, "snapshot": 1.0}, seed=0)
    assert "heuristic" not in pool.mix
    assert pool.kinds() == {"random": 1.0}  # no snapshot yet, nothing else left


def test_retired_keys_load_only_where_they_changed_nothing():
    """Issue 44 removed the keys of experiments that never shipped (the heuristic hint, env worker
    processes, a random-move curriculum, label smoothing, the KL schedule, fixed cloning settings).
    The records of older runs list every key (checkpoints/*/train_config.yaml, a checkpoint's
    metadata that --resume reads): they load where a retired key holds the value at which it
    changed nothing; another value, or one on the command line, is an error saying it was removed."""
    from tabletop_arena.envs.core.resources import checkpoints_dir
    from tabletop_arena.train.config import check_overrides, read_config_file

    records = sorted(checkpoints_dir().glob("*/train_config*.yaml"))
    loaded = [p for p in records if read_config_file(p).get("algorithm", "ppo") == "ppo"]
    assert len(loaded) >= 4
    for path in loaded:
        data = read_config_file(path)
        assert isinstance(from_dict(data, str(path)), TrainConfig), path
    old = {"workers": 2, "pipelined": True, "heuristic_hint": False, "opponent_random_start": 0.0,
           "bc_label_smoothing": 0.0, "bc_holdout": 0.1, "kl_coef_end": -1.0}
    assert from_dict(old).to_dict() == from_dict({}).to_dict()
    for key, value in (("heuristic_hint", True), ("opponent_random_steps", 1000), ("bc_label_smoothing", 0.1),
                       ("kl_coef_end", 0.0), ("bc_learning_rate", 3e-4)):
        with pytest.raises(ConfigError, match=f"{key}: removed in issue 44"):
            from_dict({key: value})
    with pytest.raises(ConfigError, match="--set workers: removed in issue 44"):
        check_overrides({"workers": 2})
    with pytest.raises(ConfigError, match="vec_env: parallel was removed in issue 44.*use batched"):
        from_dict({"vec_env": "parallel"})


def test_spatial_action_head_maps_actions_to_cells():
    import torch
    from gymnasium import spaces

    from tabletop_arena.agents.ppo import LayoutExtractor, SpatialActionHead

    layout = [("board", (1, 2, 3)), ("vector", (2,))]
    ext = LayoutExtractor(spaces.Box(-1, 1, (8,), np.float32), layout, cnn_channels=[1], cnn_hidden=4,
                          vector_hidden=2)
    head = SpatialActionHead(ext, latent_dim=3, num_actions=20, spatial_actions=[[2, 1], [10, 1]])
    with torch.no_grad():
        conv = ext.convs[0]
        conv.weight.zero_()
        conv.weight[0, 0, 1, 1] = 1.0  # the feature map is the board itself
        conv.bias.zero_()
        head.conv.weight[:] = torch.tensor([1.0, 2.0]).reshape(2, 1, 1, 1)  # plane p = (p + 1) x board
        head.conv.bias.zero_()
        head.plane_bias.weight.zero_()
        head.plane_bias.bias.zero_()
        head.dense.weight.zero_()
        head.dense.bias[:] = torch.arange(8, dtype=torch.float32) + 100
        obs = torch.tensor([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.0, 0.0]])
        ext(obs)
        logits = head(torch.zeros(1, 3))[0].numpy()
    cells = np.arange(1, 7) / 10
    np.testing.assert_allclose(logits[2:8], cells, atol=1e-6)
    np.testing.assert_allclose(logits[10:16], 2 * cells, atol=1e-6)
    np.testing.assert_allclose(logits[[0, 1, 8, 9, 16, 17, 18, 19]], np.arange(8) + 100, atol=1e-6)
    with pytest.raises(ValueError, match="overlap"):
        SpatialActionHead(ext, 3, 20, [[2, 1], [5, 1]])
    with pytest.raises(ValueError, match="does not fit"):
        SpatialActionHead(ext, 3, 20, [[18, 1]])


def test_shipped_checkpoints_load_and_play():
    """Every shipped agent (checkpoints/shipped.yaml, package data) loads by name and still fits
    its game (a layout change needs retraining); no checkpoint file is left out of the index."""
    from tabletop_arena.agents.registry import make_agent
    from tabletop_arena.agents.shipped import agent_kind, shipped_agents
    from tabletop_arena.envs.core.resources import checkpoints_dir

    shipped = shipped_agents()
    assert shipped, "checkpoints/shipped.yaml lists no agent"
    listed = {Path(e["file"]).resolve() for e in shipped.values()}
    on_disk = {p.resolve() for pattern in ("*/*.zip", "*/*.pt") for p in checkpoints_dir().glob(pattern)}
    assert on_disk <= listed, f"checkpoints not in shipped.yaml: {sorted(map(str, on_disk - listed))}"
    ppo_files = set()
    for name, entry in shipped.items():
        if agent_kind(entry) == "vlook":   # a value-lookahead checkpoint (tests/test_value_lookahead.py)
            game = envs.make_game(entry["game"], **(entry.get("options") or {}))
            agent = make_agent(f"vlook:{name}", game, seed=0)
            rep = evaluate(entry["game"], [f"vlook:{name}", "random"], options=entry.get("options"), games=2,
                           workers=1, progress=False, bootstrap=0)
            assert rep.data["total_games"] >= 2
        else:
            agent = make_agent(f"ppo:{name}", envs.make_game(entry["game"], **read_metadata(entry["file"])["options"]))
            ppo_files.add(Path(entry["file"]).resolve())
        assert Path(agent.path).resolve() == Path(entry["file"]).resolve()
    for path in sorted(ppo_files):
        meta = read_metadata(path)
        game = envs.make_game(meta["game"], **meta["options"])
        rep = evaluate(game, [lambda g, s, p=path: PPOAgent(p, g, seed=s), "random"], names=["ppo", "random"],
                       games=2, workers=1, progress=False, bootstrap=0)
        assert rep.data["total_games"] >= 2  # a whole number of seatings (4 players, 2 agents: 6)


def test_checkpoint_from_before_the_namespace_still_loads(trained, tmp_path, monkeypatch):
    """A (pickled, legacy) checkpoint written before the tabletop_arena namespace pickled its
    classes as ``agents.ppo.*``: with ``trust`` it loads (names mapped for the duration of the load
    only), and no top-level ``agents`` module is left behind, where a research repo's or another
    package's would be."""
    import sys

    from tabletop_arena.agents import ppo as ppo_module
    from tabletop_arena.agents.ppo import load_policy
    from tests.test_checkpoint_safety import legacy_checkpoint

    # the repository root holds agents/ itself: keep it off the path, as it is for an installed copy
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not (Path(p or ".") / "agents").is_dir()])
    name = GAMES[0]
    _, path, game = trained[name]
    policy = load_policy(path)
    for cls in {ppo_module.ArenaPolicy, ppo_module.LayoutExtractor, ppo_module.SpatialActionHead}:
        monkeypatch.setattr(cls, "__module__", "agents.ppo")
    monkeypatch.setitem(sys.modules, "agents", sys.modules["tabletop_arena.agents"])
    monkeypatch.setitem(sys.modules, "agents.ppo", ppo_module)
    old = legacy_checkpoint(policy, read_metadata(path), tmp_path / "legacy.zip")
    for cls in {ppo_module.ArenaPolicy, ppo_module.LayoutExtractor, ppo_module.SpatialActionHead}:
        monkeypatch.setattr(cls, "__module__", ppo_module.__name__)
    del sys.modules["agents"], sys.modules["agents.ppo"]
    with pytest.raises(CheckpointError, match="pickled checkpoint"):
        make_agent(f"ppo:{old}", game, seed=0)
    agent = make_agent(f"ppo:{old}", game, seed=0, trust=True)
    assert type(agent.policy) is ppo_module.ArenaPolicy
    assert "agents" not in sys.modules and "agents.ppo" not in sys.modules


def test_same_seed_same_run(tmp_path):
    """Two runs with one seed train the same weights (cloning warm start, PPO updates, snapshot
    and heuristic opponents, the final check): the seeded generators are the only randomness.
    Hand-checked at full size too (docs/training-notes.md, Quickstart): two ``arena quickstart
    --seed 0`` runs printed the same table."""
    import torch

    from tabletop_arena.agents.ppo import load_policy

    kw = dict(SMALL, bc_games=2, opponent_mix={"heuristic": 0.5, "snapshot": 0.5})
    runs = [train("peacekeepers", timesteps=256, seed=4, out=tmp_path / f"run{i}", **kw) for i in range(2)]
    a, b = (load_policy(p).state_dict() for p in runs)
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert read_metadata(runs[0])["last_eval"] == read_metadata(runs[1])["last_eval"]
    other = load_policy(train("peacekeepers", timesteps=256, seed=5, out=tmp_path / "other", **kw)).state_dict()
    assert not all(torch.equal(a[k], other[k]) for k in a)


def test_resume_refuses_a_change_of_any_key_that_shapes_the_network():
    """Issue 44: NETWORK_KEYS listed 7 of the keys that shape the network, so ``--resume --set
    board_channels=64`` passed the check and wrote metadata that did not match the saved weights.
    Every TrainConfig field that ``policy_kwargs`` or ``resolve_network`` reads is in the list (read
    from their source, so a new network key fails here until it is listed), and a resume refuses
    a change of each."""
    import dataclasses
    import inspect
    import re

    from tabletop_arena.train import ppo as train_ppo
    from tabletop_arena.train.config import NETWORK_KEYS, NETWORK_SHAPE_KEYS, TrainConfig, check_resume
    from tabletop_arena.train.search_distill import NETWORK_KEYS as DISTILL_NETWORK_KEYS
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    read = set()
    for fn in (train_ppo.policy_kwargs, train_ppo.resolve_network):
        read |= {m for m in re.findall(r"\bcfg\.([a-z_]+)", inspect.getsource(fn)) if m in fields}
    assert read - {"env_options"} <= set(NETWORK_SHAPE_KEYS), sorted(read - set(NETWORK_SHAPE_KEYS))
    assert set(DISTILL_NETWORK_KEYS) == set(NETWORK_SHAPE_KEYS)
    defaults = TrainConfig().to_dict()
    for key in NETWORK_KEYS:
        if key == "env_options":
            continue
        value = defaults[key]
        changed = (not value if isinstance(value, bool) else value * 2 + 1 if isinstance(value, int)
                   else "mlp" if value == "auto" else [7] if isinstance(value, (list, tuple)) else value)
        if changed == value:   # a key whose default is empty/None: give it a value
            changed = [[0, 1, 0]] if key == "pointer_actions" else [1]
        with pytest.raises(ConfigError, match=f"{key} cannot change when resuming"):
            check_resume(defaults, {key: changed}, None, "checkpoint")


def test_a_four_player_curve_plays_the_learner_against_three(tmp_path):
    """The PPO trainer's evaluation at 4 players seats the learner once against a copy of the
    opponent in every other seat (``field_against``); it passed [learner, opponent] to a 4-seat game,
    which the evaluator cycles: the learner held two seats of every game."""
    run = tmp_path / "pk4"
    train("peacekeepers", config_path=ppo_config("peacekeepers"), timesteps=128, seed=2, out=run,
          **dict(SMALL, env_options={"mode": "competitive", "num_players": 4}))
    report = json.loads((run / "eval" / "final" / "random" / "report.json").read_text())
    assert report["agents"] == ["learner", "random", "random_2", "random_3"]
    assert report["per_agent"]["learner"]["games"] == report["total_games"]
