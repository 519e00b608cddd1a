"""Text rendering for Zaka: battlefields with hearts and weapons, hands, deck and discard pile."""
from __future__ import annotations

from .actions import rel_name
from .config import ABILITIES, MEND, RAMPAGE

_RED, _DIM, _BOLD, _GREEN, _YELLOW, _RESET = ("\x1b[31m", "\x1b[2m", "\x1b[1m", "\x1b[32m",
                                              "\x1b[33m", "\x1b[0m")


def _c(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color and code else text


def army_label(game, seat: int) -> str:
    if game.two_player:
        return f"army {seat} (player_{game.seat_owner(seat)})"
    return f"army {seat} (player_{seat})"


def card_label(game, design: int) -> str:
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


def monster_line(state, monster, slot: int, color: bool) -> str:
    g = state.game
    d, hp, w = monster
    full = g.hearts[d]
    hearts = _c("♥" * max(0, hp), _RED, color) + _c("·" * (full - max(0, hp)), _DIM, color)
    kind = g.ability[d]
    sym = g.type_symbols[g.card_type[d]]
    if kind == MEND:
        power = f"Mend {g.swords[d]}"
    else:
        power = f"{ABILITIES[kind].capitalize()} {state.strength(monster)}"
    weapon = ""
    if w >= 0:
        if g.heart_weapon[w]:
            weapon = f" + {g.names[w]} (heart)"
        else:
            bonus = f", +{g.bonus[w]} vs {g.type_symbols[g.bonus_vs[w]]}" if g.bonus_vs[w] >= 0 else ""
            weapon = f" + {g.names[w]} (+{g.swords[w]}{bonus})"
    return f"   {slot}: {g.names[d]:<14} [{sym}] {hearts:<{full}} {hp}/{full}  {power}{weapon}"


def hand_text(game, hand) -> str:
    items = []
    for d, k in enumerate(hand):
        if k:
            items.append(("%dx " % k if k > 1 else "") + card_label(game, d))
    return "; ".join(items) if items else "(empty)"


def render_text(state, observer: int | None = None, color: bool = True) -> str:
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
                        + f"  returns={[round(float(x), 3) for x in state.returns()]}", _BOLD, color))
    return "\n".join(lines)


def action_to_str(state, action: int) -> str:
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
    where = rel_name(args[1], g.num_seats, g.two_player)
    verb = "uses its ability on"
    if user < len(field):
        k = g.ability[field[user][0]]
        verb = {MEND: "mends", RAMPAGE: "rampages"}.get(k, f"{ABILITIES[k]}s")
    if kind == "rampage":
        return f"{mon(s, user)} {verb} {where} (army {t})"
    return f"{mon(s, user)} {verb} {mon(t, args[2])} of {where} (army {t})"
