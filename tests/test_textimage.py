"""The text-to-image fallback behind rgb_array renders (envs.core.textimage)."""
import numpy as np

from tabletop_arena.envs.core.textimage import DEFAULT_BG, parse, text_to_rgb


def test_parse_tracks_ansi_colours_and_reset():
    rows = parse("a\x1b[31mb\x1b[0mc\n\x1b[48;5;22md")
    (a, fa, _), (b, fb, _), (c, fc, _) = rows[0]
    assert (a, b, c) == ("a", "b", "c")
    assert fb == (205, 49, 49) and fa == fc != fb          # red, then back to the default
    (d, _, bg), = rows[1]
    assert d == "d" and bg == (0, 95, 0)                   # xterm-256 colour 22


def test_text_to_rgb_draws_coloured_cells():
    img = text_to_rgb("\x1b[48;5;22m  \x1b[0m xy")
    assert img.dtype == np.uint8 and img.shape[2] == 3
    assert (img.reshape(-1, 3) == (0, 95, 0)).all(axis=1).any()     # the background cells
    assert (img.reshape(-1, 3) != DEFAULT_BG).any(axis=1).sum() > 20  # glyphs were drawn
