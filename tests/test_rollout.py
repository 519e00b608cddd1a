"""Policy-rollout search (agents/rollout.py, ``rollout:N:REF``).

- on tests/test_mcts.py's fake engines with a stand-in prior and random rollouts: it takes a win in
  one that the prior ranks last, it cannot peek at a hidden card or a future die even when handed the
  true state, and an agent owning several seats is scored by its own result;
- the gate: a sure prior (or one candidate) is played without a rollout, an unsure one is searched,
  and every candidate gets the same number of rollouts;
- with a shipped checkpoint: legal moves only, the real state untouched, the same game from the
  same seed; bad settings and specs are one-line errors.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.agents.base import BaseAgent, RandomAgent
from tabletop_arena.agents.ppo import PPOAgent
from tabletop_arena.agents.registry import AgentSpecError, has_heuristic, make_agent
from tabletop_arena.agents.rollout import HeuristicRolloutAgent, RolloutAgent
from tabletop_arena.train.play import play
from tests.test_mcts import GuessGame, TeamGame, TicTacToe
from tests.test_puct import _act, _position


def _prior(logits):
    return lambda observation, state: np.asarray(logits, np.float64)


def _agent(game, logits, **kw):
    kw.setdefault("gate", 1.0)
    kw.setdefault("min_prior", 0.0)
    return RolloutAgent(None, game, prior=_prior(logits), rollout_agent=RandomAgent(0), **kw)


def test_takes_a_win_in_one_the_prior_ranks_last():
    # X: 0, 1; O: 3, 4; X to move: 2 wins at once. The prior puts 2 last of the legal moves.
    game, s = _position([0, 3, 1, 4])
    logits = np.array([0, 0, -1.0, 0, 0, 0.5, 0.4, 0.3, 0.2])
    agent = _agent(game, logits, rollouts=30, top_k=9, seed=0)
    assert _act(agent, s) == 2
    stats = agent.last_search
    assert set(stats) == {2, 5, 6, 7, 8}
    assert stats[2][1] == 1.0 and all(v[1] < 1.0 for a, v in stats.items() if a != 2)
    assert {v[2] for v in stats.values()} == {30} and agent.rollouts_played == 5 * 30
    # the same position with top_k too small to see the win: the prior's best survives
    narrow = _agent(game, logits, rollouts=30, top_k=2, seed=0)
    assert _act(narrow, s) in (5, 6) and set(narrow.last_search) == {5, 6}


def test_halving_spends_the_budget_on_the_survivors():
    """alloc=halving (sequential halving, Karnin, Koren & Somekh 2013): the k x N rollouts are
    split over ceil(log2 k) rounds and the better half survives each round, so the move that wins
    at once, ranked last by the prior, is kept to the end and gets the most rollouts."""
    game, s = _position([0, 3, 1, 4])   # X to move; 2 wins at once
    logits = np.array([0, 0, -1.0, 0, 0, 0.5, 0.4, 0.3, 0.2])
    agent = _agent(game, logits, rollouts=16, top_k=9, allocation="halving", seed=0)
    assert _act(agent, s) == 2
    stats = agent.last_search
    assert set(stats) == {2, 5, 6, 7, 8}
    # 5 candidates, 3 rounds of 80 // 3 = 26 rollouts: 5 x 5, then the best 3 x 8, then the best 2 x 13
    assert stats[2][1:] == (1.0, 5 + 8 + 13)
    assert sorted(v[2] for v in stats.values()) == [5, 5, 5 + 8, 5 + 8 + 13, 5 + 8 + 13]
    assert agent.rollouts_played == 5 * 5 + 3 * 8 + 2 * 13 <= 5 * 16
    # two candidates: one round, N each, as uniform
    two = _agent(game, logits, rollouts=16, top_k=2, allocation="halving", seed=0)
    _act(two, s)
    assert {v[2] for v in two.last_search.values()} == {16} and two.rollouts_played == 32


def test_a_budget_in_moves_buys_more_rollouts_where_the_rest_is_short():
    """moves=M with alloc=halving: the first round as without it; its mean rollout length L (plus
    ROLLOUT_START_MOVES a rollout) sets the budget to max(k x N, M / (L + start)) rollouts, the later
    rounds sharing it as before; two candidates (one round) get the rest in a second batch. A budget
    below k x N's cost changes nothing, move for move."""
    from tabletop_arena.agents.rollout import ROLLOUT_START_MOVES
    game, s = _position([0, 3, 1, 4])   # X to move; 2 wins at once; at most 5 moves left
    logits = np.array([0, 0, -1.0, 0, 0, 0.5, 0.4, 0.3, 0.2])
    base = _agent(game, logits, rollouts=16, top_k=9, allocation="halving", seed=0)
    same = _agent(game, logits, rollouts=16, top_k=9, allocation="halving", moves=1, seed=0)
    assert _act(base, s) == _act(same, s) == 2 and same.last_search == base.last_search
    rich = _agent(game, logits, rollouts=16, top_k=9, allocation="halving", moves=2000, seed=0)
    calls = []
    inner = rich._rollouts

    def spy(state, seat, cands, n):
        before = rich.moves_played
        out = inner(state, seat, cands, n)
        calls.append((len(cands), n, rich.moves_played - before))
        return out
    rich._rollouts = spy
    assert _act(rich, s) == 2
    (c0, n0, m0), (c1, n1, _), (c2, n2, _) = calls
    budget = max(5 * 16, int(2000 / (m0 / (c0 * n0) + ROLLOUT_START_MOVES)))
    assert (c0, n0) == (5, 80 // (3 * 5)) and (c1, n1) == (3, budget // (3 * 3)) and (c2, n2) == (2, budget // (3 * 2))
    assert budget > 5 * 16 and rich.rollouts_played == 5 * n0 + 3 * n1 + 2 * n2 > base.rollouts_played
    # two candidates: N each, then the rest of the budget in a second batch
    two = _agent(game, logits, rollouts=16, top_k=2, allocation="halving", moves=2000, seed=0)
    _act(two, s)
    assert {v[2] for v in two.last_search.values()} == {two.rollouts_played // 2} and two.rollouts_played > 32
    for kw, match in (({"moves": 0}, "moves"), ({"moves": 1.5}, "moves"), ({"moves": True}, "moves"),
                      ({"moves": 100, "allocation": "uniform"}, "halving")):
        with pytest.raises(ValueError, match=match):
            _agent(game, logits, rollouts=16, **kw)


def test_a_sure_prior_or_one_candidate_is_played_without_rollouts():
    game, s = _position([])
    sure = np.full(9, -20.0)
    sure[4] = 20.0
    agent = _agent(game, sure, rollouts=8, gate=0.99, seed=0)
    assert _act(agent, s) == 4 and agent.rollouts_played == 0 and agent.last_search == {}
    # unsure prior, but min_prior leaves one candidate: no rollouts either
    lean = np.zeros(9)
    lean[7] = 6.0   # p(7) ~ 0.98, every other ~ 0.0025 < min_prior
    agent = _agent(game, lean, rollouts=8, gate=0.99, min_prior=0.02, seed=0)
    assert _act(agent, s) == 7 and agent.rollouts_played == 0
    # the same prior below the gate with a lower floor: searched
    agent = _agent(game, lean, rollouts=8, gate=0.99, min_prior=0.001, top_k=3, seed=0)
    _act(agent, s)
    assert agent.rollouts_played == 3 * 8 and len(agent.last_search) == 3


@pytest.mark.parametrize("hidden_card", [False, True], ids=["chance", "hidden_card"])
def test_cannot_peek(hidden_card):
    game = GuessGame(hidden_card)
    agent = _agent(game, np.zeros(6), rollouts=20, top_k=6, seed=0)
    hits = 0
    for g in range(60):
        st = game.new_initial_state(np.random.default_rng(1000 + g))
        # hand it the *true* state (with the real generator and card): it must still not know
        a = _act(agent, st)
        st.apply(a)
        hits += bool(st.won)
    assert hits <= 25, f"{hits}/60 correct guesses: the rollouts saw the hidden value (expected about 10)"


def test_scores_the_owner_of_several_seats():
    game = TeamGame()   # seats 0 and 2 are agent 0, which wins iff seat 2 picks 1
    st = game.new_initial_state(np.random.default_rng(0))
    st.apply(0)
    st.apply(0)
    agent = _agent(game, np.array([1.0, 0.0]), rollouts=10, seed=0)   # the prior prefers 0
    assert st.current_player == 2
    assert _act(agent, st) == 1
    assert agent.last_search[1][1] == 1.0 and agent.last_search[0][1] == -1.0


def test_bad_settings_are_errors():
    game = TicTacToe()
    for kw, match in (({"rollouts": 0}, "rollouts"), ({"rollouts": 2.0}, "rollouts"),
                      ({"rollouts": True}, "rollouts"), ({"top_k": 0}, "top_k"),
                      ({"rollout_cap": 0}, "rollout_cap"), ({"gate": 0.0}, "gate"),
                      ({"gate": 1.5}, "gate"), ({"min_prior": 1.0}, "min_prior"),
                      ({"min_prior": -0.1}, "min_prior"), ({"allocation": "greedy"}, "allocation")):
        with pytest.raises(ValueError, match=match):
            _agent(game, np.zeros(9), **kw)
    with pytest.raises(ValueError, match="checkpoint path"):
        RolloutAgent(None, game)
    agent = _agent(game, np.zeros(9))
    s = game.new_initial_state(0)
    with pytest.raises(ValueError, match="engine state"):
        agent.act({"observation": s.observation(0), "action_mask": s.legal_actions_mask()})


@pytest.mark.parametrize("spec", ["rollout", "rollout:8", "rollout:0:peacekeepers", "rollout:x:peacekeepers",
                                  "rollout:-2:peacekeepers", "rollout: 8:peacekeepers", "rollout:8:",
                                  "rollout:8:no_such_agent", "rollout:8,k=0:peacekeepers",
                                  "rollout:8,k=2.5:peacekeepers", "rollout:8,gate=2:peacekeepers",
                                  "rollout:8,gate=nan:peacekeepers", "rollout:8,floor=1:peacekeepers",
                                  "rollout:8,x=1:peacekeepers", "rollout:8,k:peacekeepers",
                                  "rollout:8,by=heuristic:peacekeepers", "rollout:8,k=3,k=4:peacekeepers",
                                  "rollout:8,alloc=best:peacekeepers", "rollout:8,alloc=halving,alloc=uniform:peacekeepers",
                                  "rollout:8,moves=0,alloc=halving:peacekeepers", "rollout:8,moves=1e4,alloc=halving:peacekeepers",
                                  "rollout:8,moves=-5,alloc=halving:peacekeepers", "rollout:8,moves=100:peacekeepers",
                                  "rollout:8,moves=10,moves=20,alloc=halving:peacekeepers"])
def test_bad_specs(spec):
    with pytest.raises(AgentSpecError):
        make_agent(spec, envs.make_game("peacekeepers_v0"))


def test_spec_settings():
    game = envs.make_game("peacekeepers_v0")
    plain = make_agent("rollout:8:peacekeepers", game, seed=0)
    assert (plain.rollouts, plain.top_k, plain.gate, plain.min_prior) == (8, 4, 0.99, 0.02)
    assert not isinstance(plain._rollout_agent, RandomAgent)   # the checkpoint's own policy
    assert plain.allocation == "uniform"
    tuned = make_agent("rollout:64,k=10,gate=1,floor=0,by=random,alloc=halving:peacekeepers", game, seed=0)
    assert (tuned.rollouts, tuned.top_k, tuned.gate, tuned.min_prior) == (64, 10, 1.0, 0.0)
    assert tuned.allocation == "halving" and tuned.moves is None and plain.moves is None
    assert isinstance(tuned._rollout_agent, RandomAgent) and tuned.path == plain.path
    budget = make_agent("rollout:64,k=16,gate=1,by=random,alloc=halving,moves=50000:peacekeepers", game, seed=0)
    assert budget.moves == 50000 and budget.allocation == "halving"


def _plays_the_same_and_leaves_the_state(game, one) -> None:
    """``one(seed)`` -> (agent, result of a game it played): it searched, the same seed gives the
    same game, and an act on a real state with a choice leaves that state as it was."""
    agent, first = one(3)
    assert agent.rollouts_played > 0
    _, again = one(3)
    assert first.history == again.history and first.returns == again.returns
    st = game.new_initial_state(5)
    while len(np.flatnonzero(st.legal_actions_mask())) < 2:
        st.apply(int(np.flatnonzero(st.legal_actions_mask())[0]))
    before = st.serialize()
    obs = {"observation": st.observation(st.current_player), "action_mask": st.legal_actions_mask()}
    a = agent.act(obs, state=st)
    assert st.serialize() == before and obs["action_mask"][a]


def test_with_a_shipped_checkpoint():
    """rollout:2:zaka against random on Zaka (two armies a player): legal moves only (``play``
    checks each against the mask), the real state untouched, the same game from the same seed."""
    game = envs.make_game("zaka_v0", num_players=2)

    def one(seed):
        agent = make_agent("rollout:2:zaka", game, seed=seed)
        agent.gate = 1.0   # search every decision with two candidates or more
        res = play(game, [agent, make_agent("random", game, seed=seed)], seed=seed, max_steps=30)
        return agent, res

    _plays_the_same_and_leaves_the_state(game, one)


def test_sample_batch_draws_what_choose_draws():
    """``PPOAgent.sample_batch`` (the batched rollouts' sampler) picks, row by row, the move a
    sampling agent's ``choose`` picks from the same generator, takes a lone legal move without a
    draw, and refuses a row with no legal move."""
    rng = np.random.default_rng(0)
    rows, width = 300, 40
    logits = rng.normal(0, 3, (rows, width))
    masks = rng.random((rows, width)) < rng.uniform(0.02, 1, (rows, 1))
    masks[np.arange(rows), rng.integers(width, size=rows)] = True     # at least one legal move a row
    masks[:5] = False
    masks[np.arange(5), rng.integers(width, size=5)] = True             # rows with exactly one
    seeds = rng.integers(2**32, size=rows)
    batch = PPOAgent.sample_batch(logits, masks, [np.random.default_rng(sd) for sd in seeds])
    one = PPOAgent.from_policy(None, deterministic=False)
    for r in range(rows):
        one.rng = np.random.default_rng(seeds[r])
        assert batch[r] == one.choose(logits[r], masks[r]), r
    lone = [np.random.default_rng(1)]
    assert PPOAgent.sample_batch(logits[:1], masks[:1], lone)[0] == np.flatnonzero(masks[0])[0]
    assert lone[0].random() == np.random.default_rng(1).random()        # no draw for a lone move
    with pytest.raises(ValueError, match="no legal action"):
        PPOAgent.sample_batch(logits[:2], np.zeros((2, width), bool), lone * 2)


@pytest.mark.parametrize("by", ["policy", "random"])
def test_batched_rollouts_match_rollouts_played_alone(by):
    """The rollouts of a search advance together (one forward pass a round for all of them);
    each game draws from its own generator, so playing them together gives every game the
    result it gets when played alone."""
    game = envs.make_game("zaka_v0")
    agent = make_agent(f"rollout:2,by={by}:zaka", game, seed=0)
    rng = np.random.default_rng(4)
    starts, seeds = [], []
    for i in range(6):
        st = game.new_initial_state(20 + i)
        for _ in range(int(rng.integers(0, 30))):
            st.apply(agent.random_legal(st.legal_actions_mask()))
        starts.append(st)
        seeds.append(int(rng.integers(2**63)))
    together = agent._play_out_all([s.clone() for s in starts], seeds)
    alone = np.concatenate([agent._play_out_all([s.clone()], [sd]) for s, sd in zip(starts, seeds)])
    assert np.array_equal(together, alone)
    assert set(np.unique(together)) <= {-1.0, 0.0, 1.0} and (together != 0).any()


@pytest.mark.parametrize("name,opts", [(n, o) for n in envs.names() for o in envs.variants(n).values()],
                         ids=[f"{n}-{v}" for n in envs.names() for v in envs.variants(n)])
def test_searches_every_registered_variant(name, opts):
    """On every env and variant (a flat prior, short random rollouts so it is cheap): each search
    scores every candidate, returns one of them, and leaves the real state as it was."""
    game = envs.make_game(name, **opts)
    agent = RolloutAgent(None, game, rollouts=2, top_k=3, gate=1.0, min_prior=0.0, rollout_cap=15, seed=0,
                         prior=_prior(np.zeros(game.num_actions)), rollout_agent=RandomAgent(0))
    st = game.new_initial_state(7)
    rng = np.random.default_rng(8)
    searched = 0
    for _ in range(12):
        if st.is_terminal():
            break
        seat = st.current_player
        mask = st.legal_actions_mask()
        before = st.serialize()
        a = agent.act({"observation": st.observation(seat), "action_mask": mask},
                      state=st.determinize(seat, rng))
        assert st.serialize() == before and mask[a], st.action_to_str(a)
        if agent.last_search:
            searched += 1
            assert a in agent.last_search and len(agent.last_search) == min(3, int(mask.sum()))
        st.apply(a)
    assert searched > 0


# -- hroll[:N]: the heuristic improved by its own rollouts where they are sure -------------------------

class _Fixed(BaseAgent):
    """A base policy that always plays the lowest legal move (a stand-in heuristic)."""

    def act(self, obs, state=None) -> int:
        return int(np.flatnonzero(obs["action_mask"])[0])


def _hroll(game, **kw):
    kw.setdefault("rollouts", 30)
    return HeuristicRolloutAgent(game, seed=0, base=_Fixed(0), rollout_agent=RandomAgent(0), **kw)


def test_hroll_replaces_the_heuristic_move_only_with_evidence():
    # X: 0, 1; O: 3, 4; X to move: 2 wins at once, the base plays 2 anyway (the lowest legal move)
    game, s = _position([0, 3, 1, 4])
    agent = _hroll(game)
    assert _act(agent, s) == 2 and agent.deviations == 0 and agent.last_search[2][0] == 1.0
    # X: 0, 3; O: 1, 4 (X to move, O threatens 7): the base's 2 lets O win; 6 wins for X and 7 blocks
    game, s = _position([0, 1, 3, 4])
    agent = _hroll(game)
    move = _act(agent, s)
    assert move == 6 and agent.deviations == 1            # 6 wins at once: the largest sure gain
    assert agent.last_search[6][1] == 1.0 and agent.last_search[2][1] < 0.5
    assert agent.rollouts_played == 30 * len(agent.last_search)
    # z so large that no gain is sure: the base's move stands
    strict = _hroll(game, z=1e9)
    assert _act(strict, s) == 2 and strict.deviations == 0


@pytest.mark.parametrize("hidden_card", [False, True], ids=["chance", "hidden_card"])
def test_hroll_keeps_the_base_move_where_no_move_is_better(hidden_card):
    """Guess a die or a hidden card: to the mover every guess has the same chance, so no move may
    replace the base's, even when the agent is handed the true state (it must not peek)."""
    game = GuessGame(hidden_card)
    moves = []
    for g in range(20):
        st = game.new_initial_state(np.random.default_rng(2000 + g))
        agent = _hroll(game, rollouts=20, z=2.0)
        moves.append(_act(agent, st))
    assert moves.count(int(np.flatnonzero(st.legal_actions_mask())[0])) >= 18, moves


def test_hroll_scores_the_owner_of_several_seats():
    game = TeamGame()   # seats 0 and 2 are agent 0, which wins iff seat 2 picks 1; the base picks 0
    st = game.new_initial_state(np.random.default_rng(0))
    st.apply(0)
    st.apply(0)
    agent = _hroll(game, rollouts=4)
    assert _act(agent, st) == 1 and agent.deviations == 1


@pytest.mark.parametrize("spec,message", [("hroll:1", "2 <= N"), ("hroll:x", "2 <= N"), ("hroll:-3", "2 <= N"),
                                          ("hroll:8,z=1", "2 <= N"), ("hroll:100001", "2 <= N")])
def test_hroll_bad_specs(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec, "zaka_v0")


def test_hroll_bad_settings():
    game = envs.make_game("zaka_v0", num_players=2)
    for kw in ({"rollouts": 1}, {"rollouts": 2.0}, {"rollouts": True}, {"z": -1.0}, {"z": float("nan")}):
        with pytest.raises(ValueError):
            HeuristicRolloutAgent(game, **kw)


def test_hroll_on_zaka_four_players():
    """hroll:2 in one seat of four: legal moves only (``play`` checks each), the real state
    untouched, the same game from the same seed; built without torch (tests/test_agent_registry.py
    checks the import)."""
    game = envs.make_game("zaka_v0", num_players=4)

    def one(seed):
        agent = make_agent("hroll:2", game, seed=seed)
        others = [make_agent("heuristic", game, seed=seed + i) for i in range(1, 4)]
        return agent, play(game, [agent, *others], seed=seed, max_steps=40)

    _plays_the_same_and_leaves_the_state(game, one)


def test_hroll_budget_in_arena_serve():
    """``arena serve`` charges hroll N rollouts x 16 legal moves x 3 (a heuristic rollout in MCTS
    simulations); a bare ``hroll`` is charged its default N, 8."""
    offer = pytest.importorskip("tabletop_arena.app.offer")
    allowed = offer.AgentAllowList(max_budget=400)
    assert allowed.check("hroll", "zaka_v0") == "hroll" and allowed.check("hroll:8", "zaka_v0") == "hroll:8"
    with pytest.raises(offer.RequestError, match="asks for 432 MCTS simulations"):
        allowed.check("hroll:9", "zaka_v0")


@pytest.mark.parametrize("name", [n for n in envs.names() if has_heuristic(n)])
def test_a_rollout_game_does_not_depend_on_what_is_played_beside_it(name):
    """``play_out`` with the game's heuristic (hroll's and vroll's rollouts): several rollout games
    advanced in one call end exactly as each played alone. The Gorgasali heuristic keeps its planned
    walk between moves (the Zaberias one its attack): when the games advanced one move each a round,
    a plan made in one game was followed in another (hroll's rollouts at Gorgasali changed with the
    candidates beside them)."""
    from tabletop_arena.agents.rollout import paired_starts, play_out
    game = envs.make_game(name, num_players=4) if name in ("gorgasali_v0", "zaberias_v0") else envs.make_game(name)
    bot = make_agent("heuristic", game, seed=0)
    state = game.new_initial_state(3)
    rng = np.random.default_rng(3)
    checked = 0
    while not state.is_terminal() and checked < 3:
        legal = state.legal_actions()
        if len(legal) > 1 and len(state.history) > 6:
            cands = [int(a) for a in legal[:3]]
            pairs = [(11, 12), (13, 14)]
            together, seeds = paired_starts(state, state.current_player, cands, pairs)
            play_out(together, seeds, bot, 120)
            for k, seed in enumerate(seeds):
                alone, _ = paired_starts(state, state.current_player, cands, pairs)
                play_out([alone[k]], [seed], make_agent("heuristic", game, seed=0), 120)
                assert alone[k].history == together[k].history, (name, len(state.history), k)
            checked += 1
        state.apply(int(rng.choice(legal)))
    assert checked == 3
