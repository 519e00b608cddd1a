"""The training pipeline's parts (issue 18): networks fitted to each game's decisions, imitation with
DAgger, the KL anchor, the opponent curriculum, vectorized self-play with batched snapshots, the
learning curve, disjoint training / evaluation seeds, the device choice. Tiny sizes: seconds."""
from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop_arena import envs  # noqa: E402
from tabletop_arena.agents.nets import BoardNet, SlotNet  # noqa: E402
from tabletop_arena.agents.ppo import ArenaPolicy, PPOAgent, game_metadata, save_checkpoint  # noqa: E402
from tabletop_arena.train.config import ConfigError, load_config  # noqa: E402
from tests.ppo_recipes import ppo_config  # noqa: E402


def _box(n):
    return gymnasium.spaces.Box(-1.0, 1.0, (n,), np.float32)


def test_board_net_pointer_reads_the_marked_cell():
    """A pointer action's logit is the score map at the cell its plane marks (+ a bias), so moving
    the piece moves the score it gets: what SELECT u in Zaberias needs."""
    layout = [["board", [3, 2, 3]], ["vector", [2]]]
    net = BoardNet(_box(20), layout, num_actions=4, channels=4, dilations=[1], vector_hidden=4,
                   features_dim=8, spatial_actions=[], pointer_actions=[[1, 2, 1]])
    with torch.no_grad():
        net.pt_bias.weight.zero_()
        net.pt_bias.bias.zero_()
        obs = torch.zeros(1, 20)
        board = obs[:, :18].view(1, 3, 2, 3)
        board[0, 0] = torch.arange(6, dtype=torch.float32).view(2, 3) / 6   # something to score
        board[0, 1, 0, 2] = 1.0       # piece 0 on cell (0, 2)
        board[0, 2, 1, 1] = 1.0       # piece 1 on cell (1, 1)
        latent = net(obs)
        logits = net.action_logits(latent)[0]
        scores = net.pt_conv(net._cache["map"])[0, 0].flatten()
    assert logits.shape == (4,)
    assert logits[1] == pytest.approx(float(scores[2]), abs=1e-6)
    assert logits[2] == pytest.approx(float(scores[4]), abs=1e-6)
    with pytest.raises(ValueError, match="overlap"):
        BoardNet(_box(20), layout, 8, spatial_actions=[[0, 1]], pointer_actions=[[1, 1, 0]])
    with pytest.raises(ValueError, match="does not fit"):
        BoardNet(_box(20), layout, 4, spatial_actions=[[0, 1]])


def test_board_net_focus_reads_the_marked_cells():
    """``focus_planes``: the features also hold the final map at the cells a plane marks (their
    weighted mean), so moving the marked piece changes the latent while the pooled means do not
    see where it stands; a plane that marks nothing reads zeros; a plane off the board is refused."""
    layout = [["board", [2, 3, 3]], ["vector", [2]]]
    net = BoardNet(_box(20), layout, num_actions=3, channels=4, dilations=[1], vector_hidden=4,
                   features_dim=8, focus_planes=[1])
    assert net.out[0].in_features == 3 * 4 + 4
    obs = torch.zeros(2, 20)
    boards = obs[:, :18].view(2, 2, 3, 3)
    boards[:, 0] = torch.arange(9, dtype=torch.float32).view(3, 3) / 9
    boards[0, 1, 0, 0] = 1.0          # the acting piece in a corner
    boards[1, 1, 1, 1] = 1.0          # in the middle
    with torch.no_grad():
        net(obs)
        fmap = net._cache["map"]
        seen = {}
        net.out.register_forward_hook(lambda m, inp, out: seen.setdefault("x", inp[0]))
        net(obs)
    x = seen["x"]
    torch.testing.assert_close(x[0, 8:12], fmap[0, :, 0, 0])
    torch.testing.assert_close(x[1, 8:12], fmap[1, :, 1, 1])
    none = torch.zeros(1, 20)
    with torch.no_grad():
        seen.clear()
        net(none)
    assert torch.count_nonzero(seen["x"][0, 8:12]) == 0
    with pytest.raises(ValueError, match="focus planes"):
        BoardNet(_box(20), layout, 3, channels=4, focus_planes=[2])


def test_a_focus_network_trains_saves_and_loads(tmp_path):
    """The key goes from the config to the saved policy: the loaded network has the same focus block."""
    from tabletop_arena.agents.ppo import load_policy
    from tabletop_arena.train.ppo import train
    path = train("warbah", out=tmp_path / "wf", timesteps=64,
                 **_tiny(network="board", focus_planes=[12], bc_games=0, dagger_rounds=0))
    ext = load_policy(path).features_extractor
    assert ext.focus == [12] and ext.out[0].in_features == 3 * 4 + 8


def test_slot_net_scores_user_target_pairs():
    """Zaka's network encodes every battlefield slot with one shared encoder and scores
    USE_ON_MONSTER(user, army, target) from the (user slot, target slot) pair: swapping two monsters
    of an enemy army swaps exactly the logits of the actions aimed at them, and swapping two own
    monsters swaps the users (the slot order carries no meaning of its own)."""
    game = envs.make_game("zaka_v0", num_players=2)
    layout = [[n, list(s)] for n, s in game.observation_layout]
    net = SlotNet(_box(game.observation_size), layout, game.num_actions, game.num_monster_designs,
                  game.num_weapon_designs, slot_dim=8, pair_dim=8, features_dim=16)
    S, F, X = layout[0][1]
    lay = game.layout
    rng = np.random.default_rng(0)
    obs = None
    for seed in range(50):  # a position with two monsters in army rel 1 and two own monsters
        st = game.new_initial_state(np.random.default_rng(seed))
        while not st.is_terminal():
            o = st.observation(st.current_player).reshape(-1)
            armies = o[:S * F * X].reshape(S, F, X)
            if armies[1, :2, 0].all() and armies[0, :2, 0].all():
                obs = o
                break
            st.apply(int(rng.choice(np.flatnonzero(st.legal_actions_mask()))))
        if obs is not None:
            break
    assert obs is not None

    def logits(o):
        with torch.no_grad():
            t = torch.as_tensor(o[None].astype(np.float32))
            return net.action_logits(net(t))[0].numpy()

    def swapped(o, army):
        o = o.copy()
        armies = o[:S * F * X].reshape(S, F, X)
        armies[army, [0, 1]] = armies[army, [1, 0]]
        return o

    base, enemy, own = logits(obs), logits(swapped(obs, 1)), logits(swapped(obs, 0))
    assert base.shape == (game.num_actions,)
    for u in range(2):
        assert enemy[lay.use_on_monster(u, 1, 0)] == pytest.approx(base[lay.use_on_monster(u, 1, 1)], abs=1e-5)
        assert enemy[lay.use_on_monster(u, 1, 1)] == pytest.approx(base[lay.use_on_monster(u, 1, 0)], abs=1e-5)
        assert enemy[lay.use_on_army(u, 1)] == pytest.approx(base[lay.use_on_army(u, 1)], abs=1e-5)
    assert own[lay.use_on_monster(0, 1, 0)] == pytest.approx(base[lay.use_on_monster(1, 1, 0)], abs=1e-5)
    assert own[lay.use_on_army(1, 3)] == pytest.approx(base[lay.use_on_army(0, 3)], abs=1e-5)
    assert base[lay.use_on_monster(0, 1, 0)] != pytest.approx(base[lay.use_on_monster(0, 1, 1)], abs=1e-6)
    with pytest.raises(ValueError, match="implies"):
        SlotNet(_box(game.observation_size), layout, game.num_actions + 1, game.num_monster_designs,
                game.num_weapon_designs)


@pytest.mark.parametrize("players", [2, 3])
def test_slot_net_numpy_twin_gives_the_torch_logits(players):
    """``SlotNet.numpy_logits`` (the inference path of snapshot opponents and evaluation,
    ``agents.ppo.numpy_forward``; with the critic, ``numpy_outputs``, the rollouts' forward pass)
    gives the torch pass's logits and values for batches of real positions, empty battlefields
    included, and follows the weights when an optimizer step changes them."""
    from tabletop_arena.agents.ppo import actor_latent, numpy_forward, numpy_outputs
    from tabletop_arena.train.arena_ppo import policy_outputs
    from tabletop_arena.train.ppo import policy_kwargs

    game = envs.make_game("zaka_v0", num_players=players)
    cfg = load_config(None, _tiny(network="slots", net_arch=[16]), game="zaka_v0")
    space = _box(game.observation_size)
    pol = ArenaPolicy(space, gymnasium.spaces.Discrete(game.num_actions), lambda _: 1e-3,
                      **policy_kwargs(game, cfg))
    fast = numpy_forward(pol)
    assert fast is not None
    rng = np.random.default_rng(players)
    obs = []
    for seed in range(6):
        st = game.new_initial_state(seed)
        for _ in range(int(rng.integers(0, 40))):
            if st.is_terminal():
                break
            st.apply(int(rng.choice(np.flatnonzero(st.legal_actions_mask()))))
        obs.append(st.observation(max(st.current_player, 0)))
    obs = np.stack(obs).astype(np.float32)
    assert (obs[0] != obs[-1]).any()

    def torch_logits(o):
        with torch.no_grad():
            t = torch.as_tensor(o)
            return pol.action_net(actor_latent(pol, t)).numpy()

    both = numpy_outputs(pol)
    assert both is not None
    for batch in (obs[:1], obs[:3], obs):
        np.testing.assert_allclose(fast(batch), torch_logits(batch), rtol=1e-4, atol=1e-4)
        with torch.no_grad():
            values = policy_outputs(pol, torch.as_tensor(batch))[1].numpy()
        np.testing.assert_allclose(both(batch)[1], values, rtol=1e-4, atol=1e-5)
    before = fast(obs)
    before_values = both(obs)[1]
    logits_t, values_t = policy_outputs(pol, torch.as_tensor(obs))
    loss = logits_t.sum() + values_t.sum()
    pol.optimizer.zero_grad()
    loss.backward()
    pol.optimizer.step()
    after = fast(obs)
    assert np.abs(after - before).max() > 1e-4
    np.testing.assert_allclose(after, torch_logits(obs), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(PPOAgent.logits_batch(pol, obs), after, rtol=1e-6)
    with torch.no_grad():
        values = policy_outputs(pol, torch.as_tensor(obs))[1].numpy()
    assert np.abs(both(obs)[1] - before_values).max() > 1e-4
    np.testing.assert_allclose(both(obs)[1], values, rtol=1e-4, atol=1e-5)


def _tiny(**kw):
    base = dict(n_envs=2, n_steps=32, batch_size=32, n_epochs=1, progress=False, eval_interval=0,
                eval_games=2, eval_opponents=["random"], net_arch=[16], features_dim=16, slot_dim=8,
                pair_dim=8, board_channels=4, board_dilations=[1], vector_hidden=8, snapshot_interval=64,
                checkpoint_interval=64)
    base.update(kw)
    return base


def test_imitation_dagger_and_kl_anchor(tmp_path):
    """bc_games + dagger_rounds clone the heuristic (imitation.csv: held-out agreement per pass, the
    student's own states after DAgger), the clone is saved as the KL anchor (reference.zip), the
    curve starts at the clone and every run writes curve.csv / curve.png."""
    from tabletop_arena.train.curves import read_curve
    from tabletop_arena.train.ppo import train
    out = tmp_path / "zk"
    train("zaka", out=out, timesteps=64, **_tiny(bc_games=6, bc_epochs=2, dagger_rounds=1, dagger_games=4,
                                                 kl_coef=0.5, eval_interval=64, eval_opponents=["heuristic"]))
    rows = (out / "imitation.csv").read_text().splitlines()
    assert rows[0].startswith("stage,epoch") and any(r.startswith("dagger1") for r in rows[1:])
    assert (out / "reference.zip").is_file()
    curve = read_curve(out / "curve.csv")
    assert curve[0]["timesteps"] == 0 and curve[-1]["timesteps"] >= 64
    assert 0.0 <= curve[0]["heuristic_win_rate"] <= 1.0
    assert (out / "curve.png").is_file()
    progress = (out / "progress.csv").read_text().splitlines()
    assert "kl_reference" in progress[0]


@pytest.mark.parametrize("name", envs.names())
def test_dagger_collection_keeps_a_share_of_decisions(name):
    """DAgger's collection with a student and bc_keep < 1 (the student's unstored decisions are not
    labelled) plays every game to the end: a student position with one legal move takes that move
    (it once applied the missing label, -1); stored labels are legal moves of their masks."""
    from tabletop_arena.train.imitation import collect
    from tabletop_arena.train.ppo import policy_kwargs
    game = envs.make_game(name)
    cfg = load_config(ppo_config(name), _tiny())
    student = ArenaPolicy(_box(game.observation_size), gymnasium.spaces.Discrete(game.num_actions),
                          lambda _: 1e-3, **policy_kwargs(game, cfg))
    data, info = collect(game, 2, np.random.default_rng(3), max_steps=400, student=student, keep=0.3,
                         parallel=2)
    assert info["games"] == 2 and 0 < len(data)
    assert all(m[a] for m, a in zip(data.masks, data.actions))


def test_time_limit_counts_the_cloning_too(tmp_path):
    """time_limit_minutes bounds the whole call: a limit the cloning alone exceeds stops PPO at its
    first check, and the run still saves its final checkpoint."""
    import time as _time

    from tabletop_arena.agents.ppo import read_metadata
    from tabletop_arena.train.ppo import train
    t = _time.time()
    path = train("zaka", out=tmp_path / "tl", timesteps=200_000,
                 **_tiny(bc_games=20, bc_epochs=1, dagger_rounds=0, time_limit_minutes=0.001))  # 60 ms
    assert _time.time() - t < 120
    assert read_metadata(path)["timesteps"] == 2   # stopped at the first check: one step of 2 envs


def test_kl_to_itself_is_zero():
    """KL(pi || reference) is exactly 0 when the reference is the policy itself, and positive once
    the policy moves away from it."""
    from tabletop_arena.train.arena_ppo import masked_log_softmax, policy_logits
    game = envs.make_game("zaka_v0")
    cfg = load_config(None, _tiny(), game="zaka_v0")
    from tabletop_arena.train.ppo import policy_kwargs
    pol = ArenaPolicy(_box(game.observation_size), gymnasium.spaces.Discrete(game.num_actions),
                      lambda _: 1e-3, **policy_kwargs(game, cfg))
    st = game.new_initial_state(np.random.default_rng(1))
    obs = torch.as_tensor(st.observation(st.current_player)[None])
    mask = torch.as_tensor(st.legal_actions_mask()[None].astype(bool))
    with torch.no_grad():
        lp = masked_log_softmax(policy_logits(pol, obs), mask)
        p = lp.exp()
        kl = (p * (lp - lp).masked_fill(~mask, 0)).sum()
        assert float(kl) == 0.0
        shifted = masked_log_softmax(policy_logits(pol, obs) + torch.randn(1, game.num_actions), mask)
        kl2 = (shifted.exp() * (shifted - lp).masked_fill(~mask, 0.0)).sum()
    assert float(kl2) > 0


def test_batched_vec_env_matches_one_env_at_a_time(tmp_path):
    """SelfPlayVecEnv answers snapshot moves in one batched forward pass; the games are the same
    as stepping each SelfPlayEnv on its own (same seeds, same actions)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tabletop_arena.train.arena_ppo import ArenaPPO
    from tabletop_arena.train.ppo import make_vec_env, policy_kwargs
    from tabletop_arena.train.vecenv import SelfPlayVecEnv

    game = envs.make_game("zaka_v0")
    cfg = load_config(None, _tiny(opponent_mix={"snapshot": 1.0}, n_envs=3), game="zaka_v0")
    venv = make_vec_env("zaka_v0", cfg, seed=5)
    model = ArenaPPO(ArenaPolicy, venv, n_steps=32, batch_size=32, policy_kwargs=policy_kwargs(game, cfg))
    snap = save_checkpoint(model, tmp_path / "s.zip", game_metadata(game, "zaka_v0"), policy_only=True)
    venv.close()
    runs = []
    for kind in ("dummy", "batched"):
        c = load_config(None, _tiny(opponent_mix={"snapshot": 1.0}, n_envs=3, vec_env=kind), game="zaka_v0")
        v = make_vec_env("zaka_v0", c, seed=5, snapshots=[str(snap)])
        if kind == "batched":
            assert isinstance(v.venv, SelfPlayVecEnv)
        else:
            assert isinstance(v.venv, DummyVecEnv)
        rng = np.random.default_rng(0)
        obs = v.reset()
        trace = [obs.copy()]
        for _ in range(60):
            masks = np.stack(v.env_method("action_masks"))
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rew, done, _ = v.step(acts)
            trace += [obs.copy(), rew.copy(), done.copy()]
        v.close()
        runs.append(trace)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def _one_rollout(game_id: str, vec_env: str, n_envs: int = 4, n_steps: int = 24):
    """One rollout of a fresh ArenaPPO (seeded) on ``vec_env``: the buffer's arrays and the
    episode statistics VecMonitor recorded."""
    from tabletop_arena.train.arena_ppo import ArenaPPO
    from tabletop_arena.train.ppo import make_vec_env, policy_kwargs

    game = envs.make_game(game_id)
    cfg = load_config(None, _tiny(opponent_mix={"heuristic": 0.5, "random": 0.5}, n_envs=n_envs,
                                  vec_env=vec_env, max_steps=40), game=game_id)
    venv = make_vec_env(game_id, cfg, seed=11)
    try:
        torch.manual_seed(3)
        model = ArenaPPO(ArenaPolicy, venv, n_steps=n_steps, batch_size=32, n_epochs=1,
                         policy_kwargs=policy_kwargs(game, cfg))
        model.learn(total_timesteps=n_steps * n_envs)
        buf = model.rollout_buffer
        out = {k: getattr(buf, k).copy() for k in ("observations", "actions", "rewards", "episode_starts",
                                                     "action_masks", "values", "log_probs")}
        out["episodes"] = [(round(e["r"], 6), e["l"]) for e in model.ep_info_buffer]
        out["timesteps"] = model.num_timesteps
        return out
    finally:
        venv.close()


def test_batched_rollouts_match_dummy_ones():
    """ArenaPPO's rollout on the batched env collects exactly the rollout on SB3's DummyVecEnv:
    the same observations, actions, rewards, masks and finished episodes (values and
    log-probabilities to float precision)."""
    runs = [_one_rollout("zaka_v0", vec) for vec in ("dummy", "batched")]
    ref = runs[0]
    assert ref["timesteps"] == 4 * 24 and ref["episodes"], "the rollout should finish some games"
    for other in runs[1:]:
        for k in ("observations", "actions", "rewards", "episode_starts", "action_masks"):
            np.testing.assert_array_equal(ref[k], other[k], err_msg=k)
        for k in ("values", "log_probs"):
            np.testing.assert_allclose(ref[k], other[k], rtol=1e-5, atol=1e-6, err_msg=k)
        assert ref["episodes"] == other["episodes"]


def test_update_threads_apply_to_the_update_only(monkeypatch):
    """``update_threads``: 0 means the cores the process may use (at most 4); the update runs on
    that many torch threads and the rollouts go back to ``torch_threads`` afterwards."""
    from tabletop_arena.train import arena_ppo as algo
    from tabletop_arena.train.ppo import update_threads

    cfg = load_config(None, {}, game="zaka_v0")
    assert update_threads(cfg) == max(1, min(4, len(os.sched_getaffinity(0))))
    assert update_threads(load_config(None, {"update_threads": 3}, game="zaka_v0")) == 3
    seen = []
    monkeypatch.setattr(algo.ArenaPPO, "_train", lambda self: seen.append(torch.get_num_threads()))
    model = algo.ArenaPPO.__new__(algo.ArenaPPO)
    model.update_threads = 3
    before = torch.get_num_threads()
    model.train()
    assert seen == [3] and torch.get_num_threads() == before


def test_sample_masked_draws_from_the_masked_distribution():
    """The Gumbel-max sampler never picks an illegal action and matches the softmax frequencies."""
    from tabletop_arena.train.arena_ppo import masked_log_softmax, sample_masked

    logits = torch.tensor([[0.0, 1.0, 2.0, 5.0]]).repeat(20000, 1)
    mask = torch.tensor([[True, True, True, False]]).repeat(20000, 1)
    lp = masked_log_softmax(logits, mask)
    g = torch.Generator().manual_seed(0)
    a = sample_masked(lp, torch.rand(lp.shape, generator=g))
    freq = torch.bincount(a, minlength=4).double() / len(a)
    assert freq[3] == 0
    np.testing.assert_allclose(freq[:3].numpy(), lp[0, :3].exp().double().numpy(), atol=0.01)


def test_seed_domains():
    """Training engine seeds are even, the evaluator's odd."""
    from tabletop_arena.train.eval_schedule import evaluation_engine_seed
    from tabletop_arena.train.imitation import train_seed

    rng = np.random.default_rng(0)
    assert all(train_seed(rng) % 2 == 0 for _ in range(100))
    assert all(evaluation_engine_seed(x) % 2 == 1 for x in rng.integers(2**63, size=100, dtype=np.uint64))


def test_device_choice():
    from tabletop_arena.train.ppo import resolve_device
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="no CUDA"):
            resolve_device("cuda")
    with pytest.raises(ConfigError):
        load_config(None, {"device": "tpu"}, game="zaka_v0")


def test_snapshots_sample_like_the_learner(tmp_path):
    """With snapshot_sampling the pool's frozen copies sample from their policy (as the learner
    does while it collects rollouts), without it they play the argmax."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tabletop_arena.train.arena_ppo import ArenaPPO
    from tabletop_arena.train.ppo import policy_kwargs
    from tabletop_arena.train.selfplay import OpponentPool, SelfPlayEnv

    game = envs.make_game("zaka_v0")
    cfg = load_config(None, _tiny(), game="zaka_v0")
    venv = DummyVecEnv([lambda: SelfPlayEnv("zaka_v0", {}, {"random": 1.0}, seed=0)])
    model = ArenaPPO(ArenaPolicy, venv, n_steps=32, batch_size=32, policy_kwargs=policy_kwargs(game, cfg))
    path = str(save_checkpoint(model, tmp_path / "s.zip", game_metadata(game, "zaka_v0"), policy_only=True))
    for sampling in (True, False):
        pool = OpponentPool(game, {"snapshot": 1.0}, seed=0, snapshot_sampling=sampling)
        pool.add_snapshot(path)
        _, agents = pool.draw([1])
        assert isinstance(agents[1], PPOAgent) and agents[1].deterministic is (not sampling)


def test_learning_rate_falls_linearly_over_the_run_and_its_resume(tmp_path):
    """learning_rate_end: the Adam step size goes from learning_rate to learning_rate_end in a
    straight line over total_timesteps; a resumed run continues the same line (steps count from
    the run's start), and with -1 (the default; Zaka's config sets an end) it stays constant.
    No cloning (bc_games 0): the test is about the PPO phase and must stay seconds long."""
    from tabletop_arena.train.arena_ppo import ArenaPPO
    from tabletop_arena.train.ppo import train
    from tabletop_arena.train.rllib import learning_rate_schedule

    def saved_lr(path):
        from tabletop_arena.agents.ppo import read_training_state
        return read_training_state(path)[1]["param_groups"][0]["lr"]

    out = tmp_path / "lr"
    kw = _tiny(learning_rate=1e-3, learning_rate_end=1e-4, opponent_mix={"random": 1.0}, bc_games=0)
    train("zaka", out=out, timesteps=64, **kw)
    # one rollout of 2 envs x 32 steps, then its update at 64 of 64 steps: the end of the line
    assert saved_lr(out / "final.zip") == pytest.approx(1e-4)
    # resumed to 256 steps: the line is redrawn over the new total from the run's start, so the
    # update at 128 of 256 steps ran halfway and the last one (256) at the end
    lrs = []
    orig = ArenaPPO._update_learning_rate

    def spy(self, optimizers):
        orig(self, optimizers)
        lrs.append((self.num_timesteps, self.policy.optimizer.param_groups[0]["lr"]))
    ArenaPPO._update_learning_rate = spy
    try:
        train("zaka", out=out, timesteps=256, resume=True)
    finally:
        ArenaPPO._update_learning_rate = orig
    assert [t for t, _ in lrs] == [128, 192, 256]
    assert [lr for _, lr in lrs] == pytest.approx([1e-3 + f * (1e-4 - 1e-3) for f in (0.5, 0.75, 1.0)])
    out2 = tmp_path / "const"
    train("zaka", out=out2, timesteps=64, **_tiny(learning_rate=1e-3, learning_rate_end=-1.0,
                                                  opponent_mix={"random": 1.0}, bc_games=0))
    assert saved_lr(out2 / "final.zip") == pytest.approx(1e-3)
    cfg = load_config(None, _tiny(learning_rate=1e-3, learning_rate_end=1e-4), game="zaka_v0")
    assert learning_rate_schedule(cfg) == [[0, 1e-3], [cfg.total_timesteps, 1e-4]]
    with pytest.raises(ConfigError, match="learning_rate_end"):
        load_config(None, {"learning_rate_end": 0.0}, game="zaka_v0")


@pytest.mark.parametrize("name", envs.names())
def test_every_action_has_a_kind_for_the_imitation_diagnostics(name):
    """Cloning reports its agreement by the kind of the heuristic's move (which decisions the clone
    copies worst); a game without kinds falls back to one bucket, "all" (Warbah did)."""
    from tabletop_arena.train.imitation import action_kind
    game = envs.make_game(name)
    kind = action_kind(game)
    kinds = {kind(a) for a in range(game.num_actions)}
    assert "all" not in kinds and len(kinds) > 1, kinds


@pytest.mark.parametrize("name,network", [("peacekeepers", "mlp"), ("peacekeepers", "cnn"),
                                          ("zaberias", "board"), ("zaka", "slots")])
def test_unshared_value_extractor_trains_and_plays(tmp_path, name, network):
    """``share_features: false`` gives the value branch its own features extractor with every
    network: cloning (with the value loss), DAgger, the value warm-up, PPO with the KL anchor and
    play from the saved checkpoint all run, and the value comes from the value branch's extractor.
    SB3's ``extract_features(obs, extractor)`` ignores the extractor it is handed when the two are
    not shared, so the callers that passed one crashed (slots) or, for mlp and cnn, the key was
    never passed to the policy at all; they all go through ``agents.ppo.actor_latent`` /
    ``critic_latent`` / ``latents`` now."""
    from tabletop_arena.agents.ppo import actor_latent, critic_latent, latents, load_policy
    from tabletop_arena.agents.registry import make_agent
    from tabletop_arena.train.arena_ppo import policy_outputs
    from tabletop_arena.train.play import play
    from tabletop_arena.train.ppo import train
    extra = {"spatial_actions": []} if network == "cnn" else {}
    path = train(name, out=tmp_path / name, timesteps=64,
                 **_tiny(network=network, share_features=False, bc_games=2, bc_epochs=1, dagger_rounds=1,
                         dagger_games=1, kl_coef=0.1, value_warmup_steps=32, **extra))
    pol = load_policy(path)
    assert not pol.share_features_extractor
    assert pol.vf_features_extractor is not pol.pi_features_extractor
    game = envs.make_game(envs.resolve(name))
    st = game.new_initial_state(5)
    obs = torch.as_tensor(np.asarray(st.observation(st.current_player), np.float32)[None])
    with torch.no_grad():
        logits, value = policy_outputs(pol, obs)
        pi, vf = latents(pol, obs)
        np.testing.assert_allclose(logits.numpy(), pol.action_net(actor_latent(pol, obs)).numpy(), rtol=1e-5)
        np.testing.assert_allclose(value.numpy(), pol.value_net(critic_latent(pol, obs)).flatten().numpy(),
                                   rtol=1e-5)
        np.testing.assert_allclose(vf.numpy(), critic_latent(pol, obs).numpy(), rtol=1e-5)
        if network != "mlp":   # (mlp's extractor is a parameter-free flatten)
            # a value read through the policy branch's extractor differs (its own weights)
            wrong = pol.value_net(pol.mlp_extractor.forward_critic(pol.pi_features_extractor(obs)))
            assert not np.allclose(wrong.flatten().numpy(), value.numpy())
    agent = make_agent(f"ppo:{path}", game, seed=0)
    result = play(game, [agent] + [make_agent("random", game, seed=i) for i in range(1, game.num_agents)],
                  seed=3, max_steps=3000)
    assert result.steps > 0


def test_spatial_head_needs_shared_features():
    """The cnn network's spatial head reads the shared extractor: share_features false with
    spatial actions is a config error naming the way out, not a failure inside SB3."""
    from tabletop_arena.train.ppo import policy_kwargs
    game = envs.make_game("peacekeepers_v0")
    cfg = load_config(None, _tiny(network="cnn", share_features=False), game="peacekeepers_v0")
    with pytest.raises(ConfigError, match="share_features"):
        policy_kwargs(game, cfg)


@pytest.mark.parametrize("bad", [{"focus_planes": [40]}, {"pointer_actions": [[0, 1, 40]]},
                                 {"network": "cnn", "focus_planes": [], "spatial_actions": [[10_000, 1]]}])
def test_a_network_that_does_not_fit_the_game_changes_nothing(tmp_path, bad):
    """A network key that the game's observation or actions cannot take is a config error before
    the run folder is made (it was raised after config.yaml had been written)."""
    from tabletop_arena.train.ppo import train
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match="focus planes|does not fit|spatial"):
        train("warbah", out=out, timesteps=64, **_tiny(**{"network": "board", **bad}))
    assert not out.exists()


def test_the_early_network_check_draws_no_weights():
    """The trainers check the network before making the run folder (``check_network``, PPO and
    search distillation); the check builds the network once and must leave torch's generator
    where it was, or a run's first weights would depend on whether it was checked."""
    import torch

    from tabletop_arena.train.ppo import check_network
    game = envs.make_game("warbah_v0")
    cfg = load_config(None, _tiny(network="board", focus_planes=[12]), game="warbah_v0")
    torch.manual_seed(5)
    before = torch.random.get_rng_state()
    check_network(game, cfg)
    assert torch.equal(torch.random.get_rng_state(), before)


def test_a_distillation_network_that_does_not_fit_changes_nothing(tmp_path):
    """The same for search distillation's fresh network section."""
    from tabletop_arena.train.search_distill import train_search_distill
    out = tmp_path / "run"
    data = {"algorithm": "search_distill", "env_options": {"num_players": 2}, "iterations": 1,
            "network": {"network": "board", "focus_planes": [40]}, "clone": {"bc_games": 2, "dagger_rounds": 0}}
    with pytest.raises(ConfigError, match="focus planes"):
        train_search_distill("warbah", data, "test", out, {})
    assert not out.exists()
