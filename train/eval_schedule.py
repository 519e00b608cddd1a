"""How the evaluator seats and seeds its games (``train/evaluate.py``'s module docstring:
Schedule, Seeds, Openings): which agents meet, in which seat arrangements, from which engine seed,
opening and agent seeds. Deterministic from the evaluation's seed and a block's number alone, so a
block plays the same games in any process, order or run; the games journal (``eval_journal``) and
the ladder (``ladder``) seed their games the same way.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from typing import Any, Sequence

import numpy as np

from ..agents.base import RandomAgent
from .play import play


@dataclasses.dataclass
class GameRecord:
    """One finished (or truncated) game."""

    block: int
    arrangement: tuple[int, ...]   # entrant id per agent index
    engine_seed: int
    agent_seeds: tuple[int, ...]
    returns: tuple[float, ...]     # per agent index
    scores: tuple[float, ...] | None
    length: int
    truncated: bool
    history_hash: str
    history: tuple[int, ...] = ()  # every action, opening included (replay: game.replay(engine_seed, history))
    #: per agent index: (CPU seconds of its decisions in all, of its longest one, decisions); timing,
    #: so not part of what makes two runs the same game
    cpu: tuple[tuple[float, float, int], ...] = ()


def history_digest(arrangement: Sequence[int], history: Sequence[int]) -> str:
    """A game's ``history_hash``: 16 hex digits of the sha1 of its seat arrangement and moves."""
    return hashlib.sha1(json.dumps([list(arrangement), list(history)]).encode()).hexdigest()[:16]


def make_groups(n_entrants: int, n_players: int) -> list[tuple[int, ...]]:
    """Which entrants meet: every P-subset, or the entrants cycled to fill P seats when N < P."""
    if n_entrants >= n_players:
        return list(itertools.combinations(range(n_entrants), n_players))
    return [tuple(i % n_entrants for i in range(n_players))]


def arrangements(group: tuple[int, ...], kinds: Sequence[int] | None = None, block: int = 0) -> list[tuple[int, ...]]:
    """Every distinct seating of ``group`` over the agent indices (sorted, deterministic).

    ``kinds`` (one key per entrant, ``seat_kinds``): seatings that differ only by swapping copies of
    one agent are one seating, since the copies are exchangeable (three ``heuristic`` entrants make 4
    seatings of ``[X, heuristic x 3]``, not 24 that replay one deal six times with X in the same seat).
    The copies fill their kind's seats in an order rotated by ``block``, so over the blocks each copy
    takes every seat."""
    if kinds is None:
        return sorted(set(itertools.permutations(group)))
    members: dict[int, list[int]] = {}
    for e in sorted(group):
        members.setdefault(kinds[e], []).append(e)
    out = []
    for pattern in sorted(set(itertools.permutations([kinds[e] for e in group]))):
        queues = {k: m[block % len(m):] + m[:block % len(m)] for k, m in members.items()}
        out.append(tuple(queues[k].pop(0) for k in pattern))
    return out


def seat_kinds(agents: Sequence[Any]) -> list[int]:
    """Per entrant, the index of the first equal entrant: equal spec strings (or the same factory
    object) are copies of one agent for ``arrangements``."""
    return [next(j for j in range(i + 1) if agents[j] == agents[i]) for i in range(len(agents))]


def block_opening(game, engine_seed: int, opening_seed: int, k: int) -> list[int]:
    """``k`` uniformly random legal moves from the block's start (fewer if the game ends)."""
    mover = RandomAgent(opening_seed)
    return play(game, [mover] * game.num_agents, engine_seed, max_steps=k).history


def evaluation_engine_seed(x: int) -> int:
    """The evaluator's engine seeds are odd; every engine seed used in training is even
    (``train/selfplay.py``, ``train/imitation.py``), so no evaluated game is a training game."""
    return (int(x) % (2**62)) * 2 + 1


def block_seeds(seed_words, arrs: Sequence[tuple[int, ...]]) -> tuple[int, int, list[tuple[int, ...]]]:
    """A block's engine seed, opening seed and each arrangement's agent seeds, from its seed words
    alone (so a block plays the same games in any process, order or run)."""
    engine_ss, opening_ss, agents_ss = np.random.SeedSequence(seed_words).spawn(3)
    engine_seed = evaluation_engine_seed(int(engine_ss.generate_state(1, np.uint64)[0]))
    opening_seed = int(opening_ss.generate_state(1, np.uint64)[0] % (2**63))
    seeds = [tuple(int(x % (2**63)) for x in game_ss.generate_state(len(arr), np.uint64))
             for arr, game_ss in zip(arrs, agents_ss.spawn(len(arrs)))]
    return engine_seed, opening_seed, seeds
