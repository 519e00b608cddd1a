"""The typed rules tables agree with the schemas that check them (issue 44).

A game's engine reads its rules table through a ``TypedDict`` (``game.rules``), so that mypy
checks every key it names and, with ``strict_equality``, every literal a value is compared with
(a misspelt reading such as ``rules["kill_reward"] == "per_monstr"`` is a type error, not a
silent False). The table itself is checked at load time by an ``Option`` schema. These tests keep
the two in step: the same keys, ``bool`` / ``int`` / ``str`` fields of the same kind, and a
``Literal`` field exactly the choices the schema accepts.
"""
from __future__ import annotations

import typing

import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.options import Option
from tabletop_arena.envs.peacekeepers import tables as peacekeepers_config
from tabletop_arena.envs.zaka import tables as zaka_config

#: (game, the TypedDict the engine reads, the schema that checks the table)
TABLES = [
    ("zaka", zaka_config.Rules, zaka_config.RULES),
    ("peacekeepers", peacekeepers_config.Rules, peacekeepers_config.RULES),
]


def mismatches(typed: type, schema: Option) -> list[str]:
    """How ``typed`` (a TypedDict) and ``schema`` (an Option with fields) disagree."""
    hints = typing.get_type_hints(typed)
    rows = {f.name: f for f in schema.fields or ()}
    out = [f"{k}: in the TypedDict only" for k in sorted(set(hints) - set(rows))]
    out += [f"{k}: in the schema only" for k in sorted(set(rows) - set(hints))]
    for key in sorted(set(hints) & set(rows)):
        hint, row = hints[key], rows[key]
        if typing.get_origin(hint) is typing.Literal:
            if row.choices is None or set(typing.get_args(hint)) != set(row.choices):
                out.append(f"{key}: Literal{list(typing.get_args(hint))} but choices {row.choices}")
        elif row.kinds() != (hint,):
            out.append(f"{key}: {hint.__name__} but the schema takes {row.kinds()}")
    return out


@pytest.mark.parametrize("game,typed,schema", TABLES, ids=[t[0] for t in TABLES])
def test_the_rules_typeddict_matches_its_schema(game, typed, schema):
    assert mismatches(typed, schema) == []


@pytest.mark.parametrize("game,typed,schema", TABLES, ids=[t[0] for t in TABLES])
def test_a_loaded_rules_table_has_exactly_the_typed_keys(game, typed, schema):
    for options in envs.variants(envs.resolve(game)).values():
        rules = envs.make_game(game, **options).rules
        assert set(rules) == set(typing.get_type_hints(typed))


def test_the_check_finds_each_kind_of_drift():
    """The comparison itself: a key on one side only, a kind, a Literal with other choices."""
    class Typed(typing.TypedDict):
        a: int
        b: bool
        c: typing.Literal["x", "y"]
        only_typed: int

    schema = Option("rules", dict, fields=(
        Option("a", bool), Option("b", bool), Option("c", str, choices=("x", "z")),
        Option("only_schema", int)))
    assert mismatches(Typed, schema) == [
        "only_typed: in the TypedDict only", "only_schema: in the schema only",
        "a: int but the schema takes (<class 'bool'>,)",
        "c: Literal['x', 'y'] but choices ('x', 'z')"]


def test_every_zaka_card_carries_every_field():
    """``game.cards``: monsters and weapons alike have every ``Card`` field, with its type (the
    engine reads ``card["bonus"]``, never ``card.get("bonus", 0)``: a misspelt name raises)."""
    hints = typing.get_type_hints(zaka_config.Card)
    for options in envs.variants("zaka_v0").values():
        game = envs.make_game("zaka_v0", **options)
        for card in game.cards:
            assert set(card) == set(hints), card["id"]
            for key, hint in hints.items():
                if typing.get_origin(hint) is typing.Literal:
                    assert card[key] in typing.get_args(hint), (card["id"], key)
                else:
                    assert type(card[key]) is hint, (card["id"], key, card[key])
