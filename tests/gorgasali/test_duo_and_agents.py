"""Gorgasali: duo mode (teams, trading, revival), hidden information, the env and the baseline."""
from __future__ import annotations

import numpy as np

from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.agents.gorgasali import HeuristicAgent, plan_walks
from tabletop_arena.envs.gorgasali import actions as A
from tabletop_arena.envs.gorgasali import make_game, raw_env
from tabletop_arena.train.play import play
from tests.gorgasali import card_id, give, legal, make_state, sq

W0 = A.WEAPON_POS[0]


def test_duo_teammates_share_the_start_sector():
    """Duo: teammates sit opposite each other and start from the same sector."""
    g = make_game(num_players=6, mode="duo")
    st = g.new_initial_state(np.random.default_rng(1))
    assert g.team == [0, 1, 2, 0, 1, 2]
    assert st.sector[0] == st.sector[3] and st.sector[1] == st.sector[4]
    assert len({st.sector[0], st.sector[1], st.sector[2]}) == 3


def test_duo_trade_next_to_the_teammate_ends_the_turn():
    """Duo trading: next to the teammate any card or extra chest may change hands, one- or
    two-sided; finishing the trade ends the turn."""
    st = make_state(["Armazi", "Ebue", "Varas", "Medea"],
                    [sq(18, 10), sq(18, 15), sq(18, 11), sq(18, 18)], mode="duo")
    colt = give(st, 0, W0, "Colt")
    st.extra_chests = [0, 0, 2, 0]
    st.apply(A.TRADE)
    assert st.phase == "trade"
    assert {A.GIVE + W0, A.TAKE_CHEST, A.END_TRADE} <= legal(st)
    st.apply(A.GIVE + W0)
    st.apply(A.TAKE_CHEST)
    assert st.mat[2][W0] == colt and st.mat[0][W0] == -1 and st.extra_chests[:3:2] == [1, 1]
    st.apply(A.END_TRADE)
    assert st.cur == 1


def test_duo_revive_with_a_healing_card():
    """Duo: a fallen player's banner stays; a healing card used next to it revives the player
    with that much health, an empty mat and a reset cooldown; no main action that turn."""
    st = make_state(["Armazi", "Ebue", "Varas", "Medea"],
                    [sq(18, 10), sq(18, 14), sq(18, 11), sq(18, 18)], mode="duo")
    give(st, 2, W0, "Colt")
    st.cooldown[2] = 2
    st._damage(2, 200, 1, "ability")
    assert not st.alive[2] and st.fallen_at[2] == sq(18, 11) and st.mat[1][W0] >= 0
    give(st, 0, A.CONSUMABLE_POS[0], "Medium Potion")
    give(st, 0, W0, "Colt")
    st.pos[1], st._mask = sq(18, 12), None
    assert A.shoot(0, 1) in legal(st)
    st.apply(A.REVIVE + 0)
    assert st.alive[2] and st.health[2] == 50 and st.pos[2] == sq(18, 11)
    assert all(c < 0 for c in st.mat[2]) and st.cooldown[2] == 0
    assert A.shoot(0, 1) not in legal(st) and A.END_TURN in legal(st)


def test_duo_returns_are_per_team():
    """Duo: the last team standing wins; teammates share their team's reward."""
    st = make_state(["Armazi", "Ebue", "Varas", "Medea"],
                    [sq(18, 10), sq(18, 14), sq(18, 11), sq(18, 18)], mode="duo")
    st._damage(1, 200, 0, "weapon")
    assert not st.is_terminal()
    st._damage(3, 200, 0, "weapon")
    assert st.is_terminal() and list(st.returns()) == [1.0, -1.0, 1.0, -1.0]


def test_face_down_and_backpack_cards_are_hidden():
    """Hidden information: opponents' face-down weapons and backpack cards are resampled by
    determinize and absent from the observation; face-up cards stay."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)])
    give(st, 0, W0, "Breathold", loaded=False)
    give(st, 0, A.WEAPON_POS[1], "Colt")
    give(st, 0, A.BACKPACK_POS[0], "Large Potion")
    obs = st.observation(1)
    changed = 0
    for k in range(20):
        d = st.determinize(1, np.random.default_rng(k))
        assert np.array_equal(d.observation(1), obs)
        assert d.mat[0][A.WEAPON_POS[1]] == card_id(st.game, "Colt")
        assert st.game.cards[d.mat[0][A.BACKPACK_POS[0]]].category != "weapon"
        changed += d.mat[0][W0] != st.mat[0][W0]
    assert changed > 10
    me = st.determinize(0, np.random.default_rng(0))
    assert me.mat[0] == st.mat[0]


def test_env_plays_with_observation_layout():
    """The AEC env: observation = 21 map planes of 20x20 plus the vector, masks for the mover."""
    env = raw_env(num_players=4)
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == (env.game.observation_size,)
    assert obs["observation"].shape[0] == 21 * 400 + dict(env.game.observation_layout)["vector"][0]
    assert obs["action_mask"].any()


def test_heuristic_beats_random():
    """The rule-based baseline clearly beats random play (2 and 4 players)."""
    for n, games in ((2, 8), (4, 4)):
        g = make_game(num_players=n)
        wins = 0
        for k in range(games):
            h = k % n
            agents = [HeuristicAgent(g, seed=k) if s == h else RandomAgent(seed=100 + s + 10 * k)
                      for s in range(n)]
            r = play(g, agents, k, max_steps=None, det_rng=np.random.default_rng(k)).returns
            wins += r[h] == max(r)
        assert wins >= games - 1, (n, wins)


def test_heuristic_walk_plans_are_legal_walks():
    """The baseline walks by planning: every path ``plan_walks`` returns can be stepped through
    the engine's masks to its end, and costs exactly the zone damage it was planned with."""
    g = make_game(num_players=2)
    rng = np.random.default_rng(3)
    checked = 0
    for k in range(10):
        st = g.new_initial_state(np.random.default_rng(k))
        st.zones_out = 1 + k % 2
        while not (st.phase == "move" and len(st.path) == 1) and not st.is_terminal():
            acts = [a for a in legal(st) if a != A.SKIP]
            st.apply(int(rng.choice(acts)))
        if st.is_terminal():
            continue
        seat = st.current_player
        hp = st.health[seat]
        for end, (dmg, path) in sorted(plan_walks(st).items())[::7]:
            if dmg >= hp:
                continue
            t = st.clone()
            for q in path[1:]:
                t.apply(A.SQUARE + q)
            if t.phase == "move":
                t.apply(A.SQUARE + end)              # a planned stop on a chest
            heal = min(dmg, g.rules["heal_square"]) if end in g.board.healing else 0
            assert t.pos[seat] == end and hp - t.health[seat] == dmg - heal
            checked += 1
    assert checked > 20
