"""The ``arena`` command line (issue 23): one option syntax, one-line errors with exit code 2, the
real result at the end of ``arena play``, a re-runnable quickstart, a bench that degrades.

Every command runs through ``main(argv)`` as a person would type it.
"""
from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.app import bench, cli
from tabletop_arena.app.cli_common import CLIError, parse_env_options
from tabletop_arena.app.match import Match, game_result
from tabletop_arena.envs.core.game import Game, State


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *needles):
    assert code == 2
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("arena") and ": error: " in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


# ------------------------------------------------------------------------- error classes ----
@pytest.mark.parametrize("argv, needles", [
    (["play", "peacekeeper_v0"], ["unknown game 'peacekeeper_v0'", "did you mean 'peacekeepers_v0'"]),
    (["eval", "zakka", "--agents", "random"], ["unknown game 'zakka'", "did you mean 'zaka_v0'"]),
    (["bench", "warbahh"], ["did you mean 'warbah_v0'"]),
], ids=["play", "eval", "bench"])
def test_unknown_game_says_did_you_mean(argv, needles, capsys):
    assert_one_line_error(*run(argv, capsys)[::2], *needles)


@pytest.mark.parametrize("opt, needles", [
    ("nonsense", ["--opt expects KEY=VALUE"]),
    ("{bad json", ["is not valid JSON"]),
    ("[1, 2]", ["--opt expects KEY=VALUE"]),
])
def test_bad_opt_syntax(opt, needles, capsys):
    assert_one_line_error(*run(["play", "zaka", "--opt", opt], capsys)[::2], *needles)


def test_unknown_option_name_lists_the_known_ones(capsys):
    code, _, err = run(["play", "zaka", "--opt", "num_player=3"], capsys)
    assert_one_line_error(code, err, "no option 'num_player'", "did you mean 'num_players'", "options: num_players")


def test_bad_option_value_from_the_env(capsys):
    code, _, err = run(["eval", "zaberias", "--agents", "random", "--opt", "num_players=9"], capsys)
    assert_one_line_error(code, err, "bad option for zaberias_v0", "num_players")


@pytest.mark.parametrize("spec, needle", [("nonsense", "unknown agent 'nonsense'"),
                                          ("mcts:x", "mcts:N needs an integer"),
                                          ("ppo:", "ppo needs")])
def test_bad_agent_spec(spec, needle, capsys):
    code, _, err = run(["play", "zaka", "--opponents", spec], capsys)
    assert_one_line_error(code, err, needle)


def test_missing_checkpoint(tmp_path, capsys):
    missing = tmp_path / "none.zip"
    code, _, err = run(["eval", "zaka", "--agents", f"ppo:{missing}", "random", "--no-progress"], capsys)
    assert_one_line_error(code, err, "checkpoint not found")


def test_shipped_agent_on_the_wrong_game(capsys):
    pytest.importorskip("torch")
    code, _, err = run(["play", "zaka", "--opponents", "ppo:peacekeepers"], capsys)
    assert_one_line_error(code, err, "ppo:peacekeepers was trained for peacekeepers_v0, not zaka_v0",
                          "trained for zaka_v0: ppo:zaka")


def test_list_shows_every_game_variant_and_shipped_agent(capsys):
    """`arena list`: each registered game with its variants, and each shipped agent under its game
    with its variant and the --opt that selects it."""
    from tabletop_arena.agents.shipped import shipped_agents
    code, out, _ = run(["list"], capsys)
    assert code == 0
    for name in envs.names():
        assert name in out
        for vname, opts in envs.spec(name).variants.items():
            assert f"variant {vname}: {json.dumps(opts)}" in out
    from tabletop_arena.agents.shipped import agent_kind
    for agent, entry in shipped_agents().items():
        line = next(x for x in out.splitlines() if f"trained agent {agent_kind(entry)}:{agent} " in x)
        assert entry["variant"] in line
        for k, v in (entry.get("options") or {}).items():
            assert f"--opt {k}={v}" in line


def test_shipped_agent_for_another_variant_names_the_one_that_fits(capsys):
    """ppo:peacekeepers (2 players) in a 4-player game: the error says the option it was trained
    with and lists the shipped agents of the game, so the 4-player one is one read away."""
    pytest.importorskip("torch")
    code, _, err = run(["eval", "peacekeepers", "--opt", "num_players=4", "--agents", "ppo:peacekeepers",
                        "heuristic", "--games", "2", "--no-progress"], capsys)
    assert_one_line_error(code, err, "ppo:peacekeepers was trained for peacekeepers_v0 with num_players=2 (here 4)",
                          "ppo:peacekeepers_4p")


def _shipped_names():
    from tabletop_arena.agents.shipped import shipped_agents
    return sorted(shipped_agents())


@pytest.mark.parametrize("name", _shipped_names())
def test_eval_takes_a_shipped_agent_by_name(name, tmp_path, capsys):
    """`arena eval GAME --agents ppo:NAME ...` as the README's reproduce commands write it: the
    evaluator's up-front checkpoint check resolves a shipped agent's name (it used to read NAME as
    a file path and stop with 'checkpoint not found')."""
    pytest.importorskip("torch")
    from tabletop_arena.agents.shipped import agent_kind, shipped_agents
    entry = shipped_agents()[name]
    spec = f"{agent_kind(entry)}:{name}"     # ppo:NAME, or vlook:NAME for a value-lookahead entry
    opts = [x for k, v in (entry.get("options") or {}).items() for x in ("--opt", f"{k}={v}")]
    code, out, err = run(["eval", entry["game"], *opts, "--agents", spec, "random", "--games", "2",
                          "--workers", "1", "--no-progress", "--out", str(tmp_path / "ev")], capsys)
    assert code == 0, err
    assert spec in out and (tmp_path / "ev" / "report.json").is_file()


def test_eval_baseline_plays_the_same_games_with_the_baseline_first(tmp_path, capsys):
    """``arena eval --baseline AGENT``: a second evaluation with AGENT in the first agent's place
    (its report under OUT/baseline), the comparison printed and written to OUT/baseline.json."""
    out = tmp_path / "ev"
    code, text, err = run(["eval", "zaka", "--agents", "random", "heuristic", "--baseline", "heuristic",
                           "--games", "4", "--workers", "1", "--no-progress", "--out", str(out)], capsys)
    assert code == 0, err
    data = json.loads((out / "baseline.json").read_text())
    assert (data["agent"], data["baseline"], data["games"]) == ("random", "heuristic", 4)
    assert (out / "baseline" / "report.json").is_file() and "in the same seats on the same seeds" in text
    first = json.loads((out / "report.json").read_text())["per_agent"]["random"]
    assert data["wins"] == first["wins"]


@pytest.mark.parametrize("argv, needles", [
    (["--agents", "heuristic", "--baseline", "random"], ["--baseline replaces the first of two or more agents"]),
    (["--agents", "heuristic", "random", "--baseline", "mcst:5"], ["mcst:5"]),
    (["--agents", "heuristic", "random", "--baseline", ""], ["agent spec must be a non-empty string"]),
])
def test_eval_baseline_misuse_is_one_line_before_any_game(argv, needles, tmp_path, capsys):
    out = tmp_path / "ev"
    code, _, err = run(["eval", "zaka", *argv, "--games", "2", "--workers", "1", "--no-progress",
                        "--out", str(out)], capsys)
    assert_one_line_error(code, err, *needles)
    assert not out.exists()


def _shipped_entry(name):
    from tabletop_arena.agents.shipped import shipped_agents
    return shipped_agents()[name]


@pytest.mark.parametrize("name", [n for n in _shipped_names() if _shipped_entry(n).get("strongest")])
def test_a_shipped_agents_strongest_spec_plays_its_own_checkpoint(name, capsys):
    """shipped.yaml's ``strongest`` (search at play time over the shipped network) builds for the
    entry's game and variant, plays that entry's checkpoint, and `arena list` shows it."""
    pytest.importorskip("torch")
    from tabletop_arena.agents.registry import make_agent
    entry = _shipped_entry(name)
    game = envs.make_game(entry["game"], **(entry.get("options") or {}))
    agent = make_agent(entry["strongest"], game, seed=0)
    assert agent.path == entry["file"]
    code, out, _ = run(["list"], capsys)
    assert code == 0 and f"strongest as {entry['strongest']}" in out


@pytest.mark.parametrize("pair, needles", [
    ("n_env=2", ["--set: unknown key(s) n_env", "did you mean 'n_envs'"]),
    ("n_envs=abc", ["--set n_envs must be an int in 1.., got 'abc'"]),
    ("novalue", ["--set expects key=value"]),
])
def test_set_errors_blame_the_command_line(pair, needles, tmp_path, capsys):
    code, _, err = run(["train", "zaka", "--out", str(tmp_path / "t"), "--set", pair], capsys)
    assert_one_line_error(code, err, *needles)
    assert "default.yaml" not in err and "zaka.yaml" not in err
    assert not (tmp_path / "t").exists()  # nothing started


def test_set_out_of_range_blames_set(tmp_path, capsys):
    pytest.importorskip("torch")
    code, _, err = run(["train", "zaka", "--out", str(tmp_path / "t"), "--set", "n_envs=0"], capsys)
    assert_one_line_error(code, err, "--set n_envs must be an int in 1.., got 0")


@pytest.mark.parametrize("argv, needle", [
    (["play", "zaka", "--seat", "x"], "argument --seat: expected an integer >= 0"),
    (["play", "zaka", "--seat", "7"], "seat must be 0..1"),
    (["serve", "--port", "70000"], "expected a port"),
    (["train", "zaka", "--timesteps", "-5"], "expected an integer >= 1"),
    (["nosuchcommand"], "invalid choice"),
])
def test_usage_errors_are_one_line(argv, needle, capsys):
    assert_one_line_error(*run(argv, capsys)[::2], needle)


def test_quickstart_refuses_an_explicit_folder_that_holds_a_run(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoint.zip").write_bytes(b"x")
    code, _, err = run(["quickstart", "--out", str(tmp_path / "run")], capsys)
    assert_one_line_error(code, err, "already holds files", "--resume")


# ------------------------------------------------------------------------- option syntax ----
def test_opt_syntax():
    assert parse_env_options(["num_players=4", "mode=duo"]) == {"num_players": 4, "mode": "duo"}
    assert parse_env_options(['tribes=["orcs", "guardians"]']) == {"tribes": ["orcs", "guardians"]}
    assert parse_env_options(["rules.hidden_hands=true", "rules.refill_at=2"]) == \
        {"rules": {"hidden_hands": True, "refill_at": 2}}
    assert parse_env_options(['{"mode": "competitive", "rules": {"a": 1}}', "rules.b=x"]) == \
        {"mode": "competitive", "rules": {"a": 1, "b": "x"}}
    # several pairs in one value (the web page's options box sends them so): a comma splits only
    # where a KEY= follows
    assert parse_env_options(['num_players=3,tribes=["orcs", "humans", "undead"]']) == \
        {"num_players": 3, "tribes": ["orcs", "humans", "undead"]}
    assert parse_env_options(["name=a,b"]) == {"name": "a,b"}
    with pytest.raises(CLIError):
        parse_env_options(["=3"])


def test_env_options_have_one_flag(tmp_path, capsys):
    """--opt is the one way in (issue 44): the old alias --options is gone, an unknown flag."""
    code, out, err = run(["eval", "zaka", "--agents", "random", "random", "--games", "2", "--workers", "1",
                          "--no-progress", "--out", str(tmp_path), "--opt", "num_players=3"], capsys)
    assert code == 0, err
    assert err == ""   # no note about another spelling
    assert json.loads((tmp_path / "report.json").read_text())["num_players"] == 3
    for command in (["eval", "zaka", "--agents", "random"], ["train", "zaka"]):
        code, _, err = run([*command, "--options", "num_players=3"], capsys)
        assert_one_line_error(code, err, "unrecognized arguments: --options")


def test_help_of_every_command_has_a_description_and_defaults(capsys):
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        assert p.description, name
        text = p.format_help()
        if name not in ("list", "convert-checkpoint"):   # these have no option with a default
            assert "(default: " in text, name
    assert "--opt KEY=VALUE" in sub.choices["bench"].format_help()
    train_help = sub.choices["train"].format_help()
    assert "--set KEY=VALUE" in train_help and "training-config key" in train_help


# ------------------------------------------------------------------------------ arena play ----
def test_play_ends_with_the_real_result(monkeypatch, capsys):
    """Always the first listed move, to the end: the last lines name the winner and every
    player's return from the engine (issue 23: it used to print cleared per-step rewards)."""
    monkeypatch.setattr(builtins, "input", lambda prompt="": "0")
    code, out, _ = run(["play", "peacekeepers", "--opponents", "random", "--seed", "3"], capsys)
    assert code == 0
    tail = out.splitlines()[-4:]
    assert tail[0].startswith(("Winner: ", "No single winner", "Shared first place")), tail
    assert tail[1].startswith("  player_0 (you): return ") and "score" in tail[1]
    assert tail[2].startswith("  player_1 (random): return ")
    returns = [float(line.split("return ")[1].split(",")[0]) for line in tail[1:3]]
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    assert "final: {'player_0': 0.0" not in out


def test_play_quits_cleanly(monkeypatch, capsys):
    def eof(prompt=""):
        raise EOFError
    monkeypatch.setattr(builtins, "input", eof)
    code, out, err = run(["play", "zaka", "--seed", "1"], capsys)
    assert code == 0 and "bye" in out and not err


@pytest.mark.parametrize("name", envs.names())
def test_every_game_says_who_won(name):
    """A person (random legal moves) against random agents: the result comes from the engine's
    returns, a winner is named unless first place is shared, and per-player returns add up."""
    rng = np.random.default_rng(0)
    match = Match(name, {}, human=0, opponents=["random"], seed=5)
    while not match.over:
        legal = match.legal_moves()
        match.play(legal[rng.integers(len(legal))][0])
    res = match.result()
    assert not res.truncated
    st = match.state
    owner = [match.game.seat_owner(s) for s in range(match.game.num_seats)]
    for i in range(match.game.num_agents):
        assert res.returns[i] == pytest.approx(np.mean([st.returns()[s] for s in range(len(owner)) if owner[s] == i]))
    text = res.text(match.labels)
    if len(res.winners) == 1:
        assert text.startswith(f"Winner: {match.labels[res.winners[0]]}")
        assert res.returns[res.winners[0]] == max(res.returns)
    else:
        assert text.startswith(("Shared first place", "No single winner"))
    assert [m.number for m in match.log] == list(range(1, len(st.history) + 1))


def test_result_wording():
    class G(Game):
        num_seats = 3

    class S(State):
        game = G()
        history = [1, 2]

        def __init__(self, ret, scores=None):
            self._ret, self._scores = ret, scores

        def is_terminal(self):
            return True

        def returns(self):
            return np.array(self._ret, float)

        def final_info(self):
            return {"scores": self._scores, "turns": 4} if self._scores else {"turns": 4}

    labels = ["player_0 (you)", "player_1 (random)", "player_2 (heuristic)"]
    res = game_result(S([1, 0, -1], [9, 5, 2]))
    assert res.winners == [0] and res.scores == [9, 5, 2] and res.details == {"turns": 4}
    assert res.lines(labels)[:2] == ["Winner: player_0 (you).", "  player_0 (you): return +1.00, score 9"]
    assert game_result(S([0.5, 0.5, -1])).headline(labels) == \
        "Shared first place: player_0 (you), player_1 (random)."
    assert game_result(S([0.3, 0.3, 0.3], [30, 30, 30])).headline(labels).startswith("No single winner")


# quickstart: tests/test_quickstart.py


# ----------------------------------------------------------------------------------- bench ----
def test_bench_without_the_reference_still_measures(monkeypatch, capsys):
    def unavailable():
        raise bench.ReferenceUnavailable("the reference connect_four_v3 is unavailable (no pygame)")
    monkeypatch.setattr(bench, "reference_env", unavailable)
    code, out, err = run(["bench", "zaka", "--seconds", "0.2", "--rounds", "1"], capsys)
    assert code == 0
    assert "note: the reference connect_four_v3 is unavailable" in err and len(err.splitlines()) == 1
    assert "| zaka_v0 | 2p |" in out and "connect_four" not in out


def test_bench_with_options(capsys):
    pytest.importorskip("pygame")
    code, out, _ = run(["bench", "zaka", "--seconds", "0.2", "--rounds", "1", "--opt", "num_players=3"], capsys)
    assert code == 0 and "| zaka_v0 | custom |" in out and "connect_four_v3" in out


def _train_call(argv, monkeypatch, capsys):
    """``arena train`` with training replaced by a recorder: (exit code, stderr, its arguments)."""
    from tabletop_arena.train import ppo

    calls = {}

    def fake_train(game, config_path=None, timesteps=None, seed=None, out=None, resume=False, **overrides):
        calls.update(game=game, timesteps=timesteps, seed=seed, overrides=overrides)
        return Path(out or "runs/x") / "final.zip"

    monkeypatch.setattr(ppo, "train", fake_train)
    code, _, err = run(argv, capsys)
    return code, err, calls


def test_set_of_a_key_with_its_own_flag_is_that_flag(monkeypatch, capsys, tmp_path):
    """--set seed=3 is --seed 3 (it reached training twice: a TypeError), --set total_timesteps is
    --timesteps, --set device is --device; the same value twice is fine, two values are an error
    rather than one silently winning, and so are --opt and --set env_options together."""
    out = ["--out", str(tmp_path / "t")]
    code, err, calls = _train_call(["train", "zaka", "--set", "seed=3", "--set", "total_timesteps=640", *out],
                                   monkeypatch, capsys)
    assert code == 0, err
    assert calls["seed"] == 3 and calls["timesteps"] == 640
    assert "seed" not in calls["overrides"] and "total_timesteps" not in calls["overrides"]
    code, err, calls = _train_call(["train", "zaka", "--seed", "3", "--set", "seed=3", *out], monkeypatch, capsys)
    assert code == 0 and calls["seed"] == 3
    for argv, needle in [(["--seed", "2", "--set", "seed=3"], "--seed 2 and --set seed=3 disagree"),
                         (["--timesteps", "64", "--set", "total_timesteps=640"], "disagree"),
                         (["--device", "cpu", "--set", "device=auto"], "--device cpu and --set device=auto"),
                         (["--opt", "num_players=2", "--set", "env_options={num_players: 2}"],
                          "--opt and --set env_options")]:
        code, err, calls = _train_call(["train", "zaka", *argv, *out], monkeypatch, capsys)
        assert_one_line_error(code, err, needle)
        assert not calls
