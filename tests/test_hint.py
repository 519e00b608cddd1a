"""The heuristic's choice as a policy input (agents/hint.py, config ``heuristic_hint``)."""
from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
os.environ.setdefault("MPLBACKEND", "Agg")

from tabletop_arena import envs  # noqa: E402
from tabletop_arena.agents.hint import HINT_PIECE, HeuristicHint, supports_hint  # noqa: E402
from tabletop_arena.agents.ppo import ArenaPolicy, PPOAgent, actor_latent, load_policy, read_metadata  # noqa: E402
from tabletop_arena.agents.registry import make_agent  # noqa: E402
from tabletop_arena.train.config import ConfigError, load_config  # noqa: E402


def _tiny(**kw):
    base = dict(n_envs=2, n_steps=32, batch_size=32, n_epochs=1, progress=False, eval_interval=0,
                eval_games=2, eval_opponents=["random"], net_arch=[16], features_dim=16, slot_dim=8,
                pair_dim=8, snapshot_interval=64, checkpoint_interval=64, network="slots")
    base.update(kw)
    return base


def _midgame(game, seed: int, moves: int):
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(seed)
    for _ in range(moves):
        if st.is_terminal():
            break
        st.apply(int(rng.choice(np.flatnonzero(st.legal_actions_mask()))))
    return st


def _hinted_positions(game, seeds: int, moves):
    """(state, seat, mask, determinized state, hint) at mid-game positions of seeded random games."""
    hint = HeuristicHint(game)
    for seed in range(seeds):
        st = _midgame(game, seed, moves(seed))
        if st.is_terminal():
            continue
        seat, mask = st.current_player, st.legal_actions_mask()
        det = st.determinize(seat, np.random.default_rng(seed))
        yield st, seat, mask, det, hint.vector(det, np.random.default_rng(0), determinized=True)


def _policy(game, cfg):
    from tabletop_arena.train.ppo import policy_kwargs
    size = game.observation_size + (game.num_actions if cfg.heuristic_hint else 0)
    return ArenaPolicy(gymnasium.spaces.Box(-1.0, 1.0, (size,), np.float32),
                       gymnasium.spaces.Discrete(game.num_actions), lambda _: 1e-3, **policy_kwargs(game, cfg))


def test_only_games_whose_heuristic_rates_actions_give_a_hint():
    rated = ("zaka_v0", "gorgasali_v0")
    for name in rated:
        assert supports_hint(envs.make_game(name))
    for name in envs.names():
        if name not in rated:
            game = envs.make_game(name)
            assert not supports_hint(game)
            with pytest.raises(ValueError, match="best_actions"):
                HeuristicHint(game)


def test_hint_marks_the_heuristics_best_moves_and_its_pick_is_one_of_them():
    game = envs.make_game("zaka_v0", num_players=2)
    heuristic = make_agent("heuristic", game, seed=3)
    for st, seat, mask, det, v in _hinted_positions(game, 12, lambda seed: 3 + 4 * seed):
        assert v.shape == (game.num_actions,) and v.dtype == np.float32
        assert set(np.unique(v)) <= {0.0, 1.0} and v.sum() >= 1
        assert not v[~mask].any()                  # legal moves only
        picks = {heuristic.act({"observation": st.observation(seat), "action_mask": mask}, state=det)
                 for _ in range(6)}
        assert all(v[a] == 1.0 for a in picks)
    over = _midgame(game, 0, 10_000)
    assert over.is_terminal() and not HeuristicHint(game).vector(over, np.random.default_rng(0)).any()


def test_hint_reads_only_what_the_player_may_see():
    """Two worlds the player to move cannot tell apart (the other players' hidden cards re-dealt)
    give the same hint for the same generator: it is computed on a determinized copy."""
    game = envs.make_game("zaka_v0", num_players=2)
    hint = HeuristicHint(game)
    differ = 0
    for seed in range(8):
        st = _midgame(game, seed, 6 + 3 * seed)
        if st.is_terminal():
            continue
        seat = st.current_player
        other = st.determinize(seat, np.random.default_rng(100 + seed))   # another consistent world
        differ += int(any(list(a) != list(b) for a, b in zip(st.hands, other.hands)))
        np.testing.assert_array_equal(hint.vector(st, np.random.default_rng(seed)),
                                      hint.vector(other, np.random.default_rng(seed)))
    assert differ > 0   # the check compared worlds whose hidden hands differ


def test_gate_starts_where_the_hintless_policy_stopped_and_numpy_matches_torch():
    from tabletop_arena.agents.ppo import numpy_forward
    from tabletop_arena.train.ppo import load_init_policy
    game = envs.make_game("zaka_v0", num_players=2)
    plain_cfg = load_config(None, _tiny(), game="zaka_v0")
    cfg = load_config(None, _tiny(heuristic_hint=True), game="zaka_v0")
    plain, hinted = _policy(game, plain_cfg), _policy(game, cfg)
    assert HINT_PIECE == "heuristic_hint"
    load_init_policy(hinted, plain, cfg)
    hint = HeuristicHint(game)
    obs, ext = [], []
    for seed in range(5):
        st = _midgame(game, seed, 5 + 2 * seed)
        o = st.observation(st.current_player)
        obs.append(o)
        ext.append(hint.extend(o, st, np.random.default_rng(seed)))
    obs, ext = np.stack(obs).astype(np.float32), np.stack(ext)
    np.testing.assert_allclose(PPOAgent.logits_batch(hinted, ext), PPOAgent.logits_batch(plain, obs), atol=1e-6)
    with torch.no_grad():
        hinted.features_extractor.hint_gate.bias.fill_(2.0)
        hinted.features_extractor.hint_gate.weight.normal_(0.0, 0.3)
    fast = numpy_forward(hinted)
    assert fast is not None
    with torch.no_grad():
        t = torch.as_tensor(ext)
        slow = hinted.action_net(actor_latent(hinted, t)).numpy()
    np.testing.assert_allclose(fast(ext), slow, rtol=1e-4, atol=1e-4)
    moved = np.abs(slow - PPOAgent.logits_batch(plain, obs))
    assert (moved[ext[:, -game.num_actions:] == 1] > 0.5).all()      # hinted moves shifted
    assert (moved[ext[:, -game.num_actions:] == 0] < 1e-5).all()     # the others untouched
    # a start that is not the same network minus the gate is refused
    other = _policy(game, load_config(None, _tiny(slot_dim=12), game="zaka_v0"))
    with pytest.raises(RuntimeError):
        load_init_policy(_policy(game, cfg), other, cfg)


def test_gate_learning_rate_scale_survives_the_schedule():
    from tabletop_arena.train.algo import ArenaPPO
    game = envs.make_game("zaka_v0", num_players=2)
    pol = _policy(game, load_config(None, _tiny(heuristic_hint=True, hint_gate_lr_scale=30.0), game="zaka_v0"))
    groups = pol.optimizer.param_groups
    assert len(groups) == 2 and groups[1]["lr"] == pytest.approx(30 * groups[0]["lr"])
    gate = {id(p) for p in pol.features_extractor.hint_gate.parameters()}
    assert {id(p) for p in groups[1]["params"]} == gate
    fake = ArenaPPO.__new__(ArenaPPO)
    fake.current_learning_rate = lambda: 2e-4   # type: ignore[method-assign]

    class _Log:
        def record(self, *a, **k):
            pass
    fake._logger = _Log()
    ArenaPPO._update_learning_rate(fake, pol.optimizer)
    assert [g["lr"] for g in groups] == pytest.approx([2e-4, 6e-3])


def test_config_refuses_a_hint_it_cannot_feed():
    with pytest.raises(ConfigError, match="slots or board"):
        load_config(None, {"heuristic_hint": True, "network": "mlp"}, game="zaka_v0")
    with pytest.raises(ConfigError, match="hint_gate_lr_scale"):
        load_config(None, {"hint_gate_lr_scale": 0.0}, game="zaka_v0")
    from tabletop_arena.train.ppo import policy_kwargs
    cfg = load_config(None, _tiny(heuristic_hint=True), game="zaka_v0")
    cfg.network = "slots"
    with pytest.raises(ConfigError, match="best_actions|slots"):
        policy_kwargs(envs.make_game("peacekeepers_v0"), cfg)


def test_selfplay_env_and_a_hinted_run_end_to_end(tmp_path):
    """The learner's observation carries the hint; a run with it trains, snapshots (hinted
    opponents, which read the determinized state) and saves a checkpoint that ``arena eval``'s
    agent plays, asking for the state."""
    from tabletop_arena.train.evaluate import evaluate
    from tabletop_arena.train.ppo import train
    from tabletop_arena.train.selfplay import SelfPlayEnv
    game = envs.make_game("zaka_v0", num_players=2)
    env = SelfPlayEnv("zaka_v0", {"num_players": 2}, {"heuristic": 1.0}, seed=1, heuristic_hint=True)
    obs, _ = env.reset()
    n = game.num_actions
    assert obs.shape == (game.observation_size + n,) == env.observation_space.shape
    tail = obs[-n:]
    assert tail.sum() >= 1 and not tail[~env.action_masks()].any()
    out = tmp_path / "hinted"
    train("zaka", out=out, timesteps=128, **_tiny(heuristic_hint=True, hint_gate_init=1.0, bc_games=0,
                                                   opponent_mix={"heuristic": 0.5, "snapshot": 0.5}))
    assert read_metadata(out / "final.zip")["heuristic_hint"] is True
    pol = load_policy(out / "final.zip")
    assert pol.observation_space.shape == (game.observation_size + n,)
    agent = make_agent(f"ppo:{out / 'final.zip'}", game, seed=0)
    assert agent.needs_state and not agent.batchable
    st = game.new_initial_state(5)
    with pytest.raises(ValueError, match="state"):
        agent.act({"observation": st.observation(st.current_player), "action_mask": st.legal_actions_mask()})
    report = evaluate(game, [f"ppo:{out / 'final.zip'}", "heuristic"], names=["hinted", "heuristic"],
                      games=4, workers=1, seed=9, progress=False, bootstrap=0)
    assert report.agent("hinted")["games"] == 4
    # search over a hinted checkpoint feeds its leaves the hint too (it used to crash on the shape)
    searcher = make_agent(f"puct:4:{out / 'final.zip'}", game, seed=0)
    assert searcher.hint is not None
    st = next(s for s in (_midgame(game, k, 5 + k) for k in range(20))
              if not s.is_terminal() and len(s.legal_actions()) > 1)
    a = searcher.act({"observation": st.observation(st.current_player),
                      "action_mask": st.legal_actions_mask()}, st)
    assert a in st.legal_actions() and searcher.evaluations > 0
    report = evaluate(game, [f"puct:4:{out / 'final.zip'}", "random"], names=["search", "random"],
                      games=2, workers=1, seed=9, progress=False, bootstrap=0)
    assert report.agent("search")["games"] == 2


def test_init_policy_by_shipped_name_continues_with_the_hint(tmp_path):
    """``init_policy`` takes a shipped agent's name; ``ppo:zaka`` (trained without the hint) loads
    into the hinted network of the same size, its gate at 0, so the run starts from its policy."""
    from tabletop_arena.agents.shipped import resolve_checkpoint
    from tabletop_arena.train.ppo import train
    with pytest.raises(ConfigError, match="init_policy"):
        train("zaka", out=tmp_path / "bad", timesteps=64, **_tiny(init_policy="no_such_agent", bc_games=0))
    same_net = dict(net_arch=[128], features_dim=256, slot_dim=64, pair_dim=64)
    out = tmp_path / "cont"
    train("zaka", out=out, timesteps=64, **_tiny(init_policy="zaka", heuristic_hint=True, bc_games=0,
                                                  value_warmup_steps=1000, opponent_mix={"random": 1.0}, **same_net))
    # value warm-up: the policy is left as loaded; with the gate at 0 it plays as ppo:zaka
    game = envs.make_game("zaka_v0", num_players=2)
    cont, base = load_policy(out / "final.zip"), load_policy(resolve_checkpoint("zaka"))
    st = _midgame(game, 4, 9)
    o = st.observation(st.current_player)
    ext = HeuristicHint(game).extend(o, st, np.random.default_rng(0))
    np.testing.assert_allclose(PPOAgent.logits_batch(cont, ext[None]), PPOAgent.logits_batch(base, o[None]), atol=1e-6)


def test_gorgasali_hint_is_the_rules_pick_or_every_legal_move():
    """Gorgasali's heuristic picks one move by its rules (its walk plan's next square included) or,
    where no rule applies, a random legal one: the hint marks that one move, or all legal moves."""
    game = envs.make_game("gorgasali_v0", num_players=2)
    heuristic = make_agent("heuristic", game, seed=1)
    singles = 0
    for st, seat, mask, det, v in _hinted_positions(game, 10, lambda seed: 5 + 7 * seed):
        assert not v[~mask].any() and v.sum() >= 1
        if v.sum() == 1:
            singles += 1
            a = heuristic.act({"observation": st.observation(seat), "action_mask": mask}, state=det)
            assert v[a] == 1.0
        else:
            np.testing.assert_array_equal(v, mask.astype(np.float32))
    assert singles > 0


def test_board_net_gate_moves_only_the_hinted_logits():
    from tabletop_arena.train.ppo import load_init_policy
    game = envs.make_game("gorgasali_v0", num_players=2)
    kw = dict(network="board", board_channels=4, board_dilations=[1], vector_hidden=8, features_dim=16)
    plain_cfg = load_config(None, _tiny(**kw), game="gorgasali_v0")
    cfg = load_config(None, _tiny(heuristic_hint=True, **kw), game="gorgasali_v0")
    plain, hinted = _policy(game, plain_cfg), _policy(game, cfg)
    load_init_policy(hinted, plain, cfg)
    hint = HeuristicHint(game)
    st = _midgame(game, 3, 12)
    o = st.observation(st.current_player).astype(np.float32)
    ext = hint.extend(o, st, np.random.default_rng(0))[None]
    base = PPOAgent.logits_batch(plain, o[None])
    np.testing.assert_allclose(PPOAgent.logits_batch(hinted, ext), base, atol=1e-6)
    with torch.no_grad():
        hinted.features_extractor.hint_gate.bias.fill_(1.5)
    moved = np.abs(PPOAgent.logits_batch(hinted, ext) - base)[0]
    on = ext[0, -game.num_actions:] == 1
    assert np.allclose(moved[on], 1.5, atol=1e-5) and (moved[~on] < 1e-6).all()
