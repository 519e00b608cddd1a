"""Zaberias combat: attacks on units and cities, ambushes, defence assist, ties, removal by range,
siphons (holding, releasing, Siphon-on-Siphon transfer), the Head Hunter's coins.

Rulebook sections: "7: Strength" (dice + muscle, attacker rolls first, ties), "8: Ambush",
"10: Attacking and Defending Cities" (the three scenarios), "11: Defending Units", the Siphon Q&A
(Vampire, Ninja, Phantom, Head Hunter) and the Dice Rolling Rules.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from . import movement as M
from .tables import HOLDING_SIPHONS

if TYPE_CHECKING:   # for the type checker only: state.py imports this module
    from .state import ZaberiasState


class _Battle(TypedDict):
    seat: int                   # the attacking seat
    attackers: list[int]        # the attacking units, in the order they joined
    target: int                 # the attacked cell
    city_attacker: int          # the attacking city's site (a city attacks the unit in it), or -1
    takeover: bool              # always False: a vacant site is taken over at once, no battle
    riders: tuple[int, ...]     # the Dragons whose rider fights with them


class Combat(_Battle, total=False):
    """The battle being fought (``ZaberiasState.combat``; None between battles)."""

    last: tuple[int, int]       # the last roll's totals (attacker, defender), once rolled


def roll(st: ZaberiasState, n: int, cluster: bool = False) -> int:
    """Sum of ``n`` dice of the designed die; the Balloon Dragon rolls one more die per 1 rolled,
    chained (Balloon Dragon Q&A), attacking and defending."""
    faces = st.game.die_faces
    total = 0
    k = len(faces)
    while n > 0:
        ones = 0
        for _ in range(n):
            f = faces[int(st.rng.integers(k))]
            total += f
            ones += f == 1
        n = ones if cluster else 0
    return total


def unit_strength_roll(st: ZaberiasState, uid: int, with_rider: bool = True) -> int:
    total = roll(st, M.own_dice(st, uid), M.ability_active(st, uid, "cluster")) \
        + M.own_muscle(st, uid)
    r = st.rider[uid]
    if with_rider and r >= 0:
        total += roll(st, M.own_dice(st, r), M.ability_active(st, r, "cluster")) \
            + M.own_muscle(st, r)
    return total


def can_attack_unit(st: ZaberiasState, attacker: int, target: int) -> bool:
    """Dark Angel: a loved unit cannot attack Undead units (it may attack other tribes, cities)."""
    if st.effects[attacker] & M.LOVE and st.game.tribes[target // st.game.U] == "undead":
        return False
    return True


def may_attack(st: ZaberiasState, uid: int) -> bool:
    """On the map with an attack left. A Dragon's rider attacks on its own from the Dragon's
    back (Dragon Q&A: getting on or off does not stop it attacking; the carried unit can still
    attack) unless ``rider_attacks_alone`` is off, when it only fights inside the Dragon's
    attack."""
    status = st.status[uid]
    if st.attacks[uid] <= 0:
        return False
    return status == M.BOARD or (status == M.RIDING and st.game.rules["rider_attacks_alone"])


def attack_targets(st: ZaberiasState, uid: int) -> list[int]:
    """Cells the unit may attack now (units, cities, a vacant site it stands on)."""
    g = st.game
    if not may_attack(st, uid):
        return []
    U = g.U
    seat = uid // U
    geo = st.geo
    here = st.cell[uid]
    out = []
    site = geo.site_of[here]
    if site >= 0 and st.city_owner[site] != seat and st.status[uid] == M.BOARD:
        # (a rider never takes the square its Dragon stands on: the Dragon stands there)
        # take over a vacant site, or attack the enemy city the unit stands in (scenario 2)
        out.append(here)
    for x in geo.cells_in_range(here, M.unit_range(st, uid)):
        o = st.occ[x]
        if o >= 0:
            if o // U != seat and can_attack_unit(st, uid, o):
                out.append(x)
        else:
            s = geo.site_of[x]
            if s >= 0 and st.city_owner[s] >= 0 and st.city_owner[s] != seat:
                out.append(x)                         # scenario 3: an unoccupied enemy city
    return out


def has_attack_target(st: ZaberiasState, uid: int) -> bool:
    """``bool(attack_targets(st, uid))``, stopping at the first target."""
    g = st.game
    if not may_attack(st, uid):
        return False
    U = g.U
    seat = uid // U
    geo = st.geo
    here = st.cell[uid]
    site = geo.site_of[here]
    if site >= 0 and st.city_owner[site] != seat and st.status[uid] == M.BOARD:
        return True
    occ, site_of, city_owner = st.occ, geo.site_of, st.city_owner
    for x in geo.cells_in_range(here, M.unit_range(st, uid)):
        o = occ[x]
        if o >= 0:
            if o // U != seat and can_attack_unit(st, uid, o):
                return True
        else:
            s = site_of[x]
            if s >= 0 and city_owner[s] >= 0 and city_owner[s] != seat:
                return True
    return False


def can_join(st: ZaberiasState, uid: int, target: int) -> bool:
    """An ambush partner: a friendly unit with an attack left and the target in its range."""
    if not may_attack(st, uid):
        return False
    if not st.geo.in_range(st.cell[uid], target, M.unit_range(st, uid)):
        return False
    o = st.occ[target]
    return o < 0 or can_attack_unit(st, uid, o)


def battle(st: ZaberiasState) -> Combat:
    """The battle being fought (in the ambush and tie phases, and while it resolves)."""
    c = st.combat
    assert c is not None, "no battle is being fought"
    return c


def ambush_partners(st: ZaberiasState) -> list[int]:
    c = battle(st)
    seat = c["seat"]
    U = st.game.U
    if c["city_attacker"] >= 0 or c["takeover"]:
        return []
    return [u for u in range(seat * U, seat * U + U)
            if u not in c["attackers"] and can_join(st, u, c["target"])]


def begin_attack(st: ZaberiasState, uid: int, target: int) -> None:
    """The selected unit declares an attack on ``target`` (its own cell: a city it stands in)."""
    geo = st.geo
    seat = uid // st.game.U
    site = geo.site_of[target]
    st.combat = {"seat": seat, "attackers": [uid], "target": target, "city_attacker": -1,
                 "takeover": False, "riders": ()}
    if target == st.cell[uid] and st.city_owner[site] < 0:
        # taking over a vacant site is the unit's attack; a wood city goes up, free
        st.attacks[uid] -= 1
        st.attacked[uid] = True
        st.combat = None
        st.city_owner[site], st.city_grade[site] = seat, 1
        st.phase = "main"
        return
    _commit(st, battle(st), uid)
    if ambush_partners(st):
        st.phase = "ambush"
        return
    resolve(st)


def begin_city_attack(st: ZaberiasState, site: int) -> None:
    """A city attacks the enemy unit standing in it, with its dice only (scenario 2)."""
    seat = st.city_owner[site]
    st.city_acted[site] = True
    st.combat = {"seat": seat, "attackers": [], "target": st.geo.site_cells[site],
                 "city_attacker": site, "takeover": False, "riders": ()}
    resolve(st)


def _commit(st: ZaberiasState, c: Combat, uid: int) -> None:
    """``uid`` joins the attack ``c`` and spends its attack; a Dragon's rider with an attack left
    fights with it as one (Dragon Q&A: its strength and dice are added) and spends its attack
    too. Who fights with a rider is fixed here, once, so a tie re-roll (Dice rule 10: the
    attacker goes on until one wins) rolls the same fighters again."""
    if uid not in c["attackers"]:
        c["attackers"].append(uid)
    st.attacks[uid] -= 1
    st.attacked[uid] = True
    r = st.rider[uid]
    o = st.occ[c["target"]]
    # the rider fights with its Dragon only if it could attack the target itself (attack left,
    # not loved by the Undead when the target is an Undead unit): joining is its attack
    if r >= 0 and st.attacks[r] > 0 and (o < 0 or can_attack_unit(st, r, o)):
        st.attacks[r] = 0
        st.attacked[r] = True
        c["riders"] = c["riders"] + (uid,)


def join(st: ZaberiasState, uid: int) -> None:
    _commit(st, battle(st), uid)
    if not ambush_partners(st):
        resolve(st)


def _defence(st: ZaberiasState, c: Combat) -> tuple[int, int, int, int]:
    """(defending seat, defending unit or -1, defending city site or -1, assisting unit count)."""
    g = st.game
    U = g.U
    target = c["target"]
    site = st.geo.site_of[target]
    o = st.occ[target]
    if c["city_attacker"] >= 0:
        return o // U, o, -1, 0
    if o >= 0 and o not in c["attackers"]:
        seat = o // U
        return seat, o, (site if site >= 0 and st.city_owner[site] == seat else -1), 0
    return st.city_owner[site], -1, site, 0


def _attack_sources(st: ZaberiasState, c: Combat) -> list[int]:
    if c["city_attacker"] >= 0:
        return [st.geo.site_cells[c["city_attacker"]]]
    return [st.cell[u] for u in c["attackers"]]


def resolve(st: ZaberiasState) -> None:
    """Roll the battle (attacker first), then apply the result or open the tie decision."""
    g = st.game
    c = battle(st)
    U = g.U
    geo = st.geo
    d_seat, d_unit, d_site, _ = _defence(st, c)
    # attacker's total: every unit's dice + muscle (a Dragon with its rider, as declared)
    if c["city_attacker"] >= 0:
        a_total = roll(st, g.city_dice[st.city_grade[c["city_attacker"]]])
    else:
        a_total = 0
        for u in c["attackers"]:
            a_total += unit_strength_roll(st, u, u in c["riders"] and st.rider[u] >= 0)
    d_total = 0
    if d_unit >= 0:
        d_total += unit_strength_roll(st, d_unit)
    if d_site >= 0:
        d_total += roll(st, g.city_dice[st.city_grade[d_site]])
    # defence assist (rulebook 11): friendly units with an attacker in range add their muscle
    sources = _attack_sources(st, c)
    for v in range(d_seat * U, d_seat * U + U):
        if v == d_unit or st.status[v] != M.BOARD:
            continue
        rv = M.unit_range(st, v)
        if any(geo.in_range(st.cell[v], s, rv) for s in sources):
            d_total += M.muscle(st, v)
    c["last"] = (a_total, d_total)
    st.last_battle = (a_total, d_total)
    if a_total == d_total:
        st.phase = "tie"               # the attacker decides: roll again or stand down
        st.tie_seat = c["seat"]
        return
    if a_total > d_total:
        _attacker_wins(st, c, d_unit, d_site)
    else:
        _defender_wins(st, c, d_unit, d_site)
    st.combat = None
    finish_removals(st)


def _attacker_wins(st: ZaberiasState, c: Combat, d_unit: int, d_site: int) -> None:
    seat = c["seat"]
    killer = next((u for u in c["attackers"] if st.game.specs[u].group == "siphon"),
                  c["attackers"][0] if c["attackers"] else -1)
    if d_unit >= 0:
        kill(st, d_unit, killer)
        if d_site >= 0:           # scenario 1: the unit and the city are removed
            st.city_owner[d_site], st.city_grade[d_site] = -1, 0
        return
    if d_site >= 0:
        if c["attackers"] and st.cell[c["attackers"][0]] == c["target"]:
            # scenario 2: the attacker stood in the city: it puts up its own wood city at once
            st.city_owner[d_site], st.city_grade[d_site] = seat, 1
        else:                     # scenario 3: the city is taken down, the site is vacant
            st.city_owner[d_site], st.city_grade[d_site] = -1, 0


def _defender_wins(st: ZaberiasState, c: Combat, d_unit: int, d_site: int) -> None:
    geo = st.geo
    if c["city_attacker"] >= 0:
        # the unit standing in the city reaches it: the city is taken down
        s = c["city_attacker"]
        st.city_owner[s], st.city_grade[s] = -1, 0
        return
    if d_unit >= 0:
        # the loser is removed only if the winner's range reaches it (ambush: all in range)
        src, rng = st.cell[d_unit], M.unit_range(st, d_unit)
        for u in list(c["attackers"]):
            if geo.in_range(src, st.cell[u], rng):
                kill(st, u, d_unit)
        return
    for u in list(c["attackers"]):   # a lone city reaches only its own square
        if st.cell[u] == c["target"]:
            kill(st, u, -1)


def tie_decision(st: ZaberiasState, again: bool) -> None:
    if again:
        st.phase = "main"
        resolve(st)
    else:
        st.combat = None
        st.phase = "main"
        finish_removals(st)


def kill(st: ZaberiasState, uid: int, killer: int) -> None:
    """Remove a defeated unit: to its armory, under a holding Siphon, or sold by a Head Hunter."""
    g = st.game
    U = g.U
    if st.status[uid] not in (M.BOARD, M.RIDING):
        return
    r = st.rider[uid]
    if r >= 0:
        kill(st, r, killer)          # the rider falls with its Dragon (Head Hunter: 4 coins)
    cell = st.cell[uid]
    if st.status[uid] == M.BOARD and st.occ[cell] == uid:
        st.occ[cell] = -1
    if st.status[uid] == M.RIDING:
        st.rider[st.holder[uid]] = -1
    holding = killer >= 0 and killer // U != uid // U and \
        g.specs[killer].ability in HOLDING_SIPHONS and not st.effects[killer] & M.STUN
    # a defeated Siphon lets go of its units; a holding Siphon that defeats it takes them over,
    # except its own tribe's, which are released (Vampire/Ninja/Phantom Q&A)
    for h in st.held[uid]:
        if holding and h // U != killer // U:
            st.held[killer].append(h)
            st.holder[h] = killer
        else:
            _release_body(st, h, cell)
    st.held[uid] = []
    st.effects[uid] = 0
    st.boost[uid] = (0, 0, 0)
    st.rider[uid] = -1
    st.moved[uid], st.attacks[uid], st.attacked[uid], st.ability_used[uid] = True, 0, True, True
    if holding:
        st.status[uid], st.holder[uid], st.cell[uid] = M.HELD, killer, -1
        st.held[killer].append(uid)
        st.death[uid] = None
    else:
        st.status[uid], st.holder[uid], st.cell[uid] = M.ARMORY, -1, -1
        st.death[uid] = (cell, st.turn)          # the Necromancer may revive it next round
    if killer >= 0 and killer // U != uid // U and M.ability_active(st, killer, "headhunter"):
        seat = killer // U
        st.coins[seat] = min(g.rules["max_coins"], st.coins[seat] + g.rules["headhunter_coins"])
    if killer >= 0 and len(st.held[killer]) > g.rules["siphon_capacity"] \
            and killer not in st.overfull:
        st.overfull.append(killer)


def finish_removals(st: ZaberiasState) -> None:
    """After removals: siphons over capacity choose whom to keep; eliminated tribes leave."""
    st.phase = "main"
    st.overfull = [k for k in st.overfull
                   if st.status[k] in (M.BOARD, M.RIDING)
                   and len(st.held[k]) > st.game.rules["siphon_capacity"]]
    if st.overfull:
        st.phase = "siphon"
        return
    st.check_eliminations()


def _release_body(st: ZaberiasState, h: int, cell: int) -> None:
    """A held unit goes back to its armory, its body "released back into the world" on ``cell``
    (the Siphon's square) now: the Necromancer may revive it there (Necromancer Q&A: a unit held
    by a Ninja or Phantom is revivable once the Siphon is killed and lets its body go)."""
    st.status[h], st.holder[h] = M.ARMORY, -1
    st.death[h] = (cell, st.turn)


def release(st: ZaberiasState, k: int) -> None:
    """The overfull Siphon's owner releases the held unit in position ``k``."""
    s = st.overfull[0]
    h = st.held[s].pop(k)
    _release_body(st, h, st.cell[s])
    finish_removals(st)
