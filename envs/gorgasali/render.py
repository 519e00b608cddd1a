"""Text rendering for Gorgasali (ansi); no picture renderer."""
from __future__ import annotations

from envs.gorgasali import actions as A
from envs.gorgasali.board import BLOCK, FOREST, MOUNTAIN, WATER

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
        lines[0] += f" dice={state.dice} points={state.move_points}"
    lines.append("    " + "".join(chr(ord("A") + c) for c in range(A.SIZE)))
    figures = {state.pos[t]: str(t % 10) for t in range(g.num_seats) if state.alive[t]}
    banners = {sq: _BANNER[bn[0]] for bn in state.banners for sq in bn[1]}
    fallen = {state.fallen_at[t]: "x" for t in range(g.num_seats) if state.fallen_at[t] >= 0}
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
            ch = figures.get(sq, ch)
            if color:
                inactive = b.zone[sq] <= state.zones_out
                bg = 236 if inactive else _ZONE_BG[b.zone[sq]]
                fg = "\x1b[1;97m" if sq in figures else ""
                ch = f"\x1b[48;5;{bg}m{fg}{ch}\x1b[0m"
            row.append(ch)
        lines.append(f"{r + 1:>3} " + "".join(row))
    lines.append("legend: digits players (seat % 10), c chest, + healing, ~ water, f forest, "
                 "^ mountain, # blocking, = barrier, * ball lightning, T tree platform, "
                 "M magic field, s smoke, x fallen teammate")
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
