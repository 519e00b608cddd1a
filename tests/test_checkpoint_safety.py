"""Checkpoints carry no code (issue 40, DESIGN.md "Security"; issue 43 item 5).

A crafted pickled checkpoint (an SB3-style zip whose ``data`` member unpickles into a call that
creates a marker file, as an attacker's would run anything) is refused by every loader by default,
``arena eval`` (``ppo:``, ``puct:N:``, ``rollout:N:``), ``arena play``, the Python path
``arena serve`` builds its agents with, the training key ``init_policy`` and ``--resume``: exit 2,
one line, no marker. Only the explicit opt-in (``--trust-checkpoint``, ``trust=True``) unpickles
it (the marker appears). A corrupted safe checkpoint (truncated, wrong tensors, a class outside
the allow-lists, huge shapes, a pickle in place of the weights) is one clear ``CheckpointError``.
The shipped agents are safe checkpoints; a trusted legacy file converts to one with the same
logits; ``load_maskable_ppo`` gives a ``MaskablePPO`` with a shipped agent's weights that learns.
"""
from __future__ import annotations

import base64
import json
import pickle
import re
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop_arena import envs  # noqa: E402
from tabletop_arena.agents import checkpoint as checkpoint_module  # noqa: E402
from tabletop_arena.agents.ppo import (  # noqa: E402
    FORMAT,
    LEGACY_FORMAT,
    CheckpointError,
    PPOAgent,
    convert_checkpoint,
    game_metadata,
    load_policy,
    read_metadata,
)
from tabletop_arena.agents.registry import make_agent  # noqa: E402
from tabletop_arena.agents.shipped import agent_kind, resolve_checkpoint, shipped_agents  # noqa: E402
from tabletop_arena.app.cli import main  # noqa: E402

GAME = "zaka_v0"


# ---------------------------------------------------------------------------------------------
# the attacker's file
# ---------------------------------------------------------------------------------------------
class _Touch:
    """Unpickles into ``Path(marker).touch()``: a stand-in for any code a pickle can run."""

    def __init__(self, marker: Path):
        self.marker = Path(marker)

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def crafted_checkpoint(path: Path, marker: Path, game_id: str = GAME, config: dict | None = None) -> Path:
    """A pickled SB3-style checkpoint (``tabletop-arena-ppo/1``) that fits ``game_id`` and whose
    ``data`` member creates ``marker`` when SB3 unpacks it."""
    game = envs.make_game(game_id)
    payload = base64.b64encode(pickle.dumps(_Touch(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload}}
    meta = dict(game_metadata(game, game_id), format=LEGACY_FORMAT, policy_only=False, timesteps=64)
    if config is not None:
        meta["config"] = config
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", b"not read before the data member")
        zf.writestr("arena_meta.json", json.dumps(meta))
    return path


@pytest.fixture
def attack(tmp_path):
    marker = tmp_path / "marker"
    return crafted_checkpoint(tmp_path / "evil.zip", marker), marker


def one_line_refusal(code: int, err: str, tmp_path: Path) -> None:
    """Exit 2 and one short line (the command line's bar, tests/test_cli_misuse.py) saying the file
    is pickled and how to opt in."""
    from tests.test_cli_misuse import check_one_line_error
    line = check_one_line_error(code, err, "pickled checkpoint", {"tmp": str(tmp_path)})
    assert "--trust-checkpoint" in line


def test_the_crafted_file_runs_its_code_when_unpickled(attack):
    """The attack is real: SB3's own loader (what the old ``load_policy`` called) runs it."""
    from stable_baselines3.common.save_util import json_to_data
    path, marker = attack
    json_to_data(zipfile.ZipFile(path).read("data").decode())
    assert marker.exists()


# ---------------------------------------------------------------------------------------------
# every loader refuses by default and unpickles only with the opt-in
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["ppo:{}", "puct:2:{}", "rollout:2:{}"])
def test_arena_eval_refuses_a_pickled_checkpoint_unless_trusted(attack, form, tmp_path, capsys):
    path, marker = attack
    argv = ["eval", "zaka", "--agents", form.format(path), "random", "--games", "2", "--workers", "1",
            "--no-progress", "--out", str(tmp_path / "eval")]
    one_line_refusal(main(argv), capsys.readouterr().err, tmp_path)
    assert not marker.exists()
    assert main(argv + ["--trust-checkpoint"]) == 2   # loads it: the code runs, the file is no policy
    assert marker.exists()
    assert "corrupt checkpoint" in capsys.readouterr().err


def test_arena_play_refuses_a_pickled_checkpoint_unless_trusted(attack, monkeypatch, capsys, tmp_path):
    path, marker = attack
    monkeypatch.setattr("builtins.input", lambda *_: "q")
    argv = ["play", "zaka", "--opponents", f"ppo:{path}", "--no-color"]
    one_line_refusal(main(argv), capsys.readouterr().err, tmp_path)
    assert not marker.exists()
    assert main(argv + ["--trust-checkpoint"]) == 2
    assert marker.exists()


def test_the_agents_serve_builds_refuse_a_pickled_checkpoint(attack):
    """``arena serve`` builds its agents with ``cli_common.make_agent`` (a ``train.play.Match``):
    without trust the file is refused there (a 4xx from the page), and nothing runs."""
    from tabletop_arena.app.cli_common import CLIError
    from tabletop_arena.app.cli_common import make_agent as cli_make_agent
    from tabletop_arena.app.match import Match
    path, marker = attack
    with pytest.raises(CLIError, match="pickled checkpoint"):
        Match(GAME, {}, human=0, opponents=[f"ppo:{path}"], seed=0, agent_factory=cli_make_agent)
    with pytest.raises(CheckpointError, match="pickled checkpoint"):
        make_agent(f"rollout:2:{path}", envs.make_game(GAME), seed=0)
    assert not marker.exists()
    with pytest.raises(CheckpointError, match="corrupt"):
        make_agent(f"ppo:{path}", envs.make_game(GAME), seed=0, trust=True)
    assert marker.exists()


def _config(**keys) -> dict:
    from tabletop_arena.train.config import load_config
    return load_config(None, dict(n_envs=1, n_steps=32, batch_size=32, bc_games=0, eval_games=0,
                                  progress=False, **keys), game=GAME).to_dict()


def test_init_policy_refuses_a_pickled_checkpoint_unless_trusted(attack, tmp_path, capsys):
    path, marker = attack
    out = tmp_path / "run"
    argv = ["train", "zaka", "--out", str(out), "--timesteps", "32", "--no-progress",
            "--set", f"init_policy={path}", "--set", "n_envs=1", "--set", "n_steps=32",
            "--set", "batch_size=32", "--set", "eval_games=0"]
    code = main(argv)
    err = capsys.readouterr().err
    one_line_refusal(code, err, tmp_path)
    assert "init_policy" in err
    assert not marker.exists()
    assert not out.exists(), "a refused run leaves nothing behind"
    assert main(argv + ["--trust-checkpoint"]) == 2
    assert marker.exists()


def test_resume_refuses_a_pickled_checkpoint_unless_trusted(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    marker = tmp_path / "marker"
    crafted_checkpoint(out / "checkpoint.zip", marker, config=_config())
    argv = ["train", "zaka", "--out", str(out), "--resume", "--timesteps", "64", "--no-progress"]
    one_line_refusal(main(argv), capsys.readouterr().err, tmp_path)
    assert not marker.exists()
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.zip"], "a refused resume changes nothing"
    assert main(argv + ["--trust-checkpoint"]) == 2   # SB3's loader ran the code, then failed
    assert marker.exists()


def test_a_safe_checkpoint_whose_weights_are_a_pickle_runs_nothing(tmp_path):
    """The safe format's tensor files go through ``torch.load(weights_only=True)``: a pickle that
    names a callable is refused by torch, whatever the metadata claims."""
    good = resolve_checkpoint("zaka")
    marker = tmp_path / "marker"
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            raw = src.read(item.filename)
            if item.filename == "policy.pt":
                import io
                buf = io.BytesIO()
                torch.save({"w": _Touch(marker)}, buf)   # torch.save pickles what it is given
                raw = buf.getvalue()
            dst.writestr(item, raw)
    with pytest.raises(CheckpointError, match="corrupt checkpoint .*policy.pt") as refused:
        make_agent(f"ppo:{bad}", envs.make_game(GAME), seed=0)
    assert not marker.exists()
    _says_why_without_advice_to_unpickle(refused.value)


def _says_why_without_advice_to_unpickle(exc: Exception) -> None:
    # torch's own message suggests weights_only=False ("will likely succeed"): for a file from
    # elsewhere that is running its code; the arena's line gives the reason only, in one short line
    text = str(exc)
    assert "torch's safe loader refused it" in text and "weights_only" not in text
    assert "\n" not in text and len(text) < 400, text


@pytest.mark.parametrize("content", ["pickle", "garbage", "empty"])
def test_a_value_checkpoint_that_is_not_tensors_is_refused_saying_why(tmp_path, content):
    from tabletop_arena.agents.lookahead import ValueCheckpointError, load_value
    marker = tmp_path / "marker"
    path = tmp_path / "value.pt"
    if content == "pickle":
        torch.save({"format": "x", "w": _Touch(marker)}, path)
    else:
        path.write_bytes(b"" if content == "empty" else bytes(range(256)) * 4)
    with pytest.raises(ValueCheckpointError, match="corrupt value checkpoint") as refused:
        load_value(path)
    assert not marker.exists()
    if content == "empty":
        assert "ends early" in str(refused.value) or "EOFError" in str(refused.value)
    else:
        _says_why_without_advice_to_unpickle(refused.value)


# ---------------------------------------------------------------------------------------------
# corrupted safe checkpoints
# ---------------------------------------------------------------------------------------------
def _rewrite(src: Path, dst: Path, meta=None, weights=None, drop=()) -> Path:
    """``src`` with its metadata and/or weights replaced (``meta(m)`` / ``weights(state)`` edit a
    copy and return it), or members dropped."""
    import io
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            if item.filename in drop:
                continue
            raw = zin.read(item.filename)
            if item.filename == "arena_meta.json" and meta is not None:
                raw = json.dumps(meta(json.loads(raw))).encode()
            if item.filename == "policy.pt" and weights is not None:
                buf = io.BytesIO()
                torch.save(weights(torch.load(io.BytesIO(raw), weights_only=True)), buf)
                raw = buf.getvalue()
            zout.writestr(item, raw)
    return dst


def _set(path: list, value):
    def edit(m):
        node = m
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return m
    return edit


def _weights(fn):
    def edit(state):
        fn(state)
        return state
    return edit


def test_corrupted_safe_checkpoints_are_one_clear_error(tmp_path, monkeypatch):
    good = Path(resolve_checkpoint("zaka"))
    game = envs.make_game(GAME)
    first = next(iter(torch.load(__import__("io").BytesIO(zipfile.ZipFile(good).read("policy.pt")),
                                 weights_only=True)))
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    cases = {
        "truncated": (truncated, "corrupt"),
        "no weights": (_rewrite(good, tmp_path / "a.zip", drop=("policy.pt",)), "incomplete"),
        "a tensor missing": (_rewrite(good, tmp_path / "b.zip", weights=_weights(lambda s: s.pop(first))),
                             "do not fit .*missing"),
        "a tensor of another shape": (_rewrite(good, tmp_path / "c.zip", weights=_weights(
            lambda s: s.__setitem__(first, torch.zeros(3, 3)))), "do not fit .*(3, 3)"),
        "a tensor of another dtype": (_rewrite(good, tmp_path / "d.zip", weights=_weights(
            lambda s: s.__setitem__(first, s[first].double()))), "do not fit .*float64"),
        "not a dict of tensors": (_rewrite(good, tmp_path / "e.zip", weights=lambda s: [1, 2, 3]),
                                  "not a dict of tensors"),
        "a policy class outside the allow-list": (_rewrite(good, tmp_path / "f.zip", meta=_set(
            ["policy", "class"], "os.system")), "policy class 'os.system' is not one"),
        "an extractor outside the allow-list": (_rewrite(good, tmp_path / "g.zip", meta=_set(
            ["policy", "kwargs", "features_extractor_class"], "subprocess.Popen")), "not in the allow-list"),
        "an unknown keyword": (_rewrite(good, tmp_path / "h.zip", meta=_set(
            ["policy", "kwargs", "lr_schedule"], "x")), "unknown policy keywords"),
        "a huge observation": (_rewrite(good, tmp_path / "i.zip", meta=_set(
            ["policy", "observation_space", "shape"], [10**9])), "out of range"),
        "a huge layer": (_rewrite(good, tmp_path / "j.zip", meta=_set(
            ["policy", "kwargs", "features_extractor_kwargs", "features_dim"], 1 << 20)), "do not fit"),
        "a non-finite bound": (_rewrite(good, tmp_path / "k.zip", meta=_set(
            ["policy", "observation_space", "low"], float("nan"))), "not a finite number"),
        "no network description": (_rewrite(good, tmp_path / "l.zip", meta=lambda m: {
            k: v for k, v in m.items() if k != "policy"}), "no network description"),
        "another format": (_rewrite(good, tmp_path / "m.zip", meta=_set(["format"], "tabletop-arena-ppo/9")),
                           "unknown checkpoint format"),
    }
    for name, (path, pattern) in cases.items():
        try:
            PPOAgent(path, game, seed=0)
        except CheckpointError as exc:
            assert re.search(pattern, str(exc)) and "\n" not in str(exc), (name, str(exc))
        else:
            raise AssertionError(f"{name}: loaded")
    # a member that would unpack past the limit is refused unread
    monkeypatch.setattr(checkpoint_module, "MAX_WEIGHTS_BYTES", 1000)
    with pytest.raises(CheckpointError, match="more than the 1000"):
        load_policy(good)


def test_value_checkpoint_with_huge_sizes_is_refused_unbuilt(tmp_path):
    """The same bar for ``vlook:`` value files: sizes in their metadata are checked against the
    weights before a network is built."""
    from tabletop_arena.agents.lookahead import ValueCheckpointError, load_value
    blob = torch.load(resolve_checkpoint("gorgasali", "vlook"), weights_only=True)
    blob["meta"] = dict(blob["meta"], inputs=10**7, hidden=10**6)
    path = tmp_path / "value.pt"
    torch.save(blob, path)
    with pytest.raises(ValueCheckpointError, match="do not fit"):
        load_value(path)


# ---------------------------------------------------------------------------------------------
# shipped agents, legacy files, conversion
# ---------------------------------------------------------------------------------------------
def test_every_shipped_ppo_agent_is_a_safe_checkpoint_and_plays():
    from tabletop_arena.train.play import play
    played = 0
    for name, entry in shipped_agents().items():
        if agent_kind(entry) != "ppo":
            continue
        with zipfile.ZipFile(entry["file"]) as zf:
            assert sorted(zf.namelist()) == ["arena_meta.json", "policy.pt"], name   # no pickled data
        meta = read_metadata(entry["file"])
        assert meta["format"] == FORMAT and meta["policy_only"] is True, name
        game = envs.make_game(entry["game"], **meta["options"])
        agents = [make_agent(f"ppo:{name}", game, seed=s) for s in range(game.num_agents)]
        result = play(game, agents, 7, max_steps=60)
        assert len(result.history) > 0
        played += 1
    assert played >= 4


def legacy_checkpoint(policy, meta: dict, path: Path) -> Path:
    """``policy`` written as the old format did (SB3's zip layout: a pickled ``data`` member)."""
    import io

    from stable_baselines3.common.save_util import data_to_json
    params = {k: v for k, v in policy._get_constructor_parameters().items()
              if k not in ("observation_space", "action_space", "lr_schedule")}
    data = {"policy_class": type(policy), "observation_space": policy.observation_space,
            "action_space": policy.action_space, "policy_kwargs": params}
    buf = io.BytesIO()
    torch.save(policy.state_dict(), buf)
    keep = {k: v for k, v in meta.items() if k not in ("policy", "training")}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", data_to_json(data))
        zf.writestr("policy.pth", buf.getvalue())
        zf.writestr("arena_meta.json", json.dumps(dict(keep, format=LEGACY_FORMAT, policy_only=True)))
    return path


def test_a_trusted_legacy_checkpoint_converts_to_the_same_network(tmp_path, capsys):
    shipped = resolve_checkpoint("zaka")
    policy, meta = load_policy(shipped), read_metadata(shipped)
    old = legacy_checkpoint(policy, meta, tmp_path / "old.zip")
    game = envs.make_game(GAME)
    with pytest.raises(CheckpointError, match="pickled checkpoint.*arena convert-checkpoint"):
        PPOAgent(old, game)
    with pytest.raises(CheckpointError, match="pickled checkpoint"):
        convert_checkpoint(old, tmp_path / "x.zip", trust=False)
    new = tmp_path / "new.zip"
    one_line_refusal(main(["convert-checkpoint", str(old), str(new)]), capsys.readouterr().err, tmp_path)
    assert not new.exists()
    assert main(["convert-checkpoint", str(old), str(new), "--trust-checkpoint"]) == 0
    assert "converted" in capsys.readouterr().out
    trusted, safe = PPOAgent(old, game, trust=True), PPOAgent(new, game)
    obs = np.random.default_rng(0).uniform(-1, 1, (16, game.observation_size)).astype(np.float32)
    assert np.array_equal(PPOAgent.logits_batch(trusted.policy, obs), PPOAgent.logits_batch(safe.policy, obs))
    assert read_metadata(new)["format"] == FORMAT and read_metadata(new)["game"] == GAME


def test_a_legacy_file_naming_the_classes_in_agents_ppo_still_loads(tmp_path, monkeypatch):
    """Pickled checkpoints written before the network moved to ``agents/policy_net.py`` name
    ``tabletop_arena.agents.ppo.ArenaPolicy`` (and its extractor and head): ``agents/ppo.py``
    re-exports them, so such a file still loads (trusted) and plays the same network."""
    from tabletop_arena.agents import policy_net, ppo

    shipped = resolve_checkpoint("peacekeepers")   # the CNN network: ArenaPolicy + LayoutExtractor
    policy, meta = load_policy(shipped), read_metadata(shipped)
    classes = (policy_net.ArenaPolicy, policy_net.LayoutExtractor, policy_net.SpatialActionHead)
    for cls in classes:
        monkeypatch.setattr(cls, "__module__", ppo.__name__)
    old = legacy_checkpoint(policy, meta, tmp_path / "old.zip")
    for cls in classes:
        monkeypatch.setattr(cls, "__module__", policy_net.__name__)
    with zipfile.ZipFile(old) as zf:
        pickled = base64.b64decode(json.loads(zf.read("data"))["policy_class"][":serialized:"])
    assert b"tabletop_arena.agents.ppo" in pickled and b"policy_net" not in pickled   # the old name
    game = envs.make_game("peacekeepers_v0")
    agent = PPOAgent(old, game, trust=True)
    assert type(agent.policy) is policy_net.ArenaPolicy and ppo.ArenaPolicy is policy_net.ArenaPolicy
    obs = np.random.default_rng(0).uniform(-1, 1, (8, game.observation_size)).astype(np.float32)
    assert np.array_equal(PPOAgent.logits_batch(agent.policy, obs), PPOAgent.logits_batch(policy, obs))


def test_a_legacy_file_from_numpy_2_names_the_numpy_version(tmp_path, monkeypatch):
    """A trusted legacy file written with numpy 2 cannot be unpickled by numpy 1.x
    (``No module named 'numpy._core'``): the error says so, not "corrupt checkpoint". Simulated
    by hiding the module from the import system while the file loads."""
    shipped = resolve_checkpoint("zaka")
    old = legacy_checkpoint(load_policy(shipped), read_metadata(shipped), tmp_path / "old.zip")
    for name in [m for m in sys.modules if m == "numpy._core" or m.startswith("numpy._core.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(CheckpointError, match=r"written with numpy >= 2 .* installed numpy .* too old"):
        load_policy(old, trust=True)


def test_a_full_checkpoint_keeps_the_optimizer_and_counters_for_resume(tmp_path):
    """``checkpoint.zip`` (full) carries the optimizer state and step counters as tensors and JSON,
    counters past a million included (a long run); a policy-only file is refused for a resume."""
    from tabletop_arena.agents.ppo import load_maskable_ppo, read_training_state, save_checkpoint
    from tabletop_arena.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(GAME, opponent="random")
    model = load_maskable_ppo("zaka", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=64)
    model.num_timesteps = 1_700_000
    meta = game_metadata(envs.make_game(GAME), GAME)
    full = save_checkpoint(model, tmp_path / "checkpoint.zip", meta)
    state, optimizer, training = read_training_state(full)
    assert training["num_timesteps"] == 1_700_000
    want = model.policy.optimizer.state_dict()
    assert optimizer["param_groups"] == want["param_groups"]
    assert all(torch.equal(optimizer["state"][k]["exp_avg"], v["exp_avg"]) for k, v in want["state"].items())
    assert all(torch.equal(state[k], v) for k, v in model.policy.state_dict().items())
    with pytest.raises(CheckpointError, match="policy only"):
        read_training_state(save_checkpoint(model, tmp_path / "policy.zip", meta, policy_only=True))


# ---------------------------------------------------------------------------------------------
# fine-tuning a shipped agent in one's own SB3 code (issue 43 item 5)
# ---------------------------------------------------------------------------------------------
def test_load_maskable_ppo_carries_the_shipped_weights_and_learns():
    import gymnasium
    from sb3_contrib import MaskablePPO

    from tabletop_arena.agents.ppo import load_maskable_ppo
    from tabletop_arena.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(GAME, opponent="random", seat=None)
    model = load_maskable_ppo("zaka", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    assert type(model) is MaskablePPO
    shipped = PPOAgent(resolve_checkpoint("zaka"), envs.make_game(GAME))
    obs = np.stack([env.reset(seed=s)[0] for s in range(4)])
    before = PPOAgent.logits_batch(model.policy, obs)
    assert np.array_equal(before, PPOAgent.logits_batch(shipped.policy, obs))
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128
    assert not np.array_equal(before, PPOAgent.logits_batch(model.policy, obs))
    with pytest.raises(CheckpointError, match="this env has"):
        load_maskable_ppo("zaka", gymnasium.make(envs.gymnasium_id("peacekeepers_v0")))
