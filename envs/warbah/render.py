"""Warbah as text: the map (terrain, settlements, owners, encounter chits, fleets, Heroes),
gold, and the Heroes' index cards an observer may see."""
from __future__ import annotations

from . import heroes
from .config import SETTLEMENTS, TERRAINS

GLYPH = {"clear": ".", "forest": "f", "marsh": "m", "desert": "d", "hills": "h", "mountains": "M"}
SGLYPH = {"village": "v", "town": "t", "city": "C", "castle": "K", "mine": "$", "tower": "T",
          "capitol": "@"}


def render_text(st, observer=None) -> str:
    g = st.game
    lines = [f"Warbah turn {st.turn} phase {st.phase} to act: player {st.current_player}",
             "gold: " + " ".join(f"p{s}={st.gold[s]}" + ("" if st.alive[s] else "(out)")
                                 for s in range(g.num_seats))]
    for r in range(g.h):
        row = [" " if r % 2 else ""]
        for c in range(g.w):
            i = r * g.w + c
            if not st.land[i]:
                ch = f"S{st.fleets.owner[i]}" if st.fleets.ships[i] > 0 else "~~"  # a fleet
            elif not st.explored[i]:
                ch = "??"
            else:
                t = TERRAINS[st.terrain[i]]
                ch = SGLYPH[SETTLEMENTS[st.settle[i]]] if t == "settlement" else GLYPH[t]
                ch += "E" if st.encounter[i] else (str(st.owner[i]) if st.owner[i] >= 0 else " ")
            hi = heroes.hero_at(st, i)
            if hi >= 0:
                ch = f"H{st.heroes[hi].seat}"
            row.append(ch)
        lines.append(" ".join(row))
    for h in st.heroes:
        if h.alive and (observer is None or observer == h.seat):
            lines.append(f"p{h.seat} hero {h.id}: troops {h.troops.tolist()} xp {h.xp} "
                         f"abilities {[a for a, _ in h.abilities]}")
    return "\n".join(lines)
