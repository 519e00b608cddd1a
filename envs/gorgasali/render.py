"""Rendering for Gorgasali: ansi text and an rgb_array picture of the map."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import draw as D
from . import actions as A
from .board import BLOCK, FOREST, MOUNTAIN, WATER

if TYPE_CHECKING:   # for the type checker only: these modules import this one
    from .game import GorgasaliGame
    from .state import GorgasaliState

_TERRAIN = {WATER: "~", FOREST: "f", MOUNTAIN: "^", BLOCK: "#"}
_BANNER = {"barrier": "=", "ball": "*", "tree": "T", "field": "M", "smoke": "s"}
_ZONE_BG = {1: 52, 2: 94, 3: 22, 4: 17}
_TERRAIN_NAME = {WATER: "water", FOREST: "forest", MOUNTAIN: "mountain", BLOCK: "blocking terrain"}


def _square_words(state: GorgasaliState, sq: int) -> str:
    """Where a figure stands and what its digit hides on the text board: 'K20 on a tree platform,
    a chest' (the square alone when it holds nothing else)."""
    b = state.game.board
    under = [("a " + _BANNER_NAME[bn[0]]) for bn in state.banners if sq in bn[1]]
    if sq in state.chests:
        under.append("a chest")
    if sq in b.healing:
        under.append("a healing square")
    if any(state.fallen_at[t] == sq for t in range(state.game.num_seats)):
        under.append("a fallen teammate")
    if b.terrain[sq] in _TERRAIN_NAME:
        under.append(_TERRAIN_NAME[b.terrain[sq]])
    name = f"{chr(ord('A') + sq % A.SIZE)}{sq // A.SIZE + 1}"
    return name + (" on " + ", ".join(under) if under else "")


def render_text(state: GorgasaliState, observer: int | None = None, color: bool = False) -> str:
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
        status = f"hp {state.health[t]:>3} at {_square_words(state, state.pos[t])}" if state.alive[t] else "out"
        mat = state.mat[t]
        show = observer is None or observer == t or state._sees_all(observer, t)
        weapons = []
        for _i, p in enumerate(A.WEAPON_POS):
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
        lines.append(_result(state))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- rgb_array ------
_GROUND_RGB = {0: (222, 210, 165), WATER: (110, 165, 220), FOREST: (90, 150, 80),
               MOUNTAIN: (150, 130, 110), BLOCK: (60, 56, 54)}
#: zone rings: 1 goes inactive first (outermost), 4 last
_ZONE_RGB = {1: (214, 80, 60), 2: (230, 150, 40), 3: (90, 160, 70), 4: (60, 110, 200)}
_BANNER_RGB = {"barrier": (110, 70, 30), "ball": (250, 230, 40), "tree": (20, 90, 30),
               "field": (170, 90, 220), "smoke": (190, 190, 190)}
_BANNER_NAME = {"barrier": "barrier", "ball": "ball lightning", "tree": "tree platform",
                "field": "magic field", "smoke": "smoke"}
_INACTIVE = (120, 118, 115)


def _seat_rgb(g: GorgasaliGame, t: int) -> D.RGB:
    """Solo: one colour per player; duo: teammates share their team's colour."""
    return D.SEAT_RGB[(g.team[t] if g.team_size > 1 else t) % len(D.SEAT_RGB)]


def _ground(draw, terrain, x, y, px, inactive=False):
    fill = _GROUND_RGB[terrain]
    if inactive:
        fill = D.mix(fill, _INACTIVE, 0.75)
    draw.rectangle([x, y, x + px, y + px], fill=fill, outline=D.mix(fill, D.INK, 0.15))
    if inactive:   # hatching: the zone is out of play
        for k in range(0, 2 * px, 7):
            draw.line([x + max(0, k - px), y + min(px, k), x + min(px, k), y + max(0, k - px)],
                      fill=(95, 92, 90), width=1)
    cx, cy = x + px / 2, y + px / 2
    if terrain == FOREST:
        D.disc(draw, cx - px * 0.15, cy - px * 0.1, px * 0.2, (40, 100, 40))
        D.disc(draw, cx + px * 0.17, cy + px * 0.1, px * 0.18, (40, 100, 40))
    elif terrain == MOUNTAIN:
        draw.polygon([(x + px * 0.15, y + px * 0.8), (cx, y + px * 0.2), (x + px * 0.85, y + px * 0.8)],
                     fill=(110, 95, 80))
    elif terrain == WATER:
        draw.arc([x + px * 0.2, cy - px * 0.15, x + px * 0.8, cy + px * 0.15], 200, 340,
                 fill=(240, 250, 255), width=2)


def _chest(draw, cx, cy, r):
    draw.rectangle([cx - r, cy - r * 0.6, cx + r, cy + r * 0.7], fill=(150, 90, 30), outline=D.INK)
    draw.rectangle([cx - r, cy - r * 0.6, cx + r, cy - r * 0.15], fill=(230, 190, 40), outline=D.INK)


def _healing(draw, cx, cy, r):
    draw.rectangle([cx - r, cy - r * 0.33, cx + r, cy + r * 0.33], fill=(255, 255, 255), outline=(30, 140, 60))
    draw.rectangle([cx - r * 0.33, cy - r, cx + r * 0.33, cy + r], fill=(255, 255, 255), outline=(30, 140, 60))
    draw.rectangle([cx - r + 1, cy - r * 0.33 + 1, cx + r - 1, cy + r * 0.33 - 1], fill=(40, 180, 80))
    draw.rectangle([cx - r * 0.33 + 1, cy - r + 1, cx + r * 0.33 - 1, cy + r - 1], fill=(40, 180, 80))


def _banner(draw, kind, x, y, px):
    colour = _BANNER_RGB[kind]
    w = max(3, px // 6)
    draw.rectangle([x + 1, y + 1, x + px - 1, y + px - 1], outline=colour, width=w)


def _figure(draw, cx, cy, r, colour, label, size):
    D.disc(draw, cx, cy, r, colour, D.INK, 2)
    D.text(draw, (cx, cy), label, size=size, fill=D.contrast(colour), anchor="mm")


def render_rgb(state: GorgasaliState, observer: int | None = None, cell_px: int = 28) -> np.ndarray:
    """An (H, W, 3) uint8 picture: the 20x20 map with the coordinates the actions use (A-T,
    1-20), terrain, the zone rings (coloured edges; hatched once inactive), healing squares,
    chests, banners, fallen teammates and the figures (a disc per player with its seat number and
    a health bar); beside it each player's health, status, weapons, other cards and backpack (the
    backpack and unloaded weapons of players ``observer`` may not see stay face down) and a
    legend under the map."""
    g = state.game
    b = g.board
    px = cell_px
    n = A.SIZE
    margin, top_bar = 24, 34
    bw = n * px
    side_w = 400
    width = margin + bw + margin + side_w + 12
    img, draw = D.canvas(width, top_bar + 2 * margin + bw + 1200)
    cur = state.current_player
    status = _result(state) if state.phase == "over" else \
        f"round {state.round}/{g.rules['max_rounds']} · phase {state.phase} · to move: {state.name(cur)}"
    D.title_bar(draw, width, f"Gorgasali · {g.mode} · {g.num_seats} players", status, height=top_bar)
    x0, y0 = margin, top_bar + margin + 4
    for c in range(n):
        for yy in (y0 - margin / 2, y0 + bw + margin / 2):
            D.text(draw, (x0 + c * px + px / 2, yy), chr(ord("A") + c), size=13, fill=D.MUTED,
                   anchor="mm")
    for r in range(n):
        for xx in (x0 - margin / 2, x0 + bw + margin / 2):
            D.text(draw, (xx, y0 + r * px + px / 2), str(r + 1), size=12, fill=D.MUTED, anchor="mm")
    covered = set(state.path[:-1]) if state.phase == "move" else set()
    for sq in range(A.SQUARES):
        r, c = divmod(sq, n)
        x, y = x0 + c * px, y0 + r * px
        _ground(draw, b.terrain[sq], x, y, px, b.zone[sq] <= state.zones_out)
        cx, cy = x + px / 2, y + px / 2
        if sq in b.healing:
            _healing(draw, cx, cy, px * 0.3)
        if sq in state.chests:
            _chest(draw, cx, cy, px * 0.28)
        if sq in covered:
            D.disc(draw, cx, cy, px * 0.12, (255, 255, 255), D.INK)
    for sq in range(A.SQUARES):   # zone edges in the colour of the inner zone
        r, c = divmod(sq, n)
        x, y = x0 + c * px, y0 + r * px
        z = b.zone[sq]
        if c + 1 < n and b.zone[sq + 1] != z:
            inner = max(z, b.zone[sq + 1])
            draw.line([x + px, y, x + px, y + px], fill=_ZONE_RGB[inner], width=3)
        if r + 1 < n and b.zone[sq + n] != z:
            inner = max(z, b.zone[sq + n])
            draw.line([x, y + px, x + px, y + px], fill=_ZONE_RGB[inner], width=3)
    draw.rectangle([x0 - 1, y0 - 1, x0 + bw + 1, y0 + bw + 1], outline=_ZONE_RGB[1], width=3)
    for kind, squares, _owner, _ in state.banners:
        for sq in squares:
            r, c = divmod(sq, n)
            _banner(draw, kind, x0 + c * px, y0 + r * px, px)
    for t in range(g.num_seats):
        colour = _seat_rgb(g, t)
        if state.alive[t] and state.pos[t] >= 0:
            r, c = divmod(state.pos[t], n)
            x, y = x0 + c * px, y0 + r * px
            if t == cur:
                D.disc(draw, x + px / 2, y + px / 2 - 2, px * 0.5, D.HIGHLIGHT)
            _figure(draw, x + px / 2, y + px / 2 - 2, px * 0.36, colour, str(t), int(px * 0.5))
            frac = max(0.0, state.health[t] / g.rules["max_health"])
            draw.rectangle([x + 2, y + px - 5, x + px - 2, y + px - 2], fill=(90, 20, 20))
            draw.rectangle([x + 2, y + px - 5, x + 2 + (px - 4) * frac, y + px - 2], fill=(40, 210, 60))
        elif state.fallen_at[t] >= 0:
            r, c = divmod(state.fallen_at[t], n)
            x, y = x0 + c * px, y0 + r * px
            draw.line([x + 4, y + 4, x + px - 4, y + px - 4], fill=colour, width=4)
            draw.line([x + 4, y + px - 4, x + px - 4, y + 4], fill=colour, width=4)
            D.text(draw, (x + px - 2, y + 1), str(t), size=11, anchor="ra")
    # ---- legend under the map
    items = [(_gsw(0), "open ground"), (_gsw(WATER), "water"), (_gsw(FOREST), "forest"),
             (_gsw(MOUNTAIN), "mountain"), (_gsw(BLOCK), "blocking"),
             (lambda d, x, y, s: (_gsw(0)(d, x, y, s), _healing(d, x + s / 2, y + s / 2, s * 0.4)),
              "healing"),
             (lambda d, x, y, s: (_gsw(0)(d, x, y, s), _chest(d, x + s / 2, y + s / 2, s * 0.4)),
              "chest"),
             (lambda d, x, y, s: _ground(d, 0, x, y, s, True), "inactive zone")]
    items += [(_ZONE_RGB[z], f"zone {z} edge" + (" (goes first)" if z == 1 else "")) for z in (1, 2, 3, 4)]
    items += [(_bsw(kind), _BANNER_NAME[kind]) for kind in _BANNER_RGB]
    items += [(lambda d, x, y, s: D.disc(d, x + s / 2, y + s / 2, s / 2, D.HIGHLIGHT), "to move"),
              (lambda d, x, y, s: D.disc(d, x + s / 2, y + s / 2, s / 4, (255, 255, 255), D.INK),
               "walked this move")]
    if g.team_size > 1:
        items.append((lambda d, x, y, s: (d.line([x, y, x + s, y + s], fill=D.SEAT_RGB[0], width=3),
                                          d.line([x, y + s, x + s, y], fill=D.SEAT_RGB[0], width=3)),
                      "fallen teammate"))
    legend_bottom = D.legend(draw, x0, y0 + bw + margin + 4, bw, items, columns=3, size=12)
    # ---- side panel
    sx, sy = x0 + bw + margin + 8, top_bar + 10
    if state.phase == "move":
        D.text(draw, (sx, sy), f"dice {state.dice[0]}+{state.dice[1]} · move points "
               f"{state.move_points} · steps left {state.walk_left}", size=13)
        sy += 20
    for t in range(g.num_seats):
        colour = _seat_rgb(g, t)
        _figure(draw, sx + 9, sy + 9, 9, colour, str(t), 11)
        head = state.name(t) + (f" · team {g.team[t]}" if g.team_size > 1 else "") + \
            ("  (to move)" if t == cur else "")
        D.text(draw, (sx + 24, sy + 1), head, size=14, fill=D.INK if state.alive[t] else D.MUTED)
        if state.alive[t]:
            bx = sx + side_w - 125
            frac = max(0.0, state.health[t] / g.rules["max_health"])
            draw.rectangle([bx, sy + 4, bx + 70, sy + 13], fill=(90, 20, 20))
            draw.rectangle([bx, sy + 4, bx + 70 * frac, sy + 13], fill=(40, 210, 60))
            D.text(draw, (sx + side_w, sy + 1), f"{state.health[t]} hp", size=12, anchor="ra")
        else:
            D.text(draw, (sx + side_w, sy + 1), "out", size=12, anchor="ra", fill=D.MUTED)
        sy += 20
        flags = [f"cooldown {state.cooldown[t]}", f"extra chests {state.extra_chests[t]}"]
        if state.frozen[t]:
            flags.append("frozen")
        if state.burned[t]:
            flags.append("burned")
        mat = state.mat[t]
        show = observer is None or observer == t or state._sees_all(observer, t)
        weapons = []
        for i, p in enumerate(A.WEAPON_POS):
            if mat[p] < 0:
                weapons.append("-")
            elif state.loaded[t][i] or show:
                weapons.append(g.cards[mat[p]].name + ("" if state.loaded[t][i] else " (unloaded)"))
            else:
                weapons.append("face down")
        others = [g.cards[c].name for c in mat[2:A.ACTIVE_SIZE] if c >= 0]
        pack_n = sum(c >= 0 for c in mat[A.ACTIVE_SIZE:])
        pack = ", ".join(g.cards[c].name for c in mat[A.ACTIVE_SIZE:] if c >= 0) if show else \
            f"{pack_n} face down"
        lines = ["  ".join(flags), "weapons: " + ", ".join(weapons),
                 "cards: " + (", ".join(others) or "-"), "backpack: " + (pack or "-")]
        for line in lines if state.alive[t] else lines[:0]:
            for part in D.wrap(line, 12, side_w - 8):
                D.text(draw, (sx + 8, sy), part, size=12, fill=D.INK)
                sy += 15
        sy += 5
        draw.line([sx, sy - 3, sx + side_w, sy - 3], fill=D.RULE)
        sy += 3
    notes = []
    if state.last_event:
        notes.append("last: " + state.last_event)
    if state.phase == "over":
        notes.append(_result(state))
    for line in notes:
        for part in D.wrap(line, 13, side_w):
            D.text(draw, (sx, sy), part, size=13)
            sy += 17
    return D.to_array(img, max(legend_bottom, sy) + 10)


def _gsw(terrain):
    return lambda d, x, y, s: _ground(d, terrain, x, y, s)


def _bsw(kind):
    return lambda d, x, y, s: (_ground(d, 0, x, y, s), _banner(d, kind, x, y, s))


def _result(state: GorgasaliState) -> str:
    g = state.game
    ret = state.returns()
    best = max(ret)
    win = [t for t in range(g.num_seats) if ret[t] == best]
    if g.team_size > 1:
        teams = sorted({g.team[t] for t in win})
        who = (f"team {teams[0]} wins" if len(teams) == 1 else "shared first place: teams "
               + ", ".join(map(str, teams)))
    else:
        who = (f"{state.name(win[0])} wins" if len(win) == 1 else "shared first place: "
               + ", ".join(state.name(t) for t in win))
    return f"game over: {who}" + (" (round cap)" if state.capped else "")
