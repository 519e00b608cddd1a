"""Text and image rendering for Peacekeepers."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..core import draw as D
from .board import CELLS, EMPTY, ERUPTED, LETTERS, MOUNTAIN, SIZE, cell_name
from .tables import Phase

if TYPE_CHECKING:   # for the type checker only: state.py imports this module
    from .state import PeacekeepersState

# ANSI 256-colour codes per board code (cube colours, brown, erupted, mountain)
_FG = {0: 196, 1: 208, 2: 226, 3: 40, 4: 33, 5: 129, 6: 240, 7: 255, 8: 94, 9: 245}
_ZONE_BG = [17, 52, 22, 53]
_RGB = {0: (220, 40, 40), 1: (240, 140, 30), 2: (240, 220, 40), 3: (50, 170, 60), 4: (40, 90, 220),
        5: (140, 60, 190), 6: (25, 25, 25), 7: (245, 245, 245), 8: (120, 80, 40), 9: (150, 150, 150),
        10: (110, 100, 90), -1: (235, 225, 200)}
#: the sub-step phases with a pending cube (plain text; the colour render underlines the cell)
_SUB_STEP: dict[Phase, str] = {"giant2": "the second Giant", "troll_chase": "the Troll's chase", "elf": "the Elf's re-roll"}


def _glyph(code: int) -> str:
    if code == EMPTY:
        return "."
    if code == MOUNTAIN:
        return "^"
    if code == ERUPTED:
        return "*"
    return LETTERS[code]


def render_text(state: PeacekeepersState, observer: int | None = None, color: bool = False) -> str:
    g = state.game
    lines = [f"Peacekeepers [{g.mode}{' ' + g.puzzle_level if g.puzzle else ''}] "
             f"phase={state.phase} to move={'-' if state.cur < 0 else 'player_%d' % state.cur}"]
    zones = g.competitive and state.zone[0] >= 0
    lines.append("    " + " ".join("ABCDEFGHIJ") + ("    zones (owner seat)" if zones else ""))
    for r in range(SIZE):
        row = []
        for c in range(SIZE):
            cell = r * SIZE + c
            code = int(state.board[cell])
            ch = _glyph(code) if state.active[cell] else " "
            if color:
                fg = _FG.get(code, 250) if code not in (EMPTY, MOUNTAIN) else 250
                bg = _ZONE_BG[state.zone[cell] % 4] if state.zone[cell] >= 0 else None
                style = f"\x1b[38;5;{fg}m" + (f"\x1b[48;5;{bg}m" if bg is not None else "")
                if cell == state.pending_cell:
                    style += "\x1b[4m"
                ch = f"{style}{ch}\x1b[0m"
            row.append(ch)
        zone_row = ("    " + "".join(str(int(z)) for z in state.zone[r * SIZE:(r + 1) * SIZE])) if zones else ""
        lines.append(f"{r + 1:>3} " + " ".join(row) + zone_row)
    lines.append("legend: R dwarf O troll Y giant G elf B wizard P faerie K volcano W temple "
                 "N goblin horde (on the board: a puzzle's brown block) A volcanic eruption "
                 "* erupted ^ mountain . empty" + ("  (blank: outside the field)" if g.puzzle else ""))
    scores = state.scores()
    for s in range(g.num_seats):
        hand = state.hands[s]
        if observer is not None and s != observer and g.hidden_information:
            shown = "?" * len(hand)
        else:
            shown = "".join(LETTERS[f] for _, f in hand)
        extra = f" reserve={'Y' * len(state.reserves[s])}" if state.reserves[s] else ""
        status = " OUT" if state.out[s] else ""
        cap = f" captured={len(state.captured[s])}" if g.competitive else ""
        allot = f" may place {state.allot[s]} more" if state.end_phase and state.allot[s] else ""
        lines.append(f"player_{s}: hand [{shown}]{extra}{cap} score={scores[s]:g}{status}{allot}")
    lines.append(f"bag={len(state.bag)} discard={len(state.discard)}"
                 + (f" ranges to place={state.ranges}" if state.ranges else "")
                 + (f" end phase: {state.end_phase}" if state.end_phase else "")
                 + (f" pending: {_SUB_STEP.get(state.phase, state.phase)} for the cube at "
                    f"{cell_name(state.pending_cell)}" if state.pending_cell >= 0 else ""))
    if state.phase == "over":
        lines.append(_result_line(state, scores))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- rgb_array ------
_CUBE_NAME = ["dwarves", "trolls", "giants", "elves", "wizards", "faerie", "volcano", "temple",
              "goblin horde", "eruption"]
_MOUNTAIN_RGB, _ERUPTED_RGB, _OUTSIDE_RGB = (150, 140, 128), (60, 52, 48), (120, 120, 120)


def _cube(draw, x, y, size, code, letter_size):
    """One cube: a rounded square in its colour with its letter."""
    fill = _RGB[code]
    draw.rounded_rectangle([x, y, x + size, y + size], radius=max(2, size // 6), fill=fill,
                           outline=D.INK, width=1)
    D.text(draw, (x + size / 2 + 0.5, y + size / 2 + 0.5), LETTERS[code], size=letter_size,
           fill=D.contrast(fill), anchor="mm", bold=True)


def _mountain(draw, x, y, size):
    draw.polygon([(x + size * 0.1, y + size * 0.85), (x + size * 0.5, y + size * 0.15),
                  (x + size * 0.9, y + size * 0.85)], fill=_MOUNTAIN_RGB, outline=(90, 84, 76))
    draw.polygon([(x + size * 0.38, y + size * 0.36), (x + size * 0.5, y + size * 0.15),
                  (x + size * 0.62, y + size * 0.36)], fill=(250, 250, 250))


def _erupted(draw, x, y, size):
    draw.rounded_rectangle([x, y, x + size, y + size], radius=max(2, size // 6), fill=_ERUPTED_RGB)
    cx, cy, r = x + size / 2, y + size / 2, size * 0.32
    pts = []
    for k in range(16):
        rr = r if k % 2 == 0 else r * 0.45
        a = math.pi * k / 8
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    draw.polygon(pts, fill=(255, 140, 40))


def render_rgb(state: PeacekeepersState, observer: int | None = None, cell_px: int = 52) -> np.ndarray:
    """An (H, W, 3) uint8 picture: the 10x10 field with the coordinates the actions use (A-J,
    1-10), zones tinted in their owner's colour, cubes with their letters, mountains, erupted
    cells and the pending cube outlined; beside it the hands (face down for the players
    ``observer`` may not see, when hands are hidden), scores and a legend."""
    g = state.game
    px = cell_px
    margin, top_bar = 28, 34
    board_w = SIZE * px
    side_w = 340
    width = margin + board_w + margin + side_w + 12
    board_bottom = top_bar + 12 + board_w + 2 * margin
    height = board_bottom + 400   # cut to the content at the end
    img, draw = D.canvas(width, height)
    mode = g.mode + (f" {g.puzzle_level}" if g.puzzle else "")
    status = _result_line(state, state.scores()).split(" (")[0] if state.phase == "over" else \
        f"phase {state.phase} · to move: player_{state.cur}"
    D.title_bar(draw, width, f"Peacekeepers · {mode} · {g.num_seats} player"
                f"{'s' if g.num_seats > 1 else ''}", status, height=top_bar)
    x0, y0 = margin, top_bar + 12 + margin
    for c in range(SIZE):
        for yy in (y0 - margin / 2, y0 + board_w + margin / 2):
            D.text(draw, (x0 + c * px + px / 2, yy), "ABCDEFGHIJ"[c], size=15, fill=D.MUTED,
                   anchor="mm", bold=True)
    for r in range(SIZE):
        for xx in (x0 - margin / 2, x0 + board_w + margin / 2):
            D.text(draw, (xx, y0 + r * px + px / 2), str(r + 1), size=15, fill=D.MUTED,
                   anchor="mm", bold=True)
    zones = g.competitive and state.zone[0] >= 0
    for cell in range(CELLS):
        r, c = divmod(cell, SIZE)
        x, y = x0 + c * px, y0 + r * px
        if not state.active[cell]:
            draw.rectangle([x, y, x + px, y + px], fill=_OUTSIDE_RGB)
            continue
        ground = D.mix(D.SEAT_RGB[int(state.zone[cell])], D.PANEL, 0.72) if zones else D.PANEL
        draw.rectangle([x, y, x + px, y + px], fill=ground, outline=D.RULE)
        code = int(state.board[cell])
        pad = max(3, px // 9)
        if code == MOUNTAIN:
            _mountain(draw, x + 2, y + 2, px - 4)
        elif code == ERUPTED:
            _erupted(draw, x + pad, y + pad, px - 2 * pad)
        elif code != EMPTY:
            _cube(draw, x + pad, y + pad, px - 2 * pad, code, int(px * 0.42))
        if cell == state.pending_cell:
            draw.rectangle([x + 1, y + 1, x + px - 1, y + px - 1], outline=D.HIGHLIGHT, width=4)
    draw.rectangle([x0, y0, x0 + board_w, y0 + board_w], outline=D.INK, width=2)
    if zones:   # thick lines where the zone owner changes
        for cell in range(CELLS):
            r, c = divmod(cell, SIZE)
            x, y = x0 + c * px, y0 + r * px
            if c + 1 < SIZE and state.zone[cell] != state.zone[cell + 1]:
                draw.line([x + px, y, x + px, y + px], fill=D.INK, width=3)
            if r + 1 < SIZE and state.zone[cell] != state.zone[cell + SIZE]:
                draw.line([x, y + px, x + px, y + px], fill=D.INK, width=3)
    # ---- side panel
    sx, sy = x0 + board_w + margin + 6, top_bar + 12
    scores = state.scores()
    for s in range(g.num_seats):
        box_top = sy
        mover = s == state.cur and state.phase != "over"
        colour = D.SEAT_RGB[s] if g.competitive else D.SEAT_RGB[0]
        label = f"player_{s}" + ("  (to move)" if mover else "") + ("  OUT" if state.out[s] else "")
        draw.rectangle([sx, sy, sx + 12, sy + 12], fill=colour, outline=D.INK)
        D.text(draw, (sx + 18, sy - 1), label, size=14)
        facts = [f"score {scores[s]:g}"]
        if g.competitive:
            facts.append(f"captured {len(state.captured[s])}")
        if state.reserves[s]:
            facts.append(f"reserve {len(state.reserves[s])} giant(s)")
        if state.end_phase and state.allot[s]:
            facts.append(f"may place {state.allot[s]} more")
        D.text(draw, (sx + side_w - 6, sy), "  ".join(facts), size=12, fill=D.MUTED, anchor="ra")
        sy += 20
        hand = state.hands[s]
        hidden = observer is not None and s != observer and g.hidden_information
        hx = sx
        q = 24
        if not hand:
            D.text(draw, (hx, sy + 4), "(empty hand)", size=12, fill=D.MUTED)
        for _, colour_code in hand:
            if hx + q > sx + side_w:
                break
            if hidden:
                draw.rounded_rectangle([hx, sy, hx + q, sy + q], radius=4, fill=(170, 170, 176),
                                       outline=D.INK)
                D.text(draw, (hx + q / 2, sy + q / 2), "?", size=14, fill=D.INK, anchor="mm")
            else:
                _cube(draw, hx, sy, q, colour_code, 14)
            hx += q + 4
        sy += q + 10
        draw.line([sx, sy - 4, sx + side_w, sy - 4], fill=D.RULE)
        del box_top
    info = [f"bag {len(state.bag)} cubes · discard {len(state.discard)}"]
    if state.ranges:
        info.append(f"mountain ranges to place (peaks): {', '.join(map(str, state.ranges))}")
    if state.end_phase:
        info.append(f"end phase: {state.end_phase}")
    if state.pending_cell >= 0:
        info.append(f"pending: {_SUB_STEP.get(state.phase, state.phase)} for the cube at "
                    f"{cell_name(state.pending_cell)} (outlined)")
    if state.phase == "over":
        info.append(_result_line(state, scores))
    for line in info:
        for part in D.wrap(line, 13, side_w):
            D.text(draw, (sx, sy), part, size=13)
            sy += 17
    sy += 6
    names = list(_CUBE_NAME)
    if g.puzzle:
        names[8] = "brown block"   # the puzzle's fixed brown cubes
    items = [(_swatch(code), f"{LETTERS[code]} {names[code]}") for code in range(10)]
    items.append((lambda d, x, y, s: _mountain(d, x, y, s), "mountain"))
    items.append((lambda d, x, y, s: _erupted(d, x, y, s), "erupted cell"))
    if zones:
        items += [(D.mix(D.SEAT_RGB[s], D.PANEL, 0.72), f"zone of player_{s}")
                  for s in range(g.num_seats)]
    if g.puzzle:
        items.append((_OUTSIDE_RGB, "outside the field"))
    sy = D.legend(draw, sx, sy, side_w, items, columns=2, size=12)
    return D.to_array(img, max(board_bottom, sy + 12))


def _swatch(code):
    return lambda draw, x, y, s: _cube(draw, x, y, s, code, 11)


def _result_line(state: PeacekeepersState, scores: list[float]) -> str:
    g = state.game
    if g.competitive:
        ret = state.returns()
        best = max(ret)
        winners = [s for s in range(g.num_seats) if ret[s] == best]
        who = f"player_{winners[0]} wins" if len(winners) == 1 else \
            "shared first place: " + ", ".join(f"player_{s}" for s in winners)
        return f"game over: {who} (scores {', '.join(f'{x:g}' for x in scores)})"
    if g.puzzle:
        return f"game over: puzzle {'solved' if state.solved else 'not solved'}"
    return f"game over: score {scores[0]:g}"
