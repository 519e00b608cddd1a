"""Gorgasali rendering: the rgb_array picture of the map (and the ansi text still works)."""
from __future__ import annotations

import numpy as np

from tabletop_arena import envs
from tabletop_arena.envs.gorgasali import actions as A


def test_rgb_array_shape_dtype_and_changes_when_a_player_moves():
    """render_mode='rgb_array' gives an H x W x 3 uint8 picture of the map, zones, chests and
    players, which changes when a figure moves."""
    env = envs.make("gorgasali_v0", num_players=2, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[0] > A.SIZE * 24 and img.shape[1] > A.SIZE * 24   # the map and its panel
    st = env.unwrapped.state_
    seat = st.current_player
    before = st.pos[seat]
    target = next(q for q in range(A.SQUARES) if st.game.cost[q] and q not in st.occupied()
                  and q != before)
    st.pos[seat] = target
    after = env.render()
    assert after.shape == img.shape and not np.array_equal(img, after)
    st.pos[seat] = before
    assert np.array_equal(env.render(), img)


def test_rgb_array_through_a_duo_game_and_ansi():
    """The picture renders through a whole random duo game (zones going out, banners, fallen
    teammates) and the ansi text is unchanged."""
    env = envs.make("gorgasali_v0", num_players=4, mode="duo", render_mode="rgb_array")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for k, _agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if k % 25 == 0:
            img = env.render()
            assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert env.render().shape[2] == 3
    text = envs.make("gorgasali_v0", num_players=2, render_mode="ansi")
    text.reset(seed=0)
    assert "Gorgasali" in text.render()


def test_ansi_text_without_colours_marks_the_inactive_zones():
    """Without colours (no zone backgrounds) the ground of an inactive zone shows as ':'."""
    env = envs.make("gorgasali_v0", num_players=2, render_mode="ansi")
    env.reset(seed=0)
    st = env.unwrapped.state_
    zone = st.game.board.zone

    def grid():
        rows = st.render_text(color=False).splitlines()[2:2 + A.SIZE]
        return [row[4:] for row in rows]

    assert ":" not in "".join(grid())
    st.zones_out = 1
    g = grid()
    for sq in range(A.SQUARES):
        ch = g[sq // A.SIZE][sq % A.SIZE]
        assert ch != ":" or zone[sq] <= 1
        if zone[sq] == 1 and ch not in ":0123456789":
            assert ch != "."    # terrain, chests and the like keep their glyphs
    assert sum(row.count(":") for row in g) > 0
    assert ":" not in "".join(row for r, row in enumerate(g) if all(zone[r * A.SIZE + c] > 1
                                                                  for c in range(A.SIZE)))


def test_text_names_what_a_player_stands_on():
    """A player's digit covers its square on the text board, so its line says where it stands and
    what lies there: a Tree Platform placed on the player's own square (the rulebook's Tree
    Platform is stood on) and a chest were hidden before."""
    game = envs.make_game("gorgasali_v0", num_players=2)
    st = game.new_initial_state(np.random.default_rng(5))
    sq = st.pos[0]
    st.banners.append(("tree", (sq,), 0, 3))
    st.chests.add(sq)
    col, row = chr(ord("A") + sq % A.SIZE), sq // A.SIZE + 1
    line = next(x for x in st.render_text().splitlines() if x.strip().startswith(st.name(0)))
    assert f"at {col}{row} on a tree platform, a chest" in line
    other = st.pos[1]
    line1 = next(x for x in st.render_text().splitlines() if x.strip().startswith(st.name(1)))
    assert f"at {chr(ord('A') + other % A.SIZE)}{other // A.SIZE + 1} " in line1 + " "
