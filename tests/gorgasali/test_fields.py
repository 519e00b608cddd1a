"""The position's fields are declared in one place (envs/gorgasali/fields.py, issue 44).

``GorgasaliFields`` gives the type checker the shape of a position for state.py and its mixins
(combat.py, duo.py, movement.py, masks.py) and for observe.py and render.py. What it cannot see
is an attribute that code creates under another name (``self._walk_cahce = ...``, a misspelt key
of ``state._TURN_FLAGS``, or a cache read with ``self.__dict__.get(...)``): that passes mypy and
silently does nothing. So a real state's attributes are checked here, through games of every
variant, clones and determinize samples: exactly the declared fields, each set from the start
(the chest, walk-observation and line-of-sight caches used to appear only after their first use).
The rules table the engine reads is a TypedDict: its keys are the schema's.
"""
from __future__ import annotations

import typing

import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.game import State
from tabletop_arena.envs.gorgasali import tables
from tabletop_arena.envs.gorgasali.fields import GorgasaliFields
from tests.declared_fields import play_checking_fields
from tests.declared_fields import undeclared as _undeclared

DECLARED = set(GorgasaliFields.__annotations__) | set(State.__annotations__)
VARIANTS = {**envs.variants("gorgasali_v0"), "3p_choose": {"num_players": 3, "characters": "choose"}}


def undeclared(state) -> tuple[list[str], list[str]]:
    return _undeclared(state, DECLARED)


def _touch(state):
    """What fills the caches before a move."""
    for seat in range(state.game.num_seats):
        state.observation(seat)
    state.render_text()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_state_has_exactly_the_declared_fields(variant):
    play_checking_fields(envs.make_game("gorgasali_v0", **VARIANTS[variant]), DECLARED, 300, _touch, variant)


def test_the_check_finds_an_undeclared_attribute():
    state = envs.make_game("gorgasali_v0", num_players=2).new_initial_state(0)
    state._walk_cahce = None   # a misspelt field
    del state.walk_left
    assert undeclared(state) == (["_walk_cahce"], ["walk_left"])


def test_the_rules_typeddict_has_the_schemas_keys():
    """``game.rules`` is read through ``tables.Rules``: the same keys as the schema that checks
    the table (and a loaded table), the movement costs' too, and ``skill_die`` is a Literal of
    exactly the schema's choices."""
    hints = typing.get_type_hints(tables.Rules)
    rows = {f.name: f for f in tables.RULES.fields or ()}
    assert set(hints) == set(rows)
    assert set(typing.get_type_hints(tables.MovementCost)) == {f.name for f in rows["movement_cost"].fields or ()}
    assert set(typing.get_args(hints["skill_die"])) == set(rows["skill_die"].choices or ())
    for options in VARIANTS.values():
        rules = envs.make_game("gorgasali_v0", **options).rules
        assert set(rules) == set(hints)
        assert set(rules["movement_cost"]) == set(typing.get_type_hints(tables.MovementCost))


def test_every_card_kind_is_a_declared_kind():
    """A card's ``kind``, ``group``, ``skill`` and ``category`` are Literal types (a misspelt kind
    compared in the engine is a mypy error): every shipped card's values are among them."""
    hints = typing.get_type_hints(tables.CardType)
    allowed = {name: literal_values(hints[name]) for name in ("kind", "group", "skill", "category")}
    assert allowed["kind"] == set(tables.SUPPORT_KINDS) | set(tables.GROUPS)
    for card in envs.make_game("gorgasali_v0").cards:
        for name, values in allowed.items():
            assert getattr(card, name) in values, (card.name, name)


def literal_values(tp) -> set:
    """The values a Literal type, or a Union of them, admits."""
    if typing.get_origin(tp) is typing.Literal:
        return set(typing.get_args(tp))
    assert typing.get_origin(tp) is typing.Union, tp
    return set().union(*(literal_values(arg) for arg in typing.get_args(tp)))
