"""``arena bench`` plumbing: the table's ratios come from the numbers measured (no timing is
asserted; benchmarks print numbers, tests do not time)."""
from __future__ import annotations

import pytest

from tabletop_arena.app.bench import BenchResult, format_table, round_ratios, run


def _res(name, steps, seconds, rates):
    return BenchResult(name, "default", steps, 10, seconds, list(rates))


def test_table_ratio_and_per_round_range():
    ref = _res("connect_four_v3", 1000, 1.0, [400.0, 600.0])
    env = _res("x_v0", 1500, 1.0, [800.0, 900.0])
    assert round_ratios(env, ref) == [2.0, 1.5]
    table = format_table([ref, env]).splitlines()
    assert table[0].endswith("| per-round range |")
    assert table[3] == "| x_v0 | default | 1,500 | 150 | 1.50 | 1.50-2.00 |"


def test_table_without_rounds_has_no_range_column():
    ref = _res("connect_four_v3", 1000, 1.0, [1000.0])
    env = _res("x_v0", 500, 1.0, [500.0])
    table = format_table([ref, env]).splitlines()
    assert "range" not in table[0] and table[3].endswith("| 0.50 |")


def test_run_measures_every_round_of_each_env():
    pytest.importorskip("pettingzoo.classic")
    results = run(["zaka"], seconds=0.2, rounds=2)
    assert [r.name for r in results] == ["connect_four_v3", "zaka_v0"]
    for r in results:
        assert len(r.round_rates) == 2 and r.steps > 0 and r.games >= 1


@pytest.mark.parametrize("kwargs", [dict(rounds=0), dict(rounds=1.5), dict(seconds=0)])
def test_run_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError):
        run(["zaka"], **kwargs)
