"""Agents: random, rule-based baselines per game, and (in agents.ppo / agents.mcts) learned and
search agents. ``agents.make(spec, game)`` builds one from a command-line name such as ``random``,
``heuristic``, ``mcts:200`` or ``ppo:runs/x/final.zip``."""
from __future__ import annotations

from .base import Agent, BaseAgent, RandomAgent
from .registry import agent_names, make_agent

make = make_agent

__all__ = ["Agent", "BaseAgent", "RandomAgent", "make", "make_agent", "agent_names"]
