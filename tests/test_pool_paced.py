"""``train.stops.pool_paced``: the evaluator's worker pool, with chunks sized by the tasks' time."""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from tabletop_arena.train.stops import pool_paced


def _square(x: int) -> int:
    return x * x


def _slow_square(x: int) -> int:
    time.sleep(0.02)
    return x * x


def _fail_at_five(x: int) -> int:
    if x == 5:
        raise ValueError("task 5 failed")
    return x


@pytest.fixture(scope="module")
def pool():
    with mp.get_context("spawn").Pool(2) as p:
        yield p


def test_every_task_comes_back_once_and_cheap_tasks_travel_in_large_chunks(pool):
    parts = list(pool_paced(pool, _square, list(range(200)), workers=2, max_chunk=8, seconds=60.0))
    assert sorted(x for part in parts for x in part) == [x * x for x in range(200)]
    sizes = [len(part) for part in parts]
    assert sizes[0] == 1 and sizes.count(1) >= 4   # the first two a worker, before any task is timed
    assert max(sizes) == 8 and sizes.count(8) >= 20, sizes


def test_slow_tasks_come_back_one_at_a_time(pool):
    parts = list(pool_paced(pool, _slow_square, list(range(12)), workers=2, max_chunk=8, seconds=0.001))
    assert [len(part) for part in parts] == [1] * 12
    assert sorted(x for part in parts for x in part) == [x * x for x in range(12)]


def test_a_tasks_error_is_raised(pool):
    with pytest.raises(ValueError, match="task 5 failed"):
        for _ in pool_paced(pool, _fail_at_five, list(range(40)), workers=2, max_chunk=4):
            pass


def test_no_tasks_no_chunks(pool):
    assert list(pool_paced(pool, _square, [], workers=2, max_chunk=8)) == []
