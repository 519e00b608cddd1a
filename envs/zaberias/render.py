"""Text and image rendering for Zaberias: the whole map with a legend."""
from __future__ import annotations

import numpy as np

from . import movement as M
from .actions import cell_name
from .board import TERRAIN_GLYPH, VOID, WATER

_GRADE_NAME = {1: "wood", 2: "metal", 3: "gold"}

_TRIBE_FG = {"undead": 196, "humans": 33, "orcs": 220, "guardians": 40}
_TRIBE_RGB = {"undead": (200, 40, 40), "humans": (40, 90, 220), "orcs": (230, 200, 40),
              "guardians": (40, 170, 60)}
_TERRAIN_RGB = {VOID: (20, 20, 20), WATER: (70, 130, 200)}


def render_text(st, observer: int | None = None, color: bool = True) -> str:
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
    cities = [[] for _ in range(g.num_seats)]
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
    return "\n".join(lines)


def render_rgb(st, cell_px: int = 24) -> np.ndarray:
    """An (H, W, 3) uint8 picture: terrain colours, cities as frames, units as tribe squares."""
    g = st.game
    geo = st.geo
    img = np.zeros((g.H * cell_px, g.W * cell_px, 3), np.uint8)
    for cell in range(g.N):
        r, c = divmod(cell, g.W)
        y, x = r * cell_px, c * cell_px
        t = geo.terrain[cell]
        img[y:y + cell_px, x:x + cell_px] = _TERRAIN_RGB.get(t, (110, 160, 80))
        site = geo.site_of[cell]
        if site >= 0 and st.city_owner[site] >= 0:
            img[y:y + cell_px, x:x + cell_px] = _TRIBE_RGB[g.tribes[st.city_owner[site]]]
            img[y + 3:y + cell_px - 3, x + 3:x + cell_px - 3] = (90, 90, 90)
        o = st.occ[cell]
        if o >= 0:
            q = cell_px // 4
            img[y + q:y + cell_px - q, x + q:x + cell_px - q] = _TRIBE_RGB[g.tribes[o // g.U]]
    return img
