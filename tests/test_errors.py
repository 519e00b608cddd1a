"""One error base (issue 44): every exception class of the package that reports bad input derives
from ``ArenaError`` (envs/core/errors.py), which ``arena`` prints as one line with exit code 2,
and the engines and the training configs share one ``ConfigError``."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import tabletop_arena
from tabletop_arena import envs
from tabletop_arena.envs.core.errors import ArenaError

#: exception classes that are not a user's bad input, with the reason
NOT_USER_ERRORS = {
    "IllegalActionError": "an illegal move: its author's (an agent's or a caller's) mistake, reported by the loop",
    "ActionTypeError": "an IllegalActionError",
    "AgentError": "an agent's illegal move (an IllegalActionError) in the game loop",
    "Stopped": "a KeyboardInterrupt: a stop by SIGINT / SIGTERM, not an error",
    "TrainingInterrupted": "a Stopped",
    "EvaluationCut": "control flow inside a training run: a stop during an evaluation",
    "UpdateCut": "control flow inside a training run: a stop during an update",
    "SignalCut": "the base of EvaluationCut and UpdateCut: a signal's control flow, not an error",
    "_Quit": "control flow of arena play: the person typed q",
    "IllegalMoveWarning": "a warning (the PettingZoo env's illegal-move penalty), not an error",
    "ReferenceUnavailable": "arena bench: PettingZoo's reference env cannot be built here (an install problem)",
    "RequestError": "arena serve: an HTTP error status for a web request, answered to the page",
}
OPTIONAL = ("ray",)   # modules that need an extra this environment may not have


def _package_modules():
    names = [f"tabletop_arena.{sub}" for sub in ("envs", "agents", "train", "app")]
    infos = [info for name in names
             for info in pkgutil.walk_packages(importlib.import_module(name).__path__, name + ".")]
    yield tabletop_arena
    for info in infos:
        try:
            yield importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in OPTIONAL:
                raise


def test_every_user_error_derives_from_arena_error():
    found, stray = set(), []
    for module in _package_modules():
        for name, obj in vars(module).items():
            if not (inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__):
                continue
            found.add(name)
            if name not in NOT_USER_ERRORS and not issubclass(obj, ArenaError):
                stray.append(f"{module.__name__}.{name}")
    assert not stray, f"user-facing errors outside ArenaError: {stray}"
    assert {"ConfigError", "CheckpointError", "AgentSpecError", "CLIError", "RestoreError"} <= found


def test_one_config_error_for_rules_and_training_configs():
    from tabletop_arena.train import config

    assert config.ConfigError is envs.ConfigError
    assert issubclass(envs.ConfigError, ArenaError) and issubclass(ArenaError, ValueError)
