"""Golden playthroughs of every registered game (tests/golden/__init__.py explains the files and
how to regenerate them after a deliberate rules change)."""
from __future__ import annotations

import os

import pytest

from tabletop_arena import envs
from tests.golden import GAMES, compare, write


def test_every_registered_game_has_a_golden_playthrough():
    """A new game gets its golden file too."""
    assert sorted(GAMES) == envs.names()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name):
    """The seeded game replays step for step: same actions, observations of every agent, masks,
    rewards and returns. A failure names the first differing step and the command that
    regenerates the file (after a deliberate rules change only; review the diff)."""
    if os.environ.get("REGENERATE_GOLDEN") == "1":
        write(name)
    msg = compare(name)
    if msg is not None:
        pytest.fail(msg, pytrace=False)
