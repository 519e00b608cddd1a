"""Peacekeepers text render: what the plain text (no colours) must still tell a reader."""
from __future__ import annotations

import re

import numpy as np

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers.board import LETTERS, cell_name


def test_text_render_legend_and_pending_sub_step():
    """The plain-text render explains every letter a hand or the board can show (brown N and
    gray A included) and names the cube whose sub-step is pending (colour only underlines it)."""
    game = envs.make_game("peacekeepers_v0", mode="competitive", num_players=2)
    st = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while st.pending_cell < 0:
        legal = st.legal_actions()
        st.apply(legal[rng.integers(len(legal))])
    text = st.render_text(color=False)
    legend = next(line for line in text.splitlines() if line.startswith("legend:"))
    assert set(re.findall(r"\b([A-Z]) [a-z]", legend)) == set(LETTERS)
    assert f"for the cube at {cell_name(st.pending_cell)}" in text.splitlines()[-1]
