"""Agents: random, rule-based baselines per game, and (in agents.ppo / agents.mcts) learned and
search agents. ``agents.make(spec, game)`` builds one from a command-line name such as ``random``,
``heuristic``, ``mcts:200`` or ``ppo:runs/x/final.zip``."""
from __future__ import annotations

# the agents' small networks run on one thread (TABLETOP_ARENA_TORCH_THREADS), set before the
# imports below load numpy where this package comes first (tabletop_arena/threads.py)
from ..threads import limit_threads

limit_threads()

from .base import Agent, BaseAgent, RandomAgent
from .registry import agent_names, make_agent

make = make_agent

__all__ = ["Agent", "BaseAgent", "RandomAgent", "make", "make_agent", "agent_names"]
