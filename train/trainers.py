"""The trainers ``arena train`` runs, chosen one way: the config's ``algorithm:`` key (in the file, or
``--set algorithm=NAME``); a resumed run keeps the trainer that wrote its folder.

    algorithm: ppo              # the default when the key is absent: sb3-contrib MaskablePPO
    algorithm: rllib_ppo        # the same PPO config on Ray RLlib (the [rllib] extra; docs/rllib.md)
    algorithm: value_lookahead  # the heuristic's learned-value lookahead (train/value_lookahead.py)
    algorithm: search_distill   # expert iteration (train/search_distill.py)

``TRAINERS`` says, for each name, the function that runs it (imported only when it runs: torch and
ray stay unloaded until then), whether a run resumes, which ``arena train`` flags it reads beside
the ones every trainer reads, and which config keys it takes (``ppo`` and ``rllib_ppo`` share the
PPO keys of train/config.py; the other two have their own). Ray's settings (``address``,
``num_env_runners``, ``num_learners``, ``gpus_per_learner``, ...) are keys of the PPO config's
``rllib`` section, which only ``rllib_ppo`` reads: set in the file or with ``--set
rllib.KEY=VALUE``, not flags (``SECTIONS``).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import ConfigError, ppo_config_hint, read_config_file, short_path
from .value_lookahead import is_value_run

__all__ = ["Trainer", "TRAINERS", "DEFAULT", "OPTIONAL_FLAGS", "SECTIONS", "trainer", "config_algorithm", "choose",
           "run_algorithm"]

#: the trainer of a config without an ``algorithm`` key
DEFAULT = "ppo"
#: arena train flags every trainer reads (game, --config, --out, --set, --opt, --no-progress)
#: are not listed; these are the ones a trainer may or may not read
OPTIONAL_FLAGS = ("timesteps", "seed", "resume", "device", "trust_checkpoint")
#: config sections only one trainer reads: ``--set SECTION.KEY=VALUE`` for another is an error
#: (a config file may keep the section for when it runs on that trainer)
SECTIONS = {"rllib": "rllib_ppo"}


@dataclass(frozen=True)
class Trainer:
    name: str
    summary: str
    entry: str            #: "module:function" under tabletop_arena.train, imported when it runs
    keys: str             #: the config keys it takes: "ppo" (train/config.py) or its own module's
    resumes: bool
    flags: tuple[str, ...]   #: the OPTIONAL_FLAGS it reads (attribute names of the parsed args)

    def function(self) -> Callable[..., Any]:
        """The function that runs this trainer (its module imported now)."""
        module, _, name = self.entry.partition(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)


TRAINERS: dict[str, Trainer] = {t.name: t for t in (
    Trainer("ppo", "self-play MaskablePPO (sb3-contrib) in this process", "ppo:train", "ppo", True,
            ("timesteps", "seed", "resume", "device", "trust_checkpoint")),
    Trainer("rllib_ppo", "the same self-play PPO on Ray RLlib, a local Ray or a cluster (docs/rllib.md)",
            "rllib:train_rllib", "ppo", True, ("timesteps", "seed", "resume", "device", "trust_checkpoint")),
    Trainer("value_lookahead", "the heuristic with a learned value's lookahead (value.pt, vlook:PATH)",
            "value_lookahead:train_value_lookahead", "value_lookahead", False, ("timesteps", "seed")),
    Trainer("search_distill", "expert iteration: PUCT search distilled into the network",
            "search_distill:train_search_distill", "search_distill", True,
            ("seed", "resume", "device", "trust_checkpoint")),
)}


def trainer(name: Any, source: str) -> Trainer:
    """The trainer called ``name``; an unknown one is a ConfigError naming ``source``."""
    if not isinstance(name, str) or name not in TRAINERS:
        raise ConfigError(f"{source}: algorithm {name!r} is not a trainer; the trainers are "
                          f"{', '.join(TRAINERS)}")
    return TRAINERS[name]


def config_algorithm(data: dict[str, Any], source: str) -> Trainer:
    """The trainer a config's keys name (``DEFAULT`` without an ``algorithm`` key)."""
    return trainer(data.get("algorithm", DEFAULT), source)


def choose(data: dict[str, Any], source: str, asked: Any = None) -> Trainer:
    """The trainer of a new run: the config's ``algorithm`` (``data`` read from ``source``), or
    ``asked`` (``--set algorithm=NAME``) where given. ``asked`` may change a PPO config's trainer
    (ppo <-> rllib_ppo: the same keys) but not run a config written for another algorithm."""
    own = config_algorithm(data, source)
    if asked is None:
        return own
    wanted = trainer(asked, "--set")
    if wanted.keys != own.keys:
        if own.keys == "ppo":
            raise ConfigError(f"--set algorithm={wanted.name}: {short_path(source)} is a PPO config; "
                              f"{wanted.name} reads its own keys (train/{wanted.keys}.py): pass one with --config")
        raise ConfigError(f"--set algorithm={wanted.name}: {short_path(source)} is an algorithm {own.name} "
                          f"config, not a PPO one: pass {ppo_config_hint(source)}")
    return wanted


def run_algorithm(out: Path) -> str | None:
    """The trainer that wrote the run folder ``out`` (from its checkpoint's metadata, RLlib's
    files, or its config.yaml); None when nothing there says (no run, or one stopped before it
    wrote anything: the trainer asked for says what is missing)."""
    if (out / "checkpoint.zip").is_file():
        from ..agents.checkpoint import read_metadata  # torch: loaded when training
        try:
            meta = read_metadata(out / "checkpoint.zip")
        except (ValueError, OSError):   # CheckpointError: the trainer says what is wrong with it
            return None
        return meta.get("algorithm") if meta.get("algorithm") in TRAINERS else DEFAULT
    if (out / "algorithm").is_dir() or (out / "rllib_state.json").is_file():
        return "rllib_ppo"
    if is_value_run(out):
        return "value_lookahead"
    try:
        data = read_config_file(out / "config.yaml") if (out / "config.yaml").is_file() else {}
    except ConfigError:
        return None
    name = data.get("algorithm") if isinstance(data, dict) else None
    return name if name in TRAINERS else None
