"""The turn-plan search without a network (``hplan[:N]``, agents/lookahead.py ``TurnPlanAgent``) and
the heuristic styles it chooses among (Warbah: default, economy, assault). ``plan:N:REF`` (with a
value) is tested in tests/test_value_lookahead.py."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.agents.heuristics import heuristic_styles, make_heuristic
from tabletop_arena.agents.lookahead import TurnPlanAgent
from tabletop_arena.agents.registry import AgentSpecError, make_agent
from tabletop_arena.envs.warbah import heroes, hexes
from tabletop_arena.envs.warbah.actions import RECRUIT
from tabletop_arena.train.play import play


def _warbah4():
    return envs.make_game("warbah_v0", num_players=4)


def decision_position(game, seed, phases, skip=0):
    """A position (heuristics moving) at the ``skip``-th decision of one of ``phases`` with two or
    more legal moves, and its observation."""
    state = game.new_initial_state(seed)
    bot = make_agent("heuristic", game, seed=1)
    while True:
        mask = state.legal_actions_mask()
        obs = {"observation": state.observation(state.current_player), "action_mask": mask}
        if np.count_nonzero(mask) > 1 and state.phase_name() in phases:
            if skip == 0:
                return state, obs
            skip -= 1
        state.apply(int(bot.act(obs, state)))


def test_warbah_heuristic_styles():
    game = _warbah4()
    assert heuristic_styles(game) == ("default", "economy", "assault")
    assert heuristic_styles("zaka_v0") == ("default",)
    with pytest.raises(AgentSpecError, match="no style 'turtle'; its styles: default, economy, assault"):
        make_heuristic(game, style="turtle")
    assault = make_heuristic(game, 0, style="assault")
    assert (assault._attack_ratio, make_heuristic(game, 0)._attack_ratio) == (1.2, 2.0)


def test_warbah_economy_style_recruits_garrisons_only_at_the_capitol_or_under_a_hero():
    """The economy style's recruit rule, checked at every recruit decision of whole games it plays
    (the default style, in the same seats, does recruit into other garrisons)."""
    game = _warbah4()
    recruits = {"default": 0, "economy": 0}

    for style in recruits:
        def on_move(state, seat, obs, action, style=style):
            if seat == 0 and state.phase_name() == "recruit" and action == RECRUIT:
                c = state.queue[state.queue_pos][1]
                j = heroes.hero_at(state, c)
                if c != state.capitol[seat] and not (j >= 0 and state.heroes[j].seat == seat):
                    recruits[style] += 1

        for seed in range(3):
            agents = [make_heuristic(game, 0, style=style)] + [make_agent("heuristic", game, seed=i) for i in (1, 2, 3)]
            play(game, agents, seed, on_move=on_move)
    assert recruits["economy"] == 0 and recruits["default"] > 0, recruits


def acts_on_a_copy(agent, state, obs) -> int:
    """``agent.act`` at ``state``: a legal move, and the state (and every seat's view of it) as before."""
    before = state.serialize()
    seen = [state.observation(s).copy() for s in range(state.game.num_seats)]
    move = agent.act(obs, state)
    assert obs["action_mask"][move]
    assert state.serialize() == before
    assert all(np.array_equal(state.observation(s), seen[s]) for s in range(state.game.num_seats))
    return move


def check_turn_plan(agent, game, phase: str, max_steps: int) -> None:
    """A turn-plan agent (plan, hplan) never changes the state it is given, and plans once for each
    own turn with a choice, not at every move (a game of ``max_steps`` moves, the agent in seat 0)."""
    state, obs = decision_position(game, 9, (phase,))
    acts_on_a_copy(agent, state, obs)
    assert agent.plans == 1
    turns = set()

    def on_move(s, seat, seen_obs, action):
        if seat == 0 and np.count_nonzero(seen_obs["action_mask"]) > 1:
            turns.add(s.turn)

    agent.reset(5)
    agent.plans = 0
    play(game, [agent] + [make_agent("heuristic", game, seed=i) for i in range(3)], 12, max_steps=max_steps,
         on_move=on_move)
    assert agent.plans == len(turns) > 1


def test_hplan_never_changes_the_state_it_is_given_and_plans_once_a_turn():
    game = _warbah4()
    agent = make_agent("hplan:2", game, seed=3)
    assert isinstance(agent, TurnPlanAgent) and agent.value is None and agent.depth == game.max_game_length()
    check_turn_plan(agent, game, "recruit", 200)


def test_hplan_rollouts_are_paired_and_end_the_game():
    """Rollout i plays every style from one determinization with one generator: a style listed twice
    gets the same result in every rollout; every rollout plays to the end (a return, +1 ... -1)."""
    game = _warbah4()
    agent = TurnPlanAgent(None, game, rollouts=3, seed=0)
    agent.styles = ("economy", "default", "economy")
    state, _ = decision_position(game, 5, ("move",), skip=10)
    values = agent.style_values(state)
    assert values.shape == (3, 3)
    assert np.array_equal(values[:, 0], values[:, 2])
    assert set(np.unique(values)) <= {-1.0, -1 / 3, 1 / 3, 1.0}   # rank returns of finished games


def test_hplan_leaves_the_default_style_only_for_a_sure_gain(monkeypatch):
    game = _warbah4()
    state, obs = decision_position(game, 8, ("recruit",))
    steady = np.array([[0.0, 0.3, -1.0]] * 4)   # economy +0.3 in every rollout
    noisy = np.array([[0.0, 1.0, -1.0], [0.0, -0.9, -1.0], [0.0, 1.0, -1.0], [0.0, -0.9, -1.0]])
    both = np.array([[0.0, 0.3, 0.6]] * 4)       # assault gains more
    for values, z, style in ((steady, 1.0, 1), (noisy, 1.0, 0), (noisy, 0.0, 1), (both, 1.0, 2), (steady * [1, -1, 1], 0.0, 0)):
        agent = TurnPlanAgent(None, game, rollouts=4, seed=0, z=z)
        monkeypatch.setattr(agent, "style_values", lambda s, v=values: v)
        move = agent.act(obs, state)
        assert agent.style == style and agent.switches == (style > 0), (z, values)
        assert move == int(make_heuristic(game, 0, style=agent.styles[style]).act(obs, state.clone()))


@pytest.mark.parametrize("spec, game, needle", [
    ("hplan:1", "warbah_v0", "2 <= N"),
    ("hplan:x", "warbah_v0", "2 <= N"),
    ("hplan:4", "gorgasali_v0", "gorgasali_v0's heuristic has one \\(default\\): nothing to choose"),
])
def test_hplan_spec_errors(spec, game, needle):
    with pytest.raises(AgentSpecError, match=needle):
        make_agent(spec, game, seed=0)


def test_warbah_assault_style_attacks_garrisons_the_default_leaves_alone():
    """The assault style's one change (attack an enemy garrison with more than 1.2 times its size,
    not twice), checked at every garrison attack seat 0 makes in whole games: the default style never
    attacks below its rule (twice the garrison, or 5 more plus 3 a wall rank), the assault style
    does, and never below its own 1.2."""
    game = _warbah4()
    below_default = {"default": 0, "assault": 0}
    attacks = {"default": 0, "assault": 0}

    for style in attacks:
        def on_move(state, seat, obs, action, style=style):
            if seat != 0 or state.phase_name() != "battle" or action >= 6:
                return
            h = state.heroes[state.queue[state.queue_pos][1]]
            m = int(state.neighbours[h.cell][action])
            if heroes.hero_at(state, m) >= 0 or state.encounter[m] != 0:
                return  # a Hero or an encounter, not a garrison
            mine = int(h.troops.sum()) + sum(
                int(o.troops.sum()) for o in state.heroes
                if o is not h and o.alive and o.seat == seat and o.attacks_left > 0
                and m in state.neighbours[o.cell])
            gar = int(state.garrison[m].sum() + state.garrison_specials[m].sum())
            wall_rule = gar > 0 and mine >= gar + 3 * hexes.walls(state, m, h.cell) + 5
            attacks[style] += 1
            below_default[style] += not (mine > 2 * gar or wall_rule)
            assert mine > 1.2 * gar or wall_rule, (style, mine, gar)

        for seed in (7, 8, 9):  # seed 9 holds an assault between 1.2 and 2 times the garrison
            agents = [make_heuristic(game, 0, style=style)] + [make_agent("heuristic", game, seed=i) for i in (1, 2, 3)]
            play(game, agents, seed, on_move=on_move)
    assert attacks["default"] > 0 and below_default["default"] == 0, (attacks, below_default)
    assert below_default["assault"] > 0, (attacks, below_default)
