"""Warbah under the type checker (issue 44): the state's fields are declared in one leaf module
(state.py), Luck decisions carry the functions that resolve them (no string registries), and a
misspelt ability or kind of roll raises instead of reading as nothing."""
from __future__ import annotations

import pickle
import typing
from pathlib import Path
from typing import get_args

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.game import State, restore
from tabletop_arena.envs.core.options import REQUIRED
from tabletop_arena.envs.warbah import espionage, heroes, luck, state, tables, turn
from tabletop_arena.envs.warbah.actions import KEEP_ROLL
from tests.test_layering import import_edges
from tests.warbah.test_luck_rolls import _explore_world
from tests.warbah.test_sea import dir_to

ROOT = Path(__file__).resolve().parents[2]


def _declared() -> set[str]:
    """Every attribute a Warbah state declares (state.WarbahState and the engine's State)."""
    return {name for cls in (state.WarbahState, State) for name in cls.__dict__.get("__annotations__", {})}


def _play(st, steps: int, rng) -> list:
    """Random legal moves; returns the states met (and a clone and a sample of every 40th)."""
    seen = []
    for i in range(steps):
        if st.is_terminal():
            break
        legal = np.flatnonzero(st.legal_actions_mask())
        st.observation(st.current_player)
        st.apply(int(legal[rng.integers(len(legal))]))
        if i % 40 == 0:
            seen += [st, st.clone(), st.determinize(st.current_player if st.current_player >= 0 else 0, rng)]
    return seen + [st]


@pytest.mark.parametrize("variant", sorted(envs.variants("warbah_v0")))
def test_every_state_attribute_is_declared_in_state_py(variant):
    """A Warbah position holds only the fields state.WarbahState declares with their types (the
    caches the rules modules keep on it included): through random games of every variant, their
    clones and determinize() samples, no module adds an undeclared attribute."""
    game = envs.make_game("warbah_v0", **envs.variants("warbah_v0")[variant])
    st = game.new_initial_state(7)
    declared = _declared()
    for s in _play(st, 400, np.random.default_rng(7)):
        extra = set(vars(s)) - declared
        assert not extra, f"{variant}: attributes not declared in state.WarbahState: {sorted(extra)}"


def test_every_phase_is_a_declared_phase():
    """The phases are a Literal (tables.Phase, the type of WarbahState.phase): the phase tuples
    the observation indexes are exactly its names, every phase but ``over`` has its functions in
    turn.py's dispatch tables (keyed by Phase), and random games of every variant meet only
    declared phases (tables.py had the tuples alone; a phase compared or set under another name
    was a silent miss)."""
    phases = set(get_args(tables.Phase))
    assert phases == set(tables.TURN_PHASES + tables.SUBSTEP_PHASES + tables.JOIN_PHASES
                         + tables.MAGIC_PHASES)
    assert set(turn.QUEUE_STEPS) | set(turn.SUBSTEPS) == phases - {"over"}
    assert set(turn.ADVANCE) | turn._WAIT_PHASES <= phases and set(turn.QUEUE_DONE) <= phases
    seen = set()
    for variant, options in sorted(envs.variants("warbah_v0").items()):
        st, rng = envs.make_game("warbah_v0", **options).new_initial_state(11), np.random.default_rng(11)
        while not st.is_terminal() and len(st.history) < 600:
            seen.add(st.phase)
            legal = np.flatnonzero(st.legal_actions_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
        assert seen <= phases, (variant, seen - phases)
    assert len(seen) >= 10, seen   # the games reach most of them


def test_the_kinds_are_literals_in_the_observation_order():
    """The names the observation indexes (espionage stages, realm-spell windows, roll kinds) and
    the endings are Literals' arguments in the order they had as plain tuples (the layout is
    unchanged), and the state's kind fields are typed by them."""
    assert espionage.STAGES == get_args(state.SpyStage) == (
        "hire", "look", "kill_hero", "garrison", "item", "steal_gold", "damage", "delay",
        "wizard", "disband", "false_orders", "sink", "give_item", "move")
    assert tables.TIMINGS == get_args(tables.Timing) == (
        "discard", "collect", "recruit", "espionage", "move", "disaster", "recovery")
    assert luck.KINDS == (
        "realm", "bspell", "agent_success", "agent_amount", "initiative", "explore", "encounter",
        "treasure", "heal", "undead", "storm", "battle_dice", "wall_dice", "ability", "caravan",
        "esp_roll", "esp_table", "granted", "sea")
    assert turn.ENDINGS == get_args(state.Ending) == ("last_standing", "domination", "cap")
    hints = {(c, f): getattr(state, c).__annotations__[f] for c, f in (
        ("Item", "kind"), ("Battle", "kind"), ("SpyMission", "stage"), ("MagicState", "window"),
        ("WarbahState", "ending"), ("WarbahState", "phase"), ("LuckDecision", "what"))}
    assert all(h != "str" for h in hints.values()), hints


def _literal_names(hint) -> set:
    """The names a Literal (or a union of Literals and lists of Literals) admits."""
    if typing.get_origin(hint) is typing.Literal:
        return set(get_args(hint))
    return set().union(*(_literal_names(h) for h in get_args(hint)))


@pytest.mark.parametrize("typed,schema", [("RealmSpell", "_REALM"), ("BattleSpell", "_BATTLE")])
def test_the_spell_card_typeddicts_match_their_schemas(typed, schema):
    """tables.RealmSpell / BattleSpell (what the rules read from a spell card) and the schema
    records that check configs/warbah.yaml's cards: the same keys, a key required exactly when
    the schema has no default, a Literal exactly the schema's choices, numbers and flags of the
    same kind; and every shipped card has every required key and no other."""
    td, rec = getattr(tables, typed), getattr(tables, schema)
    hints = typing.get_type_hints(td)
    rows = {f.name: f for f in rec.fields}
    assert set(hints) == set(rows)
    assert td.__required_keys__ == {k for k, f in rows.items() if f.default is REQUIRED}
    for key, hint in hints.items():
        f = rows[key]
        if f.choices is not None:
            assert _literal_names(hint) == set(f.choices), key
        else:
            assert (hint,) == f.kinds(), key
    spells = envs.make_game("warbah_v0", num_players=2).spells
    for card in spells.realm if typed == "RealmSpell" else spells.battle:
        assert td.__required_keys__ <= set(card) <= set(hints), card


def test_state_py_is_a_leaf():
    """state.py declares the records the state's fields hold and imports the tables (tables.py,
    board.py) and nothing of the rules, so every rules module names these types without an
    import cycle."""
    records = ("Hero", "Item", "Battle", "Army", "ArmyMagic", "BattleMagic", "DeclaredAttack",
               "Diplomacy", "AllianceTurn", "Espionage", "SpyMission", "Fleets", "TroopLoss",
               "LuckDecision", "MagicState", "WarbahState")
    assert all(getattr(state, r).__module__ == state.__name__ for r in records)
    edges = {b for a, b, _ in import_edges(ROOT / "envs" / "warbah") if a == "state"}
    assert edges <= {"tables", "board"}, edges


def test_a_misspelt_ability_raises():
    """HEROES / ABILITY TABLE: an ability name that is none of tables.ABILITIES raises instead of
    counting as none (heroes.ability returned 0 for any unknown name)."""
    g, st, h, _ = _explore_world([])
    h.abilities = [("luck", 0)]
    assert heroes.ability(st, h, "luck") == 1 and heroes.ability(st, h, "healing") == 0
    with pytest.raises(ValueError, match="unknown ability 'lukc'"):
        heroes.ability(st, h, "lukc")  # the misspelling under test


def test_an_unknown_kind_of_roll_raises_and_changes_nothing():
    """RARE ABILITY Luck: a roll offered under a kind that is none of luck.KINDS raises at once
    (the observation indexes the kind), and nothing changes: no decision, same phase."""
    g, st, h, _ = _explore_world([])
    h.abilities = [("luck", 0)]
    phase = st.phase

    def resolve(s, value, ctx):
        raise AssertionError("never resolved")

    with pytest.raises(ValueError, match="unknown kind of roll 'sae'"):
        luck.offer(st, "sae", (h.seat,), 5, (1, 10), resolve, ())
    assert st.luck is None and st.phase == phase


def test_a_luck_decision_holds_the_functions_that_resolve_it():
    """RARE ABILITY Luck: a pending decision carries the function resolving the roll (here the
    exploration chain: luck._chain_roll with hexes.EXPLORE), not a name looked up in a registry
    (luck.py had four: CONT, STEPS, AFTER, WINDOWS); the state still pickles, and
    serialize()/restore() rebuilds the same decision."""
    assert not any(hasattr(luck, name) for name in ("CONT", "STEPS", "AFTER", "WINDOWS", "register", "step"))
    g, st, h, m = _explore_world([1, 3, 2])  # clear (Luck offered on it), then settlement, village
    st.seed = None  # a scenario state: no replay
    st.apply(dir_to(st, h.cell, m))
    lk = st.luck
    assert st.phase == "luck" and lk is not None and lk.what == "explore"
    assert lk.resume is luck._chain_roll and lk.window is None
    chain, ctx, vals = lk.ctx
    assert isinstance(chain, state.Chain) and chain.kind == "explore" and callable(chain.step)
    assert chain.step.__module__.endswith("warbah.hexes") and ctx == (m, h.seat) and vals == ()
    twin = pickle.loads(pickle.dumps(st))
    assert twin.luck == lk and twin.luck.resume is luck._chain_roll
    for s in (st, twin):
        s.apply(KEEP_ROLL)
    assert twin.explored[m] == st.explored[m] and twin.terrain[m] == st.terrain[m]


def test_restore_rebuilds_a_pending_luck_decision():
    """serialize() / restore() of a game paused on a Luck decision (the blob holds the seed and
    the actions: no continuation is stored) rebuilds the decision with the same resolving
    function. Seed 5 of random play meets one at its 356th action (an initiative roll)."""
    game = envs.make_game("warbah_v0", num_players=2)
    st, rng = game.new_initial_state(5), np.random.default_rng(5)
    while st.phase != "luck" and len(st.history) < 400:
        legal = np.flatnonzero(st.legal_actions_mask())
        st.apply(int(legal[rng.integers(len(legal))]))
    assert st.phase == "luck" and st.luck is not None
    again = restore(game, st.serialize())
    assert again.luck == st.luck and again.luck is not None
    assert again.luck.resume is st.luck.resume is not None and callable(again.luck.resume)
