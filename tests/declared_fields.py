"""Shared by the games whose position declares its fields in one leaf module (Peacekeepers'
fields.py, Gorgasali's fields.py; issue 44): a real state's attributes, through a random game,
its clones and its determinize samples, are exactly the declared ones, each set from the start
(the type checker cannot see an attribute created under another name, or a cache that appears
only after its first use)."""
from __future__ import annotations

from typing import Callable

import numpy as np


def undeclared(state, declared: set[str]) -> tuple[list[str], list[str]]:
    """(attributes the state has but the fields module does not declare, declared ones it lacks)."""
    have = set(vars(state))
    return sorted(have - declared), sorted(declared - have)


def play_checking_fields(game, declared: set[str], steps: int, touch: Callable, where=None) -> None:
    """Random moves for up to ``steps``, checking the state every move and its clone and every
    seat's determinize sample every 25 moves; ``touch(state)`` first calls what fills caches."""
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for step in range(steps):
        assert undeclared(state, declared) == ([], []), (where, step)
        if step % 25 == 0:
            assert undeclared(state.clone(), declared) == ([], [])
            for seat in range(game.num_seats):
                assert undeclared(state.determinize(seat, rng), declared) == ([], [])
        if state.is_terminal():
            break
        touch(state)
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
