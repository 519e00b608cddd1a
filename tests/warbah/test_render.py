"""Warbah's text render: a legend for every glyph, labelled troops, the capitol candidates of the
set-up, hidden index cards for other observers and the winner at the end."""
from __future__ import annotations

import re

import numpy as np

from tabletop_arena.envs.warbah import make_game
from tests.random_play import random_step


def test_setup_shows_the_capitol_candidates_named_by_the_actions():
    """SETUP: 'capitol at candidate k' is shown on the map as ck and listed with its cell."""
    st = make_game(num_players=2).new_initial_state(np.random.default_rng(0))
    assert st.phase == "capitol"
    text = st.render_text()
    listed = dict(re.findall(r"c(\d) = cell (\d+)", text))
    assert listed and all(int(st.capitol_candidates[int(k)]) == int(cell) for k, cell in listed.items())
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(" 0 "))
    grid = "\n".join(lines[top:top + st.game.h])
    for k in listed:
        assert f"c{k}" in grid
    legal = [st.action_to_str(a) for a in st.legal_actions()]
    assert any(f"capitol at candidate {k}" in s for k in listed for s in legal)


def test_legend_labelled_troops_and_hidden_index_cards():
    """The legend explains the map's glyphs; a Hero's troops are named by type; an enemy
    Hero's index card is hidden from an observer (only his army's size shows)."""
    g = make_game(num_players=2)
    st = g.new_initial_state(np.random.default_rng(1))
    rng = np.random.default_rng(1)
    while st.phase == "capitol" or st.battle is not None:
        random_step(st, rng)
    text = st.render_text()
    legend = next(line for line in text.splitlines() if line.startswith("legend:"))
    for glyph in ("??", "~~", "H", "@", "v village", "$ mine", "m marsh", "d desert", "E"):
        assert glyph in legend
    mine = [line for line in text.splitlines() if line.startswith("player_0 Hero")]
    assert mine and all("warriors" in line and "archers" in line and "cavalry" in line
                        and "catapults" in line for line in mine)
    seen_by_0 = st.render_text(observer=0)
    enemy = [line for line in seen_by_0.splitlines() if line.startswith("player_1 Hero")]
    assert enemy and all("index card hidden" in line and "warriors" not in line for line in enemy)
    first = next(h for h in st.heroes if h.seat == 1 and h.alive)
    total = int(first.troops.sum()) + int(first.specials.sum())
    assert f"army of {total} (index card hidden)" in enemy[0]


def test_the_end_names_the_winner():
    """Win condition (designed): the finished game's render says who won."""
    st = make_game(num_players=2).new_initial_state(np.random.default_rng(2))
    rng = np.random.default_rng(2)
    while not st.is_terminal():
        random_step(st, rng)
    last = st.render_text().splitlines()[-1]
    ret = st.returns()
    assert last.startswith("game over: ")
    if max(ret) > min(ret):
        assert f"player_{int(np.argmax(ret))} wins" in last
