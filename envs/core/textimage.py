"""Draw coloured terminal text (the games' ANSI renders) into an RGB image.

This is the ``rgb_array`` render of games without a drawn board: a faithful picture of what
``render_mode="ansi"`` prints, colours included, for video recorders and notebooks. It understands
the SGR codes the renders use: reset, bold, 16-colour and 256-colour foreground/background.
Drawing needs Pillow (``pip install pillow``; it comes with the ``train`` extra).
"""
from __future__ import annotations

import functools
import re

import numpy as np

_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_BASE16 = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200),
           (188, 63, 188), (17, 168, 205), (229, 229, 229), (102, 102, 102), (241, 76, 76),
           (35, 209, 139), (245, 245, 67), (59, 142, 234), (214, 112, 214), (41, 184, 219),
           (255, 255, 255)]
DEFAULT_FG, DEFAULT_BG = (220, 220, 220), (24, 24, 24)


def _xterm256(n: int) -> tuple[int, int, int]:
    if n < 16:
        return _BASE16[n]
    if n < 232:
        n -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    v = 8 + 10 * (n - 232)
    return v, v, v


def parse(text: str) -> list[list[tuple[str, tuple, tuple]]]:
    """Lines of (character, fg, bg) cells."""
    lines = []
    fg, bg, bold = DEFAULT_FG, DEFAULT_BG, False
    for raw in text.split("\n"):
        row: list[tuple[str, tuple, tuple]] = []
        pos = 0
        for m in _SGR.finditer(raw):
            row.extend((ch, fg, bg) for ch in raw[pos:m.start()])
            pos = m.end()
            codes = [int(c) for c in m.group(1).split(";") if c] or [0]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold = DEFAULT_FG, DEFAULT_BG, False
                elif c == 1:
                    bold = True
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    colour = _xterm256(codes[i + 2])
                    fg, bg = (colour, bg) if c == 38 else (fg, colour)
                    i += 2
                elif 30 <= c <= 37:
                    fg = _BASE16[c - 30 + (8 if bold else 0)]
                elif 90 <= c <= 97:
                    fg = _BASE16[c - 90 + 8]
                elif 40 <= c <= 47:
                    bg = _BASE16[c - 40]
                elif 100 <= c <= 107:
                    bg = _BASE16[c - 100 + 8]
                elif c == 39:
                    fg = DEFAULT_FG
                elif c == 49:
                    bg = DEFAULT_BG
                i += 1
        row.extend((ch, fg, bg) for ch in raw[pos:])
        lines.append(row)
    while lines and not lines[-1]:
        lines.pop()
    return lines


@functools.lru_cache(maxsize=1)
def _font():
    try:
        from PIL import ImageFont
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("render_mode='rgb_array' for this game draws its text render and needs "
                          "Pillow: pip install pillow") from exc
    return ImageFont.load_default()


def text_to_rgb(text: str, cell_w: int = 7, cell_h: int = 13) -> np.ndarray:
    """uint8 (H, W, 3) picture of ``text`` with its ANSI colours, ``cell_w x cell_h`` per character."""
    from PIL import Image, ImageDraw
    font = _font()
    lines = parse(text)
    cols = max((len(r) for r in lines), default=1)
    img = Image.new("RGB", (max(1, cols) * cell_w + 8, max(1, len(lines)) * cell_h + 8), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(lines):
        for x, (ch, fg, bg) in enumerate(row):
            x0, y0 = 4 + x * cell_w, 4 + y * cell_h
            if bg != DEFAULT_BG:
                draw.rectangle([x0, y0, x0 + cell_w - 1, y0 + cell_h - 1], fill=bg)
            if not ch.isspace():
                draw.text((x0, y0), ch, fill=fg, font=font)
    return np.asarray(img, dtype=np.uint8)
