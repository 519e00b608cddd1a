"""Command-line misuse (issue 41, item 7): every mistake a person can make on the ``arena`` command
line ends with exit code 2 and exactly one short line on stderr, never a traceback, a hang or a
run that starts anyway.

The table below covers every sub-command (``list``, ``play``, ``serve``, ``bench``, ``quickstart``,
``train``, ``eval``): usage errors (unknown flags, bad numbers), bad games and env options, rules
files that cannot be read or are malformed (``--opt config_path=...``), bad training configs, run
and report folders that cannot be written, agent specs that name nothing (with a did-you-mean) or
name an agent trained for another game. Each case runs in-process through ``cli.main(argv)`` (a
guard alarm turns a hang into a failure); a few run as real processes to check the exit code the
shell sees.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tabletop_arena.app import cli
from tabletop_arena.envs.core.resources import config_path

#: a case that neither fails nor finishes within this many seconds is a hang (the guard's limit)
GUARD_SECONDS = 60
#: the longest error line a person should have to read
MAX_LINE = 200

# Placeholders in the table (filled by the ``places`` fixture): {dir} an empty folder, {file} a
# plain file, {busy} a folder holding a file, {run} a folder holding a (fake) checkpoint.zip,
# {garbage} binary bytes, {nan_cfg} ... training configs, {pk_cubes} ... rules files.
EVAL = ["--games", "2", "--workers", "1", "--no-progress"]
TRAIN = ["--no-progress", "--timesteps", "64"]

CASES: list[tuple[str, list[str], str]] = [
    # id, argv, a piece of the error line ("" = any one-line error)
    # ---- arena itself
    ("no-command", [], "required: COMMAND"),
    ("unknown-command", ["nosuchcommand"], "invalid choice"),
    ("command-typo", ["evl", "zaka"], "invalid choice"),
    ("unknown-top-flag", ["--bogus"], "COMMAND"),
    ("list-extra-arg", ["list", "zaka"], "unrecognized arguments"),
    ("list-unknown-flag", ["list", "--all"], "unrecognized arguments"),
    # ---- play
    ("play-no-game", ["play"], "game"),
    ("play-unknown-game", ["play", "nosuchgame"], "unknown game 'nosuchgame'"),
    ("play-game-typo", ["play", "peacekeeper_v0"], "did you mean 'peacekeepers_v0'"),
    ("play-seat-negative", ["play", "zaka", "--seat", "-1"], "--seat"),
    ("play-seat-word", ["play", "zaka", "--seat", "abc"], "--seat"),
    ("play-seat-too-high", ["play", "zaka", "--seat", "5"], "seat"),
    ("play-seed-negative", ["play", "zaka", "--seed", "-3"], "--seed"),
    ("play-seed-float", ["play", "zaka", "--seed", "1.5"], "--seed"),
    ("play-seed-word", ["play", "zaka", "--seed", "zero"], "--seed"),
    ("play-agent-typo", ["play", "zaka", "--opponents", "heuristc"], "did you mean 'heuristic'"),
    ("play-agent-unknown", ["play", "zaka", "--opponents", "alphazero"], "unknown agent 'alphazero'"),
    ("play-mcts-negative", ["play", "zaka", "--opponents", "mcts:-1"], "mcts:N needs N >= 1"),
    ("play-mcts-word", ["play", "zaka", "--opponents", "mcts:abc"], "mcts:N needs"),
    ("play-mcts-zero", ["play", "zaka", "--opponents", "mcts:0"], "mcts:N needs N >= 1"),
    ("play-mcts-huge", ["play", "zaka", "--opponents", "mcts:10000000000"], "mcts:N"),
    ("play-random-arg", ["play", "zaka", "--opponents", "random:3"], "takes no argument"),
    ("play-shipped-typo", ["play", "peacekeepers", "--opponents", "ppo:peacekeeper"],
     "did you mean 'ppo:peacekeepers'"),
    ("play-shipped-wrong-game", ["play", "peacekeepers", "--opponents", "ppo:zaka"],
     "ppo:zaka was trained for zaka_v0"),
    ("play-shipped-wrong-variant", ["play", "peacekeepers", "--opt", "num_players=4", "--opponents",
                                    "ppo:peacekeepers"], "ppo:peacekeepers"),
    ("play-vlook-wrong-game", ["play", "zaka", "--opponents", "vlook:gorgasali"],
     "vlook:gorgasali was trained for gorgasali_v0"),
    ("play-ppo-as-vlook", ["play", "zaka", "--opponents", "vlook:zaka"], "play it as ppo:zaka"),
    ("play-ppo-missing-file", ["play", "zaka", "--opponents", "ppo:{dir}/none.zip"], "not found"),
    ("play-ppo-empty", ["play", "zaka", "--opponents", "ppo:"], "ppo needs"),
    ("play-puct-zero", ["play", "zaka", "--opponents", "puct:0:zaka"], "puct needs"),
    ("play-rollout-bad-k", ["play", "zaka", "--opponents", "rollout:16,k=0:zaka"], "rollout"),
    ("play-rollout-bad-setting", ["play", "zaka", "--opponents", "rollout:16,q=1:zaka"], "rollout settings"),
    ("play-opt-unknown", ["play", "zaka", "--opt", "num_player=3"], "did you mean 'num_players'"),
    ("play-opt-out-of-range", ["play", "zaka", "--opt", "num_players=99"], "num_players"),
    ("play-opt-bad-json", ["play", "zaka", "--opt", "{bad"], "not valid JSON"),
    ("play-opt-no-equals", ["play", "zaka", "--opt", "nonsense"], "--opt expects KEY=VALUE"),
    ("play-opt-wrong-type", ["play", "zaka", "--opt", "num_players=two"], "num_players"),
    ("play-rules-unknown-key", ["play", "zaka", "--opt", "rules.nonsense=1"], "nonsense"),
    ("play-config-path-folder", ["play", "zaka", "--opt", "config_path={dir}"], "config_path"),
    ("play-config-path-missing", ["play", "zaka", "--opt", "config_path={dir}/none.yaml"], "none.yaml"),
    ("play-config-path-garbage", ["play", "zaka", "--opt", "config_path={garbage}"], "garbage.yaml"),
    ("play-config-path-list", ["play", "zaka", "--opt", "config_path={rules_list}"], "rules_list.yaml"),
    ("play-unknown-flag", ["play", "zaka", "--bogus"], "unrecognized arguments: --bogus"),
    # ---- rules files with a broken section, in all five games (item 7)
    ("rules-peacekeepers-cubes", ["play", "peacekeepers", "--opt", "config_path={pk_cubes}"], "cubes"),
    ("rules-peacekeepers-cubes-short", ["play", "peacekeepers", "--opt", "config_path={pk_cubes_short}"],
     "cubes"),
    ("rules-zaka-weapon-types", ["play", "zaka", "--opt", "config_path={zaka_weapon_types}"],
     "weapon_types"),
    ("rules-zaka-monsters", ["play", "zaka", "--opt", "config_path={zaka_monsters}"], "monster"),
    ("rules-zaberias-board", ["play", "zaberias", "--opt", "config_path={zab_board}"], "board"),
    ("rules-gorgasali-map", ["play", "gorgasali", "--opt", "config_path={gor_map}"], "map"),
    ("rules-gorgasali-weapons", ["play", "gorgasali", "--opt", "config_path={gor_weapons}"], "weapons"),
    ("rules-warbah-terrain", ["play", "warbah", "--opt", 'rules={"terrain": []}'], "terrain"),
    ("rules-warbah-troops", ["play", "warbah", "--opt", 'rules={"troops": 5}'], "troops"),
    ("rules-eval-config-path-folder", ["eval", "zaka", "--agents", "random", "--opt", "config_path={dir}",
                                       *EVAL], "config_path"),
    ("rules-train-config-path-folder", ["train", "zaka", "--opt", "config_path={dir}", "--out", "{dir}/t",
                                        *TRAIN], "config_path"),
    # ---- serve (every case fails before the server starts)
    ("serve-unknown-game", ["serve", "nosuchgame"], "unknown game"),
    ("serve-port-high", ["serve", "--port", "70000"], "expected a port"),
    ("serve-port-word", ["serve", "--port", "http"], "expected a port"),
    ("serve-seat-too-high", ["serve", "zaka", "--seat", "9"], "--seat must be 0..1"),
    ("serve-opt-without-game", ["serve", "--opt", "num_players=3"], "--opt needs a game"),
    ("serve-agent-typo", ["serve", "zaka", "--opponents", "heuristc"], "did you mean 'heuristic'"),
    ("serve-shipped-wrong-game", ["serve", "peacekeepers", "--opponents", "ppo:zaka"],
     "ppo:zaka was trained for zaka_v0"),
    ("serve-seed-negative", ["serve", "--seed", "-1"], "--seed"),
    ("serve-config-path-folder", ["serve", "zaka", "--opt", "config_path={dir}"], "config_path"),
    # ---- bench
    ("bench-seconds-inf", ["bench", "zaka", "--seconds", "inf"], "--seconds"),
    ("bench-seconds-nan", ["bench", "zaka", "--seconds", "nan"], "--seconds"),
    ("bench-seconds-huge", ["bench", "zaka", "--seconds", "1e9"], "--seconds"),
    ("bench-seconds-zero", ["bench", "zaka", "--seconds", "0"], "--seconds"),
    ("bench-seconds-negative", ["bench", "zaka", "--seconds", "-1"], "--seconds"),
    ("bench-seconds-word", ["bench", "zaka", "--seconds", "abc"], "--seconds"),
    ("bench-rounds-zero", ["bench", "zaka", "--rounds", "0"], "--rounds"),
    ("bench-rounds-float", ["bench", "zaka", "--rounds", "1.5"], "--rounds"),
    ("bench-rounds-huge", ["bench", "zaka", "--rounds", "1000000000"], "--rounds"),
    ("bench-unknown-game", ["bench", "warbahh"], "did you mean 'warbah_v0'"),
    ("bench-opt-unknown", ["bench", "zaka", "--opt", "num_player=2"], "did you mean 'num_players'"),
    ("bench-config-path-folder", ["bench", "zaka", "--opt", "config_path={dir}"], "config_path"),
    # ---- quickstart (every case fails before training)
    ("quickstart-unknown-game", ["quickstart", "nosuchgame"], "unknown game"),
    ("quickstart-timesteps-zero", ["quickstart", "--timesteps", "0"], "--timesteps"),
    ("quickstart-timesteps-word", ["quickstart", "--timesteps", "many"], "--timesteps"),
    ("quickstart-games-zero", ["quickstart", "--games", "0"], "--games"),
    ("quickstart-workers-zero", ["quickstart", "--workers", "0"], "--workers"),
    ("quickstart-seed-negative", ["quickstart", "--seed", "-1"], "--seed"),
    ("quickstart-set-rllib", ["quickstart", "zaka", "--set", "rllib.num_env_runners=2", "--timesteps", "64",
                              "--no-progress", "--out", "{dir}/q"], "read by algorithm rllib_ppo only"),
    ("quickstart-out-file", ["quickstart", "zaka", "--out", "{file}", "--timesteps", "64", "--no-progress"],
     "{file}"),
    ("quickstart-out-busy", ["quickstart", "--out", "{busy}"], "already holds files"),
    ("quickstart-out-proc", ["quickstart", "zaka", "--out", "/proc/self/x", "--timesteps", "64",
                             "--no-progress"], "/proc/self/x"),
    ("quickstart-out-under-file", ["quickstart", "zaka", "--out", "{file}/run", "--timesteps", "64",
                                   "--no-progress"], "{file}"),
    ("quickstart-set-unknown", ["quickstart", "--set", "n_env=2"], "did you mean 'n_envs'"),
    ("quickstart-set-nan", ["quickstart", "--set", "learning_rate=.nan"], "learning_rate"),
    ("quickstart-set-algorithm", ["quickstart", "--set", "algorithm=rllib_ppo"], "this command trains ppo"),
    ("quickstart-seed-disagrees", ["quickstart", "--seed", "1", "--set", "seed=2"], "disagree"),
    ("quickstart-opt-unknown", ["quickstart", "--opt", "num_player=2"], "did you mean 'num_players'"),
    # ---- train
    ("train-no-game", ["train"], "game"),
    ("train-unknown-game", ["train", "nosuchgame"], "unknown game"),
    ("train-timesteps-zero", ["train", "zaka", "--timesteps", "0"], "--timesteps"),
    ("train-timesteps-negative", ["train", "zaka", "--timesteps", "-5"], "expected an integer >= 1"),
    ("train-seed-negative", ["train", "zaka", "--seed", "-1"], "--seed"),
    ("train-seed-word", ["train", "zaka", "--seed", "abc"], "--seed"),
    ("train-config-missing", ["train", "zaka", "--config", "{dir}/none.yaml", *TRAIN], "none.yaml"),
    ("train-config-folder", ["train", "zaka", "--config", "{dir}", *TRAIN], "{dir}"),
    ("train-config-garbage", ["train", "zaka", "--config", "{garbage}", *TRAIN], "garbage"),
    ("train-config-list", ["train", "zaka", "--config", "{list_cfg}", *TRAIN], "mapping"),
    ("train-config-bad-yaml", ["train", "zaka", "--config", "{bad_yaml_cfg}", *TRAIN], "YAML"),
    ("train-config-unknown-key", ["train", "zaka", "--config", "{unknown_key_cfg}", *TRAIN], "n_env"),
    ("train-config-nan", ["train", "zaka", "--config", "{nan_cfg}", "--out", "{dir}/t", *TRAIN],
     "learning_rate"),
    ("train-config-inf", ["train", "zaka", "--config", "{inf_cfg}", "--out", "{dir}/t", *TRAIN],
     "max_grad_norm"),
    ("train-config-extends-loop", ["train", "zaka", "--config", "{loop_cfg}", *TRAIN], "circle"),
    ("train-config-extends-folder", ["train", "zaka", "--config", "{extends_dir_cfg}", *TRAIN], "extends"),
    ("train-set-nan", ["train", "zaka", "--set", "learning_rate=.nan", *TRAIN], "learning_rate"),
    ("train-set-inf", ["train", "zaka", "--set", "gamma=.inf", *TRAIN], "gamma"),
    ("train-set-unknown", ["train", "zaka", "--set", "n_env=2", *TRAIN], "did you mean 'n_envs'"),
    ("train-set-zero-envs", ["train", "zaka", "--set", "n_envs=0", *TRAIN], "n_envs"),
    ("train-set-no-equals", ["train", "zaka", "--set", "novalue", *TRAIN], "--set expects key=value"),
    ("train-set-bad-opponent", ["train", "zaka", "--set", "opponent_mix={bogus: 1}", *TRAIN], "bogus"),
    ("train-out-file", ["train", "zaka", "--out", "{file}", *TRAIN], "{file}"),
    ("train-out-proc", ["train", "zaka", "--out", "/proc/self/x", *TRAIN], "/proc/self/x"),
    ("train-out-under-file", ["train", "zaka", "--out", "{file}/run", *TRAIN], "{file}"),
    ("train-out-holds-run", ["train", "zaka", "--out", "{run}", *TRAIN], "already holds a run"),
    ("train-resume-no-out", ["train", "zaka", "--resume", *TRAIN], "--resume needs --out"),
    ("train-resume-empty", ["train", "zaka", "--resume", "--out", "{dir}", *TRAIN], "checkpoint"),
    ("train-resume-garbage", ["train", "zaka", "--resume", "--out", "{run}", *TRAIN], "checkpoint"),
    ("train-backend-removed", ["train", "zaka", "--backend", "rllib"], "unrecognized arguments: --backend"),
    ("train-options-removed", ["train", "zaka", "--options", "num_players=3", *TRAIN],
     "unrecognized arguments: --options"),
    ("train-algorithm-unknown", ["train", "zaka", "--set", "algorithm=jax", *TRAIN], "not a trainer"),
    ("train-ppo-on-vlook-config", ["train", "gorgasali", "--set", "algorithm=ppo", *TRAIN],
     "pass --config configs/train/gorgasali_ppo.yaml"),
    ("train-rllib-on-vlook-config", ["train", "gorgasali", "--set", "algorithm=rllib_ppo", *TRAIN],
     "pass --config configs/train/gorgasali_ppo.yaml"),
    ("train-vlook-on-ppo-config", ["train", "zaka", "--set", "algorithm=value_lookahead", *TRAIN],
     "is a PPO config"),
    ("train-resume-rllib-run-as-ppo", ["train", "zaka", "--resume", "--out", "{rllib_run}", "--set",
                                       "algorithm=ppo", *TRAIN], "holds an algorithm rllib_ppo run"),
    ("train-resume-vlook-run-as-ppo", ["train", "gorgasali", "--resume", "--out", "{vlook_run}", "--set",
                                       "algorithm=ppo", "--no-progress"], "keeps its trainer"),
    ("train-device-unknown", ["train", "zaka", "--device", "tpu"], "invalid choice"),
    ("train-rllib-key-on-sb3", ["train", "zaka", "--set", "rllib.num_env_runners=2", *TRAIN],
     "read by algorithm rllib_ppo only"),
    ("train-rllib-key-unknown", ["train", "zaka", "--set", "algorithm=rllib_ppo", "--set", "rllib.runners=2",
                                 *TRAIN], "rllib: unknown key(s) runners (did you mean 'num_env_runners'?)"),
    ("train-gpus-word", ["train", "zaka", "--set", "algorithm=rllib_ppo", "--set", "rllib.gpus_per_learner=some",
                         *TRAIN], "rllib: gpus_per_learner must be a number"),
    *[(f"train-{flag[2:]}-removed", ["train", "zaka", flag, "2"], f"unrecognized arguments: {flag}")
      for flag in ("--address", "--num-env-runners", "--num-learners", "--gpus-per-learner")],
    ("train-opt-out-of-range", ["train", "zaka", "--opt", "num_players=9", *TRAIN], "num_players"),
    ("train-opt-and-set-env", ["train", "zaka", "--opt", "num_players=3", "--set", "env_options={}",
                               *TRAIN], "both set env options"),
    ("train-vlook-device", ["train", "gorgasali", "--device", "cpu"], "not read by algorithm"),
    ("train-vlook-set-zero", ["train", "gorgasali", "--set", "rounds=0", "--no-progress"], "rounds"),
    ("train-vlook-set-unknown", ["train", "gorgasali", "--set", "round=1", "--no-progress"],
     "did you mean 'rounds'"),
    ("train-vlook-set-nan", ["train", "gorgasali", "--set", "explore=.nan", "--no-progress"], "explore"),
    ("train-vlook-skip-unknown-phase", ["train", "gorgasali", "--set", "skip_phases=[moves]", "--no-progress"],
     "skip_phases: 'moves' is not a phase of gorgasali_v0 (did you mean 'move'?)"),
    ("train-vlook-out-file", ["train", "gorgasali", "--out", "{file}", "--no-progress"], "{file}"),
    ("train-vlook-out-proc", ["train", "gorgasali", "--out", "/proc/self/x", "--no-progress"],
     "/proc/self/x"),
    ("train-vlook-resume", ["train", "gorgasali", "--resume", "--out", "{vlook_run}", "--no-progress"],
     "value_lookahead run, which cannot be resumed"),
    ("train-resume-no-folder", ["train", "zaka", "--resume", "--out", "{dir}/none", *TRAIN], "does not exist"),
    ("train-resume-before-first-checkpoint", ["train", "zaka", "--resume", "--out", "{ppo_started}", *TRAIN],
     "stopped before its first checkpoint"),
    ("train-vlook-bad-opponent", ["train", "gorgasali", "--set", "eval_opponents=[heuristc]",
                                  "--no-progress", "--out", "{dir}/v"], "did you mean 'heuristic'"),
    # ---- eval
    ("eval-no-args", ["eval"], "required"),
    ("eval-no-agents", ["eval", "zaka"], "--agents"),
    ("eval-agents-empty", ["eval", "zaka", "--agents"], "--agents"),
    ("eval-agent-typo", ["eval", "zaka", "--agents", "heuristc", "random", *EVAL], "did you mean 'heuristic'"),
    ("eval-shipped-typo", ["eval", "peacekeepers", "--agents", "ppo:peacekeeper", "random", *EVAL],
     "did you mean 'ppo:peacekeepers'"),
    ("eval-shipped-wrong-game", ["eval", "peacekeepers", "--agents", "ppo:zaka", "random", *EVAL],
     "ppo:zaka was trained for zaka_v0"),
    ("eval-puct-wrong-game", ["eval", "peacekeepers", "--agents", "puct:8:zaka", "random", *EVAL],
     "zaka was trained for zaka_v0"),
    ("eval-rollout-wrong-game", ["eval", "zaka", "--agents", "rollout:4:warbah", "random", *EVAL],
     "warbah was trained for warbah_v0"),
    ("eval-mcts-negative", ["eval", "zaka", "--agents", "mcts:-1", "random", *EVAL], "mcts:N needs N >= 1"),
    ("eval-mcts-word", ["eval", "zaka", "--agents", "mcts:abc", "random", *EVAL], "mcts:N needs"),
    ("eval-ppo-missing", ["eval", "zaka", "--agents", "ppo:{dir}/none.zip", "random", *EVAL], "not found"),
    ("eval-ppo-garbage", ["eval", "zaka", "--agents", "ppo:{bad_zip}", "random", *EVAL], "bad.zip"),
    ("eval-ppo-folder", ["eval", "zaka", "--agents", "ppo:{dir}", "random", *EVAL], "ppo:"),
    ("eval-vlook-missing", ["eval", "gorgasali", "--agents", "vlook:{dir}/none.pt", "random", *EVAL],
     "none.pt"),
    ("eval-games-zero", ["eval", "zaka", "--agents", "random", "--games", "0"], "--games"),
    ("eval-games-negative", ["eval", "zaka", "--agents", "random", "--games", "-1"], "--games"),
    ("eval-games-huge", ["eval", "zaka", "--agents", "random", "--games", "10000000000"], "--games"),
    ("eval-workers-zero", ["eval", "zaka", "--agents", "random", "--workers", "0"], "--workers"),
    ("eval-workers-word", ["eval", "zaka", "--agents", "random", "--workers", "two"], "--workers"),
    ("eval-workers-huge", ["eval", "zaka", "--agents", "random", "--workers", "100000"], "--workers"),
    ("eval-seed-negative", ["eval", "zaka", "--agents", "random", "--seed", "-1"], "--seed"),
    ("eval-opening-moves-huge", ["eval", "zaka", "--agents", "random", "--opening-moves", "100000", *EVAL],
     "--opening-moves"),
    ("eval-opening-moves-negative", ["eval", "zaka", "--agents", "random", "--opening-moves", "-1"],
     "--opening-moves"),
    ("eval-max-steps-zero", ["eval", "zaka", "--agents", "random", "--max-steps", "0"], "--max-steps"),
    ("eval-out-file", ["eval", "zaka", "--agents", "random", "--out", "{file}", *EVAL], "{file}"),
    ("eval-out-proc", ["eval", "zaka", "--agents", "random", "--out", "/proc/self/x", *EVAL], "/proc/self/x"),
    ("eval-out-under-file", ["eval", "zaka", "--agents", "random", "--out", "{file}/report", *EVAL], "{file}"),
    ("eval-record-negative", ["eval", "zaka", "--agents", "random", "--record", "-1"], "--record"),
    ("eval-record-format", ["eval", "zaka", "--agents", "random", "--record-format", "avi"], "invalid choice"),
    ("eval-opt-out-of-range", ["eval", "zaka", "--agents", "random", "--opt", "num_players=9", *EVAL],
     "num_players"),
    ("eval-opt-typo", ["eval", "zaka", "--agents", "random", "--opt", "num_player=3", *EVAL],
     "did you mean 'num_players'"),
    ("eval-options-removed", ["eval", "zaka", "--agents", "random", "--options", "num_players=3", *EVAL],
     "unrecognized arguments: --options"),
    ("eval-unknown-flag", ["eval", "zaka", "--agents", "random", "--gmaes", "3"], "unrecognized arguments"),
    # ---- ladder (its own cases: app/ladder_cli.py's tests)
    ("ladder-unknown-flag", ["ladder", "--bogus-flag"], ""),
    ("ladder-games-zero", ["ladder", "zaka", "--games", "0"], ""),
    # ---- games (its own cases: tests/test_games_cli.py)
    ("games-no-journal", ["games"], "journal"),
    ("games-empty-folder", ["games", "{dir}"], "no games journal at"),
    ("games-not-a-journal", ["games", "{garbage}"], "not an evaluation's games journal"),
    ("games-number-zero", ["games", "{dir}", "0"], "number"),
    ("games-bad-result", ["games", "{dir}", "--result", "lost"], "--result"),
    # ---- convert-checkpoint
    ("convert-no-args", ["convert-checkpoint"], "required"),
    ("convert-missing", ["convert-checkpoint", "{dir}/none.zip", "{dir}/new.zip"], "none.zip"),
    ("convert-garbage", ["convert-checkpoint", "{bad_zip}", "{dir}/new.zip"], "bad.zip"),
]


def _rules_file(folder: Path, name: str, game: str, change) -> str:
    """A copy of the game's shipped rules file with one section changed by ``change(data)``."""
    data = yaml.safe_load(config_path(f"{game}.yaml").read_text())
    change(data)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("misuse")
    (root / "empty").mkdir()
    (root / "file.txt").write_text("not a folder\n")
    (root / "busy").mkdir()
    (root / "busy" / "notes.txt").write_text("x")
    (root / "run").mkdir()
    (root / "run" / "checkpoint.zip").write_bytes(b"not a zip")
    (root / "garbage.yaml").write_bytes(bytes(range(256)) * 4)
    (root / "bad.zip").write_bytes(b"PK\x03\x04 broken")
    (root / "vlook_run").mkdir()
    (root / "vlook_run" / "config.yaml").write_text("algorithm: value_lookahead\nrounds: 1\n")
    (root / "rllib_run" / "algorithm").mkdir(parents=True)   # an RLlib run's files (no Ray needed to see them)
    (root / "rllib_run" / "rllib_state.json").write_text('{"timesteps": 64, "iterations": 1}')
    (root / "ppo_started").mkdir()   # a PPO run stopped during its warm start: config, no checkpoint
    (root / "ppo_started" / "config.yaml").write_text("n_envs: 2\n")
    cfgs = {"nan_cfg": "learning_rate: .nan\n", "inf_cfg": "max_grad_norm: .inf\n",
            "list_cfg": "- n_envs\n- 4\n", "bad_yaml_cfg": "n_envs: [1\n", "unknown_key_cfg": "n_env: 3\n",
            "loop_cfg": "extends: loop_cfg.yaml\n", "extends_dir_cfg": "extends: .\n",
            "rules_list": "- 1\n- 2\n"}
    out = {"dir": str(root / "empty"), "file": str(root / "file.txt"), "busy": str(root / "busy"),
           "run": str(root / "run"), "garbage": str(root / "garbage.yaml"), "bad_zip": str(root / "bad.zip"),
           "vlook_run": str(root / "vlook_run"), "ppo_started": str(root / "ppo_started"),
           "rllib_run": str(root / "rllib_run")}
    for name, text in cfgs.items():
        (root / f"{name}.yaml").write_text(text)
        out[name] = str(root / f"{name}.yaml")
    out["pk_cubes"] = _rules_file(root, "pk_cubes", "peacekeepers", lambda d: d.update(cubes="RYG"))
    out["pk_cubes_short"] = _rules_file(root, "pk_cubes_short", "peacekeepers",
                                        lambda d: d.update(cubes=d["cubes"][:3]))
    out["zaka_weapon_types"] = _rules_file(root, "zaka_weapon_types", "zaka", lambda d: d.update(weapon_types=5))
    out["zaka_monsters"] = _rules_file(root, "zaka_monsters", "zaka", lambda d: d.update(monsters=[{"id": "x"}]))
    out["zab_board"] = _rules_file(root, "zab_board", "zaberias", lambda d: d.update(board=[]))
    out["gor_map"] = _rules_file(root, "gor_map", "gorgasali", lambda d: d.update(map={"rows": 3}))
    out["gor_weapons"] = _rules_file(root, "gor_weapons", "gorgasali", lambda d: d.update(weapons=["Colt"]))
    return out


class _Hang(Exception):
    """The guard alarm went off: the command neither failed nor finished."""


def _fill(text, places: dict[str, str]):
    """``{name}`` placeholders of ``places`` filled in (other braces, JSON's, stay)."""
    if isinstance(text, list):
        return [_fill(a, places) for a in text]
    return re.sub(r"\{(\w+)\}", lambda m: places.get(m.group(1), m.group(0)), text)


def _run_in_process(argv: list[str], capsys) -> tuple[int, str, str]:
    def alarm(signum, frame):
        raise _Hang(f"no answer within {GUARD_SECONDS} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(GUARD_SECONDS)
    try:
        code = cli.main(argv)
    except SystemExit as exc:   # argparse's --help / --version would do this; errors must not
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    return code, out, err


def check_one_line_error(code: int, err: str, needle: str, places: dict[str, str] | None = None) -> str:
    """Exit 2, one line on stderr (no traceback) that holds ``needle`` and is at most MAX_LINE
    characters long, not counting the paths the case gave (a path is the person's own length)."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, f"exit {code}; stderr: {err[-2000:]}"
    assert len(lines) == 1, f"{len(lines)} lines on stderr:\n{err[-2000:]}"
    line = lines[0]
    assert line.startswith("arena") and ": error: " in line, line
    short = line
    for name, path in sorted((places or {}).items(), key=lambda kv: -len(kv[1])):
        short = short.replace(path, f"{{{name}}}")
    assert len(short) <= MAX_LINE, f"{len(short)} characters: {short}"
    assert needle in line, f"{needle!r} not in: {line}"
    return line


@pytest.mark.parametrize("argv, needle", [pytest.param(a, n, id=i) for i, a, n in CASES])
def test_misuse_is_one_short_line_and_exit_2(argv, needle, places, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # nothing a refused command might write lands in the repository
    code, _, err = _run_in_process(_fill(argv, places), capsys)
    check_one_line_error(code, err, _fill(needle, places), places)


def test_the_table_covers_every_command():
    parser = cli.build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)   # type: ignore[union-attr]
    tried = {argv[0] for _, argv, _ in CASES if argv}
    assert commands <= tried, f"no misuse case for {sorted(commands - tried)}"
    assert len(CASES) >= 103


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root writes into a read-only folder anyway (the under-a-file and /proc cases "
                           "cover an unwritable --out as root)")
@pytest.mark.parametrize("command", [["eval", "zaka", "--agents", "random", *EVAL],
                                     ["train", "zaka", *TRAIN]], ids=["eval", "train"])
def test_a_read_only_folder_is_one_line(command, tmp_path, capsys, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        code, _, err = _run_in_process([*command, "--out", str(ro / "out")], capsys)
    finally:
        ro.chmod(0o755)
    check_one_line_error(code, err, str(ro))


# ------------------------------------------------------------------- the real exit codes ----
SUBPROCESS_CASES = [
    ["eval", "zaka", "--agents", "heuristc", "random"],
    ["bench", "zaka", "--seconds", "inf"],
    ["train", "zaka", "--config", "{dir}"],
    ["play", "peacekeepers", "--opponents", "ppo:zaka"],
]


@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=lambda a: "-".join(a[:2]))
def test_the_shell_sees_exit_2_and_one_line(argv, places, tmp_path):
    """As a process: ``python -m tabletop_arena.app.cli`` (and the ``arena`` script when
    installed) exits with 2 and prints one line, with nothing on stdout."""
    commands = [[sys.executable, "-m", "tabletop_arena.app.cli"]]
    if shutil.which("arena"):
        commands.append([shutil.which("arena")])
    for prefix in commands[: 1 + (argv[0] == "eval")]:   # the script once: it is the same main()
        proc = subprocess.run([*prefix, *_fill(argv, places)], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path, stdin=subprocess.DEVNULL)
        check_one_line_error(proc.returncode, proc.stderr, "", places)
        assert proc.stdout == ""


def test_the_shipped_hint_names_the_agents_the_specs_kind_can_play():
    """A bad ``ppo:`` (or ``rollout:``) spec's hint lists the PPO agents shipped for the game, a bad
    ``vlook:`` spec the value ones: a game with both kinds kept the line short (Zaka's three names
    pushed the misuse line past its limit)."""
    from tabletop_arena.agents.registry import shipped_for
    from tabletop_arena.app.cli_common import shipped_hint
    every = shipped_for("zaka_v0")
    assert any(s.startswith("ppo:") for s in every) and any(s.startswith("vlook:") for s in every)
    for spec, kind in (("ppo:", "ppo:"), ("rollout:16:x", "ppo:"), ("vlook:x", "vlook:")):
        named = shipped_hint("zaka_v0", spec).split(": ", 1)[1].split(", ")
        assert named and all(n.startswith(kind) for n in named), (spec, named)
    assert shipped_hint("zaka_v0") == f"trained for zaka_v0: {', '.join(every)}"
