"""Rendering for Zaka: the text view and the card-table picture (battlefields with hearts and
weapons, hands, deck and discard pile)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import draw as D
from .actions import army_name
from .tables import ABILITIES, MEND, RAMPAGE, SNATCH

if TYPE_CHECKING:   # for the type checker only: game.py and state.py import this module
    from .game import ZakaGame
    from .state import ZakaState

_RED, _DIM, _BOLD, _GREEN, _YELLOW, _RESET = ("\x1b[31m", "\x1b[2m", "\x1b[1m", "\x1b[32m",
                                              "\x1b[33m", "\x1b[0m")


def _c(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color and code else text


def army_label(game: ZakaGame, seat: int) -> str:
    if game.two_player:
        return f"army {seat} (player_{game.seat_owner(seat)})"
    return f"army {seat} (player_{seat})"


def card_label(game: ZakaGame, design: int) -> str:
    sym = game.type_symbols[game.card_type[design]]
    if game.is_monster[design]:
        kind = ABILITIES[game.ability[design]].capitalize()
        return f"{game.names[design]} [{sym}] {game.hearts[design]}hp {kind} {game.swords[design]}"
    if game.heart_weapon[design]:
        return f"{game.names[design]} [{sym}] heart"
    extra = ""
    if game.bonus_vs[design] >= 0:
        extra = f" +{game.bonus[design]} vs {game.type_symbols[game.bonus_vs[design]]}"
    return f"{game.names[design]} [{sym}] +{game.swords[design]}{extra}"


def monster_line(state: ZakaState, monster: list[int], slot: int, color: bool) -> str:
    g = state.game
    d, hp, w = monster
    full = g.hearts[d]
    hearts = _c("♥" * max(0, hp), _RED, color) + _c("·" * (full - max(0, hp)), _DIM, color)
    kind = g.ability[d]
    sym = g.type_symbols[g.card_type[d]]
    # the number after the ability is its whole strength (the weapon's swords included); the
    # brackets say how it is made up, so nothing reads as a further addition
    power = f"{ABILITIES[kind].capitalize()} {state.strength(monster)}"
    weapon = ""
    if w >= 0:
        if g.heart_weapon[w]:
            weapon = f" ({g.names[w]}: +{g.rules['heart_weapon_heal']} heart per use)"
        elif kind == MEND:
            weapon = f" ({g.names[w]}: no effect on Mend)"
        else:
            bonus = f", {g.bonus[w]} more vs {g.type_symbols[g.bonus_vs[w]]}" if g.bonus_vs[w] >= 0 else ""
            weapon = f" ({g.swords[d]} + {g.swords[w]} {g.names[w]}{bonus})"
    return f"   {slot}: {g.names[d]:<14} [{sym}] {hearts:<{full}} {hp}/{full}  {power}{weapon}"


def hand_text(game: ZakaGame, hand: list[int]) -> str:
    items = []
    for d, k in enumerate(hand):
        if k:
            items.append(("%dx " % k if k > 1 else "") + card_label(game, d))
    return "; ".join(items) if items else "(empty)"


def render_text(state: ZakaState, observer: int | None = None, color: bool = False) -> str:
    """``observer`` None: every hand is shown (spectator / debugging view); otherwise only the
    hands of the observer's player."""
    g = state.game
    who = "-" if state.phase == "over" else army_label(g, state.cur)
    lines = [_c(f"Zaka ({g.num_players} players{', two armies each' if g.two_player else ''})", _BOLD, color)
             + f"  turn {state.turns_done + (0 if state.phase == 'over' else 1)}"
             + f"  phase={state.phase}  to move: {who}"
             + (f"  cards played: {state.played}" if state.phase in ("deploy", "play") else "")]
    me = None if observer is None else g.seat_owner(observer)
    for t in range(g.num_seats):
        status = ""
        if state.out[t]:
            status = _c(" OUT", _YELLOW, color)
        elif not state.deployed[t]:
            status = " (first turn to come)"
        marker = ">" if t == state.cur and state.phase != "over" else " "
        hand = state.hands[t]
        size = sum(hand)
        if me is None or g.seat_owner(t) == me:
            shown = hand_text(g, hand)
        else:
            shown = "?" * size if size else "(empty)"
        lines.append(f"{marker}{_c(army_label(g, t), _GREEN if marker == '>' else '', color)}"
                     f"{status}  kills={state.kills[t]}  hand {size}: {shown}")
        for slot, m in enumerate(state.fields[t]):
            lines.append(monster_line(state, m, slot, color))
    disc: dict[int, int] = {}
    for d in state.discard:
        disc[d] = disc.get(d, 0) + 1
    pile = ", ".join(f"{g.names[d]}" + (f" x{k}" if k > 1 else "") for d, k in sorted(disc.items()))
    lines.append(f"deck {len(state.deck)}  discard {len(state.discard)}" + (f": {pile}" if pile else ""))
    if state.log:
        lines.append("last: " + "; ".join(e.strip() for e in state.log[-6:]))
    if state.phase == "over":
        win = state.winner()
        lines.append(_c(f"game over ({state.end_reason}): "
                        + (f"player_{win} wins" if win >= 0 else "shared first place")
                        + "; returns " + ", ".join(f"player_{i} {float(r):+.2f}" for i, r in
                                                    enumerate(state.game.agent_returns(state.returns()))),
                        _BOLD, color))
    return "\n".join(lines)


def action_to_str(state: ZakaState, action: int) -> str:
    g = state.game
    kind, *args = g.layout.decode(action)
    s = state.cur if state.cur >= 0 else 0
    field = state.fields[s]

    def mon(seat: int, slot: int) -> str:
        f = state.fields[seat]
        return f"{g.names[f[slot][0]]} (slot {slot})" if slot < len(f) else f"slot {slot}"

    if kind == "monster":
        return f"play monster {g.names[args[0]]}"
    if kind == "weapon":
        w = g.num_monster_designs + args[0]
        return f"give {g.names[w]} to {mon(s, args[1])}"
    if kind == "end":
        return "end the play step" if state.phase != "deploy" else "end the first turn"
    user = args[0]
    t = (s + args[1]) % g.num_seats
    where = army_name(t, args[1], g)
    verb = "uses its ability on"
    if user < len(field):
        k = g.ability[field[user][0]]
        verb = {MEND: "mends", RAMPAGE: "rampages", SNATCH: "snatches from"}.get(k, f"{ABILITIES[k]}s")
    if kind == "rampage":
        return f"{mon(s, user)} {verb} {where}"
    return f"{mon(s, user)} {verb} {mon(t, args[2])} of {where}"


# ---------------------------------------------------------------------------- rgb_array ------
_TYPE_RGB = ((70, 110, 150), (140, 70, 170))        # Blade, Rune (the config's two types)
_CARD_BG = (252, 249, 240)
_HEART, _HEART_LOST = (215, 40, 50), (215, 210, 205)
_BACK, _BACK_LINE = (120, 40, 40), (200, 150, 90)
_ABILITY_TEXT = {"attack": "damage one enemy monster",
                 "rampage": "damage every monster of one opponent",
                 "mend": "another friendly monster gets hearts back",
                 "drain": "damage one enemy monster, then heal itself",
                 "disarm": "damage one enemy monster and discard its weapon",
                 "snatch": "take an enemy's Blade weapon, then damage it",
                 "reap": "damage one enemy monster; defeat it when low on hearts"}


def _type_rgb(g: ZakaGame, design: int) -> D.RGB:
    return _TYPE_RGB[g.card_type[design] % len(_TYPE_RGB)]


def _card_back(draw, x, y, w, h):
    draw.rounded_rectangle([x, y, x + w, y + h], radius=5, fill=_BACK, outline=D.INK)
    draw.rounded_rectangle([x + 3, y + 3, x + w - 3, y + h - 3], radius=3, outline=_BACK_LINE)
    cx, cy = x + w / 2, y + h / 2
    r = min(w, h) * 0.28
    draw.polygon([(cx, cy - r), (cx + r * 0.7, cy), (cx, cy + r), (cx - r * 0.7, cy)],
                 fill=_BACK_LINE)


def _type_badge(draw, g, design, cx, cy, r):
    fill = _type_rgb(g, design)
    D.disc(draw, cx, cy, r, fill, D.INK)
    D.text(draw, (cx, cy + 0.5), g.type_symbols[g.card_type[design]], size=int(r * 1.3),
           fill=(255, 255, 255), anchor="mm")


def _weapon_words(g: ZakaGame, w: int) -> str:
    if g.heart_weapon[w]:
        return f"+{g.rules['heart_weapon_heal']} heart per use"
    out = f"+{g.swords[w]} sword{'s' if g.swords[w] != 1 else ''}"
    if g.bonus_vs[w] >= 0:
        out += f", +{g.bonus[w]} vs {g.type_symbols[g.bonus_vs[w]]}"
    return out


def _monster_card(draw, state: ZakaState, monster: list[int], x, y, w, h):
    """A monster on the battlefield: name, type, hearts left / printed, ability and strength,
    and its weapon as a strip at the bottom."""
    g = state.game
    d, hp, weapon = monster
    edge = _type_rgb(g, d)
    draw.rounded_rectangle([x, y, x + w, y + h], radius=7, fill=_CARD_BG, outline=edge, width=3)
    _type_badge(draw, g, d, x + w - 13, y + h - 49, 8)
    D.text(draw, (x + 7, y + 5), D.fit(g.names[d], 13, w - 12), size=13)
    full = g.hearts[d]
    per_row = 5
    hs = min(11, (w - 40) / per_row - 4)
    hy = y + 33
    for k in range(full):
        row, col = divmod(k, per_row)
        D.heart(draw, x + 12 + col * (hs + 4), hy + row * (hs + 3), hs / 2,
                _HEART if k < hp else _HEART_LOST, (120, 20, 30) if k < hp else (160, 155, 150))
    D.text(draw, (x + w - 6, hy - 7), f"{max(0, hp)}/{full}", size=12, anchor="ra")
    ay = y + h - 56
    kind = ABILITIES[g.ability[d]]
    D.sword(draw, x + 12, ay + 7, 7, edge)
    D.text(draw, (x + 22, ay), f"{kind.capitalize()} {state.strength(monster)}", size=13)
    if weapon >= 0:
        wy = y + h - 36
        fill = D.mix(_type_rgb(g, weapon), (255, 255, 255), 0.7)
        draw.rounded_rectangle([x + 4, wy, x + w - 4, y + h - 4], radius=4, fill=fill,
                               outline=_type_rgb(g, weapon))
        D.text(draw, (x + w / 2, wy + 3), D.fit(g.names[weapon], 12, w - 12), size=12, anchor="ma")
        D.text(draw, (x + w / 2, wy + 17), D.fit(_weapon_words(g, weapon), 12, w - 12), size=12,
               anchor="ma")
    else:
        D.text(draw, (x + w / 2, y + h - 20), "no weapon", size=12, fill=D.MUTED, anchor="mm")


def _hand_chip(draw, g, design, x, y, w):
    """One card of a visible hand as a line: type badge, name and what it does."""
    _type_badge(draw, g, design, x + 7, y + 7, 7)
    if g.is_monster[design]:
        what = f"{g.hearts[design]} hearts, {ABILITIES[g.ability[design]].capitalize()} {g.swords[design]}"
    else:
        what = _weapon_words(g, design)
    D.text(draw, (x + 18, y), D.fit(f"{g.names[design]}: {what}", 12, w - 20), size=12)


def render_rgb(state: ZakaState, observer: int | None = None) -> np.ndarray:
    """An (H, W, 3) uint8 card table: one band per army with its monsters as cards (hearts left,
    ability with its strength, weapon), its hand (face down when ``observer``'s player may not see
    it, else listed), kills and status; the deck, the discard pile, the last events, whose turn
    and the phase; a legend."""
    g = state.game
    me = None if observer is None else g.seat_owner(observer)
    most = max([len(f) for f in state.fields] + [3])
    left_w = 250
    card_w = int(max(92, min(120, (980 - left_w) / most - 8)))
    card_h = 132
    width = max(left_w + most * (card_w + 8) + 16, 900)
    band_h = card_h + 28
    top_bar = 34
    img, draw = D.canvas(width, top_bar + 10 + g.num_seats * (band_h + 8) + 400)
    over = state.phase == "over"
    win = state.winner()
    status = ("game over: " + (f"player_{win} wins" if win >= 0 else "shared first place")) if over else (
        f"turn {state.turns_done + 1} · phase {state.phase} · cards played {state.played} · "
        f"to move: {army_label(g, state.cur)}")
    D.title_bar(draw, width, f"Zaka · {g.num_players} players"
                + (" (two armies each)" if g.two_player else ""), status, height=top_bar)
    y = top_bar + 10
    for t in range(g.num_seats):
        owner = g.seat_owner(t)
        accent = D.SEAT_RGB[owner]
        mover = t == state.cur and not over
        fill = D.mix(accent, D.PAPER, 0.88)
        draw.rounded_rectangle([6, y, width - 6, y + band_h], radius=8, fill=fill,
                               outline=D.HIGHLIGHT if mover else D.mix(accent, D.PAPER, 0.5),
                               width=4 if mover else 2)
        D.text(draw, (16, y + 8), f"army {t}", size=16)
        D.text(draw, (80, y + 10), f"player_{owner}" + ("  (to move)" if mover else ""), size=13,
               fill=accent)
        facts = f"kills {state.kills[t]}"
        if state.out[t]:
            facts += " · OUT"
        elif not state.deployed[t]:
            facts += " · first turn to come"
        D.text(draw, (16, y + 30), facts, size=12, fill=D.MUTED)
        hand = state.hands[t]
        size = sum(hand)
        hy = y + 50
        D.text(draw, (16, hy), f"hand ({size})", size=12, fill=D.MUTED)
        hy += 16
        if me is None or owner == me:
            cards = [d for d, k in enumerate(hand) for _ in range(k)]
            room = (band_h - (hy - y) - 4) // 15
            for k, d in enumerate(cards[:room]):
                _hand_chip(draw, g, d, 16, hy + 15 * k, left_w - 20)
            if len(cards) > room:
                D.text(draw, (left_w - 8, y + band_h - 16), f"+{len(cards) - room} more", size=12,
                       fill=D.MUTED, anchor="ra")
        else:
            step = min(24, (left_w - 50) / max(1, size))
            for k in range(size):
                _card_back(draw, 16 + k * step, hy, 30, 42)
        cx = left_w
        if not state.fields[t]:
            D.text(draw, (cx + 10, y + band_h / 2), "no monsters in play", size=13,
                   fill=D.MUTED, anchor="lm")
        for slot, monster in enumerate(state.fields[t]):
            _monster_card(draw, state, monster, cx, y + 10, card_w, card_h)
            D.text(draw, (cx + card_w / 2, y + 10 + card_h + 1), f"slot {slot}", size=12,
                   fill=D.MUTED, anchor="ma")
            cx += card_w + 8
        y += band_h + 8
    # ---- deck, discard pile, log, legend
    y += 4
    for k in range(min(4, max(1, len(state.deck) // 8))):
        _card_back(draw, 16 + 2 * k, y + 2 * k, 56, 78) if state.deck else None
    if not state.deck:
        draw.rounded_rectangle([16, y, 72, y + 78], radius=5, outline=D.RULE, width=2)
    D.text(draw, (50, y + 96), f"deck {len(state.deck)}", size=13, anchor="ma")
    dx, dw = 96, 76
    if state.discard:
        top = state.discard[-1]
        draw.rounded_rectangle([dx, y, dx + dw, y + 78], radius=5, fill=_CARD_BG,
                               outline=_type_rgb(g, top), width=3)
        for k, line in enumerate(D.wrap(g.names[top], 12, dw - 8)[:3]):
            D.text(draw, (dx + dw / 2, y + 8 + 14 * k), line, size=12, anchor="ma")
    else:
        draw.rounded_rectangle([dx, y, dx + dw, y + 78], radius=5, outline=D.RULE, width=2)
    D.text(draw, (dx + dw / 2, y + 96), f"discard {len(state.discard)}", size=13, anchor="ma")
    tx, tw = 190, width - 190 - 16
    disc: dict[int, int] = {}
    for d in state.discard:
        disc[d] = disc.get(d, 0) + 1
    lines = []
    if disc:
        lines.append("discard pile: " + ", ".join(g.names[d] + (f" x{k}" if k > 1 else "")
                                                 for d, k in sorted(disc.items())))
    if state.log:
        lines.append("last turn: " + "; ".join(e.strip() for e in state.log[-6:]))
    if over:
        lines.append(f"game over ({state.end_reason}): "
                     + (f"player_{win} wins" if win >= 0 else "shared first place"))
    ty = y
    for line in lines:
        for part in D.wrap(line, 12, tw):
            D.text(draw, (tx, ty), part, size=12, fill=D.INK)
            ty += 16
        ty += 4
    y = max(y + 116, ty + 6)
    items: list[tuple[D.Swatch | D.RGB | None, str]] = [
        (_TYPE_RGB[k], f"{g.type_symbols[k]} = {g.type_names[k]} card")
             for k in range(len(g.type_names))]
    items += [(lambda d_, x, yy, s: D.heart(d_, x + s / 2, yy + s / 2 + 1, s / 2, _HEART), "heart left"),
              (lambda d_, x, yy, s: D.heart(d_, x + s / 2, yy + s / 2 + 1, s / 2, _HEART_LOST), "heart lost"),
              (lambda d_, x, yy, s: _card_back(d_, x + 2, yy, s - 4, s), "face-down card"),
              (lambda d_, x, yy, s: D.sword(d_, x + s / 2, yy + s / 2, s / 2), "ability and its strength (weapon included)")]
    used = sorted({g.ability[m[0]] for f in state.fields for m in f}
                  | {g.ability[d] for d in range(g.num_monster_designs)})
    items += [(None, f"{ABILITIES[k].capitalize()}: {_ABILITY_TEXT[ABILITIES[k]]}") for k in used]
    y = D.legend(draw, 8, y, width - 16, items, columns=3, size=12)
    return D.to_array(img, y + 8)
