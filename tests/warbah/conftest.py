"""Warbah scenario tests edit states by hand between actions; they must never see a mask that
was computed before such an edit, so the advance-time mask reuse (a speed-up for real play) is
off here. tests/warbah/test_speed.py checks that play is identical with it on and off."""
import pytest

from tabletop_arena.envs.warbah.rules import WarbahState


@pytest.fixture(autouse=True)
def _no_advance_mask_reuse(monkeypatch):
    monkeypatch.setattr(WarbahState, "reuse_advance_mask", False)
