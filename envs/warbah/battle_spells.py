"""Warbah Battle spells: drawing at battle start, the spell segment (AEC sub-steps ``spell`` /
``spell_target``), all 42 effects, Dispell, Resist Spells, battle-spell items, and the end of
battle (discards, items of a slain Hero). battle_flow.py calls the hooks.

State: ``battle.magic`` (state.BattleMagic: the spell segment's step in ``sequence``, the last
spell cast for Dispell, the cards spent this battle, the caster, a spell awaiting its target)
and each army's ``magic`` (state.ArmyMagic: hand, Wizard, battle items, neutralized units,
this round's blocks / boosts / armor, delayed effects ``scheduled`` = (segment, effect, group,
n, kill[, target army when not the natural one])). A battle spell's dice (1D5) may be rolled
again by Luck (luck.py): ``cast_battle`` then pauses, and the caller's ``resume`` (battle_flow's:
it resolves the spell with ``resolve_after_luck`` and goes on with the battle) runs once Luck is
settled; the spell segment and ``apply`` pass it on.

Armies (combined attacks, battle_flow): army index 0 = the lead's army (``battle.sides[0]``),
1 = the defender, 2 + i = joining army i (``battle.members[i]``). Every army with a Wizard draws
and casts (one spell per Wizard per round); a spell reaches any army of its side (friendly
spells) or of the other side (hostile ones): with several candidate armies the caster first
picks the army (``BATTLE_JOIN0 + d``, d = that army's Hero's direction from the target hex).

Target groups t (battle.NUM_GROUPS = 19): 0-3 warriors/archers/cavalry/catapults, 4 hero,
5 monster (``GROUP0 + t``), 6 + u the special-unit group u of config.SPECIALS
(``MAGIC_SPGROUP0 + u``), which is the army's ``counts[battle.FIRST_SPECIAL + u]``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import battle, heroes, luck, magic
from .actions import BATTLE_JOIN0, BSPELL0, DONE, GROUP0, MAGIC_SPGROUP0, NUM_ACTIONS
from .state import NUM_GROUPS, SPECIAL_GROUP0, Army, ArmyMagic, Battle, BattleMagic, Resolve, WarbahState
from .tables import GROUP_NAMES, BattleEffect, BattleSpell

#: a battle spell's effect that acts at once: (st, spell row, the friendly army reached, the
#: enemy army, target group, units)
Effect = Callable[[WarbahState, BattleSpell, Army, Army, "int | None", int], None]

HOSTILE = ("kill", "neutralize", "neutralize_kill", "weaken", "control", "forget", "spellbind",
           "illusions", "shatter", "slow", "block", "stone_to_mud")


OWN = ("blessing", "boost", "group_boost", "smite", "armor", "raise_dead", "summon", "ice_wall",
       "precision")  # effects on a friendly army (the rest: on an enemy army; fog: on all)


def armies(b: Battle) -> list:
    """Every army in the battle: lead (0), defender (1), joining armies (2 + i)."""
    return list(b.sides) + list(b.members)


def army(b: Battle, k: int) -> Army:
    return b.sides[k] if k < 2 else b.members[k - 2]


def spells_of(sd: Army) -> ArmyMagic:
    """An army's spell state: every army of a battle with magic has one (``setup_battle``)."""
    mg = sd.magic
    assert mg is not None, "an army without spell state in a battle with magic"
    return mg


def battle_magic(st: WarbahState) -> tuple[Battle, BattleMagic]:
    """The battle in progress and its spell segment (a battle with magic: ``setup_battle``)."""
    b = battle.current(st)
    bm = b.magic
    assert bm is not None, "a battle without magic"
    return b, bm


def team(k: int) -> int:
    """Side of army k: 0 the attacking force, 1 the defender."""
    return 1 if k == 1 else 0


def team_armies(b: Battle, tm: int) -> list:
    return [1] if tm == 1 else [0] + [2 + i for i in range(len(b.members))]


def sequence(b: Battle) -> list:
    """Spell segment order: (army, Dispell answer?) - the attacking armies, the defender, then
    the attacking armies' answers (one army: attacker, defender, attacker's answer)."""
    att = team_armies(b, 0)
    return [(k, False) for k in att] + [(1, False)] + [(k, True) for k in att]


def _kind(st: WarbahState, s: int) -> str:
    sp = st.game.spells.battle[s]
    eff = sp["effect"]
    if eff == "fog":
        return "all"
    if eff == "dispell":
        return "none"
    if sp.get("own_group") or eff in OWN:
        return "own"
    return "foe"


def natural(st: WarbahState, k: int, s: int) -> int:
    """The army a spell of army k reaches in a battle of two armies."""
    return k if _kind(st, s) in ("own", "all", "none") else 1 - team(k)


def spell_armies(st: WarbahState, k: int, s: int) -> list:
    """Armies spell s of army k may reach now (friendly or enemy, as the spell says)."""
    b = battle.current(st)
    kind = _kind(st, s)
    if kind in ("all", "none"):
        return [k] if spell_groups(st, k, s) else []
    tm = team(k) if kind == "own" else 1 - team(k)
    return [a for a in team_armies(b, tm)
            if not battle.destroyed(army(b, a)) and spell_groups(st, k, s, a)]


def army_dir(st: WarbahState, a: int) -> int:
    """Direction from the target hex to army a's Hero (the army-picking action)."""
    b = battle.current(st)
    return list(st.neighbours[b.cell]).index(st.heroes[army(b, a).hero].cell)


def setup_battle(st: WarbahState) -> None:
    """At battle start each force with a Wizard draws its Battle spells (4, Wizardry +1 each)."""
    b = battle.current(st)
    any_magic = False
    info = []
    for sd in armies(b):
        wiz, items, resist = False, [], 0
        if sd.hero >= 0:
            h = st.heroes[sd.hero]
            wiz = magic.has_wizard(h)
            items = [i for i, it in enumerate(h.items) if it.kind == "battle"]
            resist = heroes.ability(st, h, "resist_spells")
            wizardry = heroes.ability(st, h, "wizardry")
        elif b.kind == "encounter":
            enc = st.game.cfg["encounters"].get(int(st.encounter[b.cell]), {})
            wiz, wizardry = bool(enc.get("wizard")), 0
        else:
            wizardry = 0
        info.append((wiz, items, resist, wizardry))
        any_magic |= wiz or bool(items)
    if not any_magic:
        return
    for sd, (wiz, items, resist, wizardry) in zip(armies(b), info):
        hand = []
        if wiz:
            for _ in range(st.game.cfg["spells"]["battle_draw"] + wizardry):
                k = magic.draw(st, "b")
                if k is not None:
                    hand.append(k)
        sd.magic = ArmyMagic(wiz, hand, items, resist)
    b.magic = BattleMagic()


def _battle_items(st: WarbahState, sd: Army) -> list:
    """Battle-spell items of the side's hero usable now (once per turn)."""
    if sd.hero < 0:
        return []
    its = st.heroes[sd.hero].items
    return [i for i in spells_of(sd).items if i < len(its) and its[i].kind == "battle"
            and its[i].used_turn != st.turn]


def _item_spell(st: WarbahState, sd: Army, i: int) -> int:
    return st.heroes[sd.hero].items[i].spell


def battle_options(st: WarbahState, k: int) -> list:
    """Battle spell ids side k may cast now in the spell segment."""
    b, bm = battle_magic(st)
    sd = army(b, k)
    sm = spells_of(sd)
    T = st.game.spells
    seq = sequence(b)
    answer = bm.step < len(seq) and seq[bm.step][1]
    ids = set()
    if sm.wizard and not sm.cast and b.round not in sm.spellbound:
        ids.update(sm.hand)
    for i in _battle_items(st, sd):
        ids.add(_item_spell(st, sd, i))
    last = bm.last_cast
    can_dispell = last is not None and team(last[0]) != team(k) and last[2] == b.round
    out = []
    for s in sorted(ids):
        if s == T.dispell:
            if can_dispell:
                out.append(s)
        elif not answer and spell_armies(st, k, s):
            out.append(s)
    return out


def spell_groups(st: WarbahState, k: int, s: int, a: int | None = None) -> list:
    """Target groups for battle spell s cast by army k at army a (default: the natural one,
    ``natural``) ([None] = no target needed; [] = not castable now)."""
    T = st.game.spells
    sp = T.battle[s]
    b = battle.current(st)
    eff = sp["effect"]
    if a is None:
        a = natural(st, k, s)
    caster = army(b, k)
    if _kind(st, s) == "own":
        me = foe = army(b, a)  # the friendly army the spell reaches
    else:
        me, foe = caster, army(b, a)
    if sp.get("group"):
        sd = me if sp.get("own_group") else foe
        if eff == "control":  # troops only: the four basic types and the special units
            return [t for t in list(range(4)) + list(range(SPECIAL_GROUP0, NUM_GROUPS))
                    if _group_alive(sd, t) and _can_hold(st, caster, t)]
        return [t for t in range(NUM_GROUPS) if _group_alive(sd, t)]
    if sp.get("own_group"):
        return [t for t in range(NUM_GROUPS) if _group_alive(me, t)]
    if eff == "forget":
        return [None] if foe.magic and foe.magic.hand else []
    if eff == "spellbind":
        return [None] if foe.magic and (foe.magic.wizard or foe.magic.items) else []
    if eff == "shatter":
        return [None] if foe.hero >= 0 and st.heroes[foe.hero].items else []
    if eff == "ice_wall":
        return [None] if k == 1 and a == 1 else []
    if eff == "stone_to_mud":
        return [None] if foe.walls_left > 0 else []
    if eff == "summon":
        return [None] if me.monster is None or me.monster[2] <= 0 else []
    return [None]


def cidx(t: int) -> int:
    """Index in a side's ``counts`` of target group t (not for the monster, t = 5)."""
    return t - 1 if t >= SPECIAL_GROUP0 else t


def _group_alive(sd: Army, t: int) -> bool:
    if t == 5:
        return sd.monster is not None and sd.monster[2] > 0
    c = cidx(t)
    return c < len(sd.counts) and sd.counts[c] > 0


def _can_hold(st: WarbahState, me: Army, t: int) -> bool:
    """Whether troops of group t (a basic type t < 4 or a special group) may join army ``me``:
    a kind its Hero lacks needs room under his troop-type limit (SPECIAL UNIT NOTES: 5 types,
    +1 per Command; designed for Control (Charm, Command) and Raise Dead). Armies without a Hero
    (garrisons, monsters) have no limit."""
    if me.hero < 0 or me.seat < 0 or me.counts[cidx(t)] > 0:
        return True
    c = me.counts
    types = int((c[:4] > 0).sum()) + int((c[battle.FIRST_SPECIAL:] > 0).sum())
    return types < heroes.type_limit(st, st.heroes[me.hero])


def spell_segment(st: WarbahState, seg: int, resume: Resolve) -> bool:
    """Spell segment (start of each round): attacker, then defender, then the attacker may
    answer with Dispell. True when a player must decide (phase 'spell')."""
    b, bm = battle_magic(st)
    if seg != 0 or bm.done:
        return False
    seq = sequence(b)
    while bm.step < len(seq):
        k, answer = seq[bm.step]
        sd = army(b, k)
        sm = sd.magic
        opts = [] if battle.destroyed(sd) or sm is None else battle_options(st, k)
        if answer and opts and sm is not None and sm.cast:
            opts = []
        if opts:
            if sd.seat >= 0 and sd.hero >= 0:
                bm.caster = k
                st.phase, st.to_act = "spell", sd.seat
                return True
            s = opts[0]  # neutral wizard (Irate Sorcerer): first card, largest enemy group
            cand = [(a, t) for a in (spell_armies(st, k, s) or [natural(st, k, s)])
                    for t in spell_groups(st, k, s, a)]
            a, t = max(cand, key=lambda x: _group_size(army(b, x[0]), x[1]))
            if a == natural(st, k, s):
                cast_battle(st, k, s, t, resume=resume)
            else:  # a joining army of the force
                cast_battle(st, k, s, t, a, resume=resume)
            if luck.deciding(st):  # a player decides on Luck for the spell's dice
                return True
            continue
        bm.step += 1
    bm.done = True
    return False


def _group_size(sd: Army, t: int | None) -> int:
    if t is None:
        return 0
    if t == 5:
        assert sd.monster is not None   # a target group is alive (_group_alive)
        return int(sd.monster[2])
    return int(sd.counts[cidx(t)])


def _pending(bm: BattleMagic) -> int:
    """The spell awaiting its target (phase ``spell_target``)."""
    assert bm.pending is not None, "phase spell_target without a spell"
    return bm.pending


def mask(st: WarbahState) -> np.ndarray:
    b, bm = battle_magic(st)
    k = bm.caster
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[DONE] = 1
    if st.phase == "spell_target" and bm.target_army is None:  # pick the army first
        for a in spell_armies(st, k, _pending(bm)):
            mask[BATTLE_JOIN0 + army_dir(st, a)] = 1
    elif st.phase == "spell_target":
        for t in spell_groups(st, k, _pending(bm), bm.target_army):
            mask[GROUP0 + t if t < SPECIAL_GROUP0 else MAGIC_SPGROUP0 + t - SPECIAL_GROUP0] = 1
    else:
        for s in battle_options(st, k):
            mask[BSPELL0 + s] = 1
    return mask


def apply(st: WarbahState, a: int, resume: Resolve) -> bool:
    """A spell-segment choice (a spell, its army, its group, or DONE). True when the battle goes
    on now (battle_flow.spell_apply runs it); False while a target is still to pick or a Luck
    decision on the spell's dice comes first."""
    b, bm = battle_magic(st)
    k = bm.caster
    if st.phase == "spell_target":
        s, tgt = _pending(bm), bm.target_army
        if a == DONE:  # cancelled: the card stays in hand
            bm.pending, bm.target_army = None, None
        elif tgt is None:  # the army picked; then its group, if the spell needs one
            tgt = next(x for x in spell_armies(st, k, s) if BATTLE_JOIN0 + army_dir(st, x) == a)
            if spell_groups(st, k, s, tgt) != [None]:
                bm.target_army = tgt
                return False
            bm.pending = None
            cast_battle(st, k, s, None, tgt, resume=resume)
            if luck.deciding(st):  # Luck on the spell's dice first (luck.py)
                return False
        else:
            bm.pending, bm.target_army = None, None
            group = (a - GROUP0 if a < GROUP0 + SPECIAL_GROUP0
                     else SPECIAL_GROUP0 + a - MAGIC_SPGROUP0)
            cast_battle(st, k, s, group, tgt, resume=resume)
            if luck.deciding(st):  # Luck on the spell's dice first (luck.py)
                return False
    elif a == DONE:
        bm.step += 1
    else:
        s = a - BSPELL0
        arms = [] if s == st.game.spells.dispell else spell_armies(st, k, s)
        if len(arms) > 1:  # several armies within reach: pick the army first
            bm.pending, bm.target_army = s, None
            st.phase = "spell_target"
            return False
        tgt = arms[0] if arms else None
        g = spell_groups(st, k, s, tgt)
        if g == [None] or s == st.game.spells.dispell:
            cast_battle(st, k, s, None, tgt, resume=resume)
            if luck.deciding(st):
                return False
        else:
            bm.pending, bm.target_army = s, tgt
            st.phase = "spell_target"
            return False
    return True


def _pay_battle(st: WarbahState, k: int, s: int) -> None:
    b = battle.current(st)
    sd = army(b, k)
    sm = spells_of(sd)
    if sm.wizard and not sm.cast and b.round not in sm.spellbound and s in sm.hand:
        sm.cast = True
        sm.hand.remove(s)
        battle_magic(st)[1].limbo.append(s)
        return
    i = next(i for i in _battle_items(st, sd) if _item_spell(st, sd, i) == s)
    st.heroes[sd.hero].items[i].used_turn = st.turn


def _snapshot(st: WarbahState, k: int):
    b = battle.current(st)
    held = {}  # Hero index -> (his items, his abilities)
    for sd in armies(b):
        if sd.hero >= 0:
            h = st.heroes[sd.hero]
            held[sd.hero] = ([i.clone() for i in h.items], list(h.abilities))
    return ([sd.clone() for sd in armies(b)], list(battle_magic(st)[1].limbo), held)


def cast_battle(st: WarbahState, k: int, s: int, t: int | None, a: int | None = None, *, resume: Resolve) -> None:
    """Pay for battle spell s cast by army k (target group t of army a; default: the natural
    army, ``natural``) and resolve or schedule it. A spell's dice go to Luck first: then
    ``resume(st, value, ctx)`` resolves it once Luck is settled (battle_flow's goes on with the
    battle; ``resolve_after_luck`` only resolves the spell)."""
    T = st.game.spells
    b, bm = battle_magic(st)
    sp = T.battle[s]
    eff = sp["effect"]
    if eff == "dispell":
        last = bm.last_cast
        assert last is not None   # Dispell is offered only against the last spell cast
        sides, limbo, held = last[1]
        for cur, old in zip(armies(b), sides):  # in place: callers hold the side dicts
            cur.restore(old)
        bm.limbo = limbo
        for hi, (items, abil) in held.items():
            st.heroes[hi].items, st.heroes[hi].abilities = items, abil
        _pay_battle(st, last[0], last[3])  # the dispelled card stays spent
        _pay_battle(st, k, s)
        bm.last_cast = None
        return
    snap = _snapshot(st, k)
    _pay_battle(st, k, s)
    bm.last_cast = (k, snap, b.round, s)
    if a is None:
        a = natural(st, k, s)
    me, foe = army(b, k), army(b, a)
    foe_magic = spells_of(foe)
    if eff in HOSTILE and foe_magic.resist > 0:  # Resist Spells: negate one spell per battle
        foe_magic.resist -= 1
        return
    rng = st.rng
    if sp.get("d5"):  # RARE ABILITY Luck: both sides may have the spell's dice rolled again
        value = luck.d5(rng, sp["d5"])
        if luck.offer(st, "bspell", (me.seat, foe.seat), value, (sp["d5"], 5), resume,
                      (k, s, -1 if t is None else t, a)):
            return
        _resolve_battle(st, k, s, t, sp.get("n", 0), value, a)
        return
    _resolve_battle(st, k, s, t, sp.get("n", 0), 0, a)


def resolve_after_luck(st: WarbahState, value: int, ctx: tuple) -> None:
    """A battle spell whose dice went to Luck (``cast_battle``), once they are final: resolve
    it (battle_flow then goes on with the battle)."""
    k, s, t, a = ctx
    _resolve_battle(st, k, s, None if t < 0 else t, st.game.spells.battle[s].get("n", 0), value,
                    a)


def _resolve_battle(st: WarbahState, k: int, s: int, t: int | None, n: int, dice: int, a: int | None = None) -> None:
    """Battle spell s of army k (target group t of army a) with n units, once its dice are
    known."""
    b = battle.current(st)
    sp = st.game.spells.battle[s]
    eff = sp["effect"]
    nat = natural(st, k, s)
    a = nat if a is None else a
    me, foe = army(b, k), army(b, 1 - team(k))
    if _kind(st, s) == "own":
        me = army(b, a)  # the friendly army the spell reaches
    elif _kind(st, s) == "foe":
        foe = army(b, a)
    n += dice
    if "init" in sp and eff in ("kill", "neutralize", "neutralize_kill", "weaken", "control"):
        item = (battle.segment_of(sp["init"]), eff, t, n, sp.get("kill", 0))
        spells_of(army(b, k)).scheduled.append(item if a == nat else item + (a,))  # + target army
        return
    effect = _EFFECTS.get(eff)
    if effect is None:
        raise ValueError(f"battle effect {eff} has no resolution")
    effect(st, sp, me, foe, t, n)


# -- effects that act at once: (st, spell row, the friendly army reached, the enemy army, target
# group, units) -------------------------------------------------------------------------------
def _group(t: int | None) -> int:
    """The target group of a spell that needs one (``spell_groups`` named it)."""
    assert t is not None, "a group spell without its target group"
    return t


def _blessing(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    spells_of(me).blessed = True


def _boost(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    types = (list(range(5)) + list(range(SPECIAL_GROUP0, NUM_GROUPS)) if sp["types"] == "all"
             else [GROUP_NAMES.index(x) for x in sp["types"]])
    for x in types:
        _round_mod(me, x, sp.get("init", 0), sp.get("kill", 0))


def _group_boost(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    _round_mod(me, _group(t), sp.get("init", 0), sp.get("kill", 0))


def _smite(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    mm = spells_of(me)
    if mm.smite_rounds <= 0:
        me.extra_attacks[4] += 1
    mm.smite_rounds = sp["rounds"]


def _stone_to_mud(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    x = min(n, foe.walls_left)
    foe.walls_left -= x
    foe.wall_damage += x


def _shield(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    spells_of(foe).ranged_shield += sp["n"]


def _forget(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    hand = spells_of(foe).hand
    for _ in range(min(sp["n"], len(hand))):
        battle_magic(st)[1].limbo.append(hand.pop(int(st.rng.integers(len(hand)))))


def _spellbind(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    spells_of(foe).spellbound.update(battle.current(st).round + r for r in range(1, sp["rounds"] + 1))


def _armor(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    spells_of(me).armor += sp["n"]


def _raise_dead(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    if _can_hold(st, me, 0):  # warriors as a new type only under the type limit
        me.counts[0] += n


def _illusions(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    spells_of(foe).blocked[_group(t)] = True


def _summon(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    me.monster = [sp["init"], sp["kill"], sp["hits"]]


def _shatter(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    h = st.heroes[foe.hero]
    magic.drop_item(h, h.items[int(st.rng.integers(len(h.items)))])
    spells_of(foe).items = [i for i, it in enumerate(h.items) if it.kind == "battle"]


def _slow(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    _battle_mod(foe, _group(t), sp["init"], 0)


def _ice_wall(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    me.walls_base += sp["n"]
    me.walls_left += sp["n"]


def _block(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    for x in sp["types"]:
        spells_of(foe).blocked[GROUP_NAMES.index(x)] = True


def _precision(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    for x in sp["types"]:
        spells_of(me).auto_hit[GROUP_NAMES.index(x)] = True


def _fog(st: WarbahState, sp: BattleSpell, me: Army, foe: Army, t: int | None, n: int) -> None:
    for sd in armies(battle.current(st)):
        for x in sp["types"]:
            _battle_mod(sd, GROUP_NAMES.index(x), 0, sp["kill"])


#: effect (configs/warbah.yaml spells.battle.*.effect) -> its resolution; the delayed effects
#: (kill, neutralize, weaken, control: scheduled for their initiative) in ``segment_effects``
_EFFECTS: dict[BattleEffect, Effect] = {
    "blessing": _blessing, "boost": _boost, "group_boost": _group_boost, "smite": _smite,
    "stone_to_mud": _stone_to_mud, "shield": _shield, "forget": _forget,
    "spellbind": _spellbind, "armor": _armor, "raise_dead": _raise_dead,
    "illusions": _illusions, "summon": _summon, "shatter": _shatter, "slow": _slow,
    "ice_wall": _ice_wall, "block": _block, "precision": _precision, "fog": _fog,
}


def _round_mod(sd: Army, t: int, init: int, kill: int) -> None:
    _battle_mod(sd, t, init, kill)
    spells_of(sd).round_mods.append((t, init, kill))


def _battle_mod(sd: Army, t: int, init: int, kill: int) -> None:
    if t >= SPECIAL_GROUP0:
        mg = spells_of(sd)
        mg.special_init[t - SPECIAL_GROUP0] += init
        mg.special_kill[t - SPECIAL_GROUP0] += kill
    elif t < 5:
        sd.init_mod[t] += init
        sd.kill_mod[t] += kill
    elif sd.monster is not None:
        sd.monster[0] += init
        sd.monster[1] += kill


def segment_effects(st: WarbahState, seg: int) -> list:
    """Delayed spell effects landing in segment ``seg`` (before its attacks); returns extra
    kills [on side 0, on side 1] that the victim assigns like ordinary kills."""
    b = battle.current(st)
    extra = [0, 0]
    for k in range(len(armies(b))):
        mm = army(b, k).magic
        if mm is None or not mm.scheduled:
            continue
        keep = []
        for item in mm.scheduled:
            sg, eff, t, n, kill = item[:5]
            if sg != seg:
                keep.append(item)
                continue
            ta = item[5] if len(item) > 5 else 1 - team(k)  # the target army
            foe = army(b, ta)
            neutral = spells_of(foe).neutral
            if eff in ("neutralize", "neutralize_kill"):
                if t != 5:
                    neutral[t] = min(int(foe.counts[cidx(t)]), neutral[t] + n)
                else:
                    neutral[5] = 1
            if eff in ("kill", "neutralize_kill"):
                extra[team(ta)] += _spell_kill(foe, t, n)
            elif eff == "weaken":
                _battle_mod(foe, t, 0, kill)
            elif eff == "control":
                c = cidx(t)
                # checked again here: the caster's own group of that kind may have died since
                x = min(n, int(foe.counts[c])) if _can_hold(st, army(b, k), t) else 0
                foe.counts[c] -= x
                army(b, k).counts[c] += x
                neutral[t] = min(neutral[t], int(foe.counts[c]))
        mm.scheduled = keep
    return extra


def _spell_kill(sd: Army, t: int, n: int) -> int:
    """Targeted kills: removed from group t; what the group cannot absorb (or a Hero who is not
    yet the last unit) becomes ordinary kills for the victim to assign."""
    if t == 5:
        mon = sd.monster
        if mon is None:
            return n
        x = min(n, mon[2])
        mon[2] -= x
        return n - x
    if t == 4:
        return n
    c = cidx(t)
    x = min(n, int(sd.counts[c]))
    sd.counts[c] -= x
    neutral = spells_of(sd).neutral
    neutral[t] = min(neutral[t], int(sd.counts[c]))
    return n - x


def end_round(st: WarbahState) -> None:
    """Round-long effects end; Smite counts down; the next spell segment opens."""
    b, bm = battle_magic(st)
    bm.step, bm.done = 0, False
    for sd in armies(b):
        mm = spells_of(sd)
        for t, init, kill in mm.round_mods:
            _battle_mod(sd, t, -init, -kill)
        mm.round_mods = []
        mm.blocked = [False] * NUM_GROUPS
        mm.auto_hit = [False] * NUM_GROUPS
        mm.blessed, mm.ranged_shield, mm.armor, mm.cast = False, 0, 0, False
        if mm.smite_rounds > 0:
            mm.smite_rounds -= 1
            if mm.smite_rounds == 0:
                sd.extra_attacks[4] -= 1


def end_battle(st: WarbahState) -> None:
    """Unused battle spells are discarded; items of a Hero killed go to the Hero who beat him;
    a killed Hero's wizard teleports home (or off the map if wandering)."""
    b = battle.current(st)
    a, d = b.sides
    if b.magic is not None:
        disc = st.magic.battle_discard
        disc.extend(b.magic.limbo)
        for sd in armies(b):
            mg = spells_of(sd)
            disc.extend(mg.hand)
            mg.hand = []
    ha = st.heroes[a.hero] if a.hero >= 0 else None
    hd = st.heroes[d.hero] if d.hero >= 0 else None
    for loser, winner in ((ha, hd), (hd, ha)):
        if loser is not None and not loser.alive:
            loser.wizard = 0
            if winner is not None and winner.alive and loser.items:
                magic.take_items(st, winner, loser)
