"""Search distillation (train/search_distill.py, ``algorithm: search_distill``).

- a tiny run on every game (the committed ``<game>_distill.yaml`` cut to 2 iterations of a few
  games with a tiny search) writes its files, and its network plays as ``ppo:PATH`` and
  ``puct:4:PATH``;
- the search's targets: every position's legal moves are the real position's, the visit shares
  sum to one over them (nothing elsewhere), the value is the game's result for the mover's player;
- nothing leaks from search into the real game, on every registered variant: after each real move
  the game equals a fresh replay of its seed and history (with leaf playouts too, which play the
  determinized samples on);
- resume gives the same next iteration (2 iterations = 1 + resume + 1: the same weights, Adam
  state, generator and best network), also after a stop in the middle of an iteration;
- the gate keeps the best network when it rejects; config and command-line mistakes are one-line
  errors naming the key.
"""
from __future__ import annotations

import signal
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from tabletop_arena import envs
from tabletop_arena.agents.ppo import read_metadata, read_training_state
from tabletop_arena.agents.registry import make_agent
from tabletop_arena.train import distill_selfplay as dsp
from tabletop_arena.train import search_distill as sd
from tabletop_arena.train.config import CONFIG_DIR, ConfigError, read_config_file
from tabletop_arena.train.play import play
from tabletop_arena.train.stops import Stopped

#: the tiny runs cap their games at 40 moves, so their evaluations truncate some (and say so)
pytestmark = pytest.mark.filterwarnings("ignore:.*games hit the move cap:UserWarning")

GAMES = ("zaka", "peacekeepers", "zaberias", "warbah", "gorgasali")
#: what cuts a committed config to a run of seconds
TINY = {"iterations": 2, "games_per_iteration": 2, "parallel_games": 2, "simulations": 2, "max_steps": 40,
        "gate_games": 2, "eval_opponents": {"random": 2}, "eval_every": 1, "workers": 1, "progress": False,
        "replay_positions": 1000, "batch_size": 16}


def committed(game: str) -> dict:
    return read_config_file(CONFIG_DIR / f"{game}_distill.yaml")


def tiny(game: str, **extra) -> dict:
    data = {**committed(game), **TINY, **extra}
    if data.get("clone"):
        data["clone"] = {**data["clone"], "bc_games": 2, "bc_epochs": 1, "dagger_rounds": 0}
    return data


def run(game: str, out: Path, data: dict | None = None, resume: bool = False, **overrides) -> Path:
    return sd.train_search_distill(game, None if resume else (data or tiny(game)), "test", out, overrides,
                                   resume=resume)


def views(st) -> list:
    """Everything a player or an agent reads from a position (tests/test_contract.py's)."""
    out = [st.current_player, st.is_terminal(), list(st.history), st.returns().tolist()]
    if not st.is_terminal():
        out.append(st.legal_actions_mask().tobytes())
    return out + [st.observation(seat).tobytes() for seat in range(st.game.num_seats)]


def flat_forward(game):
    """A stand-in network: uniform priors, value 0 (any variant, no checkpoint needed)."""
    return lambda obs: (np.zeros((len(obs), game.num_actions)), np.zeros(len(obs)))


def test_committed_configs_are_valid_and_one_per_game():
    for game in GAMES:
        cfg = sd.from_dict(committed(game), game)
        assert cfg.algorithm == sd.ALGORITHM and cfg.env_options.get("num_players") == 2
        assert bool(cfg.init_policy) != bool(cfg.network), game   # one way to the first network


@pytest.mark.parametrize("game", GAMES)
def test_a_tiny_run_writes_its_files_and_its_network_plays(game, tmp_path):
    best = run(game, tmp_path / "r")
    out = best.parent
    for name in ("best.zip", "checkpoint.zip", "config.yaml", "curve.csv", "curve.png", "iterations.csv",
                 "snapshots/iter_00000.zip", "replay/iter_00002.npz", "eval/iter_00002/random/report.json"):
        assert (out / name).is_file(), name
    meta = read_metadata(out / "checkpoint.zip")
    assert meta["algorithm"] == sd.ALGORITHM and meta["search_distill"]["iteration"] == 2
    assert yaml.safe_load((out / "config.yaml").read_text())["iterations"] == 2
    rows = (out / "curve.csv").read_text().splitlines()
    assert len(rows) == 4 and "random_win_rate" in rows[0]   # iterations 0, 1, 2
    g = envs.make_game(f"{game}_v0", num_players=2)
    for spec in (f"ppo:{best}", f"puct:4:{best}"):
        agent = make_agent(spec, g, seed=0)
        res = play(g, [agent, make_agent("random", g, seed=1)], seed=5, max_steps=30)
        assert len(res.history) > 0


@pytest.mark.parametrize("game", GAMES)
def test_a_tiny_rollout_search_run_writes_its_files_and_its_network_plays(game, tmp_path):
    """``search: rollout``: self-play by the policy-rollout search (here in-process, workers 1)."""
    best = run(game, tmp_path / "r", tiny(game, search="rollout", rollout_top_k=2, policy_target="completed_q"))
    out = best.parent
    for name in ("best.zip", "checkpoint.zip", "iterations.csv", "replay/iter_00002.npz"):
        assert (out / name).is_file(), name
    rows = _untimed(out / "iterations.csv")
    assert len(rows) == 2 and int(rows[0]["leaves"]) > 0 and int(rows[0]["searches"]) > 0   # rollouts, searches
    g = envs.make_game(f"{game}_v0", num_players=2)
    res = play(g, [make_agent(f"ppo:{best}", g, seed=0), make_agent("random", g, seed=1)], seed=5, max_steps=30)
    assert len(res.history) > 0


def _rollout_selfplay(policy_target: str, workers: int, games: int = 2):
    g = envs.make_game("zaka_v0", num_players=2)
    cfg = sd.from_dict({"algorithm": sd.ALGORITHM, "env_options": {"num_players": 2}, "init_policy": "x",
                        "search": "rollout", "simulations": 3, "rollout_top_k": 3, "max_steps": 300,
                        "temperature_moves": 3, "workers": workers, "policy_target": policy_target,
                        "rollout_policy": "network"}, "test")
    path = make_agent("ppo:zaka", g).path
    return g, dsp.RolloutSelfPlay("zaka_v0", g, cfg, path, False).play(games, np.random.default_rng(1))


@pytest.mark.parametrize("policy_target", sd.POLICY_TARGETS)
def test_rollout_search_targets_are_distributions_over_the_legal_moves_and_values_are_results(policy_target):
    """Zaka (hidden hands): every position is the real one, its target sums to one over its legal
    moves; the rollout shares and the chosen move put nothing outside the searched candidates
    (at most rollout_top_k), the completed-Q policy keeps every legal move; the value is the result."""
    g, (chunk, info) = _rollout_selfplay(policy_target, workers=1)
    searched = 0
    for number, seed, history in info["records"]:
        rows = np.flatnonzero(chunk.game == number)
        assert len(rows) == len(history)
        st = g.new_initial_state(seed)
        result = g.agent_returns(g.replay(seed, history).returns())
        for j, row in enumerate(rows):
            legal = chunk.legal[chunk.ptr[row]:chunk.ptr[row + 1]]
            target = chunk.target[chunk.ptr[row]:chunk.ptr[row + 1]]
            assert legal.tolist() == st.legal_actions()
            assert (target >= 0).all() and abs(float(target.sum()) - 1.0) < 1e-5
            assert np.array_equal(chunk.obs[row], st.observation(st.current_player).astype(np.float16))
            assert chunk.value[row] == np.float32(result[g.seat_owner(st.current_player)])
            spread = np.count_nonzero(target) > 1   # a searched decision (else the move played, one-hot)
            searched += spread
            if policy_target == "move":
                assert not spread
            elif policy_target == "visits":
                assert np.count_nonzero(target) <= 3   # the candidates only
            elif spread:
                assert (target > 0).all()   # completed-Q: every legal move keeps some of the prior
            st.apply(history[j])
    assert searched > 10 if policy_target != "move" else searched == 0


def test_rollout_search_self_play_does_not_depend_on_the_number_of_workers():
    _, (one, info_one) = _rollout_selfplay("visits", workers=1, games=3)
    _, (two, info_two) = _rollout_selfplay("visits", workers=2, games=3)
    assert info_one["records"] == info_two["records"]
    for f in dsp.Chunk.FIELDS:
        assert np.array_equal(getattr(one, f), getattr(two, f)), f


@pytest.mark.parametrize("game,opts", [("zaka_v0", {"num_players": 2}), ("peacekeepers_v0", {"num_players": 2}),
                                       ("zaka_v0", {"num_players": 4})])
def test_targets_are_visit_shares_over_the_legal_moves_and_the_result(game, opts):
    g = envs.make_game(game, **opts)
    cfg = sd.from_dict({"algorithm": sd.ALGORITHM, "env_options": opts, "init_policy": "x", "simulations": 6,
                        "max_steps": 300, "temperature_moves": 3}, "test")
    net = flat_forward(g) if opts["num_players"] == 4 else dsp.Forward(
        sd.policy_from_checkpoint(make_agent(f"ppo:{game.split('_v')[0]}", g).path, "cpu"))
    chunk, info = dsp.SelfPlay(g, cfg, net).play(3, np.random.default_rng(1))
    searched = 0
    for number, seed, history in info["records"]:
        rows = np.flatnonzero(chunk.game == number)
        assert len(rows) == len(history)   # one position a real move, in order
        st = g.new_initial_state(seed)
        end = g.replay(seed, history)
        result = g.agent_returns(end.returns()) if end.is_terminal() else np.zeros(g.num_agents)
        for j, row in enumerate(rows):
            legal = chunk.legal[chunk.ptr[row]:chunk.ptr[row + 1]]
            target = chunk.target[chunk.ptr[row]:chunk.ptr[row + 1]]
            assert legal.tolist() == st.legal_actions()
            assert (target >= 0).all() and abs(float(target.sum()) - 1.0) < 1e-5
            if len(legal) > 1:
                searched += 1
                assert np.isclose(target * (cfg.simulations - 1), np.round(target * (cfg.simulations - 1))).all()
            assert np.array_equal(chunk.obs[row], st.observation(st.current_player).astype(np.float16))
            assert chunk.value[row] == np.float32(result[g.seat_owner(st.current_player)])
            st.apply(history[j])
    assert searched > 10


def test_completed_q_target_moves_the_prior_towards_the_searched_values():
    logits = np.log(np.asarray([0.4, 0.3, 0.2, 0.1]))
    none = dsp.completed_q_target(logits, np.zeros(4), np.zeros(4), 0.3, 50.0, 0.1)
    assert np.allclose(none, [0.4, 0.3, 0.2, 0.1])   # nothing searched: every move completed alike
    visits = np.asarray([5.0, 3.0, 0.0, 0.0])
    q = np.asarray([-0.8, 0.9, 0.0, 0.0])            # the prior's favourite loses, the second wins
    t = dsp.completed_q_target(logits, visits, q, 0.0, 50.0, 0.1)
    assert abs(t.sum() - 1.0) < 1e-12 and (t > 0).all()
    assert t[1] > 0.3 and t[0] < 0.4 and t[1] > t[0]
    assert np.isclose(t[2] / t[3], 2.0)              # unvisited moves keep their prior's ratio
    sharper = dsp.completed_q_target(logits, visits, q, 0.0, 50.0, 1.0)
    assert sharper[1] > t[1]                          # c_scale: how far the values move the prior


@pytest.mark.parametrize("policy_target", ["visits", "completed_q"])
def test_searched_targets_with_the_options_are_distributions_and_values_in_range(policy_target):
    g = envs.make_game("zaka_v0", num_players=2)
    w = 0.5
    cfg = sd.from_dict({"algorithm": sd.ALGORITHM, "env_options": {"num_players": 2}, "init_policy": "x",
                        "simulations": 6, "max_steps": 300, "temperature_moves": 3,
                        "policy_target": policy_target, "root_value_weight": w}, "test")
    net = dsp.Forward(sd.policy_from_checkpoint(make_agent("ppo:zaka", g).path, "cpu"))
    chunk, info = dsp.SelfPlay(g, cfg, net).play(2, np.random.default_rng(1))
    mixed = 0
    for number, seed, history in info["records"]:
        rows = np.flatnonzero(chunk.game == number)
        st = g.new_initial_state(seed)
        result = g.agent_returns(g.replay(seed, history).returns())
        for j, row in enumerate(rows):
            legal = chunk.legal[chunk.ptr[row]:chunk.ptr[row + 1]]
            target = chunk.target[chunk.ptr[row]:chunk.ptr[row + 1]]
            assert abs(float(target.sum()) - 1.0) < 1e-5 and (target >= 0).all()
            r = float(result[g.seat_owner(st.current_player)])
            v = float(chunk.value[row])
            assert -1.0 <= v <= 1.0 and abs(v - r) <= 2 * w + 1e-6
            if len(legal) == 1:
                assert v == np.float32(r)   # a forced move was not searched: the result alone
            else:
                mixed += v != np.float32(r)
                if policy_target == "completed_q":
                    assert (target > 0).all()   # every legal move keeps some of the prior
            st.apply(history[j])
    assert mixed > 10


CASES = [(n, v, o) for n in envs.names() for v, o in envs.variants(n).items()]


@pytest.mark.parametrize("name,vname,opts", CASES, ids=[f"{n}-{v}" for n, v, _ in CASES])
def test_nothing_leaks_from_search_into_the_real_game(name, vname, opts):
    """After every real move of searched self-play, the game equals a fresh replay of its seed and
    history (PUCT over determinized samples, half the leaves' value from playouts that play the
    samples on)."""
    g = envs.make_game(name, **opts)
    twin_game = envs.make_game(name, **opts)
    cfg = sd.from_dict({"algorithm": sd.ALGORITHM, "env_options": opts, "init_policy": "x", "simulations": 3,
                        "max_steps": 30, "rollout_weight": 0.5, "parallel_games": 2}, "test")
    selfplay = dsp.SelfPlay(g, cfg, flat_forward(g))
    checked = []

    def check(state, number):
        fresh = twin_game.replay(state.seed, state.history)
        assert views(state) == views(fresh), f"game {number} after move {len(state.history)}"
        checked.append(number)

    selfplay.after_move = check
    _, info = selfplay.play(2, np.random.default_rng(3))
    assert len(checked) == info["moves"] >= 4 and selfplay.stats["leaves"] > 0


def _same_run(a: Path, b: Path) -> None:
    wa, oa, ta = read_training_state(a / "checkpoint.zip")
    wb, ob, tb = read_training_state(b / "checkpoint.zip")
    assert ta == tb and wa.keys() == wb.keys()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    for sa, sb in zip(oa["state"].values(), ob["state"].values()):
        assert all(torch.equal(sa[k], sb[k]) if torch.is_tensor(sa[k]) else sa[k] == sb[k] for k in sa)
    ma, mb = (read_metadata(x / "checkpoint.zip")["search_distill"] for x in (a, b))
    assert ma == mb   # iteration, counters, generator state, replay files
    assert (a / "best.zip").read_bytes() != b"" and \
        read_metadata(a / "best.zip")["iteration"] == read_metadata(b / "best.zip")["iteration"]


def test_resume_gives_the_same_next_iteration(tmp_path):
    data = tiny("zaka", games_per_iteration=3, simulations=3)
    run("zaka", tmp_path / "straight", data)
    run("zaka", tmp_path / "cut", {**data, "iterations": 1})
    assert read_metadata(tmp_path / "cut" / "checkpoint.zip")["search_distill"]["iteration"] == 1
    run("zaka", tmp_path / "cut", resume=True, iterations=2)
    _same_run(tmp_path / "straight", tmp_path / "cut")
    straight, cut = (_untimed(tmp_path / x / "iterations.csv") for x in ("straight", "cut"))
    assert len(cut) == 2 and cut == straight   # every number of both iterations but the clocks


def _untimed(path: Path) -> list[dict]:
    import csv
    with open(path, newline="") as fh:
        return [{k: v for k, v in row.items() if not k.endswith(("_s", "minutes"))} for row in csv.DictReader(fh)]


def test_a_stop_in_an_iteration_keeps_the_last_checkpoint_and_resumes_to_the_same_run(tmp_path, monkeypatch):
    data = tiny("zaka", games_per_iteration=3, simulations=3)
    run("zaka", tmp_path / "straight", data)
    original = dsp.SelfPlay._apply
    moves = {"n": 0}

    def stopping(self, g, action):
        moves["n"] += 1
        if moves["n"] == 200:   # in iteration 2's self-play (iteration 1 plays ~60 moves a game)
            raise Stopped(signal.SIGTERM)
        original(self, g, action)

    monkeypatch.setattr(dsp.SelfPlay, "_apply", stopping)
    with pytest.raises(Stopped) as stop:
        run("zaka", tmp_path / "cut", data)
    words = str(stop.value)
    assert "SIGTERM" in words and "iteration 2 (self-play)" in words and "of iteration 1 is kept" in words, words
    assert read_metadata(tmp_path / "cut" / "checkpoint.zip")["search_distill"]["iteration"] == 1
    monkeypatch.setattr(dsp.SelfPlay, "_apply", original)
    run("zaka", tmp_path / "cut", resume=True)
    _same_run(tmp_path / "straight", tmp_path / "cut")


def test_a_stop_before_the_first_checkpoint_says_so(tmp_path, monkeypatch):
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sd, "policy_from_checkpoint", stop)
    with pytest.raises(Stopped, match="no checkpoint written.*without --resume"):
        run("zaka", tmp_path / "r")
    with pytest.raises(ConfigError, match="stopped before its first checkpoint"):
        run("zaka", tmp_path / "r", resume=True)


def test_the_gate_keeps_the_best_network_when_it_rejects(tmp_path, monkeypatch):
    monkeypatch.setattr(sd._Run, "gate", lambda self, k: (False, {"gate_games": 0, "gate_score": 0.0,
                                                                  "gate_ci_low": 0.0, "gate_ci_high": 0.0}))
    out = run("zaka", tmp_path / "r").parent
    assert read_metadata(out / "best.zip")["iteration"] == 0
    assert read_metadata(out / "checkpoint.zip")["search_distill"]["best_iteration"] == 0
    best, _ = read_training_state(out / "checkpoint.zip")[:2]
    from tabletop_arena.agents.ppo import load_policy
    kept = load_policy(out / "best.zip").state_dict()
    assert any(not torch.equal(kept[k], best[k]) for k in kept)   # the trained one moved on
    assert not (out / "snapshots" / "iter_00001.zip").exists()


@pytest.mark.parametrize("score,games,players,accepted", [(100, 200, 2, True), (88, 200, 2, True),
                                                         (86, 200, 2, False), (40, 200, 4, True),
                                                         (35, 200, 4, False), (0, 4, 2, False), (0, 2, 2, True),
                                                         (0, 0, 2, True)])
def test_the_gate_rejects_only_a_significantly_worse_network(score, games, players, accepted):
    """Accept unless the Wilson 95% upper bound of the score is below the fair share 1/n."""
    assert sd.gate_accepts(score, games, players) is accepted


@pytest.mark.parametrize("change,needle", [
    ({"simulation": 4}, "unknown key(s) simulation (did you mean 'simulations'?)"),
    ({"simulations": 1}, "simulations must be an int in 2.., got 1"),
    ({"simulations": "8"}, "simulations must be an int in 2.., got '8'"),
    ({"rollout_weight": 1.5}, "rollout_weight must be a number in 0.0..1.0, got 1.5"),
    ({"eval_opponents": ["heuristic"]}, "eval_opponents must be a mapping, got ['heuristic']"),
    ({"eval_opponents": {"heuristic": -1}}, "eval_opponents.heuristic must be an int in 0.., got -1"),
    ({"network": {"network": "slots"}}, "init_policy brings its own network"),
    ({"init_policy": "", "network": {"netwrk": "slots"}}, "unknown key(s) netwrk (did you mean 'network'?) in network"),
    ({"init_policy": "", "network": {"network": "slots"}, "clone": {"bc_game": 3}},
     "unknown key(s) bc_game (did you mean 'bc_games'?) in clone"),
    ({"init_policy": "", "network": {"network": "slots", "net_arch": [0]}}, "net_arch"),
    ({"device": "tpu"}, "device must be a string (from ['cpu', 'cuda', 'auto']), got 'tpu'"),
    ({"policy_target": "q"}, "policy_target must be a string (from ['visits', 'completed_q', 'move']), got 'q'"),
    ({"root_value_weight": -0.1}, "root_value_weight must be a number in 0.0..1.0, got -0.1"),
    ({"search": "mcts"}, "search must be a string (from ['puct', 'rollout']), got 'mcts'"),
    ({"rollout_policy": "heuristic"}, "rollout_policy must be a string (from ['random', 'network']), got 'heuristic'"),
    ({"algorithm": "ppo"}, "algorithm must be a string (from ['search_distill']), got 'ppo'"),
])
def test_config_mistakes_name_the_key(change, needle):
    with pytest.raises(ConfigError) as err:
        sd.from_dict({**committed("zaka"), **change}, "zaka_distill.yaml")
    assert needle in str(err.value) and "zaka_distill.yaml" in str(err.value)


def test_the_command_line(tmp_path, capsys):
    from tabletop_arena.app.cli import main
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**tiny("zaka"), "iterations": 1}))
    out = tmp_path / "r"
    assert main(["train", "zaka", "--config", str(config), "--out", str(out), "--timesteps", "5"]) == 2
    assert "--set iterations=N" in capsys.readouterr().err
    assert main(["train", "zaka", "--config", str(config), "--out", str(out), "--set", "algorithm=rllib_ppo"]) == 2
    assert "algorithm search_distill config, not a PPO one" in capsys.readouterr().err
    assert main(["train", "zaka", "--config", str(config), "--out", str(out), "--set", "rllib.num_learners=2"]) == 2
    assert "read by algorithm rllib_ppo only" in capsys.readouterr().err
    assert main(["train", "zaka", "--config", str(config), "--out", str(out), "--set", "simulatons=3"]) == 2
    assert "did you mean 'simulations'" in capsys.readouterr().err
    assert not out.exists()   # a refused command makes no folder
    assert main(["train", "zaka", "--config", str(config), "--out", str(out), "--seed", "3", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "best network:" in said and "iteration 1:" in said   # no bars, the log's lines still
    assert read_metadata(out / "checkpoint.zip")["config"]["seed"] == 3
    assert main(["train", "zaka", "--config", str(config), "--out", str(out)]) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert main(["train", "zaka", "--out", str(out), "--resume", "--set", "seed=4"]) == 2
    assert "seed cannot change when resuming" in capsys.readouterr().err
    assert main(["train", "zaka", "--out", str(out), "--resume", "--set", "iterations=2"]) == 0
    assert read_metadata(out / "checkpoint.zip")["search_distill"]["iteration"] == 2


def test_device_cuda_where_torch_has_it(tmp_path):
    """``--device cuda`` trains and searches on the GPU where torch sees one; without one it is a
    one-line error before anything is written."""
    if torch.cuda.is_available():
        best = run("zaka", tmp_path / "r", device="cuda")
        assert read_metadata(best)["config"]["device"] == "cuda"
    else:
        with pytest.raises(ConfigError, match="torch sees no CUDA device"):
            run("zaka", tmp_path / "r", device="cuda")
        assert not (tmp_path / "r").exists()
