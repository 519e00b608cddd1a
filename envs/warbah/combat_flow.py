"""Warbah battle flow as AEC sub-steps: sides' casualty choices and the attacker's call-off, and
combined attacks (several own or allied Heroes against one hex).

Combined attacks (BATTLE: "Heroes may combine attacks against a single hex"; ALLIES: "Allies may
combine attacks"): a Hero's attack is declared (direction action in the battle phase); when other
own Heroes (or, with the allies option, allied Heroes) next to the target could join, the
attacker's player adds them one at a time (phase ``join``: BATTLE_JOIN0 + d, d = the joining
Hero's direction seen from the target; an allied Hero's player is asked first, phase
``join_answer``: BATTLE_ACCEPT / BATTLE_DECLINE) and then starts the battle (BATTLE_START).
The declaring Hero leads: ``b.sides[0]`` is his army (spells, ships and the call-off belong
to the lead); the joiners fight as ``b.members`` (own abilities, own special troops); the
force's kills are summed and the target's walls negate them as one attack.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import allies as ALLY
from . import battle as B
from . import espionage as ESP
from . import luck as LUCK
from . import sea as SEA
from . import units as UNITS
from . import spells as SP
from .battle import Army, Battle
from .config import (BATTLE_ACCEPT, BATTLE_DECLINE, BATTLE_JOIN0, BATTLE_START,
                                CALL_OFF, CASUALTY0, LUCK_FOE, LUCK_MINE, REROLL, TERRAINS)

JOIN_PHASES = ("join", "join_answer")  # combined attacks: add joining Heroes / an ally answers


@dataclass(slots=True)
class DeclaredAttack:
    """An attack declared by Hero ``lead`` on ``cell`` while other Heroes may still join."""
    lead: int
    cell: int
    members: list = field(default_factory=list)     # Heroes that joined
    declined: list = field(default_factory=list)    # allied Heroes whose players declined
    asking: int = -1                # the allied Hero whose player answers now

    def clone(self) -> "DeclaredAttack":
        return DeclaredAttack(self.lead, self.cell, list(self.members), list(self.declined),
                              self.asking)


def _side(st, hi: int, walls: int = 0) -> Army:
    h = st.heroes[hi]
    init_mod, kill_mod, extra = [0] * 5, [0] * 5, [0] * 5
    for name, t in h.abilities:
        if name == "tactics":
            init_mod[t] += 1
        elif name == "leadership":
            kill_mod[t] += 1
        elif name == "prowess":
            extra[t] += 1
    return Army(np.append(h.troops, 1).astype(np.int64), h.seat, hi, None, init_mod, kill_mod,
                extra, st.abil(h, "defense"), st.abil(h, "siegecraft"), walls, walls)


def _neutral(counts, monster=None, walls: int = 0, seat: int = -1) -> Army:
    return Army(np.asarray(counts, np.int64), seat, -1, monster, walls_base=walls,
                walls_left=walls)


# -- combined attacks: declare, add joining Heroes, start -----------------------------------------
def joiners(st, lead: int, cell: int) -> list[tuple[int, int]]:
    """(direction from the target, hero) of the Heroes that may still join the attack of Hero
    ``lead`` on ``cell``: own or allied Heroes on land next to it, with an attack left this turn,
    not delayed by an agent, for whom the hex is a target too; not yet in or asked."""
    jn = st.declared_attack
    if not st.land[cell] or not st.land[st.heroes[lead].cell]:
        return []
    seat = st.heroes[lead].seat
    out = []
    for d, m in enumerate(st.neighbours[cell]):
        if m < 0 or not st.land[m]:
            continue
        j = st.hero_at(m)
        if j < 0 or j == lead or j in jn.members or j in jn.declined:
            continue
        o = st.heroes[j]
        if (ALLY.friendly(st, seat, o.seat) and o.attacks_left > 0
                and not ESP.hero_delayed(st, o) and st._target(o.seat, cell)):
            out.append((d, j))
    return out


def declare(st, hi: int, cell: int) -> None:
    """A declared attack: with possible joiners the attacker picks them first (phase ``join``),
    otherwise the battle starts at once."""
    st.declared_attack = DeclaredAttack(hi, cell)
    if joiners(st, hi, cell):
        st.phase, st.to_act = "join", st.heroes[hi].seat
        return
    st.declared_attack = None
    start_battle(st, hi, cell)


def join_mask(st) -> np.ndarray:
    mask = np.zeros(st.game.num_actions, np.int8)
    jn = st.declared_attack
    if st.phase == "join_answer":
        mask[BATTLE_ACCEPT] = mask[BATTLE_DECLINE] = 1
        return mask
    mask[BATTLE_START] = 1
    for d, _ in joiners(st, jn.lead, jn.cell):
        mask[BATTLE_JOIN0 + d] = 1
    return mask


def join_apply(st, a: int) -> None:
    from . import block_b as BB
    jn = st.declared_attack
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
            BB.on_attack(st, j, jn.cell)  # attacking an ally ends that alliance
        start_battle(st, lead, jn.cell, jn.members)
        return
    j = st.hero_at(st.neighbours[jn.cell][a - BATTLE_JOIN0])
    if st.heroes[j].seat == st.heroes[lead].seat:
        jn.members.append(j)
    else:  # an allied Hero: his player decides
        jn.asking = j
        st.phase, st.to_act = "join_answer", st.heroes[j].seat


def start_battle(st, hi: int, cell: int, members=()) -> None:
    if st.hero_at(cell) < 0 and st.encounter[cell] != 0:  # ENCOUNTER TABLE rolls, open to Luck
        LUCK.chain(st, "encounter", (hi, cell, tuple(members)))
        return
    _start(st, hi, cell, members, None)


def _force_seats(st, hi: int, members) -> tuple:
    return tuple(dict.fromkeys([st.heroes[hi].seat] + [st.heroes[j].seat for j in members]))


@LUCK.step("encounter")
def _encounter_rolls(st, ctx, vals):
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


def _start(st, hi: int, cell: int, members, sizes) -> None:
    h = st.heroes[hi]
    walls = st.walls(cell, h.cell)
    j = st.hero_at(cell)
    kind, treasure = "garrison", 0
    if j >= 0:
        kind, defender = "hero", _side(st, j, walls)
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
        defender = _neutral(counts, [mon["init"], mon["kill"], mon["hits"]] if mon else None, walls)
    else:
        counts = np.append(st.garrison[cell], 0)
        if st.garrison_specials[cell].any():  # special units in the garrison (Knights): groups 5 + u
            counts = np.concatenate([counts, st.garrison_specials[cell]])
        defender = _neutral(counts, None, walls, int(st.owner[cell]))
    st.battle = Battle([_side(st, hi), defender], kind, cell, treasure)
    if members:  # a combined attack: the joining Heroes' armies
        ms = [_side(st, j) for j in members]
        for m in ms:
            m.ships = 0
        UNITS.extend_sides(st, ms)
        st.battle.members, st.battle.member_kills = ms, [0] * len(ms)
    SP.setup_battle(st)  # block A: wizards draw Battle spells
    _run(st)


def _clear_encounter(st, cell: int) -> None:
    st.encounter[cell] = 0
    st.terrain[cell] = TERRAINS.index("clear")


def _run(st) -> None:
    """Resolve segments/rounds until a side must choose casualties or the attacker may call off."""
    b, g = st.battle, st.game
    cap = g.cfg["designed"]["battle_round_cap"]
    UNITS.extend_sides(st, b.sides)  # block B: special unit groups at counts[5:]
    while True:
        # pending kills: a player side with a real choice decides, others lose automatically
        for k in (0, 1):
            side = b.sides[k]
            while b.kills[k] > 0:
                if B.destroyed(side):
                    b.kills[k] = 0
                    break
                if side.seat >= 0 and side.hero >= 0 and len(B.troop_types_alive(side)) > 1:
                    b.chooser = k
                    st.phase, st.to_act = "casualty", side.seat
                    return
                B.remove_one(side)
                b.kills[k] -= 1
        members = b.members
        for i, side in enumerate(members):  # combined attack: each joining army's casualties
            while b.member_kills[i] > 0:
                if B.destroyed(side):
                    b.member_kills[i] = 0
                    break
                if len(B.troop_types_alive(side)) > 1:
                    b.chooser, b.member_choosing = 0, i
                    st.phase, st.to_act = "casualty", side.seat
                    return
                B.remove_one(side)
                b.member_kills[i] -= 1
        a, d = b.sides
        if (B.destroyed(a) and all(B.destroyed(m) for m in members)) or B.destroyed(d):
            return _finish(st)
        if b.segment >= B.SEGMENTS:
            b.round += 1
            b.segment = 0
            if b.magic is not None:
                SP.end_round(st)  # block A: round-long spell effects end
            for s in (a, d):
                s.walls_left = max(0, s.walls_base - s.wall_damage)
            if b.round >= cap:
                return _finish(st)
            st.phase, st.to_act = "call_off", a.seat
            return
        seg = b.segment
        extra = (0, 0)
        if b.magic is not None:  # block A: spell segment, delayed spell effects
            if SP.spell_segment(st, seg):
                return
            extra = SP.segment_effects(st, seg)
        if seg == B.segment_of(1):  # Siegecraft: destroy one wall rank in the Initiative 1 segment
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
        luck = any(
            LUCK.lucky_hero(st, q) >= 0 for q in _battle_seats(st, b))
        for sd in (a, d) + tuple(members):
            sd.dice = [] if luck else None
            sd.wall_rolls = None
        ka, kd = B.attacks(g, a, seg, st.rng), B.attacks(g, d, seg, st.rng)
        ka, kd = SEA.naval(st, a, d, seg, ka, kd)  # block B: ships and sea monsters
        ka, kd = ka + _special_attacks(st, a, seg), kd + _special_attacks(st, d, seg)  # block B
        for m in members:  # a combined attack: the joiners attack too
            ka += B.attacks(g, m, seg, st.rng) + _special_attacks(st, m, seg)
        b.raw_kills = [int(ka), int(kd), int(extra[0]), int(extra[1])]
        if luck and LUCK.window(st, _battle_seats(st, b), "battle_dice", (), "battle_dice"):
            return  # RARE ABILITY Luck: a player may reroll one die of this segment
        if _resolve_segment(st):
            return


def _resolve_segment(st) -> bool:
    """The segment's kills after walls and Defense (a combined attack shares the defender's
    kills); then Luck's wall-break window. True: paused for a Luck decision."""
    b, g = st.battle, st.game
    a, d = b.sides
    members = b.members
    ka, kd, e0, e1 = b.raw_kills
    b.raw_kills = None
    luck = any(LUCK.lucky_hero(st, q) >= 0 for q in _battle_seats(st, b))
    for sd in (a, d) + tuple(members):
        sd.dice = None
        sd.wall_rolls = [] if luck else None
    if members:  # the defender's kills are shared over the force
        k0, b.member_kills = _share(st, b, kd, e0)
        b.kills = [k0, B.negate(g, d, ka, st.rng) + e1]
    else:
        b.kills = [B.negate(g, a, kd, st.rng) + e0, B.negate(g, d, ka, st.rng) + e1]
    b.segment += 1
    paused = luck and LUCK.window(st, _battle_seats(st, b), "wall_dice", (), "wall_dice")
    if not paused:
        for sd in (a, d) + tuple(members):
            sd.wall_rolls = None
    return paused


# -- RARE ABILITY Luck in battle (designed window; see RULES.md) ----------------------------------
def _battle_seats(st, b: dict) -> tuple:
    """Players in the battle, the attacking force first (lead, joiners), then the defender."""
    out = [b.sides[0].seat] + [m.seat for m in b.members]
    return tuple(dict.fromkeys(s for s in out + [b.sides[1].seat] if s >= 0))


def _team(b: dict, seat: int) -> tuple:
    """(the seat's side of the battle: its armies, the other side's armies)."""
    force = [b.sides[0]] + list(b.members)
    if any(sd.seat == seat for sd in force):
        return force, [b.sides[1]]
    return [b.sides[1]], force


def _pick(armies, miss: bool, b: dict):
    """The recorded die a reroll aims at: a miss at the highest Kill rank (most likely to hit)
    or a hit at the lowest (most likely to miss); a die of the designer's mass formula (one per
    group) with the largest expected gain (mean kills of a new die above / below its kills).
    Dice aimed at ships count only while a reroll can change the ships (a miss while the
    target has ships left, a hit that sank one). (army index, record, score) or None."""
    best = None
    for i, sd in enumerate(armies):
        for r in sd.dice or ():
            k, n, hit = r[0], r[1], r[2]
            flags = r[3] if len(r) > 3 else 0
            if flags & B.AT_SHIPS and ((_other(b, sd).ships or 0) <= 0 if miss
                                       else sd.ship_spare > 0):
                continue
            if flags & B.MASS:
                gain = B.mass_mean(n, k, bool(flags & B.BLESSED)) - hit
                score = gain if miss else -gain
                if score <= 0:
                    continue
            elif (miss and n - hit > 0 and k >= 1) or (not miss and hit > 0 and k <= 9):
                score = k if miss else 10 - k
            else:
                continue
            if best is None or score > best[2]:
                best = (i, r, score)
    return best


def _other(b: dict, sd: dict) -> dict:
    """The lead side facing ``sd`` (ships fight only between the two lead sides)."""
    return b.sides[1] if sd is b.sides[0] else b.sides[0]


def _dice_can(st, seat: int, ctx) -> list:
    b = st.battle
    mine, foe = _team(b, seat)
    out = []
    if _pick(mine, True, b):
        out.append(LUCK_MINE)
    if _pick(foe, False, b):
        out.append(LUCK_FOE)
    return out


def _dice_act(st, seat: int, a: int, ctx) -> None:
    """LUCK_MINE: one of my side's missed dice is rolled again (a hit adds a kill); LUCK_FOE:
    one of the foe's hits is rolled again (a miss takes the kill away). A mass-formula die is
    rolled again for its group (its kills replaced; a Blessed group's two dice as one roll);
    dice aimed at ships sink one more ship or
    give one back instead of a kill."""
    b = st.battle
    mine, foe = _team(b, seat)
    armies = mine if a == LUCK_MINE else foe
    i, rec, _ = _pick(armies, a == LUCK_MINE, b)
    k, n, flags = rec[0], rec[1], rec[3] if len(rec) > 3 else 0
    if flags & B.MASS:
        delta = B.mass_again(st.rng, n, k, bool(flags & B.BLESSED)) - rec[2]
    else:
        hit = int(st.rng.integers(1, 11)) <= k
        delta = (1 if hit else 0) if a == LUCK_MINE else (0 if hit else -1)
    rec[2] += delta
    if flags & B.AT_SHIPS:  # ships sunk by these dice: more, or one given back
        sd = armies[i]
        tgt = _other(b, sd)
        spare = sd.ship_spare + delta
        if delta > 0:
            x = min(delta, tgt.ships)
            tgt.ships -= x
            spare -= x
        elif spare < 0:
            tgt.ships -= spare
            spare = 0
        sd.ship_spare = spare
    else:
        att = armies[0] is b.sides[0]  # the dice are the attacking force's
        b.raw_kills[0 if att else 1] += delta


def _wall_can(st, seat: int, ctx) -> list:
    mine, foe = _team(st.battle, seat)
    own_broke = any(True in (sd.wall_rolls or ()) for sd in mine)
    foe_held = any(False in (sd.wall_rolls or ()) for sd in foe)
    return [REROLL] if own_broke or foe_held else []


def _wall_act(st, seat: int, a: int, ctx) -> None:
    """REROLL: a wall-break die is rolled again: one that broke an own wall rank (a miss undoes
    the damage), else one of the foe's that did not (a hit breaks the rank)."""
    mine, foe = _team(st.battle, seat)
    chance = st.game.cfg["designed"]["wall_break_chance"]
    broke = int(st.rng.integers(1, 11)) <= chance
    for sd in mine:
        if True in (sd.wall_rolls or ()):
            if not broke:
                sd.wall_rolls.remove(True)
                sd.wall_rolls.append(False)
                sd.wall_damage -= 1
            return
    for sd in foe:
        if False in (sd.wall_rolls or ()):
            if broke:
                sd.wall_rolls.remove(False)
                sd.wall_rolls.append(True)
                sd.wall_damage += 1
            return


LUCK.WINDOWS["battle_dice"] = (_dice_can, _dice_act)
LUCK.WINDOWS["wall_dice"] = (_wall_can, _wall_act)


@LUCK.register("battle_dice")
def _after_dice(st, value, ctx) -> None:
    st.phase = "battle"
    st._mask = None
    if _resolve_segment(st):
        return
    _run(st)


@LUCK.register("wall_dice")
def _after_walls(st, value, ctx) -> None:
    b = st.battle
    for sd in tuple(b.sides) + tuple(b.members):
        sd.wall_rolls = None
    st.phase = "battle"
    st._mask = None
    _run(st)


def _special_attacks(st, side: dict, seg: int) -> int:
    """Kills by the side's special groups: block B's units.attacks, or, with the designer's
    formula (option ``mass_formula``), one d10 per group through battle.mass_kills (same
    initiative / kill / spell handling as units.attacks)."""
    if not st.game.cfg["mass_formula"]:
        return UNITS.attacks(st, side, seg)
    cnt = side.counts
    if len(cnt) <= UNITS.BASE or not cnt[UNITS.BASE:].any():
        return 0
    kills, tab, mg = 0, UNITS.ucfg(st), side.magic
    for u in np.flatnonzero(cnt[UNITS.BASE:]).tolist():
        row = tab[UNITS.SPECIALS[u]]
        init, kill = row["init"] + row.get("self_tactics", 0), row["kill"]
        n = int(cnt[UNITS.BASE + u])
        if mg is not None:  # spells on special groups (block A: target group 6 + u)
            init, kill = init + mg.special_init[u], kill + mg.special_kill[u]
            n = 0 if mg.blocked[6 + u] else n - mg.neutral[6 + u]
        if n <= 0 or B.segment_of(init) != seg:
            continue
        kills += B.mass_group(side, mg, 6 + u, n, kill, st.rng)
    return kills


def _room(side: dict) -> int:
    """Units that can die before the side's Hero: troops (basic and special) and monster hits."""
    c = side.counts
    mon = side.monster
    return int(c.sum() - c[4]) + (max(int(mon[2]), 0) if mon is not None else 0)


def _share(st, b: dict, kills: int, extra: int) -> tuple[int, list[int]]:
    """Kills on a combined attacking force (designed): dealt one at a time, in turn, to the
    armies (lead first, then the joiners in joining order; the turn carries over between
    segments) that still have units other than their Hero; each army's Defense (and the lead's
    Armor spell) then negates its own share. Only when no army has such units left do the
    Heroes fall: the joiners' (last joined first), the lead's last. Spell kills left for the
    victim to assign (``extra``) are dealt the same way after the ordinary kills."""
    armies = [b.sides[0]] + b.members
    n = len(armies)
    room = [_room(s) for s in armies]
    heroes = [0] + [int(m.counts[4]) for m in b.members]
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
                i = next((x for x in range(n - 1, 0, -1) if heroes[x] > 0), 0)
                heroes[i] -= i > 0
            out[i] += 1
        return out

    raw = deal(kills)
    got = [B.negate(st.game, s, raw[i], st.rng) for i, s in enumerate(armies)]
    ex = deal(extra)
    b.next_share = rr
    tot = [got[i] + ex[i] for i in range(n)]
    return tot[0], tot[1:]


def chooser_side(b: dict) -> dict:
    """The battle side (or joining army) whose player now picks a casualty."""
    cm = b.member_choosing
    return b.members[cm] if cm >= 0 else b.sides[b.chooser]


def battle_step(st, action: int) -> None:
    b = st.battle
    if st.phase == "casualty":
        k = b.chooser
        t = action - CASUALTY0 if action < CASUALTY0 + 4 else UNITS.casualty_index(action)
        B.remove_one(chooser_side(b), t)
        if b.member_choosing >= 0:  # a joining army of a combined attack
            b.member_kills[b.member_choosing] -= 1
            b.member_choosing = -1
        else:
            b.kills[k] -= 1
    elif action == CALL_OFF:
        return _finish(st)
    st.phase = "battle"
    _run(st)


def _finish(st) -> None:
    b = st.battle
    SEA.finish(st, b)  # block B: ships written back, drowned armies
    UNITS.finish(st, b.sides)  # block B: surviving special troops written back
    a, d = b.sides
    cell = b.cell
    ah = st.heroes[a.hero]
    members = b.members
    if members:  # a combined attack: the joining armies are written back the same way
        UNITS.finish(st, members)
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
        if len(d.counts) > UNITS.BASE and st.land[cell]:
            st.garrison_specials[cell] = d.counts[UNITS.BASE:]
    for s, h in force:
        if s.counts[4] <= 0:
            h.alive = False
            if d.hero >= 0:
                st.heroes[d.hero].xp += 1
    for m in members:  # a slain joiner: his wizard goes home, the defending Hero takes his items
        h = st.heroes[m.hero]
        if not h.alive:
            if h.wizard:
                st.kill_wizard(m.hero)
            if d.hero >= 0 and st.heroes[d.hero].alive and h.items:
                SP.take_items(st, st.heroes[d.hero], h)
    if B.destroyed(d):
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
        win = next((h for _, h in force if h.alive), None)
        if win is not None and st.hero_at(cell) < 0 and st.land[cell]:  # designed: advance
            win.cell = cell
    SP.end_battle(st)  # block A: spells discarded, items of a slain hero taken
    st.battle = None
    st.phase = b.return_phase  # block B: sea battles return to the move phase
    SEA.after_battle(st, b)
    st._mask = None
