"""Warbah observations (observer-relative, hidden information excluded); the renders are in
render.py.

Board planes (17, H, W): 0 land, 1 explored, 2 terrain code/7, 3 settlement code/7, 4 owned by
me, 5 owned by another (relative seat/N), 6 my heroes, 7 other heroes (chits are public; their
index cards are not), 8 encounter chit, 9 my garrison/20, 10 other garrison/20 (chits are public),
11 wall ranks now/8, 12 the hero now acting (or capitol candidates in set-up), 13-15 river on the
E, NE, NW edge, 16 terrain variant code/number of variants (explored hexes; chits are public).
Vector (48): 0-6 phase one-hot, 7 turn/cap, 8 my gold/50, 9-12 acting hero's troops/40,
13 its MP/8, 14 its XP/2, 15-31 its abilities (count/3), 32-35 alive (relative seats),
36-39 settlements/20 (relative seats), 40-44 my battle side counts/40, 45-47 foe side: troops/40,
hero present, monster hits/10 (troops fighting are seen on the battlefield).
Empire section (``board_b``, ``vector_b``): planes (7, H, W) and vector (76) (``_empire_section``):
fleets, espionage targets, enemy index cards seen this turn, heroes at sea, special units,
alliances, combined attacks; espionage / Luck / troop-loss sub-step state.
Magic section (``magic``): vector (266) from observe_magic.py: 0-3 magic
phase one-hot (realm, realm_target, spell, spell_target), 4-10 realm window (discard, collect,
recruit, espionage, move, disaster, recovery), 11 pending realm spell (id+1)/26, 12 pending battle
spell (id+1)/42, 13-38 my realm hand (count/2), 39-64 my heroes' realm-spell items, 65-106 my
battle hand (in battle), 107-148 my heroes' battle-spell items, 149 my wizards/4, 150 acting
hero has a wizard, 151 its items/4, 152-154 opponents' realm hand sizes/4 (relative seats),
155 foe battle hand size/6, 156 foe has a wizard, 157/158 me/foe spellbound, 159 enemy spell
just cast this round (id+1)/42 (Dispell), 160/161 me/foe Resist Spells left/2, 162/163 realm /
battle deck size, 164 my realm hand limit (towers + temples, set in the Realm phase)/5,
165 my realm hand size/4, 166 Scry active, 167-260 (Scry only) next
5 realm cards, next 5 battle cards, opponents' realm hands; 261-264 a Luck decision of mine on a
spell / agent / initiative roll (luck.py): 261 flag, 262 kind (realm spell, battle spell,
agent success, agent amount, initiative: (i+1)/5), 263 the roll is my own, 264 value / highest
possible; 265 I decide whether to cast Fortell against an espionage result
((espionage.STAGES index + 1)/14).
"""
from __future__ import annotations

import numpy as np

from . import espionage, fleets, hexes
from .actions import FLEET_SLOTS, TARGET_SLOTS
from .battle import FIRST_SPECIAL
from .heroes import ability, hero_at
from .map_planes import base_planes, float_view
from .observe_magic import observe_magic
from .state import Battle, Hero, WarbahState
from .tables import ABILITIES, DIPLOMACY_PHASES, SUBSTEP_PHASES, TURN_PHASES

VECTOR = 48          # the base vector's length
PLANES_B = 7         # the empire section's planes
VECTOR_B = 76        # the empire section's vector
_PHASE_INDEX = {p: i for i, p in enumerate(TURN_PHASES)}
_SUBSTEP_INDEX = {p: i for i, p in enumerate(SUBSTEP_PHASES)}
_DIPLOMACY_INDEX = {p: i for i, p in enumerate(DIPLOMACY_PHASES)}
_ABIL_INDEX = {name: i for i, name in enumerate(ABILITIES)}


def _abil_steps() -> list:
    """The float32 value of an ability entry after k repeats: x = min(x + 1/3, 1) from 0, done
    in float32 exactly as the plain loop does it (constant once 1 is reached)."""
    x, out = np.zeros(1, np.float32), [0.0]
    for _ in range(8):
        x[0] = min(x[0] + 1 / 3, 1)
        out.append(x[0])
    return out


_ABIL_STEPS = _abil_steps()


def _fleets(st: WarbahState, _seat=None) -> list:
    """[(cell, owner, ships/10)] of the fleets, in cell order (empire planes 0-1)."""
    ships, own = st.fleets.ships, st.fleets.owner  # read cell by cell: a few fleets
    return [(c, own.item(c), min(ships.item(c), 10) / 10.0) for c in fleets.fleet_cells(st)]


def _fleet_layer(fleet_list: list, seat: int, o: int, n: int) -> tuple:
    """([(flat index, value)], my fleet cells) of the empire planes 0-1 (my / other fleets,
    ships/10) for ``seat`` from the ``_fleets`` list; ``o``: the empire section's offset."""
    iv, mine = [], []
    for c, s, x in fleet_list:
        if s == seat:
            iv.append((o + c, x))
            mine.append(c)
        else:
            iv.append((o + n + c, x))
    return iv, mine  # plain lists: written one by one (a few fleets)


def _heroes_and_vector(st: WarbahState, seat: int, out: np.ndarray, w: memoryview[float], o: int, q: tuple[int, int] | None) -> tuple:
    """``observe``'s writes after the base planes: hero planes 6-7, the acting Hero (plane 12)
    or the capitol candidates, vector 0-31 and 40-47, and the fleet planes 0-1 of the empire
    section at ``o``. ``q``: the queue entry now (``_queue_entry``). Returns (cells of the
    living Heroes, my living Heroes, my fleet cells) for the empire and magic sections."""
    g = st.game
    n = g.n_cells
    occ, my_heroes = set(), []  # cells of the living Heroes, my living Heroes
    o6 = 6 * n
    for h in st.heroes:
        if h.alive:
            x = h.cell
            occ.add(x)
            if h.seat == seat:
                w[o6 + x] = 1
                my_heroes.append(h)
            else:
                w[o6 + n + x] = 1
    phase = st.phase
    # the Hero acting now for ``seat`` (move, battle), else None
    acting = st.heroes[q[1]] if q is not None and q[0] == seat and (
        phase == "move" or phase == "battle") else None
    if acting is not None:
        w[12 * n + acting.cell] = 1
    elif phase == "capitol":
        for k in hexes.free_candidates(st):
            w[12 * n + st.capitol_candidates[k]] = (k + 1) / 8.0
    vo = 17 * n
    pk = _PHASE_INDEX.get(phase)
    if pk is not None:  # the sub-steps have their own flags in their sections
        w[vo + pk] = 1
    w[vo + 7] = min(st.turn / g.turn_cap, 1)
    w[vo + 8] = min(st.gold.item(seat), 50) / 50.0
    if acting is not None:
        _acting_hero_vector(acting, w, vo)
    if st.battle is not None:
        _battle_vector(st.battle, seat, out, w, vo)
    return occ, my_heroes, _fleet_planes(st, seat, w, o, n)


def _acting_hero_vector(h: Hero, w: memoryview[float], vo: int) -> None:
    """Vector 9-31: the acting Hero's troops, MP, XP and abilities."""
    tr = h.troops.tolist()
    for t in range(4):
        if tr[t]:
            w[vo + 9 + t] = min(tr[t], 40) / 40.0
    w[vo + 13] = min(h.mp, 8) / 8.0
    w[vo + 14] = min(h.xp, 2) / 2.0
    if h.abilities:
        cnt: dict = {}
        for name, _ in h.abilities:
            cnt[name] = cnt.get(name, 0) + 1
        for name, k in cnt.items():  # k float32 steps of min(x + 1/3, 1), precomputed
            w[vo + 15 + _ABIL_INDEX[name]] = _ABIL_STEPS[min(k, len(_ABIL_STEPS) - 1)]


def _battle_vector(b: Battle, seat: int, out: np.ndarray, w: memoryview[float], vo: int) -> None:
    """Vector 40-47 in a battle of mine: my army's counts, the foe's troops, special, monster."""
    sides = b.sides
    mine = [k for k in (0, 1) if sides[k].seat == seat]
    if mine:
        me, foe = sides[mine[0]], sides[1 - mine[0]]
        out[vo + 40:vo + 45] = np.minimum(me.counts[:5], 40) / 40.0  # specials: empire
        w[vo + 45] = min(int(foe.counts[:4].sum()), 40) / 40.0
        w[vo + 46] = foe.counts[4] > 0
        w[vo + 47] = min(foe.monster[2], 10) / 10.0 if foe.monster is not None else 0


def _fleet_planes(st: WarbahState, seat: int, w: memoryview[float], o: int, n: int) -> list:
    """The empire section's fleet planes 0-1 at ``o`` (cached per fleet layout and seat).
    Returns my fleet cells."""
    lk = (st.fleets.ships.tobytes(), st.fleets.owner.tobytes())
    c = st.__dict__.get("_obs_fleets")
    if c is None or c[0] != lk:
        c = st._obs_fleets = (lk, {-1: _fleets(st)})
    r = c[1].get(seat)
    if r is None:
        r = c[1][seat] = _fleet_layer(c[1][-1], seat, o, n)
    for i, x in r[0]:  # a few fleets: scalar writes
        w[i] = x
    return r[1]


def _queue_entry(st: WarbahState) -> tuple[int, int] | None:
    """The queue entry (seat, hex or Hero) now, or None past the queue's end."""
    return st.queue[st.queue_pos] if st.queue_pos < len(st.queue) else None


def observe(st: WarbahState, seat: int) -> np.ndarray:
    """``seat``'s observation, one float32 array: the map planes and vector (the cached
    map_planes and plain writes), then the empire and magic sections written in place.
    tests/warbah/test_golden.py holds the hashes of seeded games' observations."""
    g = st.game
    n = g.n_cells
    out = base_planes(st, seat)
    w = float_view(out)  # scalar writes through the buffer: no numpy scalar conversion
    vo = 17 * n
    o = vo + VECTOR
    ob = o + PLANES_B * n + VECTOR_B
    q = _queue_entry(st)
    occ, my_heroes, my_fleets = _heroes_and_vector(st, seat, out, w, o, q)
    _empire_section(st, seat, w[o:ob], my_fleets, occ, my_heroes, q)
    observe_magic(st, seat, w[ob:], my_heroes)
    return out


def _relative_flags(matrix, seat: int, N: int, v, base: int) -> None:
    """v[base + k] = 1 where ``matrix[seat]`` is set for the seat k places after ``seat``."""
    if N == 2:
        if matrix.item(seat, 1 - seat):  # a Python bool: no numpy scalar
            v[base + 1] = 1
        return
    row = matrix[seat].tolist()
    for k in range(1, N):
        if row[(seat + k) % N]:
            v[base + k] = 1


def _empire_section(st: WarbahState, seat: int, w: memoryview[float], my_fleets: list, occ: set,
                    mine: list, q: tuple[int, int] | None) -> None:
    """The fleets / espionage / special units / alliances section (``board_b``, ``vector_b``):
    planes (7, H, W) then a vector (76), observer-relative, written into ``w`` (a memoryview of
    the zeroed section with planes 0-1 filled in).

    Planes: 0 my fleets (ships/10), 1 other fleets (ships/10; chits are public), 2 espionage
    target slot (k+1)/12 at the target's hex (the spy only), 3 enemy hero index cards seen this
    turn (army/40), 4 my heroes at sea (sea moves left/6), 5 my fleets without a Hero (moves
    left/4; their slot k for FLEET0 actions is their rank in cell order), 6 combined attack
    (public): the target hex 1, the lead Hero 0.25, joined Heroes 0.5, the allied Hero asked 0.75.
    Vector: 0 espionage, 1 spy_loss, 2 luck, 3 sea_loss (phase flags); 4 my espionage roll/11,
    5 agents hired/11, 6 agents left to resolve/11; 7-20 espionage stage one-hot (spy only);
    21 troops left to lose/10 (the chooser only); 22 pending Luck roll/10; 23-25 contact with the
    players 1..3 seats after me; 26 acting hero at sea; 27 its sea moves/6; 28 its ships/10;
    29 its capacity room/40; 30 its Luck unused this turn; 31 espionage results logged/10;
    32-44 acting hero's special troops/20 (config.SPECIALS order); 45-57 my battle side's special
    groups/20; 58 the foe's special troops in battle (total/40, seen on the battlefield);
    59-61 allied with the players 1..3 seats after me (public); 62 diplomacy, 63 ally_answer
    phase flags; 64 the player offering me an alliance (relative seat/3); 66 join,
    67 join_answer phase flags; 68 Heroes joined to the declared attack or battle/4; 69 the
    joining armies' troops in battle/40; 70-73 my joining armies' warriors, archers, cavalry,
    catapults in battle/40, 74 my joining Heroes alive/4, 75 the casualty to pick now is for a
    joining army (the chooser only).

    ``my_fleets`` / ``occ`` / ``mine``: the cells of my fleets, of the living Heroes, and my
    living Heroes in order; ``q``: the queue entry now (``_queue_entry``). Written through a
    memoryview (float32 items: no numpy scalar per
    read / write); planes with flat indices: plane k, cell c at w[k * n + c]; the vector at
    w[vo + k].
    """
    n = st.game.n_cells
    vo = PLANES_B * n
    if my_fleets:
        _unmanned_fleet_plane(st, w, n, my_fleets, occ)
    phase = st.phase
    k = _SUBSTEP_INDEX.get(phase)
    if k is not None:
        w[vo + k] = 1
    esp = st.espionage
    N = st.game.num_seats
    if (esp.mission is not None or st.luck is not None or st.troop_loss is not None
            or esp.revealed or esp.log):  # else only the contacts are set (the quiet case)
        _espionage_part(st, seat, w, n, vo)
    else:
        _relative_flags(esp.contact, seat, N, w, vo + 22)
    _sea_part(st, seat, w, n, vo, mine, q)
    _relative_flags(st.diplomacy.allied, seat, N, w, vo + 58)
    if phase in _DIPLOMACY_INDEX:
        _diplomacy_part(st, seat, w, vo)
    _specials_part(st, seat, w, vo, q)
    if st.declared_attack is not None or (st.battle is not None and st.battle.members):
        _combined_attack_part(st, seat, w, n, vo)


def _unmanned_fleet_plane(st: WarbahState, w: memoryview[float], n: int, my_fleets: list, occ: set) -> None:
    """Plane 5: my fleets without a Hero on board (fleets.unmanned_fleets, in cell order):
    their moves left / 4."""
    k = 0
    for c in my_fleets:
        if c not in occ:
            w[5 * n + c] = fleets.fleet_left(st, c) / 4.0
            k += 1
            if k == FLEET_SLOTS:
                break


def _espionage_part(st: WarbahState, seat: int, w: memoryview[float], n: int, vo: int) -> None:
    """My espionage (roll, agents, stage, target slots: plane 2), troops to lose to an agent,
    enemy cards seen (plane 3), contacts, results logged this turn."""
    heroes, turn, phase = st.heroes, st.turn, st.phase
    e = st.espionage.mission
    if e is not None and e.seat == seat:
        w[vo + 4] = min(e.roll, 11) / 11.0
        w[vo + 5] = min(e.hired, 11) / 11.0
        w[vo + 6] = min(e.agents, 11) / 11.0
        if e.stage in espionage.STAGES:
            w[vo + 7 + espionage.STAGES.index(e.stage)] = 1
        if phase == "espionage" and e.stage not in ("hire", "done", "move"):
            for k, x in enumerate(e.targets):
                if e.stage in ("steal_gold", "damage"):
                    c = st.capitol[x]
                elif e.stage == "garrison":
                    c = x
                else:
                    c = heroes[x].cell
                if c >= 0:
                    w[2 * n + c] = max(w[2 * n + c], (k + 1) / TARGET_SLOTS)
        elif e.stage == "move":
            w[2 * n + heroes[e.victim].cell] = 1
    if phase == "spy_loss" and e is not None and heroes[e.victim].seat == seat:
        w[vo + 21] = min(e.left, 10) / 10.0
    lk, loss = st.luck, st.troop_loss
    if lk is not None and heroes[lk.hero].seat == seat:
        w[vo + 22] = lk.roll / 10.0
    elif loss is not None and heroes[loss.hero].seat == seat:
        w[vo + 21] = min(loss.left, 10) / 10.0
    if st.espionage.revealed:
        for (obs, hi), t in st.espionage.revealed.items():
            if obs == seat and t == turn and heroes[hi].alive:
                w[3 * n + heroes[hi].cell] = min(int(heroes[hi].troops.sum()), 40) / 40.0
    _relative_flags(st.espionage.contact, seat, st.game.num_seats, w, vo + 22)
    if st.espionage.log:
        n_log = 0
        for rec in reversed(st.espionage.log):  # this turn's entries are at the end
            if rec[0] != turn:
                break
            n_log += rec[1] == seat
        w[vo + 31] = min(n_log, 10) / 10.0


def _sea_part(st: WarbahState, seat: int, w: memoryview[float], n: int, vo: int, mine: list, q: tuple[int, int] | None) -> None:
    """My Heroes at sea (plane 4: sea moves left), the acting Hero's fleet and his Luck."""
    turn, land = st.turn, st.land
    for h in mine:
        if not land.item(h.cell):
            if h.sea_moves_turn == turn:
                mp = h.sea_moves
            else:
                mp = st.game.sea_moves
            w[4 * n + h.cell] = min(mp, 6) / 6.0
    if st.phase == "move" and q is not None and q[0] == seat:
        h = st.heroes[q[1]]
        if h.alive and not land.item(h.cell):
            w[vo + 26] = 1
            w[vo + 27] = w[4 * n + h.cell]
            ships = int(st.fleets.ships[h.cell])
            w[vo + 28] = min(ships, 10) / 10.0
            room = fleets.capacity(st, ships) - int(h.troops.sum())
            w[vo + 29] = min(max(room, 0), 40) / 40.0
        w[vo + 30] = h.luck_used_turn != turn and ability(st, h, "luck") > 0


def _diplomacy_part(st: WarbahState, seat: int, w: memoryview[float], vo: int) -> None:
    k = _DIPLOMACY_INDEX.get(st.phase)
    if k is not None:
        w[vo + 62 + k] = 1
        cur = st.diplomacy.current
        if st.phase == "ally_answer" and cur is not None and cur.offered_to == seat:
            w[vo + 64] = ((cur.seat - seat) % st.game.num_seats) / 3.0


def _specials_part(st: WarbahState, seat: int, w, vo: int, q: tuple[int, int] | None) -> None:
    """The acting Hero's special troops; in battle, my side's special groups and the foe's
    special troops (seen on the battlefield)."""
    phase, heroes = st.phase, st.heroes
    if q is not None and q[0] == seat and phase in ("move", "recruit", "battle"):
        x = q[1]
        if phase == "recruit":
            j = hero_at(st, x)
            hh = heroes[j] if j >= 0 and heroes[j].seat == seat else None
        else:
            hh = heroes[x]
        if hh is not None:
            sp = hh.specials.tolist()
            if any(sp):
                for u, k in enumerate(sp):
                    if k:
                        w[vo + 32 + u] = min(k, 20) / 20.0
    if st.battle is not None:
        sides = st.battle.sides
        for k in (0, 1):
            if sides[k].seat == seat and len(sides[k].counts) > FIRST_SPECIAL:
                v = np.frombuffer(w, np.float32)[vo:]  # a numpy view for the slice write
                v[45:58] = np.minimum(sides[k].counts[FIRST_SPECIAL:], 20) / 20.0
                foe = sides[1 - k].counts
                w[vo + 58] = min(int(foe[FIRST_SPECIAL:].sum()), 40) / 40.0
                break


def _combined_attack_part(st: WarbahState, seat: int, w, n: int, vo: int) -> None:
    """Plane 6 and vector 66-75: a declared combined attack or one in battle."""
    heroes = st.heroes
    jn, b = st.declared_attack, st.battle
    p6 = 6 * n
    if jn is not None:  # a declared combined attack
        w[vo + 66 + (st.phase == "join_answer")] = 1
        w[p6 + jn.cell] = 1
        w[p6 + heroes[jn.lead].cell] = 0.25
        for j in jn.members:
            w[p6 + heroes[j].cell] = 0.5
        if jn.asking >= 0:
            w[p6 + heroes[jn.asking].cell] = 0.75
        w[vo + 68] = min(len(jn.members), 4) / 4.0
    elif b is not None and b.members:
        w[p6 + b.cell] = 1
        w[p6 + heroes[b.sides[0].hero].cell] = 0.25
        for m in b.members:
            w[p6 + heroes[m.hero].cell] = 0.5
        w[vo + 68] = min(len(b.members), 4) / 4.0
        w[vo + 69] = min(sum(int(m.counts.sum() - m.counts[4]) for m in b.members),
                         40) / 40.0
        mine = [m for m in b.members if m.seat == seat]
        if mine:
            v = np.frombuffer(w, np.float32)[vo:]  # a numpy view for the slice write
            v[70:74] = np.minimum(sum(m.counts[:4] for m in mine), 40) / 40.0
            w[vo + 74] = sum(int(m.counts[4]) for m in mine) / 4.0
        if st.phase == "casualty" and b.member_choosing >= 0 and st.current_player == seat:
            w[vo + 75] = 1
