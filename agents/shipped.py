"""Shipped agents: checkpoints that come with the package, addressable by name.

``ppo:peacekeepers`` names the agent listed under ``peacekeepers`` in ``checkpoints/shipped.yaml``
(package data, so it works from a wheel as from a checkout); ``ppo:PATH`` still takes any
checkpoint file. No torch import here: listing and resolving names stays cheap.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..envs.core.errors import ArenaError
from ..envs.core.resources import checkpoints_dir
from ..envs.core.yamlio import load

INDEX = "shipped.yaml"


class ShippedAgentError(ArenaError):
    """A ``ppo:NAME`` that is neither a shipped agent nor an existing file."""


def shipped_agents() -> dict[str, dict[str, Any]]:
    """name -> entry (``game``, ``file`` as an absolute path, ``variant``) of each shipped agent."""

    root = checkpoints_dir()
    with open(root / INDEX) as fh:
        data = load(fh) or {}
    out = {}
    for name, entry in data.items():
        out[str(name)] = dict(entry, file=str(root / entry["file"]))
    return out


def agent_kind(entry: dict[str, Any]) -> str:
    """How a shipped entry plays: ``ppo`` (a MaskablePPO checkpoint, the default) or ``vlook`` (a
    value-lookahead checkpoint, ``agents.lookahead``), from the entry's ``agent`` key."""
    return str(entry.get("agent", "ppo"))


def resolve_checkpoint(ref: str | os.PathLike, kind: str = "ppo") -> str:
    """A checkpoint path for ``ref``: a shipped agent's name (whose entry plays as ``kind``: a
    ``ppo:`` / ``puct:`` / ``rollout:`` spec needs a PPO checkpoint, ``vlook:`` a value one), or a
    path to a file."""
    ref = str(ref)
    if os.path.sep not in ref and not ref.endswith((".zip", ".pt")):
        shipped = shipped_agents()
        if ref in shipped:
            have = agent_kind(shipped[ref])
            if have != kind:
                raise ShippedAgentError(f"the shipped agent {ref!r} is a {have} agent: play it as {have}:{ref}")
            return shipped[ref]["file"]
        if not Path(ref).exists():
            raise ShippedAgentError(
                f"no shipped agent named {ref!r} and no such file; shipped: "
                f"{', '.join(sorted(shipped)) or 'none'} (or give a path: ppo:runs/x/policy.zip)")
    return ref
