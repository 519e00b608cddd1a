"""Warbah battles as AEC sub-steps: declaring an attack (the battle phase's queue entries),
combined attacks (several own or allied Heroes against one hex), starting a battle (an enemy
Hero, a garrison, an encounter, a sea encounter), running its rounds and segments, the sides'
casualty choices, the attacker's call-off, and the end of battle.

Combined attacks (BATTLE: "Heroes may combine attacks against a single hex"; ALLIES: "Allies may
combine attacks"): a Hero's attack is declared (direction action in the battle phase); when other
own Heroes (or, with the allies option, allied Heroes) next to the target could join, the
attacker's player adds them one at a time (phase ``join``: BATTLE_JOIN0 + d, d = the joining
Hero's direction seen from the target; an allied Hero's player is asked first, phase
``join_answer``: BATTLE_ACCEPT / BATTLE_DECLINE) and then starts the battle (BATTLE_START).
The declaring Hero leads: ``battle.sides[0]`` is his army (spells, ships and the call-off belong
to the lead); the joiners fight as ``battle.members`` (own abilities, own special troops); the
force's kills are summed and the target's walls negate them as one attack.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from . import battle, battle_luck, battle_spells, diplomacy, espionage, fleets, heroes, hexes, luck, magic
from .actions import (
    BATTLE_ACCEPT,
    BATTLE_DECLINE,
    BATTLE_JOIN0,
    BATTLE_START,
    CALL_OFF,
    CASUALTY0,
    CONTINUE,
    DONE,
    EMPIRE0,
    LOSS_SP0,
    NUM_ACTIONS,
)
from .state import Army, Battle, BattleKind, Chain, DeclaredAttack, Hero, NextRoll, WarbahState, Window
from .tables import TERRAINS


def joiners(st: WarbahState, lead: int, cell: int) -> list[tuple[int, int]]:
    """(direction from the target, hero) of the Heroes that may still join the attack of Hero
    ``lead`` on ``cell``: own or allied Heroes on land next to it, with an attack left this turn,
    not delayed by an agent, for whom the hex is a target too; not yet in or asked."""
    jn = declared(st)
    if not st.land[cell] or not st.land[st.heroes[lead].cell]:
        return []
    seat = st.heroes[lead].seat
    out = []
    for d, m in enumerate(st.neighbours[cell]):
        if m < 0 or not st.land[m]:
            continue
        j = heroes.hero_at(st, m)
        if j < 0 or j == lead or j in jn.members or j in jn.declined:
            continue
        o = st.heroes[j]
        if (diplomacy.friendly(st, seat, o.seat) and o.attacks_left > 0
                and not espionage.hero_delayed(st, o) and hexes.is_target(st, o.seat, cell)):
            out.append((d, j))
    return out


def declared(st: WarbahState) -> DeclaredAttack:
    """The attack declared and waiting for its joiners (phases ``join``, ``join_answer``)."""
    jn = st.declared_attack
    assert jn is not None, "no declared attack"
    return jn


def declare(st: WarbahState, hi: int, cell: int) -> None:
    """A declared attack: with possible joiners the attacker picks them first (phase ``join``),
    otherwise the battle starts at once."""
    st.declared_attack = DeclaredAttack(hi, cell)
    if joiners(st, hi, cell):
        st.phase, st.to_act = "join", st.heroes[hi].seat
        return
    st.declared_attack = None
    start_battle(st, hi, cell)


# -- declaring attacks (the battle phase's queue entry: one Hero of the player on turn) ---------
def attack_mask(st: WarbahState, seat: int, hi: int) -> np.ndarray:
    """BATTLE: the hexes Hero hi may attack (DONE: no more attacks); at sea only adjacent enemy
    Heroes at sea or unmanned enemy fleets; a Hero delayed by an agent does not attack."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[DONE] = 1
    h = st.heroes[hi]
    if not h.alive:
        return mask
    if h.attacks_left > 0:  # is_target: only explored land can be attacked from land
        occ = heroes.hero_map(st)
        for d, m in hexes.neighbours_by_kind(st)[0][h.cell]:
            if hexes.is_target(st, seat, m, occ):
                mask[d] = 1
    if espionage.hero_delayed(st, h):  # Agent Success 6: cannot move or attack this turn
        mask[:6] = 0
        mask[EMPIRE0:] = 0
        return mask
    sea_attack_mask(st, seat, h, mask)
    return mask


def attack_apply(st: WarbahState, seat: int, hi: int, a: int) -> None:
    if a == DONE:
        st.queue_pos += 1
        return
    h = st.heroes[hi]
    h.attacks_left -= 1
    cell = st.neighbours[h.cell][a]
    on_attack(st, hi, cell)  # attacking an ally ends the alliance
    declare(st, hi, cell)  # joiners, then the battle


def join_mask(st: WarbahState) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    jn = declared(st)
    if st.phase == "join_answer":
        mask[BATTLE_ACCEPT] = mask[BATTLE_DECLINE] = 1
        return mask
    mask[BATTLE_START] = 1
    for d, _ in joiners(st, jn.lead, jn.cell):
        mask[BATTLE_JOIN0 + d] = 1
    return mask


def join_apply(st: WarbahState, a: int) -> None:
    jn = declared(st)
    lead = jn.lead
    if st.phase == "join_answer":  # the ally's player answers the call
        (jn.members if a == BATTLE_ACCEPT else jn.declined).append(jn.asking)
        jn.asking = -1
        st.phase, st.to_act = "join", st.heroes[lead].seat
        return
    if a == BATTLE_START:
        st.declared_attack = None
        st.phase = "battle"
        for j in jn.members:  # joining uses up one of the joiner's attacks this turn
            st.heroes[j].attacks_left -= 1
            on_attack(st, j, jn.cell)  # attacking an ally ends that alliance
        start_battle(st, lead, jn.cell, jn.members)
        return
    j = heroes.hero_at(st, st.neighbours[jn.cell][a - BATTLE_JOIN0])
    if st.heroes[j].seat == st.heroes[lead].seat:
        jn.members.append(j)
    else:  # an allied Hero: his player decides
        jn.asking = j
        st.phase, st.to_act = "join_answer", st.heroes[j].seat


def on_attack(st: WarbahState, hi: int, cell: int) -> None:
    """Hero hi attacks ``cell``: attacking an ally ends the alliance."""
    j = heroes.hero_at(st, cell)
    foe = (st.heroes[j].seat if j >= 0 else int(st.owner[cell]) if st.land[cell]
           else int(st.fleets.owner[cell]))
    diplomacy.on_attack(st, st.heroes[hi].seat, foe)


def start_battle(st: WarbahState, hi: int, cell: int, members: Iterable[int] = ()) -> None:
    """Hero hi (with the joining Heroes ``members``) attacks ``cell``; an encounter's rolls
    (ENCOUNTER TABLE) come first, open to Luck."""
    if heroes.hero_at(st, cell) < 0 and st.encounter[cell] != 0:
        luck.chain(st, ENCOUNTER, (hi, cell, tuple(members)))
        return
    _start(st, hi, cell, members, None)


def _force_seats(st: WarbahState, hi: int, members: Iterable[int]) -> tuple[int, ...]:
    return luck.seat_order([st.heroes[hi].seat] + [st.heroes[j].seat for j in members])


def _encounter_rolls(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """ENCOUNTER TABLE: the type (1D10, when still unknown), then Disease's loss dice or the
    size of each troop group; the attacking players may reroll (luck.py). Once all are known
    the battle starts (or Disease strikes)."""
    hi, cell, members = ctx
    who = _force_seats(st, hi, members)
    unknown = st.encounter[cell] < 0
    if unknown and not vals:
        return who, (1, 10)
    typ = vals[0] if unknown else int(st.encounter[cell])
    rolls = vals[1:] if unknown else vals
    enc = st.game.cfg["encounters"][typ]
    if "lose_dice" in enc:
        if not rolls:
            return who, (enc["lose_dice"], 10)
        st.encounter[cell] = typ
        h = st.heroes[hi]
        for _ in range(rolls[0]):  # the largest troop group loses first; never the Hero
            if h.troops.sum() > 0:
                h.troops[int(np.argmax(h.troops))] -= 1
        _clear_encounter(st, cell)
        return None
    groups = enc.get("groups", [])
    if len(rolls) < len(groups):
        return who, (groups[len(rolls)][1], 10)
    st.encounter[cell] = typ
    _start(st, hi, cell, members, rolls)
    return None


#: the Encounter table rolls, open to Luck (``start_battle``)
ENCOUNTER = Chain("encounter", _encounter_rolls)


def _start(st: WarbahState, hi: int, cell: int, members: Iterable[int], sizes: tuple | None) -> None:
    h = st.heroes[hi]
    walls = hexes.walls(st, cell, h.cell)
    j = heroes.hero_at(st, cell)
    kind: BattleKind = "garrison"
    treasure = 0
    if j >= 0:
        kind, defender = "hero", battle.hero_army(st, j, walls)
    elif sizes is not None:
        kind = "encounter"
        enc = st.game.cfg["encounters"][int(st.encounter[cell])]
        treasure = enc.get("treasure", 0)
        counts = np.zeros(5, np.int64)
        for (troop, _), n in zip(enc.get("groups", []), sizes):
            counts[("warriors", "archers", "cavalry", "catapults").index(troop)] += n
        if enc.get("hero"):
            counts[4] = 1
        mon = enc.get("monster")
        monster = [mon["init"], mon["kill"], mon["hits"]] if mon else None
        defender = battle.neutral_army(counts, monster, walls)
    else:
        counts = np.append(st.garrison[cell], 0)
        if st.garrison_specials[cell].any():  # garrison special units (Knights): groups 5 + u
            counts = np.concatenate([counts, st.garrison_specials[cell]])
        defender = battle.neutral_army(counts, None, walls, int(st.owner[cell]))
    st.battle = Battle([battle.hero_army(st, hi), defender], kind, cell, treasure)
    if members:  # a combined attack: the joining Heroes' armies
        ms = [battle.hero_army(st, j) for j in members]
        for m in ms:
            m.ships = 0
        battle.add_special_groups(st, ms)
        st.battle.members, st.battle.member_kills = ms, [0] * len(ms)
    battle_spells.setup_battle(st)  # wizards draw Battle spells
    run(st)


def start_sea_battle(st: WarbahState, hi: int, row: dict) -> None:
    """SEA ENCOUNTER TABLE: pirates or a sea monster attack Hero hi's fleet."""
    counts = np.zeros(5, np.int64)
    for troop, dice in row.get("groups", []):
        t = ("warriors", "archers", "cavalry", "catapults").index(troop)
        counts[t] += luck.d10(st.rng, dice)
    mon = row.get("monster")
    foe = battle.neutral_army(counts, [mon["init"], mon["kill"], mon["hits"]] if mon else None, 0)
    foe.ships = row.get("ships", 0)
    foe.hits_ships = bool(mon and mon.get("hits_ships"))
    me = battle.hero_army(st, hi)
    me.ships = int(st.fleets.ships[st.heroes[hi].cell])
    st.battle = Battle([me, foe], "sea", st.heroes[hi].cell, row.get("treasure", 0),
                       return_phase=st.phase)
    battle_spells.setup_battle(st)  # a Hero's wizard draws Battle spells at sea too
    run(st)


def _clear_encounter(st: WarbahState, cell: int) -> None:
    st.encounter[cell] = 0
    st.terrain[cell] = TERRAINS.index("clear")


def run(st: WarbahState) -> None:
    """Resolve segments / rounds until a side must choose casualties, a player decides on a
    spell or on Luck, or the attacker may call off; or the battle ends."""
    b = battle.current(st)
    battle.add_special_groups(st, b.sides)  # special unit groups at counts[5:]
    while True:
        if _casualties_to_choose(st, b):
            return
        a, d = b.sides
        if (battle.destroyed(a) and all(battle.destroyed(m) for m in b.members)
                or battle.destroyed(d)):
            return finish(st)
        if b.segment >= battle.SEGMENTS:  # the round is over
            b.round += 1
            b.segment = 0
            if b.magic is not None:
                battle_spells.end_round(st)  # round-long spell effects end
            for s in (a, d):
                s.walls_left = max(0, s.walls_base - s.wall_damage)
            if b.round >= st.game.cfg["designed"]["battle_round_cap"]:
                return finish(st)
            st.phase, st.to_act = "call_off", a.seat
            return
        if _segment(st, b):
            return


def _casualties_to_choose(st: WarbahState, b: Battle) -> bool:
    """Kills still to assign: a player army with a real choice decides (True), the others
    lose their largest groups automatically."""
    for k in (0, 1):
        side = b.sides[k]
        while b.kills[k] > 0:
            if battle.destroyed(side):
                b.kills[k] = 0
                break
            if side.seat >= 0 and side.hero >= 0 and len(battle.troop_types_alive(side)) > 1:
                b.chooser = k
                st.phase, st.to_act = "casualty", side.seat
                return True
            battle.remove_one(side)
            b.kills[k] -= 1
    for i, side in enumerate(b.members):  # combined attack: each joining army's casualties
        while b.member_kills[i] > 0:
            if battle.destroyed(side):
                b.member_kills[i] = 0
                break
            if len(battle.troop_types_alive(side)) > 1:
                b.chooser, b.member_choosing = 0, i
                st.phase, st.to_act = "casualty", side.seat
                return True
            battle.remove_one(side)
            b.member_kills[i] -= 1
    return False


def _segment(st: WarbahState, b: Battle) -> bool:
    """One initiative segment: the spell segment and delayed spells, Siegecraft, every army's
    attacks, Luck's window on the dice, then walls and Defense. True: paused for a decision."""
    g = st.game
    a, d = b.sides
    members = b.members
    seg = b.segment
    extra: tuple[int, int] | list[int] = (0, 0)
    if b.magic is not None:  # spell segment, delayed spell effects
        if battle_spells.spell_segment(st, seg, _after_spell_dice):
            return True
        extra = battle_spells.segment_effects(st, seg)
    if seg == battle.segment_of(1):  # Siegecraft: a wall rank destroyed in the Init 1 segment
        for k in (0, 1):
            other = b.sides[1 - k]
            siege = b.sides[k].siege
            if k == 0:  # a combined attack: every attacking Hero's Siegecraft
                siege += sum(m.siege for m in members)
            n = min(siege, other.walls_left)
            other.walls_left -= n
            other.wall_damage += n
    # Luck's segment window; dice are noted only while a player of the battle has Luck
    # unused this turn
    lucky = battle_luck.anyone_lucky(st, b)
    for sd in (a, d) + tuple(members):
        sd.dice = [] if lucky else None
        sd.wall_rolls = None
    ka, kd = battle.attacks(g, a, seg, st.rng), battle.attacks(g, d, seg, st.rng)
    ka, kd = battle.ship_attacks(st, a, d, seg, ka, kd)  # ships and sea monsters
    ka, kd = ka + battle.special_attacks(st, a, seg), kd + battle.special_attacks(st, d, seg)
    for m in members:  # a combined attack: the joiners attack too
        ka += battle.attacks(g, m, seg, st.rng) + battle.special_attacks(st, m, seg)
    b.raw_kills = [int(ka), int(kd), int(extra[0]), int(extra[1])]
    if lucky and luck.window(st, battle_luck.battle_seats(st, b), DICE_WINDOW, ()):
        return True  # RARE ABILITY Luck: a player may reroll one die of this segment
    return _resolve_segment(st, lucky)  # nobody decided since the check above


def _resolve_segment(st: WarbahState, lucky: bool | None = None) -> bool:
    """The segment's kills after walls and Defense (a combined attack shares the defender's
    kills); then Luck's wall-break window. True: paused for a Luck decision. ``lucky``:
    battle_luck.anyone_lucky of this state, when the caller has just checked it."""
    b, g = battle.current(st), st.game
    a, d = b.sides
    members = b.members
    assert b.raw_kills is not None   # the segment's dice were rolled (_segment)
    ka, kd, e0, e1 = b.raw_kills
    b.raw_kills = None
    if lucky is None:
        lucky = battle_luck.anyone_lucky(st, b)
    for sd in (a, d) + tuple(members):
        sd.dice = None
        sd.wall_rolls = [] if lucky else None
    if members:  # the defender's kills are shared over the force
        k0, b.member_kills = _share(st, b, kd, e0)
        b.kills = [k0, battle.negate(g, d, ka, st.rng) + e1]
    else:
        b.kills = [battle.negate(g, a, kd, st.rng) + e0, battle.negate(g, d, ka, st.rng) + e1]
    b.segment += 1
    paused = lucky and luck.window(st, battle_luck.battle_seats(st, b), WALL_WINDOW, ())
    if not paused:
        for sd in (a, d) + tuple(members):
            sd.wall_rolls = None
    return paused


def _after_dice(st: WarbahState, ctx: tuple) -> None:
    """After the segment's dice window: walls and Defense, then the battle goes on."""
    st.phase = "battle"
    if _resolve_segment(st):
        return
    run(st)


def _after_walls(st: WarbahState, ctx: tuple) -> None:
    """After the wall-break dice window: the battle goes on."""
    b = battle.current(st)
    for sd in tuple(b.sides) + tuple(b.members):
        sd.wall_rolls = None
    st.phase = "battle"
    run(st)


#: RARE ABILITY Luck's windows in a battle segment (battle_luck.py): after the attack dice
#: (LUCK_MINE / LUCK_FOE), after the wall-break dice (REROLL)
DICE_WINDOW = Window("battle_dice", battle_luck.dice_can, battle_luck.dice_act, _after_dice)
WALL_WINDOW = Window("wall_dice", battle_luck.wall_can, battle_luck.wall_act, _after_walls)


def _room(side: Army) -> int:
    """Units that can die before the side's Hero: troops (basic and special) and monster hits."""
    c = side.counts
    mon = side.monster
    return int(c.sum() - c[4]) + (max(int(mon[2]), 0) if mon is not None else 0)


def _share(st: WarbahState, b: Battle, kills: int, extra: int) -> tuple[int, list[int]]:
    """Kills on a combined attacking force (designed): dealt one at a time, in turn, to the
    armies (lead first, then the joiners in joining order; the turn carries over between
    segments) that still have units other than their Hero; each army's Defense (and the lead's
    Armor spell) then negates its own share. Only when no army has such units left do the
    Heroes fall: the joiners' (last joined first), the lead's last. Spell kills left for the
    victim to assign (``extra``) are dealt the same way after the ordinary kills."""
    armies = [b.sides[0]] + b.members
    n = len(armies)
    room = [_room(s) for s in armies]
    hero_left = [0] + [int(m.counts[4]) for m in b.members]
    rr = b.next_share

    def deal(k: int) -> list[int]:
        nonlocal rr
        out = [0] * n
        for _ in range(k):
            live = [i for i in range(n) if room[i] > 0]
            if live:
                i = min(live, key=lambda x: (x - rr) % n)
                rr = (i + 1) % n
                room[i] -= 1
            else:
                i = next((x for x in range(n - 1, 0, -1) if hero_left[x] > 0), 0)
                hero_left[i] -= i > 0
            out[i] += 1
        return out

    raw = deal(kills)
    got = [battle.negate(st.game, s, raw[i], st.rng) for i, s in enumerate(armies)]
    ex = deal(extra)
    b.next_share = rr
    tot = [got[i] + ex[i] for i in range(n)]
    return tot[0], tot[1:]


def chooser_side(b: Battle) -> Army:
    """The battle side (or joining army) whose player now picks a casualty."""
    cm = b.member_choosing
    return b.members[cm] if cm >= 0 else b.sides[b.chooser]


# -- the players' choices during a battle ---------------------------------------------------------
def casualty_mask(st: WarbahState) -> np.ndarray:
    """The troop groups the chooser's army may lose a unit of (never the Hero while troops
    are left)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    side = chooser_side(battle.current(st))
    for t in battle.troop_types_alive(side):
        if t < 4:
            mask[CASUALTY0 + t] = 1
    battle.casualty_mask(side, mask)  # special groups (LOSS_SP0 + u)
    return mask


def casualty_apply(st: WarbahState, action: int) -> None:
    b = battle.current(st)
    t = (action - CASUALTY0 if action < CASUALTY0 + 4
         else battle.FIRST_SPECIAL + action - LOSS_SP0)
    battle.remove_one(chooser_side(b), t)
    if b.member_choosing >= 0:  # a joining army of a combined attack
        b.member_kills[b.member_choosing] -= 1
        b.member_choosing = -1
    else:
        b.kills[b.chooser] -= 1
    st.phase = "battle"
    run(st)


def call_off_mask(st: WarbahState) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[CALL_OFF] = mask[CONTINUE] = 1
    return mask


def call_off_apply(st: WarbahState, action: int) -> None:
    """BATTLE: at the end of a round the attacker calls the attack off or goes on."""
    if action == CALL_OFF:
        return finish(st)
    st.phase = "battle"
    run(st)


def spell_apply(st: WarbahState, action: int) -> None:
    """A choice in the spell segment (battle_spells.py); then the battle goes on."""
    if battle_spells.apply(st, action, _after_spell_dice):
        st.phase = "battle"
        run(st)


def _after_spell_dice(st: WarbahState, value: int, ctx: tuple) -> None:
    """After a Luck decision on a battle spell's dice: resolve it and go on with the battle."""
    battle_spells.resolve_after_luck(st, value, ctx)
    st.phase = "battle"
    run(st)


def finish(st: WarbahState) -> None:
    b = battle.current(st)
    _finish_ships(st, b)  # ships written back, drowned armies
    battle.write_back_specials(st, b.sides)  # surviving special troops written back
    a, d = b.sides
    cell = b.cell
    ah = st.heroes[a.hero]
    members = b.members
    if members:  # a combined attack: the joining armies are written back the same way
        battle.write_back_specials(st, members)
    force = [(a, ah)] + [(m, st.heroes[m.hero]) for m in members]
    for s, h in force:
        lost = int(h.troops.sum() - s.counts[:4].sum())
        h.troops_lost += max(lost, 0)
        h.troops = s.counts[:4].copy()
    st.wall_damage[cell] += d.wall_damage
    if d.hero >= 0:
        dh = st.heroes[d.hero]
        dh.troops = d.counts[:4].copy()
    elif b.kind == "garrison":
        st.garrison[cell] = d.counts[:4]
        if len(d.counts) > battle.FIRST_SPECIAL and st.land[cell]:
            st.garrison_specials[cell] = d.counts[battle.FIRST_SPECIAL:]
    for s, h in force:
        if s.counts[4] <= 0:
            h.alive = False
            if d.hero >= 0:
                st.heroes[d.hero].xp += 1
    for m in members:  # a slain joiner: his wizard goes home, the defending Hero takes his items
        h = st.heroes[m.hero]
        if not h.alive:
            if h.wizard:
                magic.kill_wizard(st, m.hero)
            if d.hero >= 0 and st.heroes[d.hero].alive and h.items:
                magic.take_items(st, st.heroes[d.hero], h)
    if battle.destroyed(d):
        if d.hero >= 0:
            st.heroes[d.hero].alive = False
            for _, h in force:  # designed: every Hero of a combined attack earns the XP
                h.xp += 1
        if b.kind == "encounter":
            _clear_encounter(st, cell)
            for _, h in force:
                h.xp += 1
            win = next((s.hero for s, h in force if h.alive), -1)
            if win >= 0:  # the treasure: the lead, or the first joiner still alive
                st.pending_treasure.append((win, b.treasure))
        victor = next((h for _, h in force if h.alive), None)
        # designed: the victor advances into the hex, unless he may not enter it (MOVE &
        # EXPLORE: a Hero slain over his own garrison leaves it standing)
        if (victor is not None and heroes.hero_at(st, cell) < 0 and st.land[cell]
                and not hexes.foreign_garrison(st, victor.seat, cell)):
            victor.cell = cell
    battle_spells.end_battle(st)  # spells discarded, items of a slain hero taken
    st.battle = None
    st.phase = b.return_phase  # sea battles return to the move phase
    _after_battle_capacity(st, b)


def _finish_ships(st: WarbahState, b: Battle) -> None:
    """Battle end: write ships back; a Hero whose fleet sank is lost with his army at sea."""
    a, d = b.sides
    for s in (a, d):
        hi = s.hero
        if hi < 0 or s.seat < 0 or s.ships is None:
            continue
        h = st.heroes[hi]
        if fleets.at_sea(st, h):
            st.fleets.ships[h.cell] = s.ships
            if s.ships <= 0:
                st.fleets.owner[h.cell] = -1
                s.counts[:] = 0  # drowned (designed), a summoned monster with them
                s.monster = None
    if b.kind == "garrison" and not st.land[b.cell]:  # an unmanned fleet attacked
        st.fleets.ships[b.cell], st.fleets.owner[b.cell] = 0, -1
    if b.kind == "sea":
        if battle.destroyed(d) and a.counts[4] > 0:  # an overcome encounter: 1 XP, treasure
            st.heroes[a.hero].xp += 1
            st.pending_treasure.append((a.hero, b.treasure))


def _after_battle_capacity(st: WarbahState, b: Battle) -> None:
    """Enforce the carrying capacity of Heroes whose fleets lost ships."""
    for s in b.sides:
        hi = s.hero
        if hi >= 0 and s.seat >= 0 and st.heroes[hi].alive and s.ships is not None:
            if fleets.enforce_capacity(st, hi, st.phase):
                return


def sea_attack_mask(st: WarbahState, seat: int, h: Hero, mask: np.ndarray) -> None:
    """At sea a Hero may attack only adjacent enemy Heroes at sea, or sink an enemy fleet
    without a Hero; a Hero on land attacks no ship (``attack_mask`` offers land targets only)."""
    if not fleets.at_sea(st, h):
        return
    for d in range(6):
        m = int(st.neighbours[h.cell][d])
        if m < 0:
            continue
        j = heroes.hero_at(st, m)
        if j >= 0:
            mask[d] = (h.attacks_left > 0 and not st.land[m] and st.heroes[j].seat != seat)
        else:  # an enemy fleet without a Hero cannot fight back: attacking sinks it
            mask[d] = (h.attacks_left > 0 and not st.land[m] and st.fleets.ships[m] > 0
                       and st.fleets.owner[m] != seat)
