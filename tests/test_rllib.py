"""The Ray RLlib trainer (``arena train --set algorithm=rllib_ppo``, train/rllib.py).

Without ray installed (the main test environment: ``ray[rllib]`` pins gymnasium 1.2.2) only the
parts that need no ray run: the ``rllib`` config section, the device resolution, the CLI's
errors; everything else is skipped. CI runs the rest in a separate virtual environment with the
``[rllib]`` extra (``pytest -m rllib``): the multi-agent env over every game (RLlib's own env
check, turn order, rewards), the masking RLModule, and one-iteration training runs on two games
on a local Ray whose policies ``arena eval`` loads.
"""
from __future__ import annotations

import argparse
import builtins
import importlib.util
import json
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop_arena import envs  # noqa: E402
from tabletop_arena.app import commands  # noqa: E402
from tabletop_arena.train.config import (  # noqa: E402
    RLLIB_DEFAULTS,
    ConfigError,
    check_overrides,
    from_dict,
    load_config,
    parse_overrides,
)
from tabletop_arena.train.rllib import RLlibMissingError, require_ray, resolve_gpus  # noqa: E402
from tests.ppo_recipes import ppo_config  # noqa: E402

pytestmark = pytest.mark.rllib


def _has_rllib() -> bool:
    try:
        return importlib.util.find_spec("ray") is not None and importlib.util.find_spec("ray.rllib") is not None
    except (ImportError, ValueError):
        return False


needs_ray = pytest.mark.skipif(not _has_rllib(), reason="ray[rllib] is not installed "
                               "(pip install -e '.[train,rllib]' in its own venv)")

GAMES = envs.names()
#: a tiny, fast run: small network, short rollouts, one iteration
SMALL = dict(n_envs=2, n_steps=32, batch_size=32, n_epochs=1, net_arch=[32], cnn_channels=[4],
             cnn_hidden=32, vector_hidden=16, snapshot_interval=32, checkpoint_interval=10**9,
             eval_interval=0, eval_games=2, eval_opponents=["random"], progress=False,
             opponent_mix={"random": 0.5, "snapshot": 0.5}, bc_games=0)


# ---------------------------------------------------------------------------------------------
# no ray needed
# ---------------------------------------------------------------------------------------------
def test_rllib_config_section_defaults_and_errors():
    cfg = from_dict({})
    assert cfg.rllib == RLLIB_DEFAULTS  # missing keys take the documented defaults
    cfg = from_dict({"rllib": {"num_env_runners": 4, "device": "cpu", "self_play": 0}})
    assert cfg.rllib["num_env_runners"] == 4 and cfg.rllib["self_play"] == 0.0
    bad = [({"num_env_runner": 2}, "unknown key"), ({"num_env_runners": -1}, r"num_env_runners must be an int in 0\.\."),
           ({"num_learners": 1.5}, "num_learners must be an int"), ({"device": "gpu"}, "device"),
           ({"self_play": 1.5}, r"self_play must be a number in 0\.\.1"), ({"address": ""}, "address"),
           ({"address": "  "}, "address"), ({"device": "cpu", "gpus_per_learner": 1}, "cuda or auto"),
           ({"object_store_mb": 10}, r"object_store_mb must be an int in 75\.\."),
           ({"gpus_per_learner": True}, "gpus_per_learner must be a number")]
    for section, match in bad:
        with pytest.raises(ConfigError, match=match):
            from_dict({"rllib": section})
    with pytest.raises(ConfigError, match="mapping"):
        from_dict({"rllib": [1]})
    # --set rllib.KEY=VALUE sets one key of the section
    assert parse_overrides(["rllib.num_env_runners=2", "rllib.device=cpu", "seed=3"]) == \
        {"rllib": {"num_env_runners": 2, "device": "cpu"}, "seed": 3}


def test_set_rllib_keys_merge_and_are_checked_on_the_command_line():
    """The Ray settings (address, env runners, learners, GPUs per learner) have one way in from the
    command line, ``--set rllib.KEY=VALUE`` or ``--set rllib={...}`` (issue 44: the flags are
    gone): both forms merge into the section in any order, and a key or value the section does not
    take is a ConfigError blaming --set before anything starts (no Ray needed to say so)."""
    pairs = ["rllib.num_env_runners=2", "rllib={device: cpu, num_learners: 1}", "rllib.address=auto"]
    want = {"rllib": {"num_env_runners": 2, "device": "cpu", "num_learners": 1, "address": "auto"}}
    assert parse_overrides(pairs) == check_overrides(parse_overrides(pairs)) == want
    cfg = load_config(ppo_config("zaka_v0"), parse_overrides(["rllib.num_learners=2"]))
    assert cfg.rllib["num_learners"] == 2 and cfg.rllib["self_play"] == RLLIB_DEFAULTS["self_play"]
    for pair, match in [("rllib.num_env_runner=2", "did you mean 'num_env_runners'"),
                        ("rllib.num_learners=-1", r"--set rllib: num_learners must be an int in 0\.\."),
                        ("rllib.gpus_per_learner=some", "rllib: gpus_per_learner must be a number"),
                        ("rllib.=2", "expected rllib.KEY=VALUE"), ("rllib=[2]", "rllib must be a mapping")]:
        with pytest.raises(ConfigError, match=match):
            check_overrides(parse_overrides([pair]))
    with pytest.raises(ConfigError, match="not a section"):
        parse_overrides(["rllib=2", "rllib.num_learners=1"])
    # every shipped training config stays valid with the section
    for name in GAMES:
        assert load_config(ppo_config(name)).rllib["device"] == "auto"


def test_gpu_resolution():
    # device auto: a GPU learner only where one exists
    assert resolve_gpus("auto", 0.0, 0, local_gpu=False, cluster_gpus=0) == 0.0
    assert resolve_gpus("auto", 0.0, 0, local_gpu=True, cluster_gpus=1) == 1.0
    assert resolve_gpus("auto", 0.0, 2, local_gpu=False, cluster_gpus=2) == 1.0
    assert resolve_gpus("auto", 0.0, 4, local_gpu=False, cluster_gpus=2) == 0.0  # not enough: cpu
    assert resolve_gpus("auto", 0.5, 4, local_gpu=False, cluster_gpus=2) == 0.5
    assert resolve_gpus("cpu", 0.0, 0, local_gpu=True, cluster_gpus=8) == 0.0
    assert resolve_gpus("cuda", 0.0, 0, local_gpu=True, cluster_gpus=1) == 1.0
    with pytest.raises(ConfigError, match="has 0 GPU"):
        resolve_gpus("cuda", 0.0, 0, local_gpu=False, cluster_gpus=0)
    with pytest.raises(ConfigError, match="has 1 GPU"):
        resolve_gpus("cuda", 1.0, 2, local_gpu=True, cluster_gpus=1)
    with pytest.raises(ConfigError, match="has 0 GPU"):
        resolve_gpus("auto", 1.0, 0, local_gpu=False, cluster_gpus=0)  # asked for GPUs explicitly
    with pytest.raises(ConfigError, match="cuda or auto"):
        resolve_gpus("cpu", 1.0, 0, local_gpu=True, cluster_gpus=1)


def _parser():
    parser = argparse.ArgumentParser(prog="arena")
    commands.register(parser.add_subparsers(dest="command", required=True))
    return parser


def test_cli_rllib_keys_need_algorithm_rllib_ppo(tmp_path, capsys):
    """The RLlib trainer is ``--set algorithm=rllib_ppo`` (or the config's ``algorithm:``); its
    settings are the config's rllib section (``--set rllib.KEY=VALUE``), with another trainer a
    one-line error; there is no --backend flag beside it, nor a flag per Ray setting."""
    args = _parser().parse_args(["train", "peacekeepers", "--out", str(tmp_path / "t"), "--set",
                                 "rllib.num_env_runners=2"])
    assert args.func(args) == 2
    assert "--set rllib.num_env_runners: the rllib section is read by algorithm rllib_ppo only" in \
        capsys.readouterr().err
    assert not (tmp_path / "t").exists()
    for flag in ("--backend", "--address", "--num-env-runners", "--num-learners", "--gpus-per-learner"):
        with pytest.raises(SystemExit):
            _parser().parse_args(["train", "peacekeepers", flag, "2"])
    with pytest.raises(SystemExit):
        _parser().parse_args(["train", "--help"])
    out = capsys.readouterr().out
    assert "--backend" not in out and "algorithm=rllib_ppo" in out and "rllib.num_env_runners=2" in out
    assert "--gpus-per-learner" not in out and "gpus_per_learner" in out


def test_missing_ray_is_a_clear_error(monkeypatch, tmp_path, capsys):
    """Where ray is not installed, algorithm rllib_ppo says how to install it (nothing is written)."""
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    for mod in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(RLlibMissingError, match=r"tabletop-arena\[train,rllib\]"):
        require_ray()
    args = _parser().parse_args(["train", "peacekeepers", "--set", "algorithm=rllib_ppo", "--out", str(tmp_path / "r")])
    assert args.func(args) == 2
    assert "needs Ray RLlib" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_rllib_checkpoints_say_backend_rllib_through_a_declared_hook(tmp_path):
    """The RLlib run's files are a ``Run`` subclass whose ``meta`` says backend rllib and counts the
    env steps RLlib sampled; no method of a Run is replaced at run time (it was: ``base.meta =
    self._meta``). Needs no Ray: the driver copy is a MaskablePPO."""
    from tabletop_arena.agents.ppo import game_metadata, read_metadata
    from tabletop_arena.train.ppo import Run, policy_kwargs, resolve_network
    from tabletop_arena.train.rllib import RLlibRun
    name = "zaka_v0"
    cfg = load_config(ppo_config(name), {k: v for k, v in SMALL.items()})
    game = envs.make_game(name, **cfg.env_options)
    run = RLlibRun(name, cfg, tmp_path, policy_kwargs(game, cfg))
    assert isinstance(run.base, Run) and "meta" not in vars(run.base)   # a declared method, not a patch
    run.timesteps = 123
    meta = read_metadata(run.save_policy())
    expected = {**game_metadata(game, name), "timesteps": 123, "config": cfg.to_dict(), "backend": "rllib",
                "network": resolve_network(game, cfg)}
    written = {k: v for k, v in meta.items() if k in expected or k == "saved_at"}
    assert written.pop("saved_at") and json.loads(json.dumps(expected)) == written
    assert not {"wall_seconds", "cpu_seconds", "last_eval"} & set(meta)   # the SB3 run's keys stay out


# ---------------------------------------------------------------------------------------------
# the multi-agent env and the module (ray importable, no Ray runtime)
# ---------------------------------------------------------------------------------------------
def _env(name, **kw):
    from tabletop_arena.train.rllib_env import ArenaMultiAgentEnv
    cfg = load_config(ppo_config(name))
    return ArenaMultiAgentEnv({"game": name, "env_options": cfg.env_options, "max_steps": cfg.max_steps, **kw})


def _play(env, rng, episodes):
    """Random legal play; yields (per-agent reward totals, the env) at each episode end; the score
    margins at the reset are kept in ``env.test_start_margins``."""
    obs, _ = env.reset(seed=int(rng.integers(2**31)))
    env.test_start_margins = env._margin_paid.copy()
    totals: dict = {}
    done = 0
    while done < episodes:
        assert len(obs) == 1, f"turn-based: one observation per step, got {sorted(obs)}"
        (agent, o), = obs.items()
        assert env._index[agent] in env.learners and agent == env.aec.agent_selection
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        assert len(legal) > 0
        obs, rew, term, trunc, info = env.step({agent: int(rng.choice(legal))})
        for a, r in rew.items():
            totals[a] = totals.get(a, 0.0) + r
        if term["__all__"] or trunc["__all__"]:
            assert set(rew) == set(obs) == set(info) == {env.possible_agents[i] for i in env._acted}
            assert term["__all__"] != trunc["__all__"]
            yield totals, env
            totals = {}
            done += 1
            obs, _ = env.reset()
            env.test_start_margins = env._margin_paid.copy()


@needs_ray
@pytest.mark.parametrize("name", GAMES)
def test_multiagent_env_passes_rllib_check_and_keeps_turns(name):
    """RLlib's env check (which steps an unmasked random action) passes on every game; in play only
    the agent to move is observed, learners are the only agents RLlib sees, and each learner's
    rewards add up to its AEC result (no shaping here)."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments
    env = _env(name, opponent_mix={"random": 1.0}, self_play=0.5)
    check_multiagent_environments(env)
    rng = np.random.default_rng(7)
    kinds = set()
    for totals, played in _play(env, rng, 8):
        kinds.add(played.kind)
        res = played.episode_result
        assert not res["illegal"]
        for agent, total in totals.items():
            assert total == pytest.approx(played._totals[played._index[agent]])
        if played.kind == "self":
            assert res["outcome"] is None and played.learners == set(range(len(played.possible_agents)))
        else:
            assert res["outcome"] in ("win", "draw", "loss") and len(played.learners) == 1
    assert kinds == {"self", "random"}


@needs_ray
def test_multiagent_env_illegal_action_loses_and_is_reported():
    env = _env("peacekeepers_v0", opponent_mix={"random": 1.0}, self_play=1.0)
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rew, term, trunc, info = env.step({agent: illegal})
    assert term["__all__"] and rew[agent] == -1.0 and env.episode_result["illegal"]
    with pytest.raises(ValueError, match="turn-based"):
        env.reset(seed=3)
        env.step({"nobody": 0})


@needs_ray
@pytest.mark.parametrize("kind", ["illegal", "float"])
def test_multiagent_env_opponents_illegal_move_is_an_error_not_a_win(kind):
    """A pool opponent's move is checked before it is played (envs.core.opponents.
    play_opponents, as in the SB3 path): a buggy opponent raises instead of handing the
    learner a win."""
    from tabletop_arena.envs.core.game import IllegalActionError

    class Bad:
        needs_state = False

        def act(self, obs, state=None):
            if kind == "float":
                return float(np.flatnonzero(obs["action_mask"])[0])
            return int(np.flatnonzero(obs["action_mask"] == 0)[0])

    env = _env("zaka_v0", opponent_mix={"random": 1.0}, self_play=0.0)
    env.pool.draw = lambda slots: ("bad", {s: Bad() for s in slots})
    with pytest.raises(IllegalActionError, match="opponent 'bad'"):
        obs, _ = env.reset(seed=3)
        for _ in range(200):  # the learner may move first: play until an opponent must move
            (agent, o), = obs.items()
            obs = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})[0]


@needs_ray
def test_multiagent_env_score_shaping_telescopes():
    env = _env("peacekeepers_v0", opponent_mix={"random": 1.0}, self_play=0.5, score_reward=0.1)
    rng = np.random.default_rng(1)
    for totals, played in _play(env, rng, 4):
        margins = played._margins()
        for agent, total in totals.items():
            i = played._index[agent]
            # potential-based: sums to 0.1 x (final margin - margin at the start) on top of the result
            assert total == pytest.approx(played._totals[i] + 0.1 * (margins[i] - played.test_start_margins[i]))


def _module_and_batch(name="peacekeepers_v0", n=16, seed=0):
    import torch

    from tabletop_arena.train.ppo import policy_kwargs
    from tabletop_arena.train.rllib_module import ArenaRLModule
    env = _env(name, opponent_mix={"random": 1.0})
    cfg = from_dict({**{k: v for k, v in SMALL.items()}, "env_options": env.env_options})
    kwargs = policy_kwargs(env.game, cfg)
    agent = env.possible_agents[0]
    module = ArenaRLModule(observation_space=env.observation_spaces[agent], action_space=env.action_spaces[agent],
                           model_config={"policy_kwargs": kwargs})
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    env.reset(seed=seed)
    for _ in range(n):
        o = env._observe(env.aec.agent_selection)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.aec.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        if env._game_over():
            env.reset()
    batch = {"obs": {"observation": torch.as_tensor(np.stack(obs)), "action_mask": torch.as_tensor(np.stack(masks))}}
    return module, batch, np.stack(masks).astype(bool), kwargs


@needs_ray
def test_masking_module_samples_only_legal_actions_and_matches_the_exported_policy():
    import torch
    from ray.rllib.core.columns import Columns

    from tabletop_arena.agents.ppo import PPOAgent
    module, batch, masks, _ = _module_and_batch()
    out = module.forward_exploration(batch)
    logits = out[Columns.ACTION_DIST_INPUTS]
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    for _ in range(20):
        actions = dist.sample().numpy()
        assert masks[np.arange(len(actions)), actions].all()
    train_out = module.forward_train(batch)
    values = module.compute_values(batch)
    assert values.shape == (len(masks),)
    assert torch.allclose(values, module.compute_values(batch, train_out[Columns.EMBEDDINGS]))
    # the wrapped ArenaPolicy is what ppo:PATH plays: same legal logits
    agent = PPOAgent.from_policy(module.policy)
    for i in range(len(masks)):
        ref = agent.logits(batch["obs"]["observation"][i].numpy())
        assert np.allclose(ref[masks[i]], logits[i].detach().numpy()[masks[i]], atol=1e-5)


@needs_ray
def test_snapshot_by_weights_plays_like_its_policy():
    from tabletop_arena.agents.ppo import PPOAgent
    module, batch, masks, kwargs = _module_and_batch()
    env = _env("peacekeepers_v0", opponent_mix={"snapshot": 1.0}, self_play=0.0, policy_kwargs=kwargs, max_snapshots=2)
    state = {k: v.detach().numpy() for k, v in module.policy.state_dict().items()}
    for i in range(3):
        env.add_snapshot(f"s{i}", state)
    assert env.snapshot_names() == ["s1", "s2"] and set(env.pool.policies) == {"s1", "s2"}
    env.reset(seed=0)
    assert env.kind == "snapshot"
    (opp,) = env.opponents.values()
    ref = PPOAgent.from_policy(module.policy)
    for i in range(len(masks)):
        o = {"observation": batch["obs"]["observation"][i].numpy(), "action_mask": masks[i]}
        assert np.allclose(opp.logits(o["observation"]), ref.logits(o["observation"]), atol=1e-6)


# ---------------------------------------------------------------------------------------------
# training on a local Ray
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def local_ray():
    if not _has_rllib():
        pytest.skip("ray[rllib] is not installed")
    import ray
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, object_store_memory=100 * 2**20, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@needs_ray
@pytest.mark.parametrize("name", ["peacekeepers_v0", "zaka_v0"])
def test_one_iteration_trains_saves_resumes_and_evaluates(local_ray, name, tmp_path, capsys):
    """The CI smoke run: one PPO iteration, a policy.zip that ``arena eval`` loads, a resume."""
    from tabletop_arena.agents.ppo import load_policy, read_metadata
    from tabletop_arena.train.rllib import train_rllib
    out = tmp_path / "run"
    options = load_config(ppo_config(name)).env_options
    args = _parser().parse_args(["train", name, "--set", "algorithm=rllib_ppo", "--out", str(out), "--timesteps", "64",
                                 "--seed", "3", "--device", "auto", "--set", "rllib.num_env_runners=0", "--no-progress",
                                 "--set", "rllib.self_play=0.5"]
                                + [x for k, v in SMALL.items() if k != "progress"
                                   for x in ("--set", f"{k}={json.dumps(v)}")])
    assert args.func(args) == 0
    assert "final evaluation" in capsys.readouterr().out
    meta = read_metadata(out / "policy.zip")
    assert meta["backend"] == "rllib" and meta["game"] == name and meta["timesteps"] >= 64
    assert meta["config"]["rllib"]["self_play"] == 0.5
    rows = (out / "progress.csv").read_text().splitlines()
    header, row = rows[0].split(","), dict(zip(rows[0].split(","), rows[-1].split(",")))
    assert "env_steps_per_s" in header and int(row["illegal_moves"]) == 0
    state = json.loads((out / "rllib_state.json").read_text())
    assert state["iterations"] == 1 and state["timesteps"] == meta["timesteps"]
    assert (out / "snapshots").is_dir() and (out / "algorithm").is_dir()
    # arena eval reads it as ppo:PATH
    ev = _parser().parse_args(["eval", name, "--agents", f"ppo:{out / 'policy.zip'}", "random", "--games", "2",
                               "--workers", "1", "--out", str(tmp_path / "ev"), "--no-progress",
                               "--opt", json.dumps(options)])
    assert ev.func(ev) == 0
    # resume: the learner continues from the saved weights and counts on
    before = load_policy(out / "policy.zip").state_dict()
    # Ray pickles algorithm/: resuming runs its code, so it needs trust (refused before Ray loads it)
    with pytest.raises(ConfigError, match="trust-checkpoint"):
        train_rllib(name, out=out, resume=True, timesteps=state["timesteps"] + 1, eval_games=0)
    assert json.loads((out / "rllib_state.json").read_text()) == state
    train_rllib(name, out=out, resume=True, trust=True, timesteps=state["timesteps"] + 1, eval_games=0)
    state2 = json.loads((out / "rllib_state.json").read_text())
    assert state2["iterations"] == 2 and state2["timesteps"] > state["timesteps"]
    after = load_policy(out / "policy.zip").state_dict()
    assert before.keys() == after.keys() and any(not np.allclose(before[k], after[k]) for k in before)
    with pytest.raises(ConfigError, match="already holds a run"):
        train_rllib(name, out=out, timesteps=64, **SMALL)
    with pytest.raises(ConfigError, match="cannot change when resuming"):
        train_rllib(name, out=out, resume=True, trust=True, net_arch=[8])


@needs_ray
def test_a_network_that_does_not_fit_the_game_makes_no_run_folder(tmp_path):
    """As the SB3 trainer (tests/test_training_pipeline.py): the network is checked against the
    game before the run folder and its config.yaml are written."""
    from tabletop_arena.train.rllib import train_rllib
    out = tmp_path / "bad"
    with pytest.raises(ConfigError, match="focus planes"):
        train_rllib("warbah", config_path=ppo_config("warbah_v0"), out=out, timesteps=64,
                    **{**SMALL, "network": "board", "focus_planes": [40]})
    assert not out.exists()


@needs_ray
def test_warm_start_weights_reach_learner_and_env_runner(local_ray, tmp_path):
    """push() after behaviour cloning: the learner and the sampling module hold the driver's weights."""
    from tabletop_arena.train.ppo import policy_kwargs
    from tabletop_arena.train.rllib import RLlibRun, algorithm_config
    from tabletop_arena.train.rllib_module import MODULE_ID, policy_state
    name = "zaka_v0"
    cfg = load_config(None, {k: v for k, v in SMALL.items()}, game=name)
    game = envs.make_game(name, **cfg.env_options)
    kwargs = policy_kwargs(game, cfg)
    run = RLlibRun(name, cfg, tmp_path, kwargs)
    algo = algorithm_config(name, cfg, kwargs, 0.0).build_algo()
    try:
        import torch
        with torch.no_grad():
            for p in run.model.policy.parameters():
                p.fill_(0.125)
        run.push(algo)
        learner = policy_state(algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID])
        sampler = policy_state(algo.env_runner.module[MODULE_ID].get_state())
        for k, v in run.model.policy.state_dict().items():
            assert np.allclose(learner[k].numpy(), v.numpy()) and np.allclose(sampler[k].numpy(), v.numpy())
    finally:
        algo.stop()


@needs_ray
@pytest.mark.slow
def test_two_node_cluster_spreads_env_runners(tmp_path):
    """A two-node Ray cluster on one machine (ray.cluster_utils.Cluster, 1 CPU each): the run
    joins the running Ray and its two env runners (1 CPU each) can only fit one per node."""
    import ray
    from ray.cluster_utils import Cluster

    from tabletop_arena.train.rllib import train_rllib
    if ray.is_initialized():
        pytest.skip("needs its own Ray")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 80 * 2**20,
                                                            "include_dashboard": False})
    cluster.add_node(num_cpus=1, object_store_memory=80 * 2**20)
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        nodes = [n for n in ray.nodes() if n["Alive"]]
        assert len(nodes) == 2
        train_rllib("zaka", out=tmp_path / "run", timesteps=128, rllib={"num_env_runners": 2},
                    **{**SMALL, "eval_games": 0})
        state = json.loads((tmp_path / "run" / "rllib_state.json").read_text())
        assert state["timesteps"] >= 128
    finally:
        ray.shutdown()
        cluster.shutdown()
