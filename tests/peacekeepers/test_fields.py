"""The position's fields are declared in one place (envs/peacekeepers/fields.py, issue 44).

``PeacekeepersFields`` gives the type checker the shape of a position for state.py and its mixins
(masks.py, hazards.py). What it cannot see is an attribute that code creates under another name
(``self._stock_count = ...``, or ``self.__dict__.get("_stock_counts")`` reading a name nobody
sets): that passes mypy and silently does nothing. So a real state's attributes are checked here,
through whole games of every variant, clones and determinize samples: exactly the declared
fields, each set from the start (the easy puzzle's stock-count memo used to appear only after
its first use and was read by a string).
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.game import State
from tabletop_arena.envs.peacekeepers.fields import PeacekeepersFields

DECLARED = set(PeacekeepersFields.__annotations__) | set(State.__annotations__)
VARIANTS = envs.variants("peacekeepers_v0")


def undeclared(state) -> tuple[list[str], list[str]]:
    """(attributes the state has but fields.py does not declare, declared ones it lacks)."""
    have = set(vars(state))
    return sorted(have - DECLARED), sorted(DECLARED - have)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_state_has_exactly_the_declared_fields(variant):
    game = envs.make_game("peacekeepers_v0", **VARIANTS[variant])
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for step in range(400):
        assert undeclared(state) == ([], []), (variant, step)
        if step % 25 == 0:
            assert undeclared(state.clone()) == ([], [])
            for seat in range(game.num_seats):
                assert undeclared(state.determinize(seat, rng)) == ([], [])
        if state.is_terminal():
            break
        state.observation(0)
        state.scores()
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


def test_the_check_finds_an_undeclared_attribute():
    state = envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="easy").new_initial_state(0)
    state._stock_count = None   # a misspelt field
    del state.solved
    assert undeclared(state) == (["_stock_count"], ["solved"])
