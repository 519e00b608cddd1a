"""Rendering for Warbah: the text view (with a legend) and the hex-map picture.

Both read the engine state only through the small accessor functions at the top of this module
(``_map``, ``_heroes``, ``_players``, ``_battle`` ...), so a change of the state's layout touches
those functions and nothing below them.

What an observer sees (the same rule as ``WarbahState.determinize``): the map, settlements,
owners, garrison sizes, fleets, encounter chits and every Hero's chit are public; an enemy
Hero's index card (the split of his troops, his special units, abilities and XP) and the
identity of his magic items are hidden unless the observer saw the card this turn (espionage,
Scry) or the Hero is fighting a battle (troops on the battlefield are seen); other players'
spell hands are shown as counts. ``observer=None`` is the spectator's view of everything.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import draw as D
from . import abilities, espionage, hexes, magic
from .state import WarbahState
from .tables import BASIC, SETTLEMENTS, SPECIALS, TERRAINS


# ============================================================================================
# state accessors (the only code here that knows the engine's state layout)
# ============================================================================================
@dataclass
class Hex:
    land: bool
    explored: bool
    terrain: str | None      # TERRAINS name ("settlement" for settlements), None unknown / water
    settlement: str | None   # SETTLEMENTS name
    owner: int               # seat, -1 none
    encounter: int           # 0 none, -1 chit of unknown type, k > 0 known type k
    variant: str             # terrain variant name ("" none)
    garrison: int            # troops and special units in the garrison
    ships: int               # ships of the fleet in a water hex
    fleet_owner: int


@dataclass
class Hero:
    index: int
    seat: int
    number: int              # the Hero's number within his player's Heroes
    cell: int
    troops: tuple[int, ...]  # warriors, archers, cavalry, catapults
    specials: dict[str, int]
    xp: int
    abilities: list[str]
    wizard: bool
    items: list[str]         # magic item names


def _size(st: WarbahState) -> tuple[int, int]:
    return st.game.h, st.game.w


def _terrain(x: Hex) -> str:
    """The terrain of an explored land hex."""
    assert x.terrain is not None, "an explored land hex has its terrain"
    return x.terrain


def _settlement(x: Hex) -> str:
    """The settlement of a settlement hex."""
    assert x.settlement is not None, "a settlement hex has its settlement"
    return x.settlement


def _map(st: WarbahState) -> list[Hex]:
    g = st.game
    out = []
    for i in range(g.h * g.w):
        t = int(st.terrain[i])
        s = int(st.settle[i])
        out.append(Hex(bool(st.land[i]), bool(st.explored[i]), TERRAINS[t] if t >= 0 else None,
                       SETTLEMENTS[s] if s >= 0 else None, int(st.owner[i]), int(st.encounter[i]),
                       st.variant[i], int(st.garrison[i].sum() + st.garrison_specials[i].sum()),
                       int(st.fleets.ships[i]), int(st.fleets.owner[i])))
    return out


def _rivers(st: WarbahState) -> list[tuple[int, int]]:
    return sorted(st.rivers)


def _capitol_candidates(st: WarbahState) -> list[tuple[int, int]]:
    """(candidate number k, cell) still free in the set-up (action "capitol at candidate k")."""
    if st.phase != "capitol":
        return []
    return [(k, int(st.capitol_candidates[k])) for k in hexes.free_candidates(st)]


def _heroes(st: WarbahState) -> list[Hero]:
    names = st.game.spells
    out = []
    for i, h in enumerate(st.heroes):
        if not h.alive:
            continue
        specials = {SPECIALS[u]: int(k) for u, k in enumerate(h.specials.tolist())}
        counts: dict[str, int] = {}
        for ab in h.abilities:
            word = _ability_word(ab)
            counts[word] = counts.get(word, 0) + 1
        abil = [w + (f" x{k}" if k > 1 else "") for w, k in counts.items()]
        grants = st.game.granting_units
        abil += [_ability_word((a, t)) + " (from units)" for a, t in h.granted_types.items()
                 if any(h.specials.item(u) for u in grants.get(a, ()))]
        lk = st.luck
        if (st.phase == "luck" and lk is not None and lk.what in ("ability", "granted")
                and lk.ctx and lk.ctx[1] and lk.ctx[1][0] == i):
            abil.append("(ability roll pending)")  # the card is written once the rolls settle
        items = []
        for it in h.items:
            if it.kind == "realm":
                items.append(f"{names.realm_names[it.spell]} (realm spell item)")
            elif it.kind == "battle":
                items.append(f"{names.battle_names[it.spell]} (battle spell item)")
            elif it.kind == "ability":
                items.append(f"{_ability_word(it.ability)} (ability item)")
            else:
                items.append(str(it.kind))
        out.append(Hero(i, int(h.seat), int(h.id), int(h.cell),
                        tuple(int(x) for x in h.troops.tolist()),
                        {k: v for k, v in specials.items() if v}, int(h.xp), abil,
                        h.wizard > 0, items))
    return out


def _ability_word(ab) -> str:
    """An ability entry (name, troop type) as words: the type only where it matters."""
    name, t = ab[0], ab[1] if len(ab) > 1 else None
    if name in abilities.TYPED and isinstance(t, int) and 0 <= t < len(abilities.TROOP_TYPES):
        return f"{name} ({abilities.TROOP_TYPES[t]})"  # the Hero (4) included
    return str(name)


def _card_visible(st: WarbahState, observer: int | None, hero: Hero) -> bool:
    """Whether ``observer`` may read this Hero's index card (see the module docstring)."""
    if observer is None or hero.seat == observer:
        return True
    if magic.scried(st, observer) or espionage.is_revealed(st, observer, hero.index):
        return True
    b = st.battle
    if b is not None:
        fighting = {a.hero for a in b.sides} | {a.hero for a in b.members}
        return hero.index in fighting
    return False


def _players(st: WarbahState) -> list[dict]:
    g = st.game
    hands = st.magic.hands
    out = []
    for s in range(g.num_seats):
        out.append({"gold": int(st.gold[s]), "alive": bool(st.alive[s]),
                    "capitol": int(st.capitol[s]), "settlements": len(hexes.settlements_of(st, s)),
                    "hand": list(hands[s])})
    return out


def _realm_spell_name(st: WarbahState, k: int) -> str:
    return st.game.spells.realm_names[k]


def _battle(st: WarbahState) -> dict | None:
    """The battle being fought: per side its seat, Hero (index or -1), counts of warriors,
    archers, cavalry, catapults (and the Hero), a monster's hits left and walls left; plus the
    cell."""
    b = st.battle
    if b is None:
        return None
    sides = []
    for sd in b.sides:
        counts = [int(x) for x in np.asarray(sd.counts).tolist()]
        monster = sd.monster   # [initiative, kill rank, hits left] or None
        sides.append({"seat": int(sd.seat), "hero": int(sd.hero),
                      "counts": counts, "walls": int(sd.walls_left),
                      "monster_hits": None if monster is None else int(monster[2])})
    return {"cell": int(b.cell), "kind": str(b.kind), "round": int(b.round),
            "kills": list(b.kills), "sides": sides, "joined": len(b.members)}


def _acting_hero(st: WarbahState) -> int:
    """Index of the Hero acting now (move or battle phase), -1 if none."""
    if st.phase in ("move", "battle") and st.queue_pos < len(st.queue):
        seat, x = st.queue[st.queue_pos]
        if seat == st.current_player and 0 <= x < len(st.heroes):
            return int(x)
    return -1


def _status(st: WarbahState) -> dict:
    return {"turn": int(st.turn), "phase": st.phase, "to_move": int(st.current_player),
            "over": st.is_terminal(), "capped": bool(st.capped),
            "turn_cap": int(st.game.turn_cap)}


def _encounter_name(st: WarbahState, k: int) -> str:
    table = st.game.cfg.get("encounters", {})
    row = table.get(k) or table.get(str(k)) or {}
    return str(row.get("name", "encounter"))


def _result(st: WarbahState) -> str:
    """Who won (or the ranking at the cap), for the end of the game."""
    g = st.game
    ret = st.returns()
    best = max(ret)
    win = [s for s in range(g.num_seats) if ret[s] == best]
    how = {"domination": "domination: most of the settlements held",
           "last_standing": "last player standing"}.get(
        st.ending, "turn cap: ranked by survival, settlements, gold")
    if len(win) == 1:
        return f"game over: player_{win[0]} wins ({how})"
    return "game over: shared first place: " + ", ".join(f"player_{s}" for s in win) + f" ({how})"


# ============================================================================================
# text
# ============================================================================================
GLYPH = {"clear": ".", "forest": "f", "marsh": "m", "desert": "d", "hills": "h", "mountains": "M"}
SGLYPH = {"village": "v", "town": "t", "city": "C", "castle": "K", "mine": "$", "tower": "T",
          "capitol": "@"}
TEXT_LEGEND = ("legend: ?? unexplored land, ~~ water, Sn fleet of player n; terrain . clear, "
               "f forest, m marsh, d desert, h hills, M mountains; settlements v village, t town, "
               "C city, K castle, $ mine, T tower, @ capitol; the second character is the owner's "
               "seat (blank: nobody) or E for an encounter chit; Hn Hero of player n; "
               "cN capitol candidate N (set-up). Cell number = row * {w} + column.")


def _troop_words(troops) -> str:
    return ", ".join(f"{name} {k}" for name, k in zip(BASIC, troops))


def _hero_words(st: WarbahState, hero: Hero, observer: int | None) -> str:
    where = f"cell {hero.cell} (row {hero.cell // st.game.w}, col {hero.cell % st.game.w})"
    head = f"player_{hero.seat} Hero {hero.number} at {where}: "
    if not _card_visible(st, observer, hero):
        total = sum(hero.troops) + sum(hero.specials.values())
        items = f"; {len(hero.items)} magic item(s)" if hero.items else ""
        return head + f"army of {total} (index card hidden){'; wizard' if hero.wizard else ''}{items}"
    parts = [_troop_words(hero.troops)]
    if hero.specials:
        parts.append("special units " + ", ".join(f"{k} {v}" for k, v in hero.specials.items()))
    parts.append(f"XP {hero.xp}")
    parts.append("abilities " + (", ".join(hero.abilities) or "-"))
    if hero.wizard:
        parts.append("wizard")
    if hero.items:
        parts.append("items " + ", ".join(hero.items))
    return head + "; ".join(parts)


def render_text(st: WarbahState, observer: int | None = None, color: bool = False) -> str:
    """The map as text with a legend, the players, the Heroes (index cards hidden from other
    observers), the battle being fought and the result. Warbah's text has no colours."""
    del color
    h, w = _size(st)
    s = _status(st)
    hexes = _map(st)
    heroes = _heroes(st)
    at = {x.cell: x for x in heroes}
    cand = {cell: k for k, cell in _capitol_candidates(st)}
    to_move = "-" if s["over"] else f"player_{s['to_move']}"
    lines = [f"Warbah turn {s['turn']}/{s['turn_cap']} phase {s['phase']} to act: {to_move}"]
    for seat, p in enumerate(_players(st)):
        state = "" if p["alive"] else " (out)"
        cap = f", capitol at cell {p['capitol']}" if p["capitol"] >= 0 else ""
        if observer is None or observer == seat:
            hand = ", ".join(_realm_spell_name(st, k) for k in p["hand"]) or "-"
        else:
            hand = f"{len(p['hand'])} card(s)"
        lines.append(f"player_{seat}{state}: gold {p['gold']}, settlements {p['settlements']}"
                     f"{cap}; realm spells: {hand}")
    lines.append("   " + "".join(f"{c:<3d}" for c in range(w)).rstrip())
    for r in range(h):
        row = []
        for c in range(w):
            i = r * w + c
            x = hexes[i]
            if not x.land:
                ch = f"S{x.fleet_owner}" if x.ships > 0 else "~~"
            elif not x.explored:
                ch = "??"
            else:
                ch = SGLYPH[_settlement(x)] if x.terrain == "settlement" else GLYPH[_terrain(x)]
                ch += "E" if x.encounter else (str(x.owner) if x.owner >= 0 else " ")
            if i in cand:
                ch = f"c{cand[i]}"
            if i in at:
                ch = f"H{at[i].seat}"
            row.append(ch)
        lines.append(f"{r:>2} " + (" " if r % 2 else "") + " ".join(row))
    lines.append(TEXT_LEGEND.replace("{w}", str(w)))
    if cand:
        lines.append("capitol candidates: " + ", ".join(f"c{k} = cell {cell}"
                                                       for cell, k in sorted(cand.items(), key=lambda t: t[1])))
    for hero in heroes:
        lines.append(_hero_words(st, hero, observer))
    b = _battle(st)
    if b is not None:
        lines.append(_battle_words(b))
    if s["over"]:
        lines.append(_result(st))
    return "\n".join(lines)


def _side_words(side: dict) -> str:
    who = f"player_{side['seat']}" if side["seat"] >= 0 else "neutral"
    counts = side["counts"]
    words = _troop_words(counts[:4])
    if len(counts) > 4 and counts[4]:
        words += ", Hero"
    if side["monster_hits"] is not None:
        words += f", monster ({side['monster_hits']} hits left)"
    if side["walls"]:
        words += f", walls {side['walls']}"
    return f"{who}: {words}"


def _battle_words(b: dict) -> str:
    a, d = b["sides"]
    return (f"battle at cell {b['cell']} ({b['kind']}, round {b['round']}; casualties still to take: attacker "
            f"{b['kills'][0]}, defender {b['kills'][1]}): attacker {_side_words(a)} vs defender {_side_words(d)}")


# ============================================================================================
# picture
# ============================================================================================
_WATER = (120, 175, 225)
_FOG = (92, 92, 100)
_TERRAIN_RGB = {"clear": (205, 226, 160), "forest": (110, 165, 95), "marsh": (150, 175, 140),
                "desert": (236, 214, 150), "hills": (200, 180, 130), "mountains": (165, 150, 140),
                "settlement": (222, 214, 190)}
_RIVER, _RIVER_EDGE = (120, 220, 255), (20, 50, 130)


def _hex_centre(r: int, c: int, R: float, x0: float, y0: float) -> tuple[float, float]:
    """Odd-r offset layout (odd rows shifted half a hex right), pointy-top hexes."""
    wdt = math.sqrt(3) * R
    return x0 + wdt * (c + 0.5 * (r & 1)) + wdt / 2, y0 + R + 1.5 * R * r


def _terrain_mark(draw, terrain: str, cx: float, cy: float, R: float) -> None:
    s = R * 0.3
    if terrain == "forest":
        for dx in (-0.5, 0.5):
            x = cx + dx * s * 1.2
            draw.polygon([(x, cy - s), (x - s * 0.6, cy + s * 0.4), (x + s * 0.6, cy + s * 0.4)],
                         fill=(40, 100, 40))
    elif terrain == "hills":
        for dx in (-0.55, 0.55):
            draw.pieslice([cx + dx * s - s * 0.7, cy - s * 0.5, cx + dx * s + s * 0.7, cy + s * 0.9],
                          180, 360, fill=(150, 125, 80))
    elif terrain == "mountains":
        draw.polygon([(cx - s * 1.1, cy + s * 0.6), (cx - s * 0.2, cy - s * 0.9), (cx + s * 0.5, cy + s * 0.6)],
                     fill=(110, 95, 85))
        draw.polygon([(cx - s * 0.1, cy + s * 0.6), (cx + s * 0.5, cy - s * 0.4), (cx + s * 1.1, cy + s * 0.6)],
                     fill=(130, 115, 105))
    elif terrain == "marsh":
        for dx in (-0.6, 0, 0.6):
            draw.line([cx + dx * s, cy + s * 0.5, cx + dx * s, cy - s * 0.5], fill=(70, 110, 70), width=2)
        draw.line([cx - s, cy + s * 0.5, cx + s, cy + s * 0.5], fill=(70, 110, 140), width=2)
    elif terrain == "desert":
        for dx, dy in ((-0.6, 0.2), (0, -0.3), (0.6, 0.2), (0.2, 0.6), (-0.3, -0.6)):
            D.disc(draw, cx + dx * s, cy + dy * s, max(1.5, R * 0.04), (190, 160, 90))


def _settlement_mark(draw, kind: str, cx: float, cy: float, R: float, colour) -> None:
    """A small building: houses for village/town/city, a keep for castle/capitol, a tower, a
    mine entrance; filled in the owner's colour (white when nobody owns it)."""
    s = R * 0.32
    ink = D.INK
    if kind in ("village", "town", "city"):
        n = {"village": 1, "town": 2, "city": 3}[kind]
        for k in range(n):
            x = cx + (k - (n - 1) / 2) * s * 0.9
            draw.rectangle([x - s * 0.4, cy - s * 0.1, x + s * 0.4, cy + s * 0.6], fill=colour, outline=ink)
            draw.polygon([(x - s * 0.5, cy - s * 0.1), (x, cy - s * 0.6), (x + s * 0.5, cy - s * 0.1)],
                         fill=colour, outline=ink)
    elif kind in ("castle", "capitol"):
        draw.rectangle([cx - s, cy - s * 0.3, cx + s, cy + s * 0.7], fill=colour, outline=ink)
        for k in range(3):
            x = cx - s + k * s * 0.8
            draw.rectangle([x, cy - s * 0.7, x + s * 0.4, cy - s * 0.3], fill=colour, outline=ink)
        if kind == "capitol":
            draw.polygon([(cx - s * 0.35, cy - s * 0.75), (cx - s * 0.35, cy - s * 1.3),
                          (cx + s * 0.35, cy - s * 1.1)], fill=(230, 40, 40), outline=ink)
    elif kind == "tower":
        draw.rectangle([cx - s * 0.35, cy - s * 0.7, cx + s * 0.35, cy + s * 0.7], fill=colour, outline=ink)
        draw.polygon([(cx - s * 0.5, cy - s * 0.7), (cx, cy - s * 1.3), (cx + s * 0.5, cy - s * 0.7)],
                     fill=(120, 70, 170), outline=ink)
    elif kind == "mine":
        draw.pieslice([cx - s, cy - s * 0.8, cx + s, cy + s * 1.2], 180, 360, fill=colour, outline=ink)
        draw.pieslice([cx - s * 0.45, cy - s * 0.2, cx + s * 0.45, cy + s * 0.8], 180, 360, fill=(40, 30, 20))


def _hero_mark(draw, cx, cy, R, colour, label: str, acting: bool) -> None:
    r = R * 0.36
    if acting:
        D.disc(draw, cx, cy, r + 5, D.HIGHLIGHT)
    draw.polygon([(cx, cy - r * 1.15), (cx + r, cy - r * 0.2), (cx + r * 0.7, cy + r),
                  (cx - r * 0.7, cy + r), (cx - r, cy - r * 0.2)], fill=colour, outline=D.INK, width=2)
    D.text(draw, (cx, cy + 1), label, size=max(12, int(R * 0.34)), fill=D.contrast(colour), anchor="mm")


def _fleet_mark(draw, cx, cy, R, colour, ships: int) -> None:
    s = R * 0.35
    draw.polygon([(cx - s, cy + s * 0.1), (cx + s, cy + s * 0.1), (cx + s * 0.6, cy + s * 0.6),
                  (cx - s * 0.6, cy + s * 0.6)], fill=colour, outline=D.INK)
    draw.line([cx, cy + s * 0.1, cx, cy - s], fill=D.INK, width=2)
    draw.polygon([(cx, cy - s), (cx + s * 0.7, cy - s * 0.1), (cx, cy - s * 0.1)], fill=(250, 250, 250),
                 outline=D.INK)
    if ships:
        D.text(draw, (cx - s * 0.15, cy - s * 0.45), str(ships), size=12, anchor="rm")


def render_rgb(st: WarbahState, observer: int | None = None) -> np.ndarray:
    """An (H, W, 3) uint8 picture: the hex map (cell numbers as the spell targets name them,
    terrain, rivers, settlements and capitols with their owner's colour, encounter chits,
    garrison sizes, fleets, Heroes with their army size, unexplored hexes in fog, capitol
    candidates in the set-up), beside it the players, the Heroes' index cards (hidden from
    other observers), the battle being fought and a legend."""
    h, w = _size(st)
    s = _status(st)
    heroes = _heroes(st)
    players = _players(st)
    R = min(40.0, 640 / (math.sqrt(3) * (w + 0.5)))
    map_w = math.sqrt(3) * R * (w + 0.5)
    map_h = R * (1.5 * h + 0.5)
    top_bar, pad = 34, 14
    side_w = 390
    width = int(pad + map_w + pad + side_w + 12)
    img, draw = D.canvas(width, int(top_bar + pad + map_h + 1200))
    status = _result(st).split(" (")[0] if s["over"] else (
        f"turn {s['turn']}/{s['turn_cap']} · phase {s['phase']} · to act: player_{s['to_move']}")
    D.title_bar(draw, width, f"Warbah · {len(players)} players", status, height=top_bar)
    x0, y0 = pad, top_bar + pad
    cand = {cell: k for k, cell in _capitol_candidates(st)}
    battle = _battle(st)
    at = {x.cell: x for x in heroes}
    for i, x in enumerate(_map(st)):
        _draw_hex(draw, i, x, _hex_centre(*divmod(i, w), R, x0, y0), R, i in at, cand, battle)
    _draw_rivers(draw, st, w, R, x0, y0)
    acting = _acting_hero(st)
    for hero in heroes:
        cx, cy = _hex_centre(*divmod(hero.cell, w), R, x0, y0)
        hx = cx + R * 0.18
        _hero_mark(draw, hx, cy + R * 0.02, R, D.SEAT_RGB[hero.seat], f"H{hero.number}",
                   hero.index == acting)
        total = sum(hero.troops) + sum(hero.specials.values())
        D.text(draw, (hx + R * 0.05, cy + R * 0.58), str(total), size=12, anchor="mm", fill=D.INK)
    map_bottom = y0 + map_h
    sx, sy = int(x0 + map_w + pad + 4), top_bar + 10
    sy = _draw_players(draw, st, s, players, heroes, observer, sx, sy, side_w)
    notes = []
    if battle is not None:
        notes.append(_battle_words(battle))
    if cand:
        notes.append("set-up: choose a capitol candidate (c0, c1 ... on the map)")
    if s["over"]:
        notes.append(_result(st))
    for line in notes:
        for part in D.wrap(line, 13, side_w):
            D.text(draw, (sx, sy), part, size=13)
            sy += 17
        sy += 3
    bottom = D.legend(draw, x0, int(map_bottom) + 10, int(map_w), _legend_items(), columns=3,
                      size=12, swatch=22)
    return D.to_array(img, max(bottom, sy) + 10)


def _draw_hex(draw, i: int, x: Hex, centre, R: float, crowded: bool, cand: dict,
              battle: dict | None) -> None:
    """One hex of the map: terrain or fog or water, control ring, settlement or terrain mark,
    encounter chit, garrison size, fleet, cell number, capitol candidate, battle outline.
    ``crowded``: a Hero stands here (the hex's own mark moves aside)."""
    cx, cy = centre
    pts = D.hexagon(cx, cy, R)
    if not x.land:
        fill = _WATER
    elif not x.explored:
        fill = _FOG
    else:
        fill = _TERRAIN_RGB.get(_terrain(x), (200, 200, 200))
    draw.polygon(pts, fill=fill, outline=(90, 90, 90))
    if x.land and not x.explored:
        D.text(draw, (cx, cy + 2), "?", size=int(R * 0.55), fill=(150, 150, 160), anchor="mm")
    elif x.land:
        if x.owner >= 0:   # control: a ring in the owner's colour
            draw.polygon(D.hexagon(cx, cy, R * 0.9), outline=D.SEAT_RGB[x.owner],
                         width=max(3, int(R * 0.09)))
        mx, my, mr = (cx - R * 0.45, cy - R * 0.02, R * 0.7) if crowded else (cx, cy - R * 0.12, R)
        if x.terrain == "settlement":
            colour = D.SEAT_RGB[x.owner] if x.owner >= 0 else (250, 250, 250)
            _settlement_mark(draw, _settlement(x), mx, my, mr, colour)
        else:
            _terrain_mark(draw, _terrain(x), mx, my, mr)
        if x.encounter:
            D.disc(draw, cx + R * 0.42, cy - R * 0.3, R * 0.2, (200, 30, 30), D.INK)
            D.text(draw, (cx + R * 0.42, cy - R * 0.3 + 1), "!", size=max(12, int(R * 0.3)),
                   fill=(255, 255, 255), anchor="mm")
        if x.garrison:
            gx = cx - R * 0.45 if crowded else cx
            D.text(draw, (gx, cy + R * 0.55), f"g{x.garrison}", size=12, anchor="mm")
    elif x.ships > 0:
        _fleet_mark(draw, cx, cy, R, D.SEAT_RGB[x.fleet_owner], x.ships)
    D.text(draw, (cx, cy - R * 0.68), str(i), size=11 if R < 34 else 12,
           fill=(200, 200, 210) if x.land and not x.explored else (60, 60, 70), anchor="mm")
    if i in cand:
        draw.polygon(D.hexagon(cx, cy, R * 0.75), outline=D.HIGHLIGHT, width=3)
        draw.rounded_rectangle([cx - 13, cy + R * 0.5 - 9, cx + 13, cy + R * 0.5 + 9], radius=4,
                               fill=D.HIGHLIGHT)
        D.text(draw, (cx, cy + R * 0.5), f"c{cand[i]}", size=13, anchor="mm",
               fill=(255, 255, 255))
    if battle is not None and i == battle["cell"]:
        draw.polygon(D.hexagon(cx, cy, R * 0.95), outline=(220, 30, 30), width=3)


def _draw_rivers(draw, st: WarbahState, w: int, R: float, x0: float, y0: float) -> None:
    """Each river on the shared edge of its two hexes."""
    for a, b in _rivers(st):
        pa, pb = _hex_centre(*divmod(a, w), R, x0, y0), _hex_centre(*divmod(b, w), R, x0, y0)
        mx, my = (pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2
        dx, dy = pb[0] - pa[0], pb[1] - pa[1]
        n = math.hypot(dx, dy) or 1
        ex, ey = -dy / n * R / 2, dx / n * R / 2     # along the edge: perpendicular, half a side
        draw.line([mx - ex, my - ey, mx + ex, my + ey], fill=_RIVER_EDGE,
                  width=max(6, int(R * 0.2)))
        draw.line([mx - ex, my - ey, mx + ex, my + ey], fill=_RIVER, width=max(3, int(R * 0.1)))


def _draw_players(draw, st: WarbahState, s: dict, players: list, heroes: list, observer, sx: int, sy: int,
                  side_w: int) -> int:
    """The side panel: per player its colour, gold, settlements, realm hand (face down for
    other observers) and its Heroes' index cards. Returns the next free y."""
    for seat, p in enumerate(players):
        colour = D.SEAT_RGB[seat]
        draw.rectangle([sx, sy + 2, sx + 12, sy + 14], fill=colour, outline=D.INK)
        head = f"player_{seat}" + ("  (to act)" if seat == s["to_move"] and not s["over"] else "") + \
            ("" if p["alive"] else "  OUT")
        D.text(draw, (sx + 18, sy), head, size=14)
        D.text(draw, (sx + side_w, sy + 1), f"gold {p['gold']} · settlements {p['settlements']}",
               size=12, anchor="ra", fill=D.MUTED)
        sy += 19
        if observer is None or observer == seat:
            hand = ", ".join(_realm_spell_name(st, k) for k in p["hand"]) or "-"
        else:
            hand = f"{len(p['hand'])} face down"
        for part in D.wrap(f"realm spells: {hand}", 12, side_w - 8):
            D.text(draw, (sx + 8, sy), part, size=12)
            sy += 15
        for hero in (x for x in heroes if x.seat == seat):
            sy = _hero_card(draw, st, hero, observer, sx + 8, sy, side_w - 8)
        sy += 4
        draw.line([sx, sy - 2, sx + side_w, sy - 2], fill=D.RULE)
        sy += 4
    return sy


def _legend_items() -> list:
    """(swatch drawer, words) for the legend under the map."""
    def none(d, cx, cy, r):
        return None
    items = [(_hsw(none, _FOG, "?"), "unexplored (fog)"),
             (_hsw(none, _WATER), "water"),
             (_hsw(none, _TERRAIN_RGB["clear"]), "clear")]
    items += [(_hsw(lambda d, cx, cy, r, t=t: _terrain_mark(d, t, cx, cy, r * 1.5),
                    _TERRAIN_RGB[t]), t)
              for t in ("forest", "marsh", "desert", "hills", "mountains")]
    items += [(_hsw(lambda d, cx, cy, r, k=k: _settlement_mark(d, k, cx, cy + r * 0.15, r * 1.6,
                                                                (250, 250, 250)),
                    _TERRAIN_RGB["settlement"]), k) for k in SETTLEMENTS]
    items += [(lambda d, x, y, sz: draw_ring(d, x, y, sz), "owned: ring in the owner's colour"),
              (lambda d, x, y, sz: _hero_mark(d, x + sz / 2, y + sz / 2 + 1, sz * 1.1,
                                              D.SEAT_RGB[0], "", False),
               "Hero (number; army size below)"),
              (lambda d, x, y, sz: _fleet_mark(d, x + sz / 2 + 3, y + sz / 2, sz * 1.1,
                                               D.SEAT_RGB[0], 0),
               "fleet (ships)"),
              (lambda d, x, y, sz: D.disc(d, x + sz / 2, y + sz / 2, sz / 2, (200, 30, 30), D.INK),
               "encounter chit"),
              (None, "gN: garrison of N troops"),
              (lambda d, x, y, sz: d.rounded_rectangle([x, y + 2, x + sz, y + sz - 2], radius=3,
                                                       fill=D.HIGHLIGHT),
               "cN: capitol candidate N (set-up)"),
              (lambda d, x, y, sz: (d.line([x, y + sz / 2, x + sz, y + sz / 2], fill=_RIVER_EDGE,
                                           width=6),
                                    d.line([x, y + sz / 2, x + sz, y + sz / 2], fill=_RIVER,
                                           width=3)),
               "river (on a hex edge)"),
              (lambda d, x, y, sz: D.disc(d, x + sz / 2, y + sz / 2, sz / 2, D.HIGHLIGHT),
               "acting Hero"),
              (None, "small numbers: cell (spell targets)")]
    return items


def draw_ring(draw, x, y, size):
    cx, cy = x + size / 2, y + size / 2
    draw.polygon(D.hexagon(cx, cy, size / 2 + 1), fill=_TERRAIN_RGB["clear"], outline=(90, 90, 90))
    draw.polygon(D.hexagon(cx, cy, size / 2 - 1), outline=D.SEAT_RGB[0], width=3)


def _hsw(mark, fill, letter: str = ""):
    """A legend swatch: a small hex of ``fill`` with ``mark`` drawn on it."""
    def paint(draw, x, y, size):
        cx, cy = x + size / 2, y + size / 2
        draw.polygon(D.hexagon(cx, cy, size / 2 + 1), fill=fill, outline=(90, 90, 90))
        mark(draw, cx, cy, size / 2)
        if letter:
            D.text(draw, (cx, cy + 1), letter, size=13, fill=(200, 200, 210), anchor="mm")
    return paint


def _hero_card(draw, st: WarbahState, hero: Hero, observer, x, y, width) -> int:
    """One Hero's index card in the side panel (hidden from other observers); returns the y below."""
    colour = D.SEAT_RGB[hero.seat]
    _hero_mark(draw, x + 8, y + 9, 18, colour, str(hero.number), False)
    D.text(draw, (x + 22, y + 1), f"Hero {hero.number} at cell {hero.cell}", size=13)
    y += 19
    if _card_visible(st, observer, hero):
        lines = [_troop_words(hero.troops)]
        if hero.specials:
            lines.append("special: " + ", ".join(f"{k} {v}" for k, v in hero.specials.items()))
        lines.append(f"XP {hero.xp} · abilities: " + (", ".join(hero.abilities) or "-")
                     + (" · wizard" if hero.wizard else ""))
        if hero.items:
            lines.append("items: " + ", ".join(hero.items))
    else:
        total = sum(hero.troops) + sum(hero.specials.values())
        lines = [f"army of {total} (index card hidden)" + (" · wizard" if hero.wizard else "")
                 + (f" · {len(hero.items)} item(s)" if hero.items else "")]
    for line in lines:
        for part in D.wrap(line, 12, width - 14):
            D.text(draw, (x + 14, y), part, size=12)
            y += 15
    return y + 2

