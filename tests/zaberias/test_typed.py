"""Zaberias under the type checker (issue 44): the names the engine compares with literals
(tribes, abilities, groups, phases, action kinds) are Literal types and the rules table, the
battle and a unit's options are TypedDicts, so that mypy with ``strict_equality`` reports a
misspelt one instead of a silent False. These tests keep the types and the running engine in
step: the Literals are exactly the vocabulary the tables, the schema and the action layout use,
and random games meet only declared names and keys."""
from __future__ import annotations

import typing
from typing import get_args

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.zaberias import actions, combat, state, tables


def test_the_rules_typeddict_matches_its_schema():
    """``tables.Rules`` (what the engine reads) and ``tables.RULES`` (what checks the file): the
    same keys, each of the kind the schema takes."""
    hints = typing.get_type_hints(tables.Rules)
    rows = {f.name: f for f in tables.RULES.fields or ()}
    assert set(hints) == set(rows)
    assert {k: (hints[k],) for k in hints} == {k: rows[k].kinds() for k in rows}


@pytest.mark.parametrize("variant", sorted(envs.variants("zaberias_v0")))
def test_a_loaded_rules_table_has_exactly_the_typed_keys(variant):
    game = envs.make_game("zaberias_v0", **envs.variants("zaberias_v0")[variant])
    assert set(game.rules) == set(typing.get_type_hints(tables.Rules))
    data = tables.load_tables()["data"]
    assert set(data) == set(typing.get_type_hints(tables.Data))


def test_the_literals_are_the_vocabulary_of_the_tables_and_the_layout():
    """Abilities: the groups table's keys and the rules file's choices, in the same order;
    groups: the table's values; tribes, phases: their tuples; action kinds: the layout's blocks
    in index order (the observation's phase one-hot and the action layout are unchanged)."""
    unit_fields = {f.name: f for f in tables.UNIT.fields or ()}
    assert tuple(tables.ABILITY_GROUP) == get_args(tables.Ability) == unit_fields["ability"].choices
    assert set(tables.ABILITY_GROUP.values()) == set(get_args(tables.Group))
    assert set(tables.HOLDING_SIPHONS) <= set(get_args(tables.Ability))
    assert tables.TRIBES == get_args(tables.Tribe) == ("undead", "humans", "orcs", "guardians")
    assert tables.PHASES == get_args(tables.Phase) == (
        "main", "unit", "buy_city", "teleport", "rhino", "ambush", "tie", "siphon", "pickup",
        "tele_move", "over")
    layout = actions.ActionLayout(9, 6, 98, 9)
    assert [name for name, _, _ in layout._blocks] == list(get_args(actions.ActionKind))
    assert [start for _, start, _ in layout._blocks] == sorted(start for _, start, _ in layout._blocks)


@pytest.mark.parametrize("variant", sorted(envs.variants("zaberias_v0")))
def test_random_games_meet_only_declared_names_and_keys(variant):
    """Through random games of every variant: each unit's ability and group, each phase, each
    decoded action kind, the battle's keys and a unit's options are declared by their types."""
    game = envs.make_game("zaberias_v0", **envs.variants("zaberias_v0")[variant])
    for spec in game.specs:
        assert spec.ability in get_args(tables.Ability)
        assert spec.group == tables.ABILITY_GROUP[spec.ability]
    phases, kinds = set(get_args(tables.Phase)), set(get_args(actions.ActionKind))
    battle = typing.get_type_hints(combat.Combat)
    required = combat.Combat.__required_keys__
    options = set(typing.get_type_hints(state.UnitOptions))
    rng = np.random.default_rng(4)
    seen_phases, seen_battles = set(), 0
    for seed in range(3):
        st = game.new_initial_state(seed)
        for _ in range(400):
            if st.is_terminal():
                break
            assert st.phase in phases
            seen_phases.add(st.phase)
            if st.combat is not None:
                assert required <= set(st.combat) <= set(battle)
                seen_battles += 1
            if st.phase == "unit":
                assert set(st.unit_options(st.sel)) == options
            legal = np.flatnonzero(st.legal_actions_mask())
            action = int(legal[rng.integers(len(legal))])
            assert game.layout.decode(action)[0] in kinds
            st.apply(action)
    assert {"main", "unit", "buy_city", "ambush"} <= seen_phases and seen_battles > 0
