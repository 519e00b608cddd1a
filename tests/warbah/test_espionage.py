"""Scenario tests for the Warbah espionage phase; each names the rulebook section."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.warbah import espionage, heroes, make_game, realm_spells, turn
from tabletop_arena.envs.warbah.actions import CAPITOL_AUTO, CASUALTY0, DONE, HIRE_AGENT, TARGET0
from tabletop_arena.envs.warbah.state import Item
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS


class ScriptRng:
    """Scripted die results first (for integers), then a seeded Generator."""

    def __init__(self, values, seed=0):
        self.values, self.rng = list(values), np.random.default_rng(seed)

    def integers(self, lo, hi=None, size=None):
        if self.values:
            if size is None:
                return self.values.pop(0)
            return np.array([self.values.pop(0) if self.values else int(self.rng.integers(lo, hi))
                             for _ in range(size)])
        return self.rng.integers(lo, hi, size=size)

    def random(self):
        return self.rng.random()

    def permutation(self, n):
        return self.rng.permutation(n)


def contact_state(seed=0):
    """2 players, seat 1's Hero next to seat 0's Hero on explored clear land; in contact."""
    g = make_game(num_players=2)
    st = g.new_initial_state(np.random.default_rng(seed))
    for _ in range(2):
        st.apply(CAPITOL_AUTO)
    a, b = st.heroes[0], st.heroes[1]
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x]))
    st.explored[cell], st.terrain[cell], st.settle[cell] = True, TERRAINS.index("clear"), -1
    st.encounter[cell] = 0
    b.cell = cell
    a.abilities, b.abilities = [], []
    st.espionage.contact[0, 1] = st.espionage.contact[1, 0] = True
    return g, st, a, b


def at_stage(st, stage, seat=0):
    """Put ``seat``'s pending agent at ``stage`` (its target list computed)."""
    st.phase, st.espionage.queue, st.espionage.turn = "espionage", [], st.turn
    st.espionage.mission = espionage.SpyMission(seat, 5, hired=1, stage=stage)
    st.espionage.mission.targets = espionage.targets(st)
    st.to_act, st._mask = seat, None
    return st.espionage.mission.targets


def test_no_espionage_before_contact():
    """ESPIONAGE PHASE: no espionage until the empires come into contact."""
    g = make_game(num_players=2)
    st = g.new_initial_state(np.random.default_rng(0))
    for _ in range(2):
        st.apply(CAPITOL_AUTO)
    assert not st.espionage.contact.any()
    st.espionage.turn = 0
    assert not espionage.begin(st) or st.espionage.contact.any()
    g, st, a, b = contact_state()
    st.espionage.contact[:] = False
    espionage.update_contact(st)  # adjacent heroes: contact is made and is permanent
    assert st.espionage.contact[0, 1] and st.espionage.contact[1, 0]


def test_espionage_roll_hires_up_to_x_agents_and_intrigue():
    """ESPIONAGE PHASE / RARE ABILITY Intrigue: roll 1D10 (+1 per Intrigue) = X; hire up to X
    agents, one gold each (designed)."""
    g, st, a, b = contact_state()
    a.abilities = [("intrigue", 0)]
    st.gold[0], st.gold[1] = 20, 0
    st.order, st.espionage.turn = [0, 1], 0
    st.rng = ScriptRng([3] + [1] * 10)  # roll 3 (+1 Intrigue = 4); every agent then fails
    assert espionage.begin(st)
    assert espionage.advance(st) and st.current_player == 0
    assert st.espionage.mission.roll == 4
    st._mask = None
    for _ in range(4):
        assert st.legal_actions_mask()[HIRE_AGENT]
        st.apply(HIRE_AGENT)
        if st.phase != "espionage":
            break
    assert st.gold[0] == 16
    assert st.phase == "move"  # X reached: hiring ends, the four agents failed, phase over
    assert [r for r in st.espionage.log if r[2] == "fail"].__len__() == 4


def test_espionage_table_failure_and_look():
    """ESPIONAGE TABLE 1-5 failure, 6-8 look at the target Hero's index card."""
    g, st, a, b = contact_state()
    st.gold[0] = 5
    st.order, st.espionage.turn = [0, 1], 0
    st.rng = ScriptRng([1, 5])  # roll X = 1; the one agent rolls 5
    espionage.begin(st)
    espionage.advance(st)
    st._mask = None
    st.apply(HIRE_AGENT)  # X reached: the agent rolls 5, a failure
    assert [r[2] for r in st.espionage.log if r[1] == 0] == ["roll", "fail"]
    targets = at_stage(st, "look")
    assert targets == [1]
    st.apply(TARGET0)
    assert espionage.is_revealed(st, 0, 1)
    obs = st.observation(0)
    d = st.determinize(0, np.random.default_rng(1))
    assert np.array_equal(d.heroes[1].troops, b.troops)  # the card stays known
    assert np.array_equal(d.observation(0), obs)


def test_agent_success_1_kill_hero_on_land():
    """AGENT SUCCESS TABLE 1: the target Hero on land dies; his army becomes a garrison."""
    g, st, a, b = contact_state()
    troops = b.troops.copy()
    assert at_stage(st, "kill_hero") == [1]
    st.apply(TARGET0)
    assert not b.alive and np.array_equal(st.garrison[b.cell], troops)
    assert st.owner[b.cell] == 1


def test_agent_success_2_take_garrison():
    """AGENT SUCCESS TABLE 2: gain control of a garrison in a non-capitol settlement."""
    g, st, a, b = contact_state()
    c = b.cell
    st.settle[c], st.terrain[c], st.owner[c] = SETTLEMENTS.index("town"), 1, 1
    st.garrison[c] = [0, 3, 0, 0]
    st.garrison[st.capitol[1]] = [4, 0, 0, 0]  # the capitol's garrison is not a target
    assert at_stage(st, "garrison") == [c]
    st.apply(TARGET0)
    assert st.owner[c] == 0 and st.garrison[c, 1] == 3


def test_agent_success_3_steal_magic_item():
    """AGENT SUCCESS TABLE 3: steal a magic item and give it to one of your Heroes."""
    g, st, a, b = contact_state()
    b.abilities = [("defense", 0)]
    b.items = [Item("ability", ability=("defense", 0))]
    assert at_stage(st, "item") == [1]
    st.apply(TARGET0)
    assert st.espionage.mission.stage == "give_item" and st.espionage.mission.targets == [0]
    st.apply(TARGET0)
    assert not b.items and a.items[0].ability == ("defense", 0)
    assert heroes.ability(st, b, "defense") == 0 and heroes.ability(st, a, "defense") == 1  # the item's ability moves


def test_agent_success_4_and_5_gold():
    """AGENT SUCCESS TABLE 4 steal 1D10 gold, 5 cause 1D10 gold of property damage."""
    g, st, a, b = contact_state()
    st.gold[:] = [0, 10]
    at_stage(st, "steal_gold")
    st.rng = ScriptRng([4])
    st.apply(TARGET0)
    assert st.gold.tolist() == [4, 6]
    at_stage(st, "damage")
    st.rng = ScriptRng([9])
    st.apply(TARGET0)
    assert st.gold.tolist() == [4, 0]  # never below zero


def test_agent_success_6_delay_army():
    """AGENT SUCCESS TABLE 6: the target Hero cannot move or attack this turn."""
    g, st, a, b = contact_state()
    at_stage(st, "delay")
    st.apply(TARGET0)
    assert espionage.hero_delayed(st, b)
    st.phase, st.queue, st.queue_pos, st._mask = "move", [(1, 1)], 0, None
    b.mp = 3
    mask = turn.queue_mask(st, 1, 1)
    assert not mask[:6].any() and mask[DONE]
    st.phase = "battle"
    b.attacks_left = 1
    assert not turn.queue_mask(st, 1, 1)[:6].any()


def test_agent_success_7_kill_wizard():
    """AGENT SUCCESS TABLE 7: kill the target Wizard."""
    g, st, a, b = contact_state()
    b.wizard = -1  # a wandering wizard
    assert at_stage(st, "wizard") == [1]
    st.apply(TARGET0)
    assert not b.wizard


def test_agent_success_8_disband_opponents_choice():
    """AGENT SUCCESS TABLE 8: 1D5 troops of the target army disband; the opponent picks."""
    g, st, a, b = contact_state()
    b.troops[:] = [5, 5, 0, 0]
    at_stage(st, "disband")
    st.rng = ScriptRng([3])
    st.apply(TARGET0)
    assert st.phase == "spy_loss" and st.current_player == 1
    mask = st.legal_actions_mask()
    assert mask[CASUALTY0] and mask[CASUALTY0 + 1] and not mask[DONE]
    for _ in range(3):
        st.apply(CASUALTY0 + 1)
    assert b.troops.tolist() == [5, 2, 0, 0] and st.phase != "spy_loss"


def test_agent_success_9_false_orders():
    """AGENT SUCCESS TABLE 9: False Orders: the spy moves the target Hero (one hex)."""
    g, st, a, b = contact_state()
    for m in st.neighbours[b.cell]:
        if m >= 0 and st.land[m] and heroes.hero_at(st, m) < 0:
            st.explored[m], st.terrain[m], st.settle[m], st.encounter[m] = True, 0, -1, 0
    if not at_stage(st, "false_orders"):
        pytest.skip("no free hex next to the target")
    start = b.cell
    st.apply(TARGET0)
    assert st.espionage.mission.stage == "move" and st.current_player == 0
    d = int(np.flatnonzero(st.legal_actions_mask()[:6])[0])
    st.apply(d)
    assert b.cell == int(st.neighbours[start][d])


def test_agent_success_10_sink_ship():
    """AGENT SUCCESS TABLE 10: one of the target Hero's ships sinks."""
    g, st, a, b = contact_state()
    w = int(next((x for x in range(g.n_cells) if not st.land[x]), -1))
    if w < 0:
        pytest.skip("no water")
    b.cell = w
    st.fleets.ships[w], st.fleets.owner[w] = 2, 1
    b.troops[:] = [4, 4, 0, 0]
    assert at_stage(st, "sink") == [1]
    st.apply(TARGET0)
    assert st.fleets.ships[w] == 1 and b.alive


def test_espionage_forgo_and_hidden_slots():
    """ESPIONAGE PHASE: an agent's result may be forgone (done); the slots stay the spy's."""
    g, st, a, b = contact_state()
    at_stage(st, "delay")
    st.apply(DONE)
    assert not espionage.hero_delayed(st, b)


def test_fortell_negates_an_agent():
    """REALM SPELLS Fortell: negates an espionage result against its holder when he casts it
    (the choice is the victim's, see tests/warbah/test_magic_fortell.py)."""
    from tabletop_arena.envs.warbah.actions import REALM0
    g, st, a, b = contact_state()
    b.wizard = -1
    st.magic.hands[1] = [realm_spells.fortell_id(st)]
    at_stage(st, "delay")
    st.apply(TARGET0)
    assert st.current_player == 1
    st.apply(REALM0 + realm_spells.fortell_id(st))
    assert not espionage.hero_delayed(st, b) and st.magic.hands[1] == []
    assert st.espionage.log[-1][2] == "fortell"


def test_luck_rerolls_the_espionage_roll():
    """RARE ABILITY Luck: one die roll per turn may be rerolled (here the espionage roll)."""
    from tabletop_arena.envs.warbah.actions import KEEP_ROLL, REROLL
    g, st, a, b = contact_state()
    a.abilities = [("luck", 0)]
    st.gold[0], st.order, st.espionage.turn = 20, [0, 1], 0
    st.rng = ScriptRng([2, 9] + [1] * 20)
    assert espionage.begin(st)
    assert espionage.advance(st) and st.phase == "luck" and st.current_player == 0
    st._mask = None
    assert st.legal_actions() == [REROLL, KEEP_ROLL]
    st.apply(REROLL)
    assert st.espionage.mission is not None and st.espionage.mission.roll == 9 and st.phase == "espionage"
    assert a.luck_used_turn == st.turn


def test_luck_rerolls_an_agent_roll():
    """RARE ABILITY Luck: a failed agent's Espionage table roll may be rerolled (once a turn)."""
    from tabletop_arena.envs.warbah.actions import KEEP_ROLL, REROLL
    g, st, a, b = contact_state()
    a.abilities = [("luck", 0)]
    st.gold[0], st.order, st.espionage.turn = 20, [0, 1], 0
    st.rng = ScriptRng([1, 3, 7] + [1] * 20)  # roll X=1 (keep), agent rolls 3, reroll -> 7
    espionage.begin(st)
    espionage.advance(st)
    st._mask = None
    st.apply(KEEP_ROLL)  # keep the espionage roll: Luck still unused
    st.apply(HIRE_AGENT)
    assert st.phase == "luck" and st.luck.what == "esp_table" and st.luck.roll == 3
    st.apply(REROLL)
    assert st.espionage.mission.stage == "look" and st.espionage.mission.targets == [1]
