"""algorithm: value_lookahead (train/value_lookahead.py) and its agent vlook:REF (agents/lookahead.py)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.train.config import ConfigError

torch = pytest.importorskip("torch")

from tabletop_arena.agents.lookahead import ValueCheckpointError, ValueLookaheadAgent, load_value  # noqa: E402
from tabletop_arena.agents.registry import AgentSpecError, make_agent  # noqa: E402
from tabletop_arena.train.play import play  # noqa: E402
from tabletop_arena.train.value_lookahead import from_dict  # noqa: E402
from tests.test_turn_plan import acts_on_a_copy, decision_position  # noqa: E402

TINY = ["--set", "games_per_round=6", "--set", "fit_steps=20", "--set", "fit_eval_every=10",
        "--set", "accept_games=2", "--set", "accept_min_per_game=0.0", "--set", "eval_games=2",
        "--set", "rounds=1", "--set", "workers=1", "--set", "torch_threads=1", "--no-progress"]


def _cli(argv, capsys):
    from tabletop_arena.app.cli import main
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One tiny `arena train gorgasali` run (the default config is the value lookahead)."""
    from tabletop_arena.app.cli import main
    out = tmp_path_factory.mktemp("vlook") / "run"
    assert main(["train", "gorgasali", "--out", str(out), *TINY]) == 0
    return out


def _game():
    return envs.make_game("gorgasali", num_players=2)


def test_the_run_writes_its_files_and_the_agent_plays_a_whole_game(run):
    for f in ("value.pt", "config.yaml", "curve.csv", "curve.png", "fit.csv", "accept.csv"):
        assert (run / f).is_file(), f
    net, meta = load_value(run / "value.pt", _game())
    assert meta["game"] == "gorgasali_v0" and meta["options"]["num_players"] == 2
    tried = (run / "accept.csv").read_text().splitlines()[1:]
    assert set(meta["phases"]) <= {row.split(",")[1] for row in tried}
    assert "move" not in {row.split(",")[1] for row in tried}     # skip_phases: the walk's steps
    game = _game()
    agent = make_agent(f"vlook:{run / 'value.pt'}", game, seed=3)
    agent.phases = {"loot", "act", "start"}        # search wherever it can, whatever the trials said
    result = play(game, [agent, make_agent("heuristic", game, seed=4)], 12)
    assert agent.searched > 0 and len(result.history) > 10


def test_without_accepted_phases_it_plays_the_heuristics_game(run):
    """No accepted phase: the same game, move for move, as the heuristic in its seat."""
    game = _game()
    mine = ValueLookaheadAgent(run / "value.pt", game, seed=5, phases=[])
    a = play(game, [mine, make_agent("heuristic", game, seed=6)], 20)
    b = play(game, [make_agent("heuristic", game, seed=5), make_agent("heuristic", game, seed=6)], 20)
    assert a.history == b.history and mine.searched == 0


def test_it_leaves_the_heuristic_only_for_a_move_valued_above_it_by_delta(run, monkeypatch):
    game = _game()
    state = game.new_initial_state(8)
    agent = ValueLookaheadAgent(run / "value.pt", game, seed=0)
    while True:   # a decision of a searched phase with at least two legal moves
        legal = np.flatnonzero(state.legal_actions_mask())
        if len(legal) > 1 and state.phase_name() in ("start", "act"):
            break
        state.apply(int(make_agent("heuristic", game, seed=1).act(
            {"observation": state.observation(state.current_player), "action_mask": state.legal_actions_mask()},
            state)))
    agent.phases = {state.phase_name()}
    obs = {"observation": state.observation(state.current_player), "action_mask": state.legal_actions_mask()}
    h = int(make_agent("heuristic", game, seed=0).act(obs, state))
    other = int(next(a for a in legal if a != h))
    for gap, expected in ((0.3, other), (0.1, h)):
        q = np.where(legal == h, 0.0, np.where(legal == other, gap, -1.0))
        monkeypatch.setattr(agent, "action_values", lambda s, lg, q=q: q)
        agent.delta = 0.2
        agent.rng = np.random.default_rng(0)
        assert agent.act(obs, state) == expected


def test_bad_checkpoints_are_clear_errors(run, tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueCheckpointError, match="corrupt value checkpoint"):
        load_value(bad)
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(ValueCheckpointError, match="not a value-lookahead checkpoint"):
        load_value(tmp_path / "other.pt")
    with pytest.raises(ValueCheckpointError, match="not found"):
        load_value(tmp_path / "missing.pt")
    with pytest.raises(ValueCheckpointError, match="fitted on 'gorgasali_v0'"):
        load_value(run / "value.pt", envs.make_game("zaka"))
    with pytest.raises(ValueCheckpointError, match="variant"):
        load_value(run / "value.pt", envs.make_game("gorgasali", num_players=4))
    with pytest.raises(AgentSpecError, match="vlook needs"):
        make_agent("vlook", _game())
    with pytest.raises(AgentSpecError, match="no shipped agent named"):
        make_agent("vlook:nobody", _game())


@pytest.mark.parametrize("data, needle", [
    ({"games_per_rond": 3}, "did you mean 'games_per_round'"),
    ({"games_per_round": 10.0}, "games_per_round must be an int in 2.., got 10.0"),
    ({"rounds": True}, "rounds must be an int in 1.., got True"),
    ({"explore": 1.5}, "explore must be a number in"),
    ({"skip_phases": "move"}, "skip_phases must be a list"),
    ({"progress": "yes"}, "progress must be true or false"),
])
def test_config_errors_name_the_key(data, needle):
    with pytest.raises(ConfigError, match=needle):
        from_dict({"algorithm": "value_lookahead", **data}, "test")


def test_cli_refuses_ppo_flags_and_unknown_keys(tmp_path, capsys):
    code, _, err = _cli(["train", "gorgasali", "--out", str(tmp_path / "a"), "--device", "cpu"], capsys)
    assert code != 0 and "--device: not read by algorithm value_lookahead" in err
    code, _, err = _cli(["train", "gorgasali", "--out", str(tmp_path / "b"), "--set", "n_envs=2"], capsys)
    assert code != 0 and "unknown key(s) n_envs" in err
    assert not (tmp_path / "b" / "value.pt").exists()
    code, _, err = _cli(["train", "gorgasali", "--out", str(tmp_path / "c"), "--set", "feature_pool=3"], capsys)
    assert code == 2 and "feature_pool 3 must divide the board's 20x20" in err
    code, _, err = _cli(["train", "gorgasali", "--out", str(tmp_path / "d"), "--set", "eval_opponents=[nobody]"],
                        capsys)
    assert code == 2 and "unknown agent 'nobody'" in err
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()   # nothing written


def test_a_ppo_trainer_never_swaps_in_the_games_ppo_recipe():
    """The trainer is chosen one way (the config's algorithm): PPO asked for with the game's default
    config, a value-lookahead one, is a one-line error naming configs/train/gorgasali_ppo.yaml (it
    was silently read in its place); that file, passed, is the PPO recipe."""
    from tabletop_arena.train.config import CONFIG_DIR, TrainConfig, load_config
    for path in (None, CONFIG_DIR / "gorgasali.yaml"):
        with pytest.raises(ConfigError, match="algorithm 'value_lookahead' config, not a PPO one: pass "
                                              "--config configs/train/gorgasali_ppo.yaml"):
            load_config(path, None, game="gorgasali_v0")
    cfg = load_config(CONFIG_DIR / "gorgasali_ppo.yaml")
    assert isinstance(cfg, TrainConfig) and cfg.network == "cnn"


def test_a_shipped_entry_plays_only_as_its_kind():
    """shipped.yaml's ``agent: vlook`` entry builds as vlook:NAME; ppo:NAME (or rollout/puct over it)
    says which spec to use, and vlook: over a PPO entry says the same the other way round."""
    from tabletop_arena.agents.shipped import agent_kind, shipped_agents
    vlooks = [n for n, e in shipped_agents().items() if agent_kind(e) == "vlook"]
    assert vlooks, "no vlook entry in shipped.yaml"
    entry = shipped_agents()[vlooks[0]]
    game = envs.make_game(entry["game"], **(entry.get("options") or {}))
    agent = make_agent(f"vlook:{vlooks[0]}", game, seed=0)
    assert isinstance(agent, ValueLookaheadAgent) and agent.path == entry["file"] and agent.phases
    for spec in (f"ppo:{vlooks[0]}", f"rollout:4:{vlooks[0]}"):
        with pytest.raises(AgentSpecError, match=f"play it as vlook:{vlooks[0]}"):
            make_agent(spec, game, seed=0)
    with pytest.raises(AgentSpecError, match="play it as ppo:zaka"):
        make_agent("vlook:zaka", envs.make_game("zaka"), seed=0)


def test_timesteps_caps_the_data_games_and_scales_the_rest(tmp_path, capsys):
    """``arena train gorgasali --timesteps N`` (issue 44: a tiny run is tiny): the data games stop
    at about N engine actions, and the trials, evaluations and fit shrink by the share of the
    round's games played (at least their floors); a key set with --set keeps its value."""
    import math

    import yaml
    out = tmp_path / "run"
    code, stdout, err = _cli(["train", "gorgasali", "--out", str(out), "--timesteps", "600",
                              "--set", "games_per_round=40", "--set", "rounds=1", "--set", "workers=1",
                              "--set", "accept_min_per_game=1000000", "--set", "eval_opponents=[random]",
                              "--set", "torch_threads=1", "--set", "holdout_every=2", "--no-progress"], capsys)
    assert code == 0, err
    cfg = yaml.safe_load((out / "config.yaml").read_text())
    assert cfg["max_env_steps"] == 600 and cfg["games_per_round"] == 40
    _, meta = load_value(out / "value.pt", _game())
    played = meta["games"]
    assert 1 <= played < 40 and 600 <= meta["env_steps"] < 600 + 2 * 2000
    share = played / 40
    assert cfg["accept_games"] == max(20, math.ceil(400 * share)) < 400
    assert cfg["fit_steps"] == max(200, math.ceil(5000 * share)) < 5000
    assert cfg["eval_games"] == 20     # 100 x share is below the floor
    assert f"{played} of 40 data games in this round's share of max_env_steps 600" in stdout
    assert "20" in (out / "curve.csv").read_text().splitlines()[1].split(",")[3]


def test_four_players_pick_their_config_and_evaluate_against_three(tmp_path, capsys):
    """``arena train gorgasali --opt num_players=4`` reads configs/train/gorgasali_4p.yaml; the value
    is fitted on the 4-player variant, and the curve's evaluation seats the learner against a copy of
    each opponent in every other seat (it was a 2-agent list in a 4-seat game)."""
    import json

    import yaml
    out = tmp_path / "run4"
    code, _, err = _cli(["train", "gorgasali", "--opt", "num_players=4", "--out", str(out), *TINY,
                         "--set", "eval_opponents=[random]"], capsys)
    assert code == 0, err
    cfg = yaml.safe_load((out / "config.yaml").read_text())
    assert cfg["env_options"] == {"num_players": 4} and cfg["sample_every"] == 40
    _, meta = load_value(out / "value.pt", envs.make_game("gorgasali", num_players=4))
    assert meta["options"]["num_players"] == 4
    report = out / "eval" / "round_1" / "random" / "report.json"
    assert json.loads(report.read_text())["agents"] == ["learner", "random", "random_2", "random_3"]


@pytest.mark.parametrize("players, firsts, accepted", [
    (2, 160, False),   # 40% of 400: below one half at 2 players
    (4, 160, True),    # 40% of 400: lower bound ~35% > one game in four
    (4, 108, False),   # 27% of 400: lower bound ~23% < 25%
])
def test_a_phase_is_accepted_above_one_game_in_the_player_count(tmp_path, players, firsts, accepted):
    """The phase trials' bar is even strength at the table's size: the Wilson lower bound of first
    place above 1/players (at 4 players it was one half, so no phase could ever be accepted)."""
    from tabletop_arena.train.value_lookahead import _Run
    cfg = from_dict({"algorithm": "value_lookahead", "env_options": {"num_players": players},
                     "accept_games": 400, "workers": 1, "progress": False}, "test")
    run = _Run("gorgasali_v0", cfg, tmp_path)
    run.phase_counts, run.games = {"loot": 5}, 1
    results = iter([1.0 if i * firsts // 400 != (i + 1) * firsts // 400 else -1.0 for i in range(400)])
    run.imap = lambda fn, tasks: [next(results) for _ in tasks]   # the firsts spread evenly
    assert run.accept(1, tmp_path / "unused.pt") == (["loot"] if accepted else [])
    row = (tmp_path / "accept.csv").read_text().splitlines()[1].split(",")
    assert row[1] == "loot" and (float(row[4]) == firsts / 400 or row[-1] == "True")   # 40% at 2: stopped


@pytest.mark.parametrize("players, results, parts", [
    (4, [-1.0] * 400, 1),                        # 0%: stops after the first of four parts
    (4, [-1.0] * 80 + [1.0] * 320, 4),           # 20 of 100 (upper bound ~29%) goes on, then is accepted
    (2, [-1.0] * 200 + [1.0] * 200, 1),          # 2 players, 0 of 100: the upper bound is below one half
    (2, [1.0, -1.0] * 200, 4),                   # at the bar: played to the end, not accepted
])
def test_a_trial_below_the_bar_stops_early(tmp_path, players, results, parts):
    """A phase trial stops after a part once its Wilson upper bound is below the bar: rejected with
    95% confidence (4-player runs spent most trial games on phases at 0-1% first place)."""
    from tabletop_arena.train.value_lookahead import _Run
    cfg = from_dict({"algorithm": "value_lookahead", "env_options": {"num_players": players},
                     "accept_games": 400, "workers": 1, "progress": False}, "test")
    run = _Run("gorgasali_v0", cfg, tmp_path)
    run.phase_counts, run.games = {"loot": 5}, 1
    served, calls = iter(results), []

    def imap(fn, tasks):
        calls.append(len(tasks))
        assert len(tasks) % players == 0   # whole seat rotations
        return [next(served) for _ in tasks]
    run.imap = imap
    accepted = run.accept(1, tmp_path / "unused.pt")
    assert len(calls) == parts and sum(calls) == (100 if parts == 1 else 400)
    assert accepted == (["loot"] if parts == 4 and players == 4 else [])
    header, row = (tmp_path / "accept.csv").read_text().splitlines()[:2]
    assert dict(zip(header.split(","), row.split(",")))["stopped_early"] == str(parts == 1)


# ------------------------------------------------------------------------------ vroll:N:REF --
def test_vroll_never_changes_the_state_it_is_given_and_plays_a_whole_game(run):
    from tabletop_arena.agents.lookahead import ValueRolloutAgent
    game = _game()
    agent = ValueRolloutAgent(run / "value.pt", game, rollouts=2, seed=3, depth=6)
    assert agent.rolls_at("act") and agent.rolls_at("start") and not agent.rolls_at("move")   # skip_phases
    assert not any(agent.rolls_at(p) for p in agent.phases)   # the value's own: its lookahead
    named = ValueRolloutAgent(run / "value.pt", game, rollouts=2, seed=3, roll_phases=["move", "loot"])
    assert named.rolls_at("move") and named.rolls_at("loot") and not named.rolls_at("act")
    state, obs = decision_position(game, 9, ("act",))
    acts_on_a_copy(agent, state, obs)
    assert agent.searched == 1
    result = play(game, [agent, make_agent("heuristic", game, seed=4)], 12)
    assert agent.searched > 1 and len(result.history) > 10


def test_vroll_rollouts_are_paired_on_one_determinization(run):
    """Rollout i plays every candidate from the same determinization with the same generator: a
    move listed twice gets the same value in every rollout (a gain of exactly zero)."""
    from tabletop_arena.agents.lookahead import ValueRolloutAgent
    game = _game()
    agent = ValueRolloutAgent(run / "value.pt", game, rollouts=3, seed=0, depth=8)
    state, obs = decision_position(game, 5, ("act",))
    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    values = agent.rollout_values(state, [legal[0], legal[1], legal[0]])
    assert values.shape == (3, 3)
    assert np.array_equal(values[:, 0], values[:, 2])


def test_vroll_leaves_the_heuristic_only_for_a_sure_gain(run, monkeypatch):
    from tabletop_arena.agents.lookahead import ValueRolloutAgent
    game = _game()
    state, obs = decision_position(game, 8, ("act",))
    h = int(make_agent("heuristic", game, seed=0).act(obs, state))
    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    others = [a for a in legal if a != h]
    steady = np.array([[0.0, 0.3] + [-1.0] * (len(others) - 1)] * 4)     # the first other: +0.3 every time
    noisy = steady.copy()
    noisy[:, 1] = [1.0, -0.9, 1.0, -0.9]                                   # mean +0.05, spread 1.1
    for values, z, expected in ((steady, 1.0, others[0]),     # +0.3 with no spread: sure
                                (steady, 1e9, others[0]),     # no spread is sure at any z
                                (noisy, 1.0, h),              # +0.05 within its noise: not sure
                                (noisy, 0.0, others[0])):     # z = 0: any mean gain
        agent = ValueRolloutAgent(run / "value.pt", game, rollouts=4, seed=0, z=z)
        monkeypatch.setattr(agent, "rollout_values", lambda s, cands, v=values: v[:, :len(cands)])
        assert agent.act(obs, state) == expected, (z, values[:, 1])
        assert agent.deviations == (expected != h)
    # a phase it does not roll at: the heuristic's move, no rollouts
    agent = ValueRolloutAgent(run / "value.pt", game, rollouts=4, seed=0, roll_phases=["start"])
    monkeypatch.setattr(agent, "rollout_values", lambda s, cands: pytest.fail("rolled out at 'act'"))
    assert agent.act(obs, state) == h


@pytest.mark.parametrize("spec, needle", [
    ("vroll:1:gorgasali_4p", "2 <= N"),
    ("vroll:4", "vroll:N:NAME"),
    ("vroll:4,depth=0:gorgasali_4p", "depth"),
    ("vroll:4,depth=4.5:gorgasali_4p", "depth"),
    ("vroll:4,z=-1:gorgasali_4p", "z: a number >= 0"),
    ("vroll:4,z=nan:gorgasali_4p", "z: a number >= 0"),
    ("vroll:4,phases=acts:gorgasali_4p", "'acts' is not a phase of gorgasali_v0 \\(did you mean 'act'\\?\\)"),
    ("vroll:4,phases=act+over:gorgasali_4p", "'over' is not a phase"),
    ("vroll:4,phases=xyzzy:gorgasali_4p", r"'xyzzy' is not a phase of gorgasali_v0 \(13 phases, e.g. choose"),
    ("vroll:4,k=3:gorgasali_4p", r"depth=D, z=Z, phases=P\+Q"),
    ("vroll:4,z=1,z=2:gorgasali_4p", "each once"),
    ("vroll:4:zaka", "play it as ppo:zaka"),
])
def test_vroll_spec_errors(spec, needle):
    with pytest.raises((AgentSpecError, ValueCheckpointError), match=needle):
        make_agent(spec, "gorgasali_v0" if "zaka" not in spec else "zaka_v0", seed=0,
                   options={"num_players": 4} if "zaka" not in spec else None)


# ------------------------------------------------------------------------------- plan:N:REF --
def _zaberias4():
    return envs.make_game("zaberias_v0", num_players=4)


def test_heuristic_styles_no_focus_leaves_out_the_gang_up():
    """Zaberias's heuristic has two styles; at a 4-player decision the default one picks the weakest
    enemy as its focus and ``no_focus`` none, on the same position. A game whose heuristic declares
    no styles has its default only; an unknown style is refused."""
    from tabletop_arena.agents.heuristics import heuristic_styles, make_heuristic
    game = _zaberias4()
    assert heuristic_styles(game) == ("default", "no_focus")
    assert heuristic_styles(envs.make_game("gorgasali_v0")) == ("default",)
    state, obs = decision_position(game, 3, ("main",))
    default, free = make_heuristic(game, 0), make_heuristic(game, 0, style="no_focus")
    default.act(obs, state.clone())
    free.act(obs, state.clone())
    assert default._focus >= 0 and free._focus == -1
    with pytest.raises(AgentSpecError, match="no style 'xyz'; its styles: default, no_focus"):
        make_heuristic(game, style="xyz")
    with pytest.raises(AgentSpecError, match="no style 'no_focus'; its styles: default"):
        make_heuristic(envs.make_game("gorgasali_v0"), style="no_focus")


def test_plan_never_changes_the_state_it_is_given_and_plans_once_a_turn():
    from tabletop_arena.agents.lookahead import TurnPlanAgent
    from tabletop_arena.agents.shipped import resolve_checkpoint
    from tests.test_turn_plan import check_turn_plan
    game = _zaberias4()
    check_turn_plan(TurnPlanAgent(resolve_checkpoint("zaberias_4p", "vlook"), game, rollouts=2, seed=3, depth=8),
                    game, "main", 300)


def test_plan_rollouts_are_paired_on_one_determinization():
    """Rollout i plays every style from the same determinization with the same generator: one style
    listed twice gets the same value in every rollout."""
    from tabletop_arena.agents.lookahead import TurnPlanAgent
    from tabletop_arena.agents.shipped import resolve_checkpoint
    game = _zaberias4()
    agent = TurnPlanAgent(resolve_checkpoint("zaberias_4p", "vlook"), game, rollouts=3, seed=0, depth=30)
    agent.styles = ("no_focus", "default", "no_focus")
    state, _ = decision_position(game, 5, ("main",))
    values = agent.style_values(state)
    assert values.shape == (3, 3)
    # the same position at the cut (one forward pass scores all: float noise from batching only)
    np.testing.assert_allclose(values[:, 0], values[:, 2], atol=1e-5)
    assert not np.allclose(values[:, 0], values[:, 1], atol=1e-5)   # the other style plays otherwise


def test_plan_leaves_the_default_style_only_for_a_sure_gain(monkeypatch):
    from tabletop_arena.agents.lookahead import TurnPlanAgent
    from tabletop_arena.agents.shipped import resolve_checkpoint
    game = _zaberias4()
    state, obs = decision_position(game, 8, ("main",))
    steady = np.array([[0.0, 0.3]] * 4)          # no_focus +0.3 in every rollout
    noisy = np.array([[0.0, 1.0], [0.0, -0.9], [0.0, 1.0], [0.0, -0.9]])   # +0.05, spread 1.1
    for values, z, style in ((steady, 1.0, 1), (steady, 1e9, 1), (noisy, 1.0, 0), (noisy, 0.0, 1),
                             (-steady, 0.0, 0)):
        agent = TurnPlanAgent(resolve_checkpoint("zaberias_4p", "vlook"), game, rollouts=4, seed=0, z=z)
        monkeypatch.setattr(agent, "style_values", lambda s, v=values: v)
        move = agent.act(obs, state)
        assert agent.style == style and agent.switches == style, (z, values[:, 1])
        from tabletop_arena.agents.heuristics import make_heuristic
        assert move == int(make_heuristic(game, 0, style=agent.styles[style]).act(obs, state.clone()))


@pytest.mark.parametrize("spec, needle", [
    ("plan:1:zaberias_4p", "2 <= N"),
    ("plan:4", "plan:N:NAME"),
    ("plan:4,depth=0:zaberias_4p", "depth"),
    ("plan:4,z=-1:zaberias_4p", "z: a number >= 0"),
    ("plan:4,phases=main:zaberias_4p", "plan settings are depth=D, z=Z, each once"),
    ("plan:4:zaberias", "play it as ppo:zaberias"),
    ("plan:4:gorgasali_4p", "trained for gorgasali_v0, not zaberias_v0"),
])
def test_plan_spec_errors(spec, needle):
    with pytest.raises(AgentSpecError, match=needle):
        make_agent(spec, "zaberias_v0", seed=0, options={"num_players": 4})


def test_plan_needs_a_heuristic_with_styles():
    with pytest.raises(AgentSpecError, match="gorgasali_v0's heuristic has one \\(default\\): nothing to choose"):
        make_agent("plan:4:gorgasali_4p", "gorgasali_v0", seed=0, options={"num_players": 4})
