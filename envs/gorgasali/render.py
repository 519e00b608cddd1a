"""Rendering for Gorgasali: ansi text and an rgb_array picture of the map."""
from __future__ import annotations

import numpy as np

from . import actions as A
from .board import BLOCK, FOREST, MOUNTAIN, WATER

_TERRAIN = {WATER: "~", FOREST: "f", MOUNTAIN: "^", BLOCK: "#"}
_BANNER = {"barrier": "=", "ball": "*", "tree": "T", "field": "M", "smoke": "s"}
_ZONE_BG = {1: 52, 2: 94, 3: 22, 4: 17}


def render_text(state, observer: int | None = None, color: bool = True) -> str:
    g = state.game
    b = g.board
    cur = state.current_player
    lines = [f"Gorgasali [{g.mode}, {g.num_seats} players] round {state.round}/"
             f"{g.rules['max_rounds']} zones inactive {state.zones_out} phase={state.phase} "
             f"to move={'-' if cur < 0 else state.name(cur)}"]
    if state.phase == "move":
        lines[0] += f" dice={state.dice} points={state.move_points} left={state.walk_left}"
    lines.append("    " + "".join(chr(ord("A") + c) for c in range(A.SIZE)))
    figures = {state.pos[t]: str(t % 10) for t in range(g.num_seats) if state.alive[t]}
    banners = {sq: _BANNER[bn[0]] for bn in state.banners for sq in bn[1]}
    fallen = {state.fallen_at[t]: "x" for t in range(g.num_seats) if state.fallen_at[t] >= 0}
    covered = set(state.path[:-1]) if state.phase == "move" else set()
    for r in range(A.SIZE):
        row = []
        for c in range(A.SIZE):
            sq = r * A.SIZE + c
            ch = _TERRAIN.get(b.terrain[sq], ".")
            if sq in b.healing:
                ch = "+"
            if sq in state.chests:
                ch = "c"
            ch = banners.get(sq, ch)
            ch = fallen.get(sq, ch)
            if sq in covered:
                ch = "o"
            ch = figures.get(sq, ch)
            inactive = b.zone[sq] <= state.zones_out
            if color:
                bg = 236 if inactive else _ZONE_BG[b.zone[sq]]
                fg = "\x1b[1;97m" if sq in figures else ""
                ch = f"\x1b[48;5;{bg}m{fg}{ch}\x1b[0m"
            elif inactive and ch == ".":   # without colours the closed zones show as ':'
                ch = ":"
            row.append(ch)
        lines.append(f"{r + 1:>3} " + "".join(row))
    lines.append("legend: digits players (seat % 10), c chest, + healing, ~ water, f forest, "
                 "^ mountain, # blocking, = barrier, * ball lightning, T tree platform, "
                 "M magic field, s smoke, x fallen teammate, o covered by this move's walk, "
                 + ("grey background" if color else ": ground") + " in an inactive zone")
    for t in range(g.num_seats):
        status = f"hp {state.health[t]:>3}" if state.alive[t] else "out   "
        mat = state.mat[t]
        show = observer is None or observer == t or state._sees_all(observer, t)
        weapons = []
        for i, p in enumerate(A.WEAPON_POS):
            if mat[p] < 0:
                weapons.append("-")
            elif state.loaded[t][p] or show:
                weapons.append(g.cards[mat[p]].name + ("" if state.loaded[t][p] else " (down)"))
            else:
                weapons.append("(face down)")
        others = [g.cards[c].name for c in mat[2:A.ACTIVE_SIZE] if c >= 0]
        pack = ([g.cards[c].name for c in mat[A.ACTIVE_SIZE:] if c >= 0] if show
                else [f"{sum(c >= 0 for c in mat[A.ACTIVE_SIZE:])} hidden"])
        extra = f" cd {state.cooldown[t]}" + (" frozen" if state.frozen[t] else "") + \
            (" burned" if state.burned[t] else "") + f" chests {state.extra_chests[t]}"
        lines.append(f"  {state.name(t):<22} team {g.team[t]} {status}{extra} | weapons "
                     f"{', '.join(weapons)} | {', '.join(others) or '-'} | backpack {', '.join(pack) or '-'}")
    if state.last_event:
        lines.append("last: " + state.last_event)
    if state.phase == "over":
        lines.append(f"game over: {state.final_info()} returns {state.returns().round(3).tolist()}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- rgb_array ------
_TERRAIN_RGB = {0: (196, 186, 140), WATER: (70, 130, 200), FOREST: (40, 110, 50),
                MOUNTAIN: (130, 110, 90), BLOCK: (35, 35, 35)}
_ZONE_TINT = {1: (200, 90, 90), 2: (210, 160, 80), 3: (120, 180, 110), 4: (110, 140, 210)}
_BANNER_RGB = {"barrier": (90, 60, 30), "ball": (250, 240, 60), "tree": (20, 80, 20),
               "field": (170, 90, 220), "smoke": (200, 200, 200)}
#: figure colours by seat (duo: teammates share the hue of their team, see below)
_SEAT_RGB = ((230, 40, 40), (40, 90, 230), (250, 200, 30), (30, 180, 90), (200, 60, 200),
             (240, 130, 20), (40, 200, 210), (255, 255, 255), (120, 60, 20), (0, 0, 0))


def render_rgb(state, cell_px: int = 24) -> np.ndarray:
    """An (H, W, 3) uint8 picture of the map: terrain with a zone-coloured border (grey once the
    zone is inactive), healing squares, chests, banners, fallen teammates and the figures (a
    disc per player in its seat colour, with a health bar). H = W = 20 * cell_px."""
    g = state.game
    b = g.board
    px = cell_px
    img = np.zeros((A.SIZE * px, A.SIZE * px, 3), np.uint8)
    e = max(1, px // 12)   # border width
    for sq in range(A.SQUARES):
        r, c = divmod(sq, A.SIZE)
        y, x = r * px, c * px
        inactive = b.zone[sq] <= state.zones_out
        img[y:y + px, x:x + px] = (90, 90, 90) if inactive else _ZONE_TINT[b.zone[sq]]
        colour = _TERRAIN_RGB[b.terrain[sq]]
        if inactive:
            colour = tuple(int(v * 0.55) for v in colour)
        img[y + e:y + px - e, x + e:x + px - e] = colour
        q = px // 4
        if sq in b.healing:   # a white cross
            img[y + q:y + px - q, x + px // 2 - e:x + px // 2 + e] = (250, 250, 250)
            img[y + px // 2 - e:y + px // 2 + e, x + q:x + px - q] = (250, 250, 250)
        if sq in state.chests:   # a small brown box with a gold lid
            img[y + q:y + px - q, x + q:x + px - q] = (150, 90, 30)
            img[y + q:y + q + max(1, px // 8), x + q:x + px - q] = (230, 190, 40)
    for kind, squares, _owner, _ in state.banners:
        for sq in squares:
            r, c = divmod(sq, A.SIZE)
            y, x = r * px, c * px
            img[y + e:y + px - e, x + e:x + e + max(2, px // 6)] = _BANNER_RGB[kind]
            img[y + e:y + e + max(2, px // 6), x + e:x + px - e] = _BANNER_RGB[kind]
    yy, xx = np.mgrid[0:px, 0:px]
    disc = (yy - px / 2 + 0.5) ** 2 + (xx - px / 2 + 0.5) ** 2 <= (px * 0.36) ** 2
    ring = ((yy - px / 2 + 0.5) ** 2 + (xx - px / 2 + 0.5) ** 2 <= (px * 0.44) ** 2) & ~disc
    for t in range(g.num_seats):
        colour = _SEAT_RGB[t % len(_SEAT_RGB)]
        if state.alive[t] and state.pos[t] >= 0:
            r, c = divmod(state.pos[t], A.SIZE)
            cell = img[r * px:(r + 1) * px, c * px:(c + 1) * px]
            cell[ring] = _SEAT_RGB[g.team[t] % len(_SEAT_RGB)] if g.team_size > 1 else (20, 20, 20)
            cell[disc] = colour
            bar = max(1, px // 10)
            width = int(round((px - 2 * e) * state.health[t] / g.rules["max_health"]))
            cell[px - e - bar:px - e, e:px - e] = (60, 0, 0)
            cell[px - e - bar:px - e, e:e + width] = (40, 220, 40)
        elif state.fallen_at[t] >= 0:   # duo: the fallen teammate's banner, an X
            r, c = divmod(state.fallen_at[t], A.SIZE)
            cell = img[r * px:(r + 1) * px, c * px:(c + 1) * px]
            diag = (np.abs(yy - xx) <= e) | (np.abs(yy + xx - px + 1) <= e)
            cell[diag] = colour
    return img
