"""Seeded random play for whole-game property tests (shared by the games' test_invariants.py),
through the project's one play loop (``train.play.play_from``)."""
from __future__ import annotations

import numpy as np

from tabletop_arena import envs
from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.train.play import play_from


def variant_state(name: str, variant: str, seed: int):
    """A fresh engine state of a registered variant, reset with ``seed``."""
    env = envs.make(name, **envs.variants(name)[variant])
    env.reset(seed=seed)
    return env.unwrapped.state_


def random_step(st, rng) -> None:
    legal = np.flatnonzero(st.legal_actions_mask())
    st.apply(int(legal[rng.integers(len(legal))]))


def random_agents(game, rng) -> list:
    """One uniformly random agent drawing from ``rng``, moving for every player."""
    mover = RandomAgent()
    mover.rng = rng
    return [mover] * game.num_agents


def play_checking(st, rng, violations, where: str) -> int:
    """Play ``st`` to its end with uniformly random legal actions; at every state (the first and
    the last included) ``violations(st)`` must return an empty list. Returns the steps played."""
    start = len(st.history)

    def check(state, *_):
        bad = violations(state)
        assert not bad, f"{where} step {len(state.history) - start} phase {state.phase}: {bad}"

    play_from(st, random_agents(st.game, rng), max_steps=None, on_move=check)
    check(st)
    return len(st.history) - start


def check_variant_games(name: str, variant: str, seeds, violations) -> None:
    """play_checking over seeded games of one registered variant (actions seeded alike)."""
    for seed in seeds:
        play_checking(variant_state(name, variant, seed), np.random.default_rng(seed), violations,
                      f"{variant} seed {seed}")


def play_until(st, rng, done) -> None:
    """Random legal steps until ``done(st)`` (used to reach a position worth breaking)."""
    while not done(st):
        assert not st.is_terminal(), "the game ended before the wanted position"
        random_step(st, rng)


def invariant_test(name: str, seeds, violations):
    """A test function, parametrized over the registered variants of ``name``, that plays the
    seeded games of each with check_variant_games. Assign it to a ``test_*`` name in a module."""
    import pytest

    @pytest.mark.parametrize("variant", list(envs.variants(name)))
    def test(variant):
        check_variant_games(name, variant, seeds, violations)

    return test

