"""Warbah realm spells: the windows in which they are cast, their targets and their 26 effects
(REALM SPELLS), Fortell against espionage, Research's treasure.

Flow (AEC sub-steps): a window (config.TIMINGS: collect, recruit, espionage, move, disaster,
recovery; the Realm phase's discard step too) opens once per turn when someone can cast in it:
phase ``realm`` has one queue entry per (seat, Hero) able to cast (REALM0+k casts, DONE ends);
``realm_target`` picks the target (directions 0-5, CELL0+c, TSEAT0+r; DONE cancels, the card is
kept). The discard step uses entries (seat, -1) where REALM0+k discards. A Wizard casts one
spell from the player's hand per turn; a realm-spell item is usable once per turn. Fortell is
cast only against an enemy espionage result, by the victim's choice (espionage.py, stage
``fortell``). Luck may reroll a spell's dice (``_lucky_realm``).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from . import abilities, fleets, heroes, hexes, luck, magic
from .actions import CELL0, DONE, NUM_ACTIONS, REALM0, TSEAT0
from .state import Hero, WarbahState
from .tables import TERRAINS, RealmEffect, RealmSpell, RealmTarget, Timing


# -- windows --------------------------------------------------------------------------------------
def open_queue(st: WarbahState, timing: Timing, queue: list[tuple[int, int]]) -> None:
    """Phase ``realm`` for the window ``timing`` with these (seat, hero) entries."""
    st.magic.window = timing
    st.phase, st.queue, st.queue_pos = "realm", queue, 0


def open_window(st: WarbahState, timing: Timing) -> bool:
    """Open the realm-spell window ``timing`` (once per turn) if anyone can cast in it."""
    m = st.magic
    if timing in m.opened:
        return False
    m.opened.add(timing)
    q = [(s, i) for s in st.order for i, h in enumerate(st.heroes)
         if h.alive and h.seat == s and castable(st, s, i, timing)]
    if not q:
        return False
    m.saved = (st.phase, st.queue, st.queue_pos)
    open_queue(st, timing, q)
    return True


def _sources(st: WarbahState, seat: int, hi: int, timing: str) -> list:
    """Realm spell ids castable by hero hi in this window, from the hand (wizard) or items."""
    h = st.heroes[hi]
    if not magic.has_wizard(h) and not h.items:  # no wizard, no item: no source (most Heroes)
        return []
    T = st.game.spells
    out: set[int] = set()
    if magic.has_wizard(h) and h.wizard_cast_turn != st.turn:
        out.update(k for k in st.magic.hands[seat] if T.realm[k]["timing"] == timing)
    for it in h.items:
        if (it.kind == "realm" and it.used_turn != st.turn
                and T.realm[it.spell]["timing"] == timing):
            out.add(it.spell)
    return sorted(out)


def castable(st: WarbahState, seat: int, hi: int, timing: str) -> list:
    """Realm spell ids Hero hi may cast in window ``timing`` (with a target)."""
    if not st.heroes[hi].alive:
        return []
    return [k for k in _sources(st, seat, hi, timing) if realm_targets(st, seat, hi, k)]


# -- targets --------------------------------------------------------------------------------------
def _adj(st: WarbahState, c: int) -> list:
    return [(d, m) for d, m in enumerate(st.neighbours[c]) if m >= 0]


def _enemy_force(st: WarbahState, seat: int, m: int, heroes_only: bool) -> bool:
    j = heroes.hero_at(st, m)
    if j >= 0:
        return st.heroes[j].seat != seat
    return (not heroes_only and st.owner[m] not in (-1, seat) and hexes.garrisoned(st, m)
            and st.land[m])


def _avatar_cell(st: WarbahState, seat: int) -> int:
    """Where an Avatar appears: the own capitol, else the first own settlement (no Hero)."""
    c = int(st.capitol[seat])
    if c >= 0 and st.owner[c] == seat and heroes.hero_at(st, c) < 0:
        return c
    for x in hexes.settlements_of(st, seat):
        if heroes.hero_at(st, x) < 0:
            return x
    return -1


def _no_target(st: WarbahState, seat: int, hi: int, h: Hero, eff: str) -> list:
    if eff == "sea_move":
        return [None] if not st.land[h.cell] else []
    if eff == "heal":
        return [None] if h.troops_lost > 0 else []
    if eff == "avatar":
        return [None] if _avatar_cell(st, seat) >= 0 else []
    if eff == "fortell":
        return []  # cast only against an espionage result (espionage.py, stage fortell)
    return [None]


def _hero_no_wizard(st: WarbahState, seat: int, hi: int, h: Hero, eff: str) -> list:
    if not magic.has_wizard(h):  # an item-cast Teleport needs a wizard to move
        return []
    return [CELL0 + o.cell for j, o in enumerate(st.heroes)
            if j != hi and o.alive and o.seat == seat and not magic.has_wizard(o)]


#: target kind (configs/warbah.yaml spells.realm.*.target) -> the target actions
_TARGETS: dict[RealmTarget, Callable[[WarbahState, int, int, Hero, RealmEffect], list]] = {
    "none": _no_target,
    "adj_army": lambda st, seat, hi, h, eff: [
        d for d, m in _adj(st, h.cell) if _enemy_force(st, seat, m, eff == "blizzard")],
    "adj_settlement": lambda st, seat, hi, h, eff: [
        d for d, m in _adj(st, h.cell) if st.settle[m] >= 0 and st.owner[m] != seat],
    "adj_encounter": lambda st, seat, hi, h, eff: [
        d for d, m in _adj(st, h.cell) if st.encounter[m] != 0],
    "adj_ship": lambda st, seat, hi, h, eff: [
        d for d, m in _adj(st, h.cell)
        if st.fleets.ships[m] > 0 and st.fleets.owner[m] != seat],
    "opponent": lambda st, seat, hi, h, eff: [
        TSEAT0 + r - 1 for r in range(1, st.game.num_seats)
        if st.alive[(seat + r) % st.game.num_seats]],
    "hero_no_wizard": _hero_no_wizard,
    "own_cell": lambda st, seat, hi, h, eff: [
        CELL0 + int(x) for x in np.flatnonzero(st.owner == seat)
        if st.land[x] and heroes.hero_at(st, int(x)) < 0 and st.encounter[x] == 0],
    "any_cell": lambda st, seat, hi, h, eff: [
        CELL0 + int(x) for x in np.flatnonzero(st.explored & st.land)],
    "unexplored_cell": lambda st, seat, hi, h, eff: [
        CELL0 + int(x) for x in np.flatnonzero(st.land & ~st.explored)],
}


def realm_targets(st: WarbahState, seat: int, hi: int, k: int) -> list:
    """Target actions for realm spell k cast by hero hi ([None] when it needs no target)."""
    sp = st.game.spells.realm[k]
    targets = _TARGETS.get(sp["target"])
    if targets is None:
        raise ValueError(f"unknown realm target {sp['target']}")
    return targets(st, seat, hi, st.heroes[hi], sp["effect"])


# -- the phases ``realm`` / ``realm_target`` ------------------------------------------------------
def mask(st: WarbahState, seat: int, x: int) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    out[DONE] = 1
    m = st.magic
    if st.phase == "realm_target":
        assert m.pending is not None   # phase realm_target: a spell awaits its target
        k, hi = m.pending
        for a in realm_targets(st, seat, hi, k):
            out[a] = 1
    elif m.window == "discard":
        for k in m.hands[seat]:
            out[REALM0 + k] = 1
    else:
        for k in castable(st, seat, x, m.window):
            out[REALM0 + k] = 1
    return out


def apply(st: WarbahState, seat: int, x: int, a: int) -> None:
    m = st.magic
    if st.phase == "realm_target":
        assert m.pending is not None
        k, hi = m.pending
        m.pending = None
        st.phase = "realm"
        if a != DONE:  # DONE cancels the spell (the card is kept)
            cast_realm(st, seat, hi, k, a)
        return
    if a == DONE:
        if m.window == "discard":
            magic.refill(st, seat)
        st.queue_pos += 1
        return
    k = a - REALM0
    if m.window == "discard":
        m.hands[seat].remove(k)
        m.realm_discard.append(k)
        return
    tg = realm_targets(st, seat, x, k)
    if tg == [None]:
        cast_realm(st, seat, x, k, None)
    else:
        m.pending = (k, x)
        st.phase = "realm_target"


def pay(st: WarbahState, seat: int, h: Hero, k: int) -> None:
    """A wizard casts from the hand (one realm spell per wizard per turn), else an item is used."""
    m = st.magic
    if magic.has_wizard(h) and h.wizard_cast_turn != st.turn and k in m.hands[seat]:
        h.wizard_cast_turn = st.turn
        m.hands[seat].remove(k)
        m.realm_discard.append(k)
        return
    it = next(i for i in h.items if i.kind == "realm" and i.spell == k and i.used_turn != st.turn)
    it.used_turn = st.turn


# -- effects --------------------------------------------------------------------------------------
class Cast(NamedTuple):
    """Realm spell ``spell`` (its table row ``row``) cast by Hero ``hi`` of ``seat`` at
    ``target``: a map cell (``cell``) or an adjacent hex (``adj``) where the target is one."""
    seat: int
    hi: int
    hero: Hero
    spell: int
    row: RealmSpell
    target: int | None
    cell: int
    adj: int


def cast_realm(st: WarbahState, seat: int, hi: int, k: int, target: int | None) -> None:
    """Pay for and resolve realm spell k cast by hero hi at ``target``."""
    row = st.game.spells.realm[k]
    effect = _EFFECTS.get(row["effect"])
    if effect is None:
        raise ValueError(f"realm effect {row['effect']} has no resolution")
    h = st.heroes[hi]
    pay(st, seat, h, k)
    cell = target - CELL0 if target is not None and target >= CELL0 else -1
    adj = st.neighbours[h.cell][target] if target is not None and target < 6 else -1
    effect(st, Cast(seat, hi, h, k, row, target, cell, adj))


def _sea_move(st: WarbahState, c: Cast) -> None:
    fleets.sea_moves_left(st, c.hero)
    c.hero.sea_moves += c.row["n"]


def _teleport(st: WarbahState, c: Cast) -> None:
    o = st.heroes[heroes.hero_at(st, c.cell)]
    o.wizard, c.hero.wizard = c.hero.wizard, 0
    o.wizard_cast_turn = st.turn


def _dimension_door(st: WarbahState, c: Cast) -> None:
    c.hero.cell = c.cell


def _fly(st: WarbahState, c: Cast) -> None:
    c.hero.mp += c.row["n"]


def _blizzard(st: WarbahState, c: Cast) -> None:
    """Blizzard: "Target adjacent army cannot move or attack" (this turn): on land or at sea
    (as a Hero delayed by an agent, Agent Success 6: he may still exchange instead of moving)."""
    o = st.heroes[heroes.hero_at(st, c.adj)]
    o.mp, o.scout_moves, o.attacks_left = 0, 0, 0
    fleets.sea_moves_left(st, o)  # the turn's sea moves, then none
    o.sea_moves = 0
    o.delayed_turn = st.turn  # no move of any kind (a later Fly or Gust of Wind included)


def _disaster(st: WarbahState, c: Cast) -> None:
    """Raze / Decimate: no income next turn (Raze: the walls are destroyed until rebuilt in
    recovery), then troops lost (dice open to Luck)."""
    st.magic.blight[c.adj] = st.turn + 1
    if c.row["effect"] == "raze":
        st.wall_damage[c.adj] = 99
    n = st.game.cfg["spells"]["disaster_troop_dice"]
    _lucky_realm(st, c, luck.d10(st.rng, n), (n, 10), _force_seat(st, c.adj))


def _dice_spell(st: WarbahState, c: Cast) -> None:
    """Death, Animate Dead, Prosperity, Curse, Heal: the spell's dice decide (Luck may reroll
    them: the caster's player, then the player the spell is aimed at)."""
    eff = c.row["effect"]
    if eff == "death":
        victim = _force_seat(st, c.adj)
    elif eff == "curse":
        assert c.target is not None   # Curse names its opponent (TSEAT0 + r)
        victim = (c.seat + c.target - TSEAT0 + 1) % st.game.num_seats
    else:
        victim = -1
    dice = c.row["dice"]
    _lucky_realm(st, c, luck.d10(st.rng, dice), (dice, 10), victim)


def _research(st: WarbahState, c: Cast) -> None:
    _lucky_realm(st, c, int(st.rng.integers(1, 6)), (1, 5), -1)


def _avatar(st: WarbahState, c: Cast) -> None:
    heroes.new_hero(st.heroes, c.seat, _avatar_cell(st, c.seat))
    abilities.gain_abilities(st, len(st.heroes) - 1)  # its Ability rolls are open to Luck


def _banish(st: WarbahState, c: Cast) -> None:
    st.encounter[c.adj] = 0
    st.terrain[c.adj] = TERRAINS.index("clear")


def _whirlpool(st: WarbahState, c: Cast) -> None:
    j = heroes.hero_at(st, c.adj)
    if j >= 0:
        fleets.sink_ship(st, j)
        return
    st.fleets.ships[c.adj] -= 1
    if st.fleets.ships[c.adj] <= 0:
        st.fleets.owner[c.adj] = -1


def _sanctuary(st: WarbahState, c: Cast) -> None:
    st.magic.sanctuary.add(c.cell)


def _stone_walls(st: WarbahState, c: Cast) -> None:
    walls = st.magic.bonus_walls
    walls[c.hero.cell] = walls.get(c.hero.cell, 0) + c.row["n"]


def _view(st: WarbahState, c: Cast) -> None:
    cells = [c.cell] + [x for x in st.neighbours[c.cell]
                        if x >= 0 and st.land[x] and not st.explored[x]][:c.row["n"] - 1]
    for x in cells:
        hexes.explore(st, x)


def _scry(st: WarbahState, c: Cast) -> None:
    st.magic.scry_turn[c.seat] = st.turn


#: effect (configs/warbah.yaml spells.realm.*.effect) -> its resolution
_EFFECTS: dict[RealmEffect, Callable[[WarbahState, Cast], None]] = {
    "sea_move": _sea_move, "teleport": _teleport, "dimension_door": _dimension_door,
    "fly": _fly, "blizzard": _blizzard, "raze": _disaster, "decimate": _disaster,
    "death": _dice_spell, "gain_warriors": _dice_spell, "gold": _dice_spell,
    "curse": _dice_spell, "heal": _dice_spell, "research": _research, "avatar": _avatar,
    "banish": _banish, "whirlpool": _whirlpool, "sanctuary": _sanctuary,
    "stone_walls": _stone_walls, "view": _view, "scry": _scry,
}


def _force_seat(st: WarbahState, m: int) -> int:
    """The player whose army or garrison stands at cell m (-1: none)."""
    j = heroes.hero_at(st, m)
    if j >= 0:
        return st.heroes[j].seat
    return int(st.owner[m]) if st.land[m] and hexes.garrisoned(st, m) else -1


def _lucky_realm(st: WarbahState, c: Cast, value: int, dice: tuple[int, int], victim: int) -> None:
    """RARE ABILITY Luck on a realm spell's die roll: the caster's player, then the player it is
    aimed at, may have it rolled again (luck.py); then the roll takes effect."""
    ctx = (c.seat, c.hi, c.spell, c.target)
    if not luck.offer(st, "realm", (c.seat, victim), value, dice, _realm_roll, ctx):
        _realm_roll(st, value, ctx)


def _lose_mixed(troops: np.ndarray, special: np.ndarray, n: int) -> None:
    """n troops lost from the largest groups, basic troops and special units alike (designed,
    like Disease; ties: basic types first, then table order)."""
    for _ in range(n):
        t, u = int(np.argmax(troops)), int(np.argmax(special))
        if max(troops[t], special[u]) <= 0:
            return
        if troops[t] >= special[u]:
            troops[t] -= 1
        else:
            special[u] -= 1


def _force_loses(st: WarbahState, m: int, n: int) -> None:
    j = heroes.hero_at(st, m)
    if j >= 0:
        _lose_mixed(st.heroes[j].troops, st.heroes[j].specials, n)
    elif st.land[m]:
        _lose_mixed(st.garrison[m], st.garrison_specials[m], n)


def _heal(st: WarbahState, seat: int, hi: int, h: Hero, target: int | None, adj: int, value: int) -> None:
    # as warriors, like Healing (lost types are not tracked), within the type limit
    back = heroes.gain_warriors(st, h, min(int(h.troops_lost), value))
    h.troops_lost -= back


def _gold(st: WarbahState, seat: int, hi: int, h: Hero, target: int | None, adj: int, value: int) -> None:
    st.gold[seat] += value


def _curse(st: WarbahState, seat: int, hi: int, h: Hero, target: int | None, adj: int, value: int) -> None:
    assert target is not None   # Curse targets an opponent (TSEAT0 + k)
    st.magic.curse[(seat + target - TSEAT0 + 1) % st.game.num_seats] += value


#: effect -> the part that depends on its die roll (after Luck)
_ROLLED: dict[RealmEffect, Callable[[WarbahState, int, int, Hero, int | None, int, int], object]] = {
    "raze": lambda st, seat, hi, h, target, adj, v: _force_loses(st, adj, v),
    "decimate": lambda st, seat, hi, h, target, adj, v: _force_loses(st, adj, v),
    "death": lambda st, seat, hi, h, target, adj, v: _force_loses(st, adj, v),
    "gain_warriors": lambda st, seat, hi, h, target, adj, v: heroes.gain_warriors(st, h, v),
    "research": lambda st, seat, hi, h, target, adj, v: apply_treasure(st, hi, v + 5),
    "gold": _gold, "curse": _curse, "heal": _heal,
}


def _realm_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    """The part of a realm spell that depends on its die roll ``value``."""
    seat, hi, k, target = ctx
    h = st.heroes[hi]
    adj = st.neighbours[h.cell][target] if target is not None and target < 6 else -1
    _ROLLED[st.game.spells.realm[k]["effect"]](st, seat, hi, h, target, adj, value)


def apply_treasure(st: WarbahState, hi: int, r: int) -> None:
    """One Treasure table result r for hero hi (Research): its dice (gold, followers, a magic
    ability item's Ability rolls) through the treasure chain (turn.py), open to Luck."""
    luck.chain(st, magic.TREASURE, (hi, "research"), (r,))


# -- Fortell --------------------------------------------------------------------------------------
def fortell_id(st: WarbahState) -> int:
    return st.game.spells.realm_names.index("fortell")


def fortell_caster(st: WarbahState, seat: int) -> int:
    """A living hero of ``seat`` able to cast Fortell now (a wizard who has not cast this turn
    with the card in hand, or a Fortell item unused this turn), else -1."""
    if seat < 0:
        return -1
    k = fortell_id(st)
    for i, h in enumerate(st.heroes):
        if h.alive and h.seat == seat and k in _sources(st, seat, i, "espionage"):
            return i
    return -1


def use_fortell(st: WarbahState, seat: int) -> bool:
    """``seat`` casts Fortell (its first able hero pays: the wizard's card, else an item) to
    cancel one enemy espionage result against it; False if it cannot. The choice whether to
    cast is the victim's (espionage.py, stage ``fortell``)."""
    i = fortell_caster(st, seat)
    if i < 0:
        return False
    pay(st, seat, st.heroes[i], fortell_id(st))
    return True
