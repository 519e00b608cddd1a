"""Zaberias special abilities: Sorcerers (Dark Angel, Dazzle Walker, Cyclops, Turtle Goo),
Helpers (Necromancer, Teleporter, Energion, Spider Witch), Titans with active powers (Mutant
Corpse's plague, Earth Mover's board rotation). Passive powers (auras, Siphons, Balloon Dragon,
Two Headed Dragon, Dragon rider, Rhino trample) live in movement.py and combat.py.

Rulebook: the Q&A booklet, one section per unit; "Unit Groups" (Sorcerers may attack after their
ability, Helpers use their ability instead of attacking).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import movement as M
from .board import WATER
from .combat import finish_removals, kill

if TYPE_CHECKING:   # for the type checker only: state.py imports this module
    from .state import ZaberiasState
    from .tables import Ability

SORCERER_EFFECT: dict[Ability, int] = {"love": M.LOVE, "dazzle": M.STUN, "shock": M.SHOCK, "glue": M.GLUE}
#: abilities used through ABILITY x (a target cell)
TARGETED: frozenset[Ability] = frozenset(SORCERER_EFFECT) | {"necromancer", "teleport", "energize",
                                                              "share"}


def ability_ready(st: ZaberiasState, uid: int) -> bool:
    """Once per turn, not while dazzled; Helpers only if the unit has not attacked this turn."""
    if not M.on_map(st, uid) or st.ability_used[uid] or st.effects[uid] & M.STUN:
        return False
    if st.game.specs[uid].group == "helper" and st.attacked[uid]:
        return False
    return True


def _in_city(st: ZaberiasState, cell: int) -> bool:
    s = st.geo.site_of[cell]
    return s >= 0 and st.city_owner[s] >= 0


def revivable(st: ZaberiasState, necro: int) -> dict[int, int]:
    """Necromancer: friendly units defeated since the start of the owner's previous turn, to be
    revived on the empty square where they fell, within range. {cell: unit}"""
    g = st.game
    U = g.U
    seat = necro // U
    out: dict[int, int] = {}
    fell_at: dict[int, int] = {}          # cell -> the turn its unit in ``out`` fell
    src, rng = st.cell[necro], M.unit_range(st, necro)
    since = st.prev_turn_start[seat]
    for u in range(seat * U, seat * U + U):
        death = st.death[u]
        if u == necro or st.status[u] != M.ARMORY or death is None:
            continue
        cell, when = death
        if when < since or st.occ[cell] >= 0 or not st.geo.in_range(src, cell, rng):
            continue
        spec = g.specs[u]
        if st.geo.terrain[cell] == WATER and not (spec.fly or spec.swim):
            continue
        if cell not in out or fell_at[cell] < when:
            out[cell] = u
            fell_at[cell] = when
    return out


def teleport_destinations(st: ZaberiasState, tele: int, uid: int, at: int = -1) -> list[int]:
    """Empty, dry squares within the Teleporter's range of ``at`` (default: where it stands),
    never the unit's own square nor ``at``; the Teleporter's present square counts as empty when
    ``at`` is elsewhere (it will have walked there)."""
    geo = st.geo
    here = st.cell[tele]
    if at < 0:
        at = here
    occ, terrain, own = st.occ, geo.terrain, st.cell[uid]
    return [x for x in geo.cells_in_range(at, M.unit_range(st, tele))
            if (occ[x] < 0 or (x == here and at != here)) and terrain[x] != WATER
            and x != own and x != at]


def tele_move_cells(st: ZaberiasState, tele: int, uid: int, occm: int | None = None) -> list[int]:
    """Teleporter Q&A (while the unit is in the air it may walk its steps, then put the unit down
    within range of its new square): the squares the Teleporter may walk to that leave at least
    one landing square. ``occm``: occupied cells with the unit lifted (default: the position's,
    where it is already lifted)."""
    if not M.can_move(st, tele):
        return []
    return [y for y in M.reach_cells(st, tele, occm) if teleport_destinations(st, tele, uid, y)]


def ability_targets(st: ZaberiasState, uid: int) -> list[int]:
    """Cells the selected unit's ABILITY may be used on."""
    g = st.game
    spec = g.specs[uid]
    ab = spec.ability
    if ab not in TARGETED or not ability_ready(st, uid):
        return []
    U = g.U
    seat = uid // U
    src = st.cell[uid]
    occ = st.occ
    cells = st.geo.cells_in_range(src, spec.range)
    out = []
    if ab in SORCERER_EFFECT:
        bit = SORCERER_EFFECT[ab]
        for x in cells:
            o = occ[x]
            if o < 0 or o // U == seat or st.effects[o] & bit:
                continue
            if ab == "glue" and _in_city(st, x):
                continue                      # Turtle Goo: city walls stop the glue
            out.append(x)
    elif ab == "necromancer":
        out = sorted(revivable(st, uid))
    elif ab in ("teleport", "energize", "share"):
        for x in cells:
            o = occ[x]
            if o < 0 or o // U != seat or o == uid:
                continue
            if ab == "teleport" and not teleport_destinations(st, uid, o) and not \
                    tele_move_cells(st, uid, o, M.occupied_mask(st) & ~(1 << x)):
                continue
            if ab == "energize" and not (st.moved[o] or st.attacked[o]):
                continue
            if ab == "share" and (st.moved[o] and st.attacked[o]):
                continue
            out.append(x)
    return out


def can_rotate(st: ZaberiasState, uid: int) -> bool:
    return st.game.specs[uid].ability == "rotate" and st.status[uid] == M.BOARD \
        and ability_ready(st, uid)


def can_plague(st: ZaberiasState, uid: int) -> bool:
    return st.game.specs[uid].ability == "plague" and st.status[uid] == M.BOARD \
        and ability_ready(st, uid)


def use_ability(st: ZaberiasState, uid: int, x: int) -> None:
    g = st.game
    spec = g.specs[uid]
    ab = spec.ability
    st.ability_used[uid] = True
    if spec.group == "helper":
        st.attacks[uid] = 0                   # Helpers: the ability comes instead of attacking
    o = st.occ[x]
    if ab in SORCERER_EFFECT:
        # lasts until the end of the target's owner's next turn, even if the caster falls
        st.effects[o] |= SORCERER_EFFECT[ab]
    elif ab == "necromancer":
        u = revivable(st, uid)[x]
        st.place_unit(u, x)                   # revived units move and attack again at once
    elif ab == "teleport":
        # the unit goes up in the air (its square is free); the Teleporter may then walk its
        # steps (phase tele_move) before putting it down (phase teleport)
        st.pending_unit = o
        st.lifted = o
        st.occ[x] = -1
        st._memo.pop("occm", None)
        st.phase = "tele_move" if tele_move_cells(st, uid, o) else "teleport"
        return
    elif ab == "energize":
        st.moved[o] = False
        st.attacks[o] = st.base_attacks(o) - (1 if st.effects[o] & M.SHOCK else 0)
        st.attacked[o] = False
    elif ab == "share":
        # Spider Witch: her dice, muscle (stars included) and steps, only into unused powers
        d, m, s = st.boost[o]
        if not st.moved[o]:
            s += M.steps(st, uid)
        if not st.attacked[o]:
            d += M.own_dice(st, uid)
            m += M.own_muscle(st, uid)
        st.boost[o] = (d, m, s)
    st.phase = "main"


def tele_move(st: ZaberiasState, tele: int, y) -> None:
    """The Teleporter, holding a unit in the air, walks to ``y`` (None: it stays)."""
    if y is not None:
        st.relocate(tele, y)
        st.moved[tele] = True
    st.phase = "teleport"


def teleport(st: ZaberiasState, tele: int, uid: int, x: int) -> None:
    """Put the lifted ``uid`` (and a Dragon's rider) down on ``x``; its used moves and attacks
    stay used."""
    st.cell[uid] = x
    st.occ[x] = uid
    if st.rider[uid] >= 0:
        st.cell[st.rider[uid]] = x
    st.lifted = -1
    st.pending_unit = -1
    st.phase = "main"


def plague(st: ZaberiasState, uid: int) -> None:
    """Mutant Corpse: every non-Undead unit on its board rolls one die; a blank removes it.

    "You must roll the die individually for every unit you have on the board": a Dragon's rider
    is a unit on the board, so it rolls for itself and only its own blank removes it. A rider
    whose Dragon falls to the plague while it survives is set down on the Dragon's square (over
    water too: it may walk off as any unit, RULES.md)."""
    g = st.game
    st.ability_used[uid] = True
    board = st.geo.board_of[st.cell[uid]]
    faces = g.die_faces
    victims = []
    for u in range(len(g.specs)):
        if not M.on_map(st, u) or g.tribes[u // g.U] == "undead":
            continue
        if st.geo.board_of[st.cell[u]] != board:
            continue
        if faces[int(st.rng.integers(len(faces)))] == 0:
            victims.append(u)
    for u in victims:
        r = st.rider[u]
        if r >= 0 and r not in victims:       # the rider survived its own roll: it gets off
            x = st.cell[u]
            st.rider[u] = -1
            st.status[r], st.holder[r] = M.BOARD, -1
            kill(st, u, -1)
            st.occ[x] = r
        else:
            kill(st, u, -1)                   # cities withstand the plague
    finish_removals(st)


def rotate(st: ZaberiasState, uid: int, quarter_turns: int) -> None:
    """Earth Mover: turn the board it stands on clockwise; units keep their new squares."""
    st.ability_used[uid] = True
    board = st.geo.board_of[st.cell[uid]]
    cmap = st.geo.rotate_cell_map(board, quarter_turns, st.game.maps.placements[board])
    st.rots[board] = (st.rots[board] + quarter_turns) % 4
    st.geo = st.game.maps.geometry(tuple(st.rots))
    for u in range(len(st.game.specs)):
        death = st.death[u]
        if M.on_map(st, u) and st.cell[u] in cmap:
            st.cell[u] = cmap[st.cell[u]]
        elif death is not None and death[0] in cmap:
            # the square where a unit fell turns with the board: the Necromancer finds it there
            st.death[u] = (cmap[death[0]], death[1])
    st.rebuild_occ()
    st.phase = "main"
