"""The evaluator (train/evaluate.py) on a tiny fake game with scripted agents of known strength.

``PickGame``: each seat in turn picks a number 0..9 for ``rounds`` rounds; the highest total wins
(ties: a draw, or seat 0 wins with ``seat0_wins_ties``). ``Const(v)`` always picks v, so every
result is known in advance. Also: Wilson intervals and the sign test against hand-computed values,
Bradley-Terry / Plackett-Luce ordering and a known strength ratio, distinct-game counting and
the repeat warning, report files, and serial == parallel on a registered game.
"""
from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from tabletop_arena.agents.base import BaseAgent
from tabletop_arena.envs.core.game import Game, State
from tabletop_arena.train.eval_schedule import arrangements, make_groups, seat_kinds
from tabletop_arena.train.evaluate import (
    baseline_comparison,
    baseline_text,
    evaluate,
    fit_plackett_luce,
    sign_test,
    wilson_interval,
)

# scripted agents on a deterministic game replay the same game on purpose in most tests here
pytestmark = pytest.mark.filterwarnings("ignore:.*repeat an earlier game:UserWarning")


class PickGame(Game):
    name = "pick_v0"
    num_actions = 10
    observation_layout = [("vector", (4,))]

    def __init__(self, num_seats=2, rounds=3, seat0_wins_ties=False, endless=False):
        self.num_seats, self.rounds, self.seat0_wins_ties, self.endless = num_seats, rounds, seat0_wins_ties, endless

    def options(self):
        return {"num_seats": self.num_seats, "rounds": self.rounds, "seat0_wins_ties": self.seat0_wins_ties}

    def _new_state(self, rng):
        return PickState(self, rng)


class PickState(State):
    def __init__(self, game, rng):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        self.totals = [0] * game.num_seats

    @property
    def current_player(self):
        return -1 if self.is_terminal() else len(self.history) % self.game.num_seats

    def legal_actions_mask(self):
        return np.ones(10, np.int8)

    def _apply(self, action):
        self.totals[self.current_player] += action

    def is_terminal(self):
        return not self.game.endless and len(self.history) >= self.game.rounds * self.game.num_seats

    def scores(self):
        return [float(t) for t in self.totals]

    def returns(self):
        if not self.is_terminal():
            return np.zeros(self.game.num_seats)
        t = np.array(self.totals, float)
        if self.game.seat0_wins_ties and t[0] == t.max():
            t[0] += 0.5
        order = np.argsort(-t, kind="stable")
        out = np.zeros(len(t))
        ranks = np.linspace(1, -1, len(t))
        for value in np.unique(t):
            idx = np.flatnonzero(t == value)
            out[idx] = ranks[[int(np.flatnonzero(order == i)[0]) for i in idx]].mean()
        return out

    def final_info(self):
        return {"scores": self.scores()} if self.is_terminal() else {}

    def observation(self, seat):
        return np.zeros(4, np.float32)

    def action_to_str(self, action):
        return f"pick {action}"

    def clone(self):
        s = PickState(self.game, np.random.default_rng())
        s.rng.bit_generator.state = self.rng.bit_generator.state
        s.history, s.totals, s.seed = list(self.history), list(self.totals), self.seed
        return s


class Const(BaseAgent):
    def __init__(self, value, seed=None):
        super().__init__(seed)
        self.value = value
        self.name = f"const{value}"

    def act(self, obs, state=None):
        return self.value


class ConstFactory:
    """Picklable entrant factory."""

    def __init__(self, value):
        self.value, self.name = value, f"const{value}"

    def __call__(self, game, seed):
        return Const(self.value, seed)


def run(game, values, **kw):
    kw.setdefault("workers", 1)
    kw.setdefault("progress", False)
    kw.setdefault("opening_moves", 0)
    kw.setdefault("bootstrap", 50)
    return evaluate(game, [ConstFactory(v) for v in values], **kw)


# ------------------------------------------------------------------------------ statistics ----
def test_wilson_interval_known_values():
    lo, hi = wilson_interval(6, 10)
    assert lo == pytest.approx(0.3127, abs=1e-4) and hi == pytest.approx(0.8318, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(3.8415 / 13.8415, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(1 - 3.8415 / 13.8415, abs=1e-4)
    lo, hi = wilson_interval(500, 1000)
    assert lo == pytest.approx(0.4691, abs=1e-4) and hi == pytest.approx(0.5309, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_sign_test_matches_the_exact_tail_and_is_fast_for_many_games():
    import math
    for w, l in ((9, 1), (60, 40), (300, 240), (1000, 1000)):
        k, n = min(w, l), w + l
        exact = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)
        assert sign_test(w, l) == pytest.approx(exact, rel=1e-9)
    # 100,000 games (an evaluation a test once ran in full): exact big integers took hours
    assert sign_test(71365, 28635) == 0.0
    normal = math.erfc(abs(49900 + 0.5 - 50000) / math.sqrt(100000 / 4) / math.sqrt(2))   # continuity-corrected
    assert sign_test(50100, 49900) == pytest.approx(normal, abs=1e-3)


def test_sign_test_exact_values():
    assert sign_test(9, 1) == pytest.approx(22 / 1024)
    assert sign_test(1, 9) == sign_test(9, 1)
    assert sign_test(10, 0) == pytest.approx(2 / 1024)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0
    assert sign_test(60, 40) == pytest.approx(0.05689, abs=1e-4)
    assert 0 < sign_test(3000, 2000) < 1e-40  # big n: exact integers, no overflow


def test_bradley_terry_recovers_known_ratio():
    # A beats B 75 times out of 100: BT strength ratio 3 -> 400*log10(3) Elo apart (no prior)
    logs = fit_plackett_luce([(0, 1), (1, 0)], [75, 25], 2, prior=0.0)
    assert (logs[0] - logs[1]) * 400 / math.log(10) == pytest.approx(400 * math.log10(3), abs=0.5)


# ------------------------------------------------------------------------------ schedule ------
def test_counts_and_seat_balance_two_players():
    rep = run(PickGame(), [9, 0], games=10)
    strong, weak = rep.agent("const9"), rep.agent("const0")
    assert rep.data["total_games"] == 10
    assert (strong["wins"], strong["draws"], strong["losses"]) == (10, 0, 0)
    assert (weak["wins"], weak["draws"], weak["losses"]) == (0, 0, 10)
    assert strong["by_seat"]["0"]["games"] == strong["by_seat"]["1"]["games"] == 5
    pair = rep.pair("const9", "const0")
    assert (pair["wins"], pair["draws"], pair["losses"]) == (10, 0, 10 - 10)
    assert pair["p_value"] == pytest.approx(2 / 1024)
    assert pair["win_rate_ci95"] == pytest.approx(list(wilson_interval(10, 10)))
    assert rep.pair("const0", "const9")["wins"] == 0
    assert strong["mean_score"] == 27 and weak["mean_score"] == 0
    assert strong["mean_length"] == 6
    seeds = [r.agent_seeds for r in rep.records]
    assert len(set(seeds)) == len(seeds), "each game gets its own agent seeds"


def test_games_rounded_up_to_whole_blocks():
    rep = run(PickGame(), [9, 0], games=3)
    assert rep.data["total_games"] == 4


def test_seat_advantage_is_balanced_out():
    rep = run(PickGame(seat0_wins_ties=True), [5, 5], games=20, names=["a", "b"])
    a, b = rep.agent("a"), rep.agent("b")
    assert a["wins"] == b["wins"] == 10
    assert a["by_seat"]["0"]["wins"] == 10 and a["by_seat"]["1"]["wins"] == 0
    assert rep.pair("a", "b")["p_value"] == 1.0


def test_draws_counted():
    rep = run(PickGame(), [4, 4], games=6, names=["x", "y"])
    assert rep.agent("x")["draws"] == 6 and rep.agent("x")["win_rate"] == 0.0
    assert rep.agent("x")["score_rate"] == 0.5


def test_ratings_order_and_head_to_head():
    rep = run(PickGame(), [9, 5, 0], games=10, bootstrap=100)
    assert rep.data["total_games"] == 30  # 3 pairs x 10
    elo = {n: rep.data["ratings"][n]["elo"] for n in rep.names}
    assert elo["const9"] > elo["const5"] > elo["const0"]
    assert sum(elo.values()) == pytest.approx(0, abs=1e-6)
    for n in rep.names:
        lo, hi = rep.data["ratings"][n]["elo_ci95"]
        assert lo <= elo[n] + 1e-6 and elo[n] - 1e-6 <= hi
    h2h = rep.data["head_to_head"]
    assert h2h["const9"]["const5"]["win_rate"] == 1.0 and h2h["const5"]["const9"]["win_rate"] == 0.0
    assert rep.agent("const5")["wins"] == 10 and rep.agent("const5")["losses"] == 10


def test_plackett_luce_three_players():
    rep = run(PickGame(num_seats=3), [9, 5, 0], games=6)
    assert make_groups(3, 3) == [(0, 1, 2)]
    assert rep.data["total_games"] == 6  # the 6 seatings once each
    assert rep.agent("const9")["wins"] == 6
    assert rep.agent("const5")["losses"] == 6  # second place is not a win
    assert rep.pair("const5", "const0")["wins"] == 6  # but it beats the third pairwise
    for name in rep.names:
        assert all(s["games"] == 2 for s in rep.agent(name)["by_seat"].values())
    elo = {n: rep.data["ratings"][n]["elo"] for n in rep.names}
    assert elo["const9"] > elo["const5"] > elo["const0"]


def test_a_baseline_plays_the_same_games_with_only_the_first_agent_changed():
    """``baseline_comparison`` (``arena eval --baseline``, issue 45's "1.5 times a heuristic's in the
    same seat"): the games' engine seeds, openings and seat arrangements come from the evaluation's
    seed alone, so the baseline in the first agent's place plays the very same starts; the ratio is
    read from the two reports; an evaluation that differs in more than the first agent is refused."""
    game, others = PickGame(num_seats=4, rounds=1), [ConstFactory(5), ConstFactory(3), ConstFactory(1)]
    kw = dict(games=48, workers=1, progress=False, opening_moves=1, bootstrap=10, seed=3)
    rep = evaluate(game, [ConstFactory(8), *others], **kw)
    base = evaluate(game, [ConstFactory(6), *others], **kw)
    starts = [(r.engine_seed, r.arrangement, r.history[0]) for r in rep.records]
    assert starts == [(r.engine_seed, r.arrangement, r.history[0]) for r in base.records]
    assert len(set(starts)) > 1
    c = baseline_comparison(rep, base)
    a, b = rep.agent("const8"), base.agent("const6")
    assert 0 < b["wins"] < a["wins"] and (c["agent"], c["baseline"], c["games"]) == ("const8", "const6", 48)
    assert (c["wins"], c["baseline_wins"], c["win_rate_ci95"]) == (a["wins"], b["wins"], list(a["win_rate_ci95"]))
    assert c["ratio"] == pytest.approx(a["win_rate"] / b["win_rate"])
    assert c["ratio_lower"] == pytest.approx(a["win_rate_ci95"][0] / b["win_rate"])
    assert f"{100 * a['win_rate']:.1f}%" in baseline_text(c) and f"{c['ratio']:.2f}x" in baseline_text(c)
    still = dict(kw, opening_moves=0)   # no random first pick: 0 never comes first
    never = baseline_comparison(evaluate(game, [ConstFactory(8), *others], **still),
                                evaluate(game, [ConstFactory(0), *others], **still))
    assert never["baseline_wins"] == 0 and never["ratio"] is None and never["ratio_lower"] is None
    assert "the baseline never finished first" in baseline_text(never)
    for other in (evaluate(game, [ConstFactory(6), *others], **dict(kw, seed=4)),
                  evaluate(game, [ConstFactory(6), *others], **dict(kw, games=24)),
                  evaluate(game, [ConstFactory(6), others[0], others[0], others[2]], **kw)):
        with pytest.raises(ValueError, match="only the first agent changed"):
            baseline_comparison(rep, other)


def test_copies_of_one_agent_are_one_seating():
    """Three copies of one agent beside X make 4 seatings a block (X in each seat), not 24: the
    other 20 only swapped exchangeable copies, replaying one deal with X in one seat six times (a
    4-player evaluation of 408 games was 17 deals, its intervals as if 408 were independent). Each
    copy still takes every seat over the blocks; equal spec strings are copies too."""
    game, copy = PickGame(num_seats=4, rounds=1), ConstFactory(3)
    rep = evaluate(game, [ConstFactory(8), copy, copy, copy], games=12, workers=1, progress=False,
                   opening_moves=1, bootstrap=0, seed=5, names=["x", "h", "h2", "h3"])
    assert rep.data["total_games"] == 12 and len({r.engine_seed for r in rep.records}) == 3
    for block in {r.block for r in rep.records}:
        seats = [r.arrangement.index(0) for r in rep.records if r.block == block]
        assert sorted(seats) == [0, 1, 2, 3]
    for name in ("x", "h", "h2", "h3"):
        assert {k: v["games"] for k, v in rep.agent(name)["by_seat"].items()} == {"0": 3, "1": 3, "2": 3, "3": 3}
    assert seat_kinds(["ppo:a", "heuristic", "heuristic", "random", "heuristic"]) == [0, 1, 1, 3, 1]
    assert len(arrangements((0, 1, 2, 3), seat_kinds(["a", "b", "c", "d"]))) == 24   # all different: all 24
    assert arrangements((0, 1), seat_kinds(["h", "h"]), 0) == [(0, 1)]   # a mirror: one game a block,
    assert arrangements((0, 1), seat_kinds(["h", "h"]), 1) == [(1, 0)]   # seats swapped the next


def test_a_baseline_that_copies_the_others_sits_where_the_agent_sat():
    """``arena eval --agents X h h h --baseline h``: the baseline run is four copies (one seating a
    block by itself), so it is seated like the agent's run (``seat_like``): the same starts, and the
    comparison holds; without it the schedules differ and the comparison is refused."""
    game, copy = PickGame(num_seats=4, rounds=1), ConstFactory(3)
    kw = dict(games=16, workers=1, progress=False, opening_moves=1, bootstrap=0, seed=9)
    agents = [ConstFactory(8), copy, copy, copy]
    rep = evaluate(game, agents, **kw)
    base = evaluate(game, [copy, copy, copy, copy], seat_like=agents, **kw)
    assert [(r.engine_seed, r.arrangement) for r in rep.records] == \
        [(r.engine_seed, r.arrangement) for r in base.records]
    assert baseline_comparison(rep, base)["games"] == 16
    with pytest.raises(ValueError, match="only the first agent changed"):
        baseline_comparison(rep, evaluate(game, [copy, copy, copy, copy], **kw))   # seated by itself
    with pytest.raises(ValueError, match="seat_like lists 2 agents"):
        evaluate(game, agents, seat_like=agents[:2], **kw)


def test_fewer_agents_than_seats_are_cycled():
    rep = run(PickGame(num_seats=3), [9, 0], games=3)
    assert rep.data["total_games"] == 3  # seatings of (a, b, a)
    assert rep.agent("const9")["games"] == 6  # two seats per game
    assert rep.agent("const0")["losses"] == 3


def test_truncation_counted_as_draw():
    with pytest.warns(UserWarning, match="move cap"):
        rep = run(PickGame(endless=True), [9, 0], games=2, max_steps=7)
    assert rep.data["truncated_games"] == 2
    assert rep.agent("const9")["draws"] == 2 and rep.agent("const9")["truncations"] == 2
    assert rep.agent("const9")["mean_score"] is None


class LongPickGame(PickGame):
    """PickGame declaring how long it can be (rounds = 1200: longer than the old 1000 cap)."""

    def max_game_length(self):
        return self.rounds * self.num_seats


def test_default_move_cap_is_the_games_length():
    """Issue 44: with no ``max_steps`` the evaluator caps a game at the game's own
    ``max_game_length()``, so no game is cut before its ending (before: 1000 moves, which
    truncated 3-4 player Zaberias and Warbah games as draws); 1000 where the game has none; an
    explicit cap still holds."""
    rep = run(LongPickGame(rounds=1200), [9, 0], games=2)
    assert rep.data["settings"]["max_steps"] == 2400
    assert rep.data["truncated_games"] == 0 and rep.agent("const9")["wins"] == 2
    assert run(PickGame(), [9, 0], games=2).data["settings"]["max_steps"] == 1000
    with pytest.warns(UserWarning, match="move cap"):
        assert run(LongPickGame(rounds=1200), [9, 0], games=2, max_steps=5).data["settings"]["max_steps"] == 5


# ------------------------------------------------------------------------------ distinct games --
def test_repeated_games_are_counted_and_warned():
    with pytest.warns(UserWarning, match="repeat"):
        rep = run(PickGame(), [9, 0], games=10, opening_moves=0)
    assert rep.data["distinct_games"] == 2  # one game per seating, replayed 5 times
    assert any("repeat" in w for w in rep.data["warnings"])


def test_random_openings_vary_games_and_are_shared_by_a_pair():
    rep = run(PickGame(), [9, 0], games=40, opening_moves=1)
    assert rep.data["distinct_games"] > 2
    # the opening (first pick) is the same for both seatings of a block
    starts = {}
    for r in rep.records:
        starts.setdefault(r.block, set()).add((r.engine_seed, r.history[0]))
    assert all(len(s) == 1 for s in starts.values())
    assert len({r.engine_seed for r in rep.records}) == 20  # a fresh start per block
    assert rep.agent("const9")["wins"] == 40  # a random first pick cannot save const0


# ------------------------------------------------------------------------------ output ----------
def test_report_files(tmp_path):
    rep = run(PickGame(), [9, 5], games=4, out=tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["total_games"] == 4 and data["agents"] == ["const9", "const5"]
    md = (tmp_path / "report.md").read_text()
    assert "Head to head" in md and "const9" in md
    assert (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"
    table = rep.table()
    assert "const9" in table and "vs" in table


def test_parallel_equals_serial_on_registered_game():
    from tabletop_arena import envs
    name = envs.names()[0]
    opts = next(iter(envs.variants(name).values()), {})
    kw = dict(options=opts, games=4, seed=3, opening_moves=1, progress=False, bootstrap=0)
    serial = evaluate(name, ["random", "random"], workers=1, **kw)
    parallel = evaluate(name, ["random", "random"], workers=2, **kw)
    assert [r.history_hash for r in serial.records] == [r.history_hash for r in parallel.records]
    assert serial.data["per_agent"] == parallel.data["per_agent"]
    assert serial.names == ["random", "random#2"]


class SpinFactory(ConstFactory):
    """Const, but each decision burns ``ms`` milliseconds of process CPU time first."""

    def __init__(self, value, ms):
        super().__init__(value)
        self.ms, self.name = ms, f"spin{value}"

    def __call__(self, game, seed):
        agent, ms = Const(self.value, seed), self.ms

        def act(obs, state=None):
            end = time.process_time() + ms / 1000
            while time.process_time() < end:
                pass
            return agent.value
        agent.act = act
        return agent


@pytest.mark.parametrize("workers", [1, 2])
def test_the_report_times_each_agents_decisions(workers, tmp_path):
    """Every decision after the opening is timed, for the agent that made it (copies pooled): the
    counts add up to the games' moves, an agent that spins 5 ms of CPU a move is timed at least
    that, in worker processes too; the timing is in report.json and report.md, not in per_agent
    (which stays equal between runs)."""
    rep = evaluate(PickGame(num_seats=2, rounds=3), [SpinFactory(9, 5), ConstFactory(1)], games=4,
                   workers=workers, progress=False, opening_moves=1, bootstrap=0, out=tmp_path)
    spin, const = rep.data["move_cpu"]["spin9"], rep.data["move_cpu"]["const1"]
    moves = sum(len(r.history) - 1 for r in rep.records)   # the opening's random move is nobody's
    assert spin["decisions"] + const["decisions"] == moves and spin["decisions"] > 0 and const["decisions"] > 0
    assert spin["mean_s"] >= 0.005 and spin["max_s"] >= spin["mean_s"] > const["mean_s"]
    assert spin["per_game_s"] == pytest.approx(spin["mean_s"] * spin["decisions"] / rep.data["total_games"])
    assert "move_cpu" not in rep.data["per_agent"]["spin9"]
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["move_cpu"]["spin9"]["decisions"] == spin["decisions"]
    assert "## Time a decision" in (tmp_path / "report.md").read_text() and "longest" in rep.table()


def test_bad_arguments():
    with pytest.raises(ValueError):
        run(PickGame(), [9, 0], games=0)
    with pytest.raises(ValueError, match="unique"):
        run(PickGame(), [9, 0], games=2, names=["a", "a"])
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate("peacekeepers", ["nonsense", "random"], games=2, workers=1, progress=False)


class _ThreadSpy(Const):
    seen: list = []

    def act(self, obs, state=None):
        import torch
        _ThreadSpy.seen.append(torch.get_num_threads())
        return self.value


class _SpyFactory(ConstFactory):
    def __call__(self, game, seed):
        return _ThreadSpy(self.value, seed)


def test_in_process_evaluation_runs_torch_on_one_thread_and_restores_it():
    """workers=1 plays in the calling process: torch runs on one thread meanwhile, as in the worker
    processes (more threads only spin on a busy machine: 10 Peacekeepers games took 9.2 s instead
    of 6.2 s at load 2.3), and the caller's thread count comes back afterwards."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        _ThreadSpy.seen = []
        evaluate(PickGame(), [_SpyFactory(9), ConstFactory(0)], games=4, workers=1, progress=False,
                 opening_moves=0, bootstrap=10)
        assert _ThreadSpy.seen and set(_ThreadSpy.seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("spec", ["ppo:zaka", "puct:2:zaka"])
def test_worker_processes_run_torch_agents_on_one_thread(spec):
    """Each evaluation worker is one core: an agent that runs a network (ppo, puct) gets one torch
    thread in it, however torch comes to be imported (two puct:64 workers on 2 cores with torch's
    default threads took 15x the CPU time of one worker). Run as a fresh interpreter does it."""
    pytest.importorskip("torch")
    import os
    import subprocess
    import sys
    code = ("import sys\n"
            "from tabletop_arena.train.evaluate import _Context, _init_worker\n"
            f"ctx = _Context(('registry', 'zaka_v0', {{'num_players': 2}}), [{spec!r}, 'heuristic'], 100)\n"
            "assert 'torch' not in sys.modules\n"
            "_init_worker(ctx)\n"
            "ctx.agent(0, 0, 1)\n"
            "import torch\n"
            "print(torch.get_num_threads())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "1"


def test_a_stop_reports_the_finished_blocks_in_process(tmp_path, monkeypatch):
    """Stopped at the third block of an in-process evaluation: with ``out`` the report of the two
    finished blocks is written and the stop says where; without ``out`` nothing is written."""
    import signal

    from tabletop_arena.train import evaluate as evaluate_module
    from tabletop_arena.train.stops import Stopped
    original, calls = evaluate_module._run_block, []

    def stopping(task):
        calls.append(task)
        if len(calls) == 3:
            raise Stopped(signal.SIGTERM)
        return original(task)
    monkeypatch.setattr(evaluate_module, "_run_block", stopping)
    with pytest.raises(Stopped, match=r"after 4 of 10 games, whose report is .*report\.md") as stop:
        run(PickGame(), [9, 5], games=10, out=tmp_path / "e")
    assert stop.value.exit_code == 143
    data = json.loads((tmp_path / "e" / "report.json").read_text())
    assert data["total_games"] == 4 and data["settings"]["stopped_after"] == 4
    assert data["warnings"][0].startswith("stopped early: 4 of the 10 planned games")
    assert data["per_agent"]["const9"]["games"] == 4
    calls.clear()
    with pytest.raises(Stopped) as bare:
        run(PickGame(), [9, 5], games=10)
    assert bare.value.detail == ""
