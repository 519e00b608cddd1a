"""Text and image rendering for Zaberias: the whole map with a legend."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..core import draw as D
from . import movement as M
from .actions import cell_name
from .board import GRASS, MINE, PORTAL, SITE, STAR, TERRAIN_GLYPH, TREES, VOID, WATER

if TYPE_CHECKING:   # for the type checker only: state.py imports this module
    from .state import ZaberiasState

_GRADE_NAME = {1: "wood", 2: "metal", 3: "gold"}

_TRIBE_FG = {"undead": 196, "humans": 33, "orcs": 220, "guardians": 40}


def render_text(st: ZaberiasState, observer: int | None = None, color: bool = False) -> str:
    g = st.game
    geo = st.geo
    U = g.U
    to_move = st.current_player
    lines = [f"Zaberias turn {st.turn} phase={st.phase} to move="
             f"{'-' if to_move < 0 else f'player_{to_move} ({g.tribes[to_move]})'}"]
    lines.append("    " + " ".join(" " + chr(ord('a') + c) for c in range(g.W)))
    for r in range(g.H):
        row = []
        for c in range(g.W):
            cell = r * g.W + c
            o = st.occ[cell]
            site = geo.site_of[cell]
            if o >= 0:
                ch = f"{o // U}{g.specs[o].glyph}"
                tribe = g.tribes[o // U]
            elif site >= 0 and st.city_owner[site] >= 0:  # digits: unit glyphs are letters
                ch = f"{st.city_owner[site]}{st.city_grade[site]}"
                tribe = g.tribes[st.city_owner[site]]
            else:
                ch = TERRAIN_GLYPH[geo.terrain[cell]]
                if geo.on_road[cell] and ch == ".":
                    ch = "/"
                ch = " " + ch
                tribe = None
            if color and tribe is not None:
                ch = f"\x1b[38;5;{_TRIBE_FG[tribe]}m{ch}\x1b[0m"
            row.append(ch)
        lines.append(f"{r + 1:>3} " + " ".join(row))
    lines.append("legend: . grass  t trees  ~ water  / road  O portal  $ gold mine  * power star  "
                 "# vacant city site  s1/s2/s3 wood/metal/gold city of seat s  sX unit X of seat s "
                 "(a unit in a city hides it: see the cities lists)")
    cities: list[list[str]] = [[] for _ in range(g.num_seats)]
    for site, cell in enumerate(geo.site_cells):
        if st.city_owner[site] >= 0:
            cities[st.city_owner[site]].append(
                f"{cell_name(cell, g.W)} {_GRADE_NAME[st.city_grade[site]]}")
    for seat in range(g.num_seats):
        units = []
        for u in range(seat * U, seat * U + U):
            spec = g.specs[u]
            if M.on_map(st, u):
                extra = "".join(f"[{nm.split(' ')[0]}]" for b, nm in M.EFFECT_NAMES.items()
                                if st.effects[u] & b)
                if st.held[u]:
                    extra += f"[holds {len(st.held[u])}]"
                if st.status[u] == M.RIDING:
                    extra += "[riding]"
                units.append(f"{spec.glyph}={spec.name}{extra}")
        status = "" if st.alive[seat] else " OUT"
        lines.append(f"player_{seat} {g.tribes[seat]}: coins={st.coins[seat]} "
                     f"stars={M.stars_held(st, seat)}{status} units: {', '.join(units) or '-'}; "
                     f"cities: {', '.join(cities[seat]) or '-'}")
    if st.phase == "over":
        lines.append(_result_line(st))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- rgb_array ------
_TRIBE_PIC = {"undead": (150, 40, 170), "humans": (40, 100, 220), "orcs": (200, 50, 40),
              "guardians": (30, 150, 70)}
_GROUND = {GRASS: (196, 222, 150), TREES: (120, 170, 100), WATER: (110, 170, 225),
           PORTAL: (196, 222, 150), MINE: (196, 222, 150), STAR: (196, 222, 150),
           SITE: (196, 222, 150), VOID: (60, 60, 60)}
_GRADE_RGB = {1: (160, 110, 60), 2: (170, 175, 185), 3: (235, 190, 40)}
_ROAD = (150, 110, 70)


def _tree(draw, cx, cy, r):
    draw.rectangle([cx - r * 0.12, cy, cx + r * 0.12, cy + r * 0.8], fill=(100, 70, 40))
    D.disc(draw, cx, cy - r * 0.1, r * 0.55, (50, 120, 50), (30, 80, 30))


def _star(draw, cx, cy, r, fill=(250, 215, 40), outline=(150, 110, 0)):
    pts = []
    for k in range(10):
        rr = r if k % 2 == 0 else r * 0.45
        a = -math.pi / 2 + math.pi * k / 5
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    draw.polygon(pts, fill=fill, outline=outline)


def _terrain(draw, t, x, y, px, road=False):
    """One square of ground and its feature (trees, waves, portal, mine, star, vacant site)."""
    draw.rectangle([x, y, x + px, y + px], fill=_GROUND[t], outline=(150, 170, 120))
    cx, cy = x + px / 2, y + px / 2
    if t == TREES:
        _tree(draw, cx - px * 0.18, cy - px * 0.05, px * 0.28)
        _tree(draw, cx + px * 0.2, cy + px * 0.08, px * 0.24)
    elif t == WATER:
        for k in (-1, 0, 1):
            yy = cy + k * px * 0.22
            draw.arc([cx - px * 0.32, yy - px * 0.08, cx, yy + px * 0.08], 200, 340,
                     fill=(240, 250, 255), width=2)
            draw.arc([cx, yy - px * 0.08, cx + px * 0.32, yy + px * 0.08], 200, 340,
                     fill=(240, 250, 255), width=2)
    elif t == PORTAL:
        for k, colour in enumerate(((20, 60, 70), (60, 200, 200), (20, 60, 70), (180, 250, 250))):
            D.disc(draw, cx, cy, px * (0.38 - 0.08 * k), colour)   # a swirl of rings
    elif t == MINE:
        D.disc(draw, cx, cy, px * 0.3, (240, 200, 40), (140, 100, 0), 2)
        D.text(draw, (cx, cy + 1), "$", size=int(px * 0.4), fill=(110, 80, 0), anchor="mm")
    elif t == STAR:
        _star(draw, cx, cy, px * 0.36)
    elif t == SITE:
        d = px * 0.14
        draw.rectangle([x + d, y + d, x + px - d, y + px - d], outline=(110, 100, 80), width=2)


def _unit(draw, cx, cy, r, colour, glyph, size):
    D.disc(draw, cx, cy, r, colour, (20, 20, 20), 2)
    D.text(draw, (cx, cy + 1), glyph, size=size, fill=D.contrast(colour), anchor="mm")


def _city(draw, x, y, px, colour, grade):
    """An owned city: a thick frame in the owner's colour, the grade as a badge (1 wood, 2
    metal, 3 gold)."""
    w = max(3, px // 9)
    draw.rectangle([x + 1, y + 1, x + px - 1, y + px - 1], outline=colour, width=w)
    for k in range(3):   # battlements
        bx = x + px * (0.18 + 0.27 * k)
        draw.rectangle([bx, y + 1, bx + px * 0.12, y + w + px * 0.08], fill=colour)
    r = px * 0.17
    bx, by = x + px - r - 2, y + px - r - 2
    D.disc(draw, bx, by, r, _GRADE_RGB[grade], (20, 20, 20))
    D.text(draw, (bx, by + 1), str(grade), size=int(px * 0.26), fill=D.INK, anchor="mm")


def _coins(draw, x, y, n, size=12):
    for k in range(n):
        D.disc(draw, x + k * (size + 2) + size / 2, y + size / 2, size / 2, (240, 200, 40),
               (140, 100, 0))


def render_rgb(st: ZaberiasState, observer: int | None = None, cell_px: int | None = None) -> np.ndarray:
    """An (H, W, 3) uint8 picture: the map with the coordinates the actions use (columns a..,
    rows 1..), terrain drawn (trees, water, roads, portals, gold mines, power stars, vacant city
    sites), the map boards' edges, cities framed in their owner's colour with a grade badge (1
    wood, 2 metal, 3 gold), units as discs in their tribe's colour with the unit's letter; beside
    it each player's coins, stars, cities and units, and a legend. Zaberias hides nothing, so
    ``observer`` changes nothing."""
    g = st.game
    geo = st.geo
    U = g.U
    px = cell_px or (46 if g.W <= 7 else 40)
    margin, top_bar = 24, 34
    mw, mh = g.W * px, g.H * px
    side_w = 380
    width = margin + mw + margin + side_w + 14
    height = top_bar + 10 + mh + 2 * margin + 600
    img, draw = D.canvas(width, height)
    to_move = st.current_player
    status = _result_line(st) if st.phase == "over" else \
        f"turn {st.turn} · phase {st.phase} · to move: player_{to_move} ({g.tribes[to_move]})"
    D.title_bar(draw, width, f"Zaberias · {g.num_seats} players", status, height=top_bar)
    x0, y0 = margin, top_bar + 10 + margin
    for c in range(g.W):
        for yy in (y0 - margin / 2, y0 + mh + margin / 2):
            D.text(draw, (x0 + c * px + px / 2, yy), chr(ord("a") + c), size=14, fill=D.MUTED,
                   anchor="mm")
    for r in range(g.H):
        for xx in (x0 - margin / 2, x0 + mw + margin / 2):
            D.text(draw, (xx, y0 + r * px + px / 2), str(r + 1), size=13, fill=D.MUTED,
                   anchor="mm")
    for cell in range(g.N):
        r, c = divmod(cell, g.W)
        _terrain(draw, geo.terrain[cell], x0 + c * px, y0 + r * px, px)
    for a, b in geo.road_links:
        if a < b:
            (ra, ca), (rb, cb) = divmod(a, g.W), divmod(b, g.W)
            draw.line([x0 + ca * px + px / 2, y0 + ra * px + px / 2,
                       x0 + cb * px + px / 2, y0 + rb * px + px / 2], fill=_ROAD, width=max(3, px // 8))
    for cell in range(g.N):   # the edges of the map boards
        r, c = divmod(cell, g.W)
        x, y = x0 + c * px, y0 + r * px
        b = geo.board_of[cell]
        if c + 1 < g.W and geo.board_of[cell + 1] != b:
            draw.line([x + px, y, x + px, y + px], fill=D.INK, width=3)
        if r + 1 < g.H and geo.board_of[cell + g.W] != b:
            draw.line([x, y + px, x + px, y + px], fill=D.INK, width=3)
    draw.rectangle([x0, y0, x0 + mw, y0 + mh], outline=D.INK, width=2)
    for site, cell in enumerate(geo.site_cells):
        if st.city_owner[site] >= 0:
            r, c = divmod(cell, g.W)
            _city(draw, x0 + c * px, y0 + r * px, px,
                  _TRIBE_PIC[g.tribes[st.city_owner[site]]], st.city_grade[site])
    for cell in range(g.N):
        o = st.occ[cell]
        if o < 0:
            continue
        r, c = divmod(cell, g.W)
        cx, cy = x0 + c * px + px / 2, y0 + r * px + px / 2
        if o == st.sel or o == st.pending_unit:
            D.disc(draw, cx, cy, px * 0.44, D.HIGHLIGHT)
        _unit(draw, cx, cy, px * 0.33, _TRIBE_PIC[g.tribes[o // U]], g.specs[o].glyph,
              int(px * 0.38))
        marks = [colour for bit, colour in _EFFECT_RGB.items() if st.effects[o] & bit]
        for k, colour in enumerate(marks):
            D.disc(draw, x0 + c * px + 6 + 8 * k, y0 + r * px + 6, 4, colour, D.INK)
        if st.held[o]:
            D.text(draw, (x0 + c * px + px - 3, y0 + r * px + 2), f"+{len(st.held[o])}",
                   size=11, anchor="ra", fill=D.INK)
    # ---- side panel
    sx, sy = x0 + mw + margin + 8, top_bar + 12
    for seat in range(g.num_seats):
        tribe = g.tribes[seat]
        colour = _TRIBE_PIC[tribe]
        mover = seat == to_move
        _unit(draw, sx + 8, sy + 8, 8, colour, "", 10)
        head = f"player_{seat} · {tribe}" + ("  (to move)" if mover else "") + \
            ("" if st.alive[seat] else "  OUT")
        D.text(draw, (sx + 22, sy), head, size=14)
        sy += 20
        D.text(draw, (sx, sy), f"coins {st.coins[seat]}", size=12, fill=D.MUTED)
        _coins(draw, sx + 54, sy + 1, st.coins[seat], 11)
        grades = [st.city_grade[s] for s in range(g.S) if st.city_owner[s] == seat]
        D.text(draw, (sx + 150, sy), f"stars {M.stars_held(st, seat)}   cities "
               + (" ".join(_GRADE_NAME[k] for k in sorted(grades, reverse=True)) or "-"),
               size=12, fill=D.MUTED)
        sy += 17
        units = []
        for u in range(seat * U, seat * U + U):
            if M.on_map(st, u):
                spec = g.specs[u]
                extra = "".join(f", {nm.split(' ')[0]}" for b, nm in M.EFFECT_NAMES.items()
                                if st.effects[u] & b)
                if st.status[u] == M.RIDING:
                    extra += ", riding"
                units.append((spec.glyph, f"{spec.name}{extra}"))
        col_w = side_w // 2
        for k, (glyph, name) in enumerate(units):
            ux, uy = sx + (k % 2) * col_w, sy + (k // 2) * 18
            _unit(draw, ux + 8, uy + 8, 8, colour, glyph, 11)
            D.text(draw, (ux + 20, uy + 1), D.fit(name, 12, col_w - 24), size=12)
        if not units:
            D.text(draw, (sx, sy), "no units on the map", size=12, fill=D.MUTED)
        sy += 18 * max(1, (len(units) + 1) // 2) + 6
        draw.line([sx, sy - 3, sx + side_w, sy - 3], fill=D.RULE)
        sy += 4
    if st.last_battle != (0, 0):
        D.text(draw, (sx, sy), f"last battle: attack {st.last_battle[0]} vs defence "
               f"{st.last_battle[1]}", size=12)
        sy += 18
    if st.phase == "over":
        line = _result_line(st) + (" (round cap: ranked by material)" if st.capped else "")
        for part in D.wrap(line, 14, side_w):
            D.text(draw, (sx, sy), part, size=14)
            sy += 19
    sy += 4
    items = [(_sq(GRASS), "grass"), (_sq(TREES), "trees"), (_sq(WATER), "water"),
             (_road_swatch, "road (diagonal step)"), (_sq(PORTAL), "portal"),
             (_sq(MINE), "gold mine"), (_sq(STAR), "power star"), (_sq(SITE), "vacant city site"),
             ] + [(_city_swatch(k), f"city, {_GRADE_NAME[k]} ({k})") for k in (1, 2, 3)] + \
        [(_unit_swatch(_TRIBE_PIC[t]), f"{t} unit (letter = type)") for t in g.tribes] + \
        [(_effect_swatch(colour), M.EFFECT_NAMES[bit]) for bit, colour in _EFFECT_RGB.items()] + \
        [(_unit_swatch(D.HIGHLIGHT), "selected unit")]
    sy = D.legend(draw, sx, sy, side_w, items, columns=2, size=12)
    return D.to_array(img, max(y0 + mh + margin + 4, sy + 10))


def _result_line(st: ZaberiasState) -> str:
    g = st.game
    ret = st.returns()
    best = max(ret)
    win = [s for s in range(g.num_seats) if ret[s] == best]
    return (f"game over: player_{win[0]} ({g.tribes[win[0]]}) wins" if len(win) == 1
            else "game over: shared first place")


_EFFECT_RGB = {M.LOVE: (240, 110, 170), M.STUN: (255, 255, 255), M.SHOCK: (250, 230, 40),
               M.GLUE: (120, 200, 60)}


def _sq(t):
    return lambda draw, x, y, s: _terrain(draw, t, x, y, s)


def _road_swatch(draw, x, y, s):
    _terrain(draw, GRASS, x, y, s)
    draw.line([x, y + s, x + s, y], fill=_ROAD, width=3)


def _city_swatch(grade):
    def paint(draw, x, y, s):
        _terrain(draw, GRASS, x, y, s)
        draw.rectangle([x, y, x + s, y + s], outline=(80, 80, 80), width=2)
        D.disc(draw, x + s / 2, y + s / 2, s * 0.4, _GRADE_RGB[grade], D.INK)
        D.text(draw, (x + s / 2, y + s / 2 + 1), str(grade), size=10, anchor="mm")
    return paint


def _unit_swatch(colour):
    return lambda draw, x, y, s: D.disc(draw, x + s / 2, y + s / 2, s / 2, colour, D.INK)


def _effect_swatch(colour):
    return lambda draw, x, y, s: D.disc(draw, x + s / 2, y + s / 2, s / 3, colour, D.INK)
