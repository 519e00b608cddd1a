"""Pictures and text renders of every game: sizes, change, hidden information, colour codes, and
the recordings of ``arena eval --record``."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from tabletop_arena import envs

#: one variant per game with hidden information where the game has some
CASES = {
    "peacekeepers_v0": {"mode": "competitive", "num_players": 2, "rules": {"hidden_hands": True}},
    "zaka_v0": {"num_players": 2},
    "zaberias_v0": {"num_players": 2},
    "gorgasali_v0": {"num_players": 4},
    "warbah_v0": {"num_players": 2},
}


def test_every_registered_game_is_covered():
    assert set(CASES) == set(envs.names())


def _played(name: str, moves: int, seed: int = 0):
    """A running position after up to ``moves`` random legal moves."""
    game = envs.make_game(name, **CASES[name])
    st = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    for _ in range(moves):
        legal = st.legal_actions()
        nxt = st.clone()
        nxt.apply(legal[rng.integers(len(legal))])
        if nxt.is_terminal():
            break
        st = nxt
    return st


@pytest.mark.parametrize("name", sorted(CASES))
def test_rgb_array_is_a_readable_picture_that_follows_the_game(name):
    """render_mode='rgb_array' gives an H x W x 3 uint8 picture of a readable size (the long side
    about 600-1100 pixels), drawn with more than a handful of colours, and a later position
    gives another picture."""
    env = envs.make(name, render_mode="rgb_array", **CASES[name])
    env.reset(seed=3)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8
    assert first.ndim == 3 and first.shape[2] == 3
    assert 600 <= max(first.shape[:2]) <= 1400 and min(first.shape[:2]) >= 400, first.shape
    packed = first.astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], np.int32)
    assert len(np.unique(packed)) > 20   # drawn in colour, not a blank or two-tone page
    st = env.unwrapped.state_
    rng = np.random.default_rng(0)
    for _ in range(12):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    later = env.render()
    assert later.dtype == np.uint8 and later.shape[2] == 3
    assert later.shape != first.shape or not np.array_equal(later, first)


@pytest.mark.parametrize("name", sorted(CASES))
def test_renders_hold_through_a_whole_random_game(name):
    """Text (spectator and seat 0) at every position and pictures every few moves, through a
    random game to its end (battles, eliminations, the result): nothing in a game's life breaks
    a render."""
    seed = 6 if name == "warbah_v0" else 8   # Warbah seed 6: monster battles and fleets
    game = envs.make_game(name, **CASES[name])
    st = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    steps = 0
    while True:
        assert st.render_text() and st.render_text(observer=0)
        if steps % 40 == 0 or st.is_terminal():
            for observer in (None, 0):
                img = st.render_rgb(observer=observer)
                assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        if st.is_terminal() or steps >= 1500:
            break
        legal = st.legal_actions()
        st.apply(legal[rng.integers(len(legal))])
        steps += 1


@pytest.mark.parametrize("name", sorted(CASES))
def test_picture_for_an_observer_hides_what_the_observer_cannot_see(name):
    """A picture drawn for seat A is the same for every resampling of what A cannot see
    (``State.determinize``: the others' hidden cards, troop splits, deck order), at positions
    along a random game, while the spectator's picture does show hidden cards somewhere (so the
    comparison can fail)."""
    game = envs.make_game(name, **CASES[name])
    st = game.new_initial_state(np.random.default_rng(5))
    rng = np.random.default_rng(6)
    observer, checked, spectator_changed = 0, 0, False
    for step in range(1, 301):
        legal = st.legal_actions()
        nxt = st.clone()
        nxt.apply(legal[rng.integers(len(legal))])
        if nxt.is_terminal():
            break
        st = nxt
        if step % 15:
            continue
        base = st.render_rgb(observer=observer)
        other = st.determinize(observer, rng)
        assert np.array_equal(other.render_rgb(observer=observer), base), f"move {step}"
        checked += 1
        if not spectator_changed and game.hidden_information:
            spectator_changed = not np.array_equal(other.render_rgb(observer=None),
                                                   st.render_rgb(observer=None))
        if checked >= 4 and (spectator_changed or not game.hidden_information):
            break
    assert checked >= 2
    if game.hidden_information:
        assert spectator_changed, "the spectator's picture never showed a hidden card"


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_renders_carry_colour_codes_only_when_asked(name):
    """``render_text`` and ``render()`` in ansi mode are plain text (no ESC) unless colour is
    asked for (``color=True`` / ``ansi_color=True``); human mode prints plain text into a pipe."""
    st = _played(name, 30, seed=2)
    assert "\x1b" not in st.render_text()
    assert "\x1b" not in st.render_text(observer=0)
    env = envs.make(name, render_mode="ansi", **CASES[name])
    env.reset(seed=0)
    assert "\x1b" not in env.render()
    coloured = envs.make(name, render_mode="ansi", ansi_color=True, **CASES[name])
    coloured.reset(seed=0)
    assert coloured.render().replace("\x1b", "") != "" and isinstance(coloured.render(), str)
    human = envs.make(name, render_mode="human", **CASES[name])
    human.reset(seed=0)
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out   # a pipe: not a terminal
    try:
        human.step(human.unwrapped.state_.legal_actions()[0])
    finally:
        sys.stdout = saved
    assert out.getvalue().strip() and "\x1b" not in out.getvalue()


def test_colour_follows_the_terminal_and_no_color(monkeypatch):
    """The terminal test behind human mode and ``arena play``: a TTY without NO_COLOR only."""
    from tabletop_arena.envs.core.terminal import supports_color

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert supports_color(Tty()) and not supports_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not supports_color(Tty())
    with pytest.raises(envs.ConfigError, match="ansi_color"):
        envs.make("zaka_v0", render_mode="ansi", ansi_color="yes")


def test_peacekeepers_ansi_color_option_colours_the_board():
    env = envs.make("peacekeepers_v0", render_mode="ansi", ansi_color=True)
    env.reset(seed=0)
    assert "\x1b[" in env.render()


def test_record_game_writes_an_animated_gif(tmp_path):
    """A recording is a GIF with one frame per move after the start (thinned to max_frames),
    the frames all of one size."""
    from PIL import Image

    from tabletop_arena.app.record import RecordingError, record_game

    game = envs.make_game("peacekeepers_v0", mode="competitive", num_players=2)
    st = game.new_initial_state(np.random.default_rng(4))
    rng = np.random.default_rng(4)
    actions = []
    for _ in range(6):
        legal = st.legal_actions()
        a = legal[rng.integers(len(legal))]
        st.apply(a)
        actions.append(a)
    path = record_game(game, 4, actions, tmp_path / "g.gif", players=["heuristic", "random"])
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == 7
        assert im.size[0] >= 600
    thin = record_game(game, 4, actions, tmp_path / "thin.gif", max_frames=3)
    with Image.open(thin) as im:
        assert 2 < im.n_frames <= 4
    with pytest.raises(RecordingError, match="gif or .mp4"):
        record_game(game, 4, actions, tmp_path / "g.avi")


def test_eval_record_option_writes_gifs_into_the_out_folder(tmp_path):
    """``arena eval --record N`` writes N games into --out next to the report."""
    from PIL import Image

    from tabletop_arena.app.cli import main

    out = tmp_path / "ev"
    with pytest.warns(UserWarning, match="hit the move cap"):   # a 20-move cap, for speed
        rc = main(["eval", "zaka", "--agents", "heuristic", "random", "--games", "2", "--workers", "1",
                   "--out", str(out), "--record", "1", "--no-progress", "--max-steps", "20"])
    assert rc == 0
    gifs = sorted(out.glob("game_*.gif"))
    assert len(gifs) == 1 and (out / "report.json").exists()
    with Image.open(gifs[0]) as im:
        assert im.n_frames > 1


def test_mp4_needs_imageio_ffmpeg(tmp_path, monkeypatch):
    """MP4 without imageio-ffmpeg is a clear error (GIF needs only Pillow); with it, a video."""
    from tabletop_arena.app.record import RecordingError, record_game

    game = envs.make_game("peacekeepers_v0")
    st = game.new_initial_state(np.random.default_rng(0))
    actions = [st.legal_actions()[0]]
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "imageio_ffmpeg", None)   # as if not installed
        with pytest.raises(RecordingError, match="imageio-ffmpeg"):
            record_game(game, 0, actions, tmp_path / "g.mp4")
    ffmpeg = pytest.importorskip("imageio_ffmpeg")
    path = record_game(game, 0, actions, tmp_path / "g.mp4")
    reader = ffmpeg.read_frames(str(path))
    meta = next(reader)
    assert meta["size"][0] >= 600 and sum(1 for _ in reader) > 1
