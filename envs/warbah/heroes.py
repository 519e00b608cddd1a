"""Warbah Heroes and their armies (the Hero and Item records are in state.py): abilities, the
army cap and the troop-type limit, troops gained and lost outside battle.

A Hero (HEROES) leads an army: four basic troop types (``troops``, order config.BASIC) and the
13 special unit kinds (``specials``, order config.SPECIALS); abilities are (name, troop type)
pairs. The per-turn bookkeeping fields hold the turn they refer to, so that a new turn needs no
reset pass (a field equal to the current turn is "this turn").
"""
from __future__ import annotations

import numpy as np

from .actions import CASUALTY0, LOSS_SP0
from .state import Hero, WarbahState
from .tables import ABILITIES, NUM_SPECIALS, SPECIALS, Ability, WarbahTables

#: the ability names ``ability`` accepts
_ABILITY_NAMES = frozenset(ABILITIES)


def new_hero(heroes: list, seat: int, cell: int, troops: np.ndarray | None = None) -> Hero:
    """A new Hero of ``seat`` at ``cell`` (numbered after that player's Heroes), appended."""
    h = Hero(seat, cell, np.zeros(4, np.int64) if troops is None else troops,
             sum(1 for x in heroes if x.seat == seat) + 1)
    heroes.append(h)
    return h


def disband_army(h: Hero) -> None:
    """A Hero who leaves the game (his player eliminated, lost at sea, killed by an agent) keeps
    no troops: his basic and special troop counts go to zero (callers move what survives, e.g.
    an agent's kill leaves the basic troops as a garrison, before calling this)."""
    h.troops[:] = 0
    h.specials[:] = 0


def hero_at(st: WarbahState, cell: int) -> int:
    """Index of the living Hero standing in ``cell``, else -1."""
    for i, h in enumerate(st.heroes):
        if h.cell == cell and h.alive:
            return i
    return -1


def hero_map(st: WarbahState) -> dict:
    """{hex: index of the first living Hero there}: hero_at for many hexes at once."""
    out = {}
    for i, h in enumerate(st.heroes):
        if h.alive and h.cell not in out:
            out[h.cell] = i
    return out


def ability(st: WarbahState, h: Hero, name: Ability) -> int:
    """How many times Hero ``h`` has ability ``name``: his own (and his ability items'), plus
    one per special unit kind in his army that grants it (SPECIAL UNIT TYPES). A name that is
    no ability (config.ABILITIES) raises ValueError: a misspelt name never reads as none."""
    if name not in _ABILITY_NAMES:
        raise ValueError(f"unknown ability {name!r} (config.ABILITIES: {', '.join(ABILITIES)})")
    n = 0
    for a, _ in h.abilities:
        if a == name:
            n += 1
    us = st.game.granting_units.get(name)
    if us:
        sp = h.specials
        for u in us:
            if sp.item(u):
                n += 1
    return n


def unmoved(st: WarbahState, h: Hero) -> bool:
    """The Hero has not moved or explored this turn (boarding and sailing included), so he may
    still exchange troops and magic items instead (MOVE & EXPLORE: "Instead of moving, friendly
    adjacent heroes may exchange troops or magic items"); after a first exchange he may go on
    exchanging (he can no longer move)."""
    return h.moved_turn != st.turn


def army_cap(st: WarbahState, h: Hero) -> int:
    """ARMY SIZE: 40 troops, +10 per Command (special units count too)."""
    return _cap(st.game, ability(st, h, "command"))


def _cap(g: WarbahTables, commands: int) -> int:
    """The army cap for a Hero with ``commands`` Command abilities."""
    return g.army_cap + g.command_bonus * commands


def _type_limit(g: WarbahTables, commands: int) -> int:
    """The troop-type limit for a Hero with ``commands`` Command abilities."""
    return g.troop_types + commands


def army_size(h: Hero) -> int:
    return sum(h.troops.tolist()) + sum(h.specials.tolist())


def type_count(h: Hero) -> int:
    """Troop types in the army (basic types and special unit kinds present)."""
    n = 0
    for k in h.troops.tolist():
        if k > 0:
            n += 1
    for k in h.specials.tolist():
        if k > 0:
            n += 1
    return n


def army_stats(st: WarbahState, h: Hero) -> tuple[int, int, int, int]:
    """(army_size, army_cap, type_count, type_limit) of Hero ``h`` at once: one Command count
    and one pass over the troops (the move-phase mask reads all four of several Heroes)."""
    cmd = ability(st, h, "command")
    return army_size(h), _cap(st.game, cmd), type_count(h), _type_limit(st.game, cmd)


def type_limit(st: WarbahState, h: Hero) -> int:
    """A Hero may have 5 troop types; each Command ability adds one."""
    return _type_limit(st.game, ability(st, h, "command"))


def gain_warriors(st: WarbahState, h: Hero, n: int) -> int:
    """Add ``n`` warriors to Hero ``h`` (Animate Dead, Heal, the Healing ability, a treasure's
    followers) and return how many joined. SPECIAL UNIT NOTES allow 5 troop types (Command +1):
    when warriors would be a new type over that limit, none join (designed, the same reading as
    for special units taken over by Control spells). Only as many join as the army cap leaves
    room for (designed: the rest disband at once, as RECOVERY's trim would disband them, warriors
    first; so a Research or Animate Dead in the Realm phase cannot take an army over the cap)."""
    if n <= 0:  # nothing to add (Healing with no troops lost)
        return 0
    n = min(n, army_cap(st, h) - army_size(h))
    if n <= 0 or (h.troops[0] == 0 and type_count(h) >= type_limit(st, h)):
        return 0
    h.troops[0] += n
    return n


def trim_to_cap(st: WarbahState, h: Hero) -> None:
    """Recovery: troops over the army cap (40, Command +10; special troops count) disband.
    The rulebook gives no choice here (designed): basic troops go first (warriors, archers,
    cavalry, catapults), then special units, the cheapest kind first (table order on ties)."""
    over = army_size(h) - army_cap(st, h)
    for t in range(4):
        if over <= 0:
            return
        k = min(over, int(h.troops[t]))
        h.troops[t] -= k
        over -= k
    sp = h.specials
    if over <= 0:
        return
    tab = st.game.cfg["special_units"]
    for u in sorted(range(NUM_SPECIALS), key=lambda u: (tab[SPECIALS[u]]["cost"], u)):
        k = min(over, int(sp[u]))
        sp[u] -= k
        over -= k


def loss_actions(h: Hero) -> list[int]:
    """Actions that remove one of this Hero's troops: CASUALTY0 + t (basic), LOSS_SP0 + u."""
    out = [CASUALTY0 + t for t in range(4) if h.troops[t] > 0]
    out += [LOSS_SP0 + int(u) for u in np.flatnonzero(h.specials)]
    return out


def lose(h: Hero, a: int) -> None:
    """One troop lost by loss action ``a`` (see ``loss_actions``)."""
    if a >= LOSS_SP0:
        h.specials[a - LOSS_SP0] -= 1
    else:
        h.troops[a - CASUALTY0] -= 1
