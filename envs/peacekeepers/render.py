"""Text and image rendering for Peacekeepers."""
from __future__ import annotations

import numpy as np

from .board import CELLS, EMPTY, ERUPTED, LETTERS, MOUNTAIN, SIZE, cell_name

# ANSI 256-colour codes per board code (cube colours, brown, erupted, mountain)
_FG = {0: 196, 1: 208, 2: 226, 3: 40, 4: 33, 5: 129, 6: 240, 7: 255, 8: 94, 9: 245}
_ZONE_BG = [17, 52, 22, 53]
_RGB = {0: (220, 40, 40), 1: (240, 140, 30), 2: (240, 220, 40), 3: (50, 170, 60), 4: (40, 90, 220),
        5: (140, 60, 190), 6: (25, 25, 25), 7: (245, 245, 245), 8: (120, 80, 40), 9: (150, 150, 150),
        10: (110, 100, 90), -1: (235, 225, 200)}
#: the sub-step phases with a pending cube (plain text; the colour render underlines the cell)
_SUB_STEP = {"giant2": "the second Giant", "troll_chase": "the Troll's chase", "elf": "the Elf's re-roll"}


def _glyph(code: int) -> str:
    if code == EMPTY:
        return "."
    if code == MOUNTAIN:
        return "^"
    if code == ERUPTED:
        return "*"
    return LETTERS[code]


def render_text(state, observer: int | None = None, color: bool = True) -> str:
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
    return "\n".join(lines)


def render_rgb(state, cell_px: int = 32) -> np.ndarray:
    """An (H, W, 3) uint8 picture of the board: cubes as coloured squares, zones as borders."""
    h = SIZE * cell_px
    img = np.zeros((h, h, 3), np.uint8)
    zone_tint = [(60, 60, 160), (160, 60, 60), (60, 140, 60), (140, 60, 140)]
    for cell in range(CELLS):
        r, c = divmod(cell, SIZE)
        y, x = r * cell_px, c * cell_px
        code = int(state.board[cell]) if state.active[cell] else -2
        img[y:y + cell_px, x:x + cell_px] = zone_tint[state.zone[cell] % 4] if state.zone[cell] >= 0 \
            else (90, 90, 90)
        colour = _RGB.get(code, (40, 40, 40))
        img[y + 2:y + cell_px - 2, x + 2:x + cell_px - 2] = colour
        if code == ERUPTED:
            img[y + cell_px // 3:y + 2 * cell_px // 3, x + cell_px // 3:x + 2 * cell_px // 3] = (25, 25, 25)
    return img
