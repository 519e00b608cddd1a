"""Shared drawing helpers for the games' ``rgb_array`` pictures (Pillow).

Every game draws its own picture in ``envs/<game>/render.py`` from the engine state; this module
holds what they share: the font (the one that ships with Pillow, ``ImageFont.load_default(size)``,
so nothing depends on the system's fonts; it covers ASCII and a little Latin-1 such as the middle
dot, no symbols, so hearts, swords and arrows are drawn as shapes), a few shapes (hearts, hexagons, discs), a legend box,
the seat colours and the conversion to an ``(H, W, 3) uint8`` array.

Pillow is imported lazily: ``import tabletop_arena.envs`` does not need it, only drawing does
(``pip install pillow``, or the ``train`` extra).
"""
from __future__ import annotations

import functools
import math
from typing import Callable, Iterable

import numpy as np

RGB = tuple[int, int, int]

#: page colours shared by the pictures
PAPER: RGB = (246, 242, 232)
PANEL: RGB = (255, 253, 247)
INK: RGB = (30, 30, 34)
MUTED: RGB = (110, 110, 118)
RULE: RGB = (200, 195, 182)
#: what acts now (the mover, the selected unit, the pending cell): a colour no seat uses
HIGHLIGHT: RGB = (225, 0, 160)
#: one colour per seat, easy to tell apart (Zaberias uses its tribe colours instead)
SEAT_RGB: tuple[RGB, ...] = ((214, 48, 49), (40, 100, 220), (232, 170, 20), (30, 160, 80),
                             (150, 70, 200), (240, 120, 30), (20, 170, 190), (120, 120, 120),
                             (140, 80, 40), (230, 90, 170))


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("render_mode='rgb_array' draws with Pillow: pip install pillow "
                          "(or the train extra: pip install 'tabletop-arena[train]')") from exc
    return Image, ImageDraw, ImageFont


@functools.lru_cache(maxsize=32)
def font(size: int = 13):
    """Pillow's bundled font at ``size`` pixels (Pillow >= 10.1 with FreeType); an older Pillow
    or one without FreeType gets the fixed bitmap font."""
    _, _, ImageFont = _pil()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, AttributeError, OSError):  # pragma: no cover - old Pillow / no FreeType
        return ImageFont.load_default()


def canvas(width: int, height: int, bg: RGB = PAPER):
    """A new RGB image and its drawing context."""
    Image, ImageDraw, _ = _pil()
    img = Image.new("RGB", (int(width), int(height)), bg)
    return img, ImageDraw.Draw(img)


def to_array(img, height: int | None = None) -> np.ndarray:
    """The picture as an ``(H, W, 3) uint8`` array (cut to ``height`` rows when given)."""
    if height is not None and height < img.height:
        img = img.crop((0, 0, img.width, int(height)))
    return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()


def text(draw, xy, s: str, size: int = 13, fill: RGB = INK, anchor: str = "la",
         bold: bool = False) -> None:
    """Draw ``s`` at ``xy`` (Pillow anchors: 'la' left-top, 'mm' centre, 'ra' right-top ...);
    ``bold`` thickens the strokes (the bundled font has one weight)."""
    draw.text(xy, s, fill=fill, font=font(size), anchor=anchor,
              stroke_width=1 if bold else 0, stroke_fill=fill)


def text_width(s: str, size: int = 13) -> int:
    return int(math.ceil(font(size).getlength(s)))


def fit(s: str, size: int, width: int) -> str:
    """``s`` cut with an ellipsis so that it fits ``width`` pixels."""
    if text_width(s, size) <= width:
        return s
    while s and text_width(s + "…", size) > width:
        s = s[:-1]
    return s + "…"


def wrap(s: str, size: int, width: int) -> list[str]:
    """``s`` broken into lines of at most ``width`` pixels (at spaces; long words are cut)."""
    lines, line = [], ""
    for word in s.split():
        trial = f"{line} {word}" if line else word
        if text_width(trial, size) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        line = fit(word, size, width)
    if line:
        lines.append(line)
    return lines


def contrast(rgb: RGB) -> RGB:
    """Black or white, whichever reads better on ``rgb``."""
    r, g, b = rgb[:3]
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` towards ``b``."""
    return (int(round(a[0] + (b[0] - a[0]) * t)), int(round(a[1] + (b[1] - a[1]) * t)),
            int(round(a[2] + (b[2] - a[2]) * t)))


def heart(draw, cx: float, cy: float, r: float, fill: RGB, outline: RGB | None = None) -> None:
    """A heart shape centred at (cx, cy), about 2r wide (drawn, so no font needs a heart glyph)."""
    pts = []
    for k in range(48):
        t = 2 * math.pi * k / 48
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((cx + x * r / 16, cy - y * r / 16 - r * 0.1))
    draw.polygon(pts, fill=fill, outline=outline)


def sword(draw, cx: float, cy: float, r: float, fill: RGB = INK) -> None:
    """A small sword (blade up) centred at (cx, cy), about 2r tall."""
    w = max(1, r / 4)
    draw.polygon([(cx, cy - r), (cx + w, cy - r + 2 * w), (cx + w, cy + r * 0.45),
                  (cx - w, cy + r * 0.45), (cx - w, cy - r + 2 * w)], fill=fill)
    draw.rectangle([cx - r * 0.55, cy + r * 0.4, cx + r * 0.55, cy + r * 0.55], fill=fill)
    draw.rectangle([cx - w * 0.7, cy + r * 0.55, cx + w * 0.7, cy + r], fill=fill)


def hexagon(cx: float, cy: float, r: float, pointy: bool = True) -> list[tuple[float, float]]:
    """Corner points of a regular hexagon of circumradius ``r`` (pointy top, or flat top)."""
    start = 30 if pointy else 0
    return [(cx + r * math.cos(math.radians(start + 60 * k)),
             cy + r * math.sin(math.radians(start + 60 * k))) for k in range(6)]


def disc(draw, cx: float, cy: float, r: float, fill: RGB, outline: RGB | None = None,
         width: int = 1) -> None:
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill, outline=outline, width=width)


Swatch = Callable[[object, int, int, int], None]   # draw(draw, x, y, size)


def legend(draw, x: int, y: int, width: int, items: Iterable[tuple[Swatch | RGB | None, str]],
           title: str = "legend", size: int = 12, columns: int = 1, swatch: int = 0) -> int:
    """A legend box at (x, y), ``columns`` entries a row; each entry a swatch (a colour, a
    ``Swatch`` drawing function or None for none) and its label; ``swatch``: the swatch size in
    pixels (default: the text's); returns the y below it."""
    items = list(items)
    sw = max(swatch, size + 4)
    row_h = max(sw, size + 2) + 4
    col_w = (width - 12) // columns
    text(draw, (x + 6, y + 4), title, size=size, fill=MUTED)
    top = y + size + 10
    rows: list[list[str]] = []
    for _, label in items:
        rows.append(wrap(label, size, col_w - sw - 10) or [""])
    heights = []
    for r0 in range(0, len(items), columns):
        heights.append(max(max(1, len(rows[i])) for i in range(r0, min(r0 + columns, len(items)))))
    yy = top
    for line_no, r0 in enumerate(range(0, len(items), columns)):
        for k in range(columns):
            i = r0 + k
            if i >= len(items):
                break
            paint, _ = items[i]
            xx = x + 6 + k * col_w
            if paint is None:
                pass
            elif callable(paint):
                paint(draw, xx, yy, sw - 2)
            else:
                draw.rectangle([xx, yy, xx + sw - 2, yy + sw - 2], fill=paint, outline=INK)
            for j, line in enumerate(rows[i]):
                text(draw, (xx + sw + 4, yy + j * (size + 3)), line, size=size)
        yy += heights[line_no] * (size + 3) + (row_h - size - 3)
    bottom = yy + 2
    draw.rectangle([x, y, x + width, bottom], outline=RULE)
    return bottom


def title_bar(draw, width: int, left: str, right: str = "", height: int = 30,
              fill: RGB = (52, 58, 72)) -> int:
    """A dark bar across the top with a title on the left and status on the right; returns its height."""
    draw.rectangle([0, 0, width, height], fill=fill)
    text(draw, (10, height / 2), left, size=16, fill=(255, 255, 255), anchor="lm")
    if right:
        text(draw, (width - 10, height / 2), fit(right, 14, width - text_width(left, 16) - 40),
             size=14, fill=(230, 230, 230), anchor="rm")
    return height
