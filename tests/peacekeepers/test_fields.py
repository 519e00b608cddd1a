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

import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.game import State
from tabletop_arena.envs.peacekeepers.fields import PeacekeepersFields
from tests.declared_fields import play_checking_fields
from tests.declared_fields import undeclared as _undeclared

DECLARED = set(PeacekeepersFields.__annotations__) | set(State.__annotations__)
VARIANTS = envs.variants("peacekeepers_v0")


def undeclared(state) -> tuple[list[str], list[str]]:
    return _undeclared(state, DECLARED)


def _touch(state):
    """What fills the caches before a move."""
    state.observation(0)
    state.scores()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_state_has_exactly_the_declared_fields(variant):
    play_checking_fields(envs.make_game("peacekeepers_v0", **VARIANTS[variant]), DECLARED, 400, _touch, variant)


def test_the_check_finds_an_undeclared_attribute():
    state = envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="easy").new_initial_state(0)
    state._stock_count = None   # a misspelt field
    del state.solved
    assert undeclared(state) == (["_stock_count"], ["solved"])
