"""Warbah battles: the records (Army, Battle and their spell state) and the dice of a round:
initiative segments 5+, 4, 3, 2, 1, 0-, one 1D10 against the Kill rank per attack (or the
designer's mass formula), walls and Defense, casualties with the Hero last.

An army's ``counts`` holds warriors, archers, cavalry, catapults, the Hero (0 / 1) and, from
the first round on, the 13 special unit groups (index 5 + u, config.SPECIALS order).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import fleets, heroes
from .actions import LOSS_SP0
from .config import NUM_SPECIALS, SPECIALS

SEGMENTS = 6  # initiative segments of a round: 5+, 4, 3, 2, 1, 0-
#: an army's counts index of the first special unit group (after the 4 troop types and the Hero)
FIRST_SPECIAL = 5
#: battle-spell target groups: 0-3 the basic troop types, 4 the Hero, 5 a monster, 6 + u the
#: special unit group u (an army's counts[FIRST_SPECIAL + u])
GROUP_NAMES = ("warriors", "archers", "cavalry", "catapults", "hero", "monster")
SPECIAL_GROUP0 = 6
NUM_GROUPS = SPECIAL_GROUP0 + len(SPECIALS)
#: flags of a die record (``record``): the dice aimed at enemy ships; one die of the designer's
#: mass formula for the group; with Blessing (the group's misses rolled again: two dice)
AT_SHIPS, MASS, BLESSED = 1, 2, 4


def _zeros5() -> list:
    return [0] * 5


@dataclass(slots=True)
class ArmyMagic:
    """One army's battle-spell state (battle_spells.py): its Wizard's hand, the Hero's battle
    items (indices into his ``items``), and the effects on it this round / battle."""
    wizard: bool
    hand: list
    items: list
    resist: int = 0                 # Resist Spells: hostile spells it still negates
    neutral: list = field(default_factory=lambda: [0] * NUM_GROUPS)     # units neutralized
    blocked: list = field(default_factory=lambda: [False] * NUM_GROUPS)  # may not attack
    auto_hit: list = field(default_factory=lambda: [False] * NUM_GROUPS)  # Precision: all hit
    special_init: list = field(default_factory=lambda: [0] * NUM_SPECIALS)
    special_kill: list = field(default_factory=lambda: [0] * NUM_SPECIALS)
    blessed: bool = False           # Blessing: misses rolled again this round
    ranged_shield: int = 0          # Shield: kills by archers / catapults stopped this round
    armor: int = 0                  # Armor: kills negated this round
    smite_rounds: int = 0
    spellbound: set = field(default_factory=set)    # rounds in which its Wizard cannot cast
    cast: bool = False              # its Wizard cast this round
    round_mods: list = field(default_factory=list)  # (group, init, kill) undone at round end
    scheduled: list = field(default_factory=list)   # delayed effects (battle_spells.py)

    def clone(self) -> "ArmyMagic":
        return ArmyMagic(self.wizard, list(self.hand), list(self.items), self.resist,
                         list(self.neutral), list(self.blocked), list(self.auto_hit),
                         list(self.special_init), list(self.special_kill), self.blessed,
                         self.ranged_shield, self.armor, self.smite_rounds, set(self.spellbound),
                         self.cast, list(self.round_mods), list(self.scheduled))


@dataclass(slots=True)
class Army:
    """One army in a battle (a Hero's, a garrison, an encounter, pirates or a sea monster)."""
    counts: np.ndarray              # int64: 4 troop types, the Hero, then the special groups
    seat: int = -1                  # -1: neutral
    hero: int = -1                  # Hero index, -1: no Hero
    monster: list | None = None     # [init, kill, hits left]
    init_mod: list = field(default_factory=_zeros5)   # per group 0-4 (Tactics, spells)
    kill_mod: list = field(default_factory=_zeros5)   # (Leadership, spells)
    extra_attacks: list = field(default_factory=_zeros5)  # Prowess, Smite
    defense: int = 0                # kills negated per segment (Defense)
    siege: int = 0                  # wall ranks destroyed in the Initiative 1 segment
    walls_base: int = 0
    walls_left: int = 0
    wall_damage: int = 0
    ships: int | None = None        # ships fighting with it (None: not counted yet)
    hits_ships: bool = False        # a sea monster that attacks ships
    ship_kills: int = 0             # ships it sank this segment (sea monster)
    ship_spare: int = 0             # hits on ships that sank nothing (Luck)
    specials_added: bool = False    # counts extended by the special groups
    magic: ArmyMagic | None = None
    dice: list | None = None        # the segment's attack dice, while a Luck window may open
    wall_rolls: list | None = None  # the segment's wall-break dice, likewise

    def clone(self) -> "Army":
        return Army(self.counts.copy(), self.seat, self.hero,
                    None if self.monster is None else list(self.monster), list(self.init_mod),
                    list(self.kill_mod), list(self.extra_attacks), self.defense, self.siege,
                    self.walls_base, self.walls_left, self.wall_damage, self.ships,
                    self.hits_ships, self.ship_kills, self.ship_spare, self.specials_added,
                    None if self.magic is None else self.magic.clone(),
                    None if self.dice is None else [list(r) for r in self.dice],
                    None if self.wall_rolls is None else list(self.wall_rolls))

    def restore(self, other: "Army") -> None:
        """Become ``other`` in place (Dispell; callers hold this object)."""
        for name in Army.__slots__:
            setattr(self, name, getattr(other, name))


@dataclass(slots=True)
class BattleMagic:
    """The spell segment's progress (battle_spells.py)."""
    step: int = 0                   # index into battle_spells.sequence
    done: bool = False
    last_cast: tuple | None = None  # (army, snapshot, round, spell) for Dispell
    limbo: list = field(default_factory=list)       # cards spent this battle
    caster: int = -1                # the army whose player picks a spell now
    pending: int | None = None      # a spell awaiting its target
    target_army: int | None = None  # its target army (None: still to pick)

    def clone(self) -> "BattleMagic":
        last = self.last_cast
        if last is not None:
            armies, limbo, held = last[1]
            snap = ([a.clone() for a in armies], list(limbo),
                    {hi: ([i.clone() for i in items], list(abil))
                     for hi, (items, abil) in held.items()})
            last = (last[0], snap, last[2], last[3])
        return BattleMagic(self.step, self.done, last, list(self.limbo), self.caster,
                           self.pending, self.target_army)


@dataclass(slots=True)
class Battle:
    """A battle in progress: the lead attacker and the defender, the armies joining the
    attack (combined attacks), the round and segment, the kills still to assign."""
    sides: list                     # [attacking (lead) Army, defending Army]
    kind: str                       # "hero", "garrison", "encounter" or "sea"
    cell: int                       # the target hex
    treasure: int = 0               # treasure rolls for beating an encounter
    round: int = 0
    segment: int = 0
    kills: list = field(default_factory=lambda: [0, 0])  # still to assign, per side
    chooser: int = -1               # the side picking a casualty now
    members: list = field(default_factory=list)         # joining Armies (combined attack)
    member_kills: list = field(default_factory=list)    # kills still to assign to each
    member_choosing: int = -1       # the joining army picking a casualty now
    next_share: int = 0             # whose turn the next shared kill is (battle_flow._share)
    magic: BattleMagic | None = None
    raw_kills: list | None = None   # this segment's kills before walls (Luck window)
    return_phase: str = "battle"    # a sea battle returns to the move phase

    def clone(self) -> "Battle":
        return Battle([a.clone() for a in self.sides], self.kind, self.cell, self.treasure,
                      self.round, self.segment, list(self.kills), self.chooser,
                      [a.clone() for a in self.members], list(self.member_kills),
                      self.member_choosing, self.next_share,
                      None if self.magic is None else self.magic.clone(),
                      None if self.raw_kills is None else list(self.raw_kills),
                      self.return_phase)


def hero_army(st, hi: int, walls: int = 0) -> Army:
    """Hero hi's army (its abilities: Tactics, Leadership, Prowess, Defense, Siegecraft)."""
    h = st.heroes[hi]
    init_mod, kill_mod, extra = [0] * 5, [0] * 5, [0] * 5
    for name, t in h.abilities:
        if name == "tactics":
            init_mod[t] += 1
        elif name == "leadership":
            kill_mod[t] += 1
        elif name == "prowess":
            extra[t] += 1
    if h.granted_types:  # SPECIAL UNIT TYPES: typed abilities while the granting units are here
        grants, sp = st.game.granting_units, h.specials
        mods = {"tactics": init_mod, "leadership": kill_mod, "prowess": extra}
        for name, t in h.granted_types.items():
            if any(sp.item(u) for u in grants.get(name, ())):
                mods[name][t] += 1
    return Army(np.append(h.troops, 1).astype(np.int64), h.seat, hi, None, init_mod, kill_mod,
                extra, heroes.ability(st, h, "defense"), heroes.ability(st, h, "siegecraft"),
                walls, walls)


def neutral_army(counts, monster=None, walls: int = 0, seat: int = -1) -> Army:
    """An army without a Hero: a garrison (of ``seat``), an encounter, pirates, a monster."""
    return Army(np.asarray(counts, np.int64), seat, -1, monster, walls_base=walls,
                walls_left=walls)


def segment_of(init: int) -> int:
    """The segment (0-5) in which units of initiative ``init`` attack."""
    return 0 if init >= 5 else (5 if init <= 0 else 5 - init)


def mass_kills(rng: np.random.Generator, n: int, k: int) -> int:
    """GAME DESIGNERS NOTES shortcut for a group of n attacks at Kill rank k: one d10 roll,
    (d10 / 5) * n * (k / 10) kills, rounded to the nearest whole number (a half rounds up;
    exact integer arithmetic). A rank k <= 0 kills nothing."""
    d = int(rng.integers(1, 11))
    return max(0, (d * n * k + 25) // 50) if n > 0 and k > 0 else 0


def hits(game, rng: np.random.Generator, n: int, k: int) -> int:
    """Kills by n attacks at Kill rank k: one d10 each (1D10 <= k), or the designer's formula
    when the option ``mass_formula`` is on."""
    if game.mass_formula:
        return mass_kills(rng, n, k)
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n (rules.d10), no array
        return int(sum([int(rng.integers(1, 11)) <= k for _ in range(n)]))
    return int(sum([r <= k for r in rng.integers(1, 11, size=n).tolist()]))


_GROUPS = ("warriors", "archers", "cavalry", "catapults", "hero")  # counts[0:5] (game.troop)


def attacks(game, side: Army, seg: int, rng: np.random.Generator) -> int:
    """Kills scored by ``side`` in segment ``seg``."""
    kills = 0
    mass = game.mass_formula
    mg = side.magic  # spell effects (battle_spells.py), None without magic
    counts = side.counts[:5].tolist()
    troop, init_mod = game.troop, side.init_mod
    for t in range(5):
        n = counts[t]
        if mg is not None:  # neutralized units and blocked groups do not attack
            n = 0 if mg.blocked[t] else n - mg.neutral[t]
        if n <= 0:
            continue
        init, kill, _ = troop[_GROUPS[t]]
        if segment_of(init + init_mod[t]) != seg:
            continue
        k = kill + side.kill_mod[t]
        n += side.extra_attacks[t]  # Prowess: +1 attack per round for the group
        if mass:
            kills += mass_group(side, mg, t, n, k, rng)
        elif mg is None:
            hit = int(sum([int(rng.integers(1, 11)) <= k for _ in range(n)])) if 0 < n <= 3 else \
                int(sum([r <= k for r in rng.integers(1, 11, size=n).tolist()]))
            kills += record(side, k, n, hit)
        else:
            hit = magic_hits(mg, t, n, k, rng)
            kills += hit if mg.auto_hit[t] else record(side, k, n, hit)
    mon = side.monster
    if mg is not None and (mg.blocked[5] or mg.neutral[5]):
        mon = None
    if mon is not None and mon[2] > 0 and segment_of(mon[0]) == seg:
        hit = mass_kills(rng, 1, mon[1]) if mass else int(rng.integers(1, 11) <= mon[1])
        record(side, mon[1], 1, hit, (MASS if mass else 0)
               | (AT_SHIPS if side.hits_ships else 0))
        if side.hits_ships:  # a sea monster attacks ships (ship_attacks)
            side.ship_kills += hit
        else:
            kills += hit
    return kills


def record(side: Army, k: int, n: int, hit: int, flags: int = 0) -> int:
    """Note n attack dice at Kill rank k with ``hit`` hits in the side's segment record (kept
    only while battle_flow runs a segment: RARE ABILITY Luck may reroll one die); returns hit.
    ``flags``: AT_SHIPS (the hits sink enemy ships, ship_attacks), MASS (one die of the designer's
    formula for the group: ``hit`` is its kills)."""
    rec = side.dice
    if rec is not None:
        rec.append([int(k), int(n), int(hit)] + ([flags] if flags else []))
    return hit


def mass_group(side: Army, mg: ArmyMagic | None, t: int, n: int, k: int,
               rng: np.random.Generator) -> int:
    """Kills of group ``t`` (n attacks at Kill rank k) under the designer's mass formula: one
    die for the group, noted for Luck's window; with spells (``mg``) Precision rolls no die and
    Blessing's two dice count as one roll."""
    if mg is None:
        return record(side, k, n, mass_kills(rng, n, k), MASS)
    hit = magic_hits(mg, t, n, k, rng, True)
    return hit if mg.auto_hit[t] else record(side, k, n, hit, MASS | (BLESSED if mg.blessed else 0))


def mass_mean(n: int, k: int, blessed: bool = False) -> float:
    """The mean kills of one die of the designer's formula for n attacks at Kill rank k (with
    Blessing: the misses, n minus the kills, rolled again as one group)."""
    if n <= 0 or k <= 0:
        return 0.0
    out = 0.0
    for d in range(1, 11):
        h = (d * n * k + 25) // 50
        out += h + (mass_mean(n - h, k) if blessed and h < n else 0.0)
    return out / 10


def mass_again(rng, n: int, k: int, blessed: bool = False) -> int:
    """A group's formula roll made again (with Blessing both of its dice, as one roll)."""
    h = mass_kills(rng, n, k)
    if blessed and h < n:
        h += mass_kills(rng, n - h, k)
    return h


def magic_hits(mg: ArmyMagic, t: int, n: int, k: int, rng: np.random.Generator,
               mass: bool = False) -> int:
    """Hits of n attacks at kill rank k under spells: Precision (all hit), Blessing (misses
    rolled again once), Shield on the foe (kills by archers/catapults stopped). With the
    designer's formula (``mass``) the missed attacks are n minus the kills, rolled again as one
    group for Blessing."""
    if mg.auto_hit[t]:
        hits = n
    elif mass:
        hits = mass_kills(rng, n, k)
        if mg.blessed and hits < n:
            hits += mass_kills(rng, n - hits, k)
    else:
        hits = int((rng.integers(1, 11, size=n) <= k).sum())
        if mg.blessed and hits < n:
            hits += int((rng.integers(1, 11, size=n - hits) <= k).sum())
    if t in (1, 3) and mg.ranged_shield > 0:
        x = min(hits, mg.ranged_shield)
        mg.ranged_shield -= x
        hits -= x
    return hits


def special_attacks(st, side: Army, seg: int) -> int:
    """Kills by the side's special groups: one 1D10 per unit (``special_attacks_d10``), or, with
    the designer's formula (option ``mass_formula``), one die per group through mass_kills
    (same initiative / kill / spell handling)."""
    if not st.game.mass_formula:
        return special_attacks_d10(st, side, seg)
    cnt = side.counts
    if len(cnt) <= FIRST_SPECIAL or not cnt[FIRST_SPECIAL:].any():
        return 0
    kills, tab, mg = 0, st.game.cfg["special_units"], side.magic
    for u in np.flatnonzero(cnt[FIRST_SPECIAL:]).tolist():
        row = tab[SPECIALS[u]]
        init, kill = row["init"], row["kill"]
        n = int(cnt[FIRST_SPECIAL + u])
        if mg is not None:  # spells on special groups (target group 6 + u)
            init, kill = init + mg.special_init[u], kill + mg.special_kill[u]
            n = 0 if mg.blocked[6 + u] else n - mg.neutral[6 + u]
        if n <= 0 or segment_of(init) != seg:
            continue
        kills += mass_group(side, mg, 6 + u, n, kill, st.rng)
    return kills


def special_attacks_d10(st, side: Army, seg: int) -> int:
    """Kills by the side's special groups in segment ``seg`` (1D10 <= Kill each)."""
    cnt = side.counts
    if len(cnt) <= FIRST_SPECIAL or not any(cnt.tolist()[FIRST_SPECIAL:]):  # no numpy reduction
        return 0
    kills = 0
    tab = st.game.cfg["special_units"]
    mg = side.magic  # spells on special groups (target group 6 + u)
    for u in np.flatnonzero(cnt[FIRST_SPECIAL:]):
        row = tab[SPECIALS[u]]
        init, kill = row["init"], row["kill"]
        n = int(cnt[FIRST_SPECIAL + u])
        if mg is not None:  # neutralized units and blocked groups do not attack
            init, kill = init + mg.special_init[u], kill + mg.special_kill[u]
            n = 0 if mg.blocked[6 + u] else n - mg.neutral[6 + u]
        if n <= 0 or segment_of(init) != seg:
            continue
        if mg is None:  # record: Luck's segment window
            kills += record(side, kill, n, int((st.rng.integers(1, 11, size=n) <= kill).sum()))
        else:
            hit = magic_hits(mg, 6 + u, n, kill, st.rng)
            kills += hit if mg.auto_hit[6 + u] else record(side, kill, n, hit)
    return kills


def ship_attacks(st, a: Army, d: Army, seg: int, ka: int, kd: int) -> tuple[int, int]:
    """Ships (Init 2, Kill 3) attack enemy ships first, then troops; ship-hunting monsters sink
    ships. Returns the troop kills (ka, kd) after ships took their share."""
    for s in (a, d):
        if s.ships is None:
            hi = s.hero
            s.ships = fleets.ships_of(st, hi) if hi >= 0 and s.seat >= 0 else 0
    if not (a.ships or d.ships or a.ship_kills or d.ship_kills):
        return ka, kd
    init, kill = fleets.sea_rules(st)["ship_init"], fleets.sea_rules(st)["ship_kill"]
    out = [ka, kd]
    for k, (s, o) in enumerate(((a, d), (d, a))):
        sinking, s.ship_kills = s.ship_kills, 0
        if s.ships and segment_of(init) == seg:
            n = hits(st.game, st.rng, s.ships, kill)  # (or the designer's formula)
            record(s, kill, s.ships, n, (AT_SHIPS if o.ships else 0)
                   | (MASS if st.game.mass_formula else 0))  # Luck's window
            if o.ships:
                sinking += n
            else:
                out[k] += n
        sunk = min(sinking, o.ships)
        o.ships -= sunk
        s.ship_spare = sinking - sunk  # hits that sank nothing (Luck: battle_luck._dice_act)
    return out[0], out[1]


def negate(game, side: Army, kills: int, rng: np.random.Generator) -> int:
    """Defense ability (per segment) and wall ranks (per round) negate incoming kills."""
    mg = side.magic
    if mg is not None and mg.armor > 0 and kills > 0:  # Armor spell
        x = min(kills, mg.armor)
        mg.armor -= x
        kills -= x
    kills = max(0, kills - side.defense)
    while kills > 0 and side.walls_left > 0:
        kills -= 1
        side.walls_left -= 1
        broke = bool(rng.integers(1, 11) <= game.cfg["designed"]["wall_break_chance"])
        side.wall_damage += broke
        if side.wall_rolls is not None:  # Luck may reroll one wall-break die (battle_luck)
            side.wall_rolls.append(broke)
    return kills


def troop_types_alive(side: Army) -> list[int]:
    """Groups that can take a casualty: 0-3 basic, 5+ special units; never the Hero."""
    c = side.counts
    return [t for t in range(len(c)) if t != 4 and c[t] > 0]


def remove_one(side: Army, t: int | None = None) -> None:
    """One casualty: of type t (player's choice), else the largest troop group; the Hero last."""
    alive = troop_types_alive(side)
    if alive:
        if t is None or t not in alive:
            t = max(alive, key=lambda x: side.counts[x])
        side.counts[t] -= 1
    elif side.monster is not None and side.monster[2] > 0:
        side.monster[2] -= 1
    elif side.counts[4] > 0:
        side.counts[4] -= 1


def destroyed(side: Army) -> bool:
    """No unit left (troops, Hero, monster hits)."""
    mon = side.monster
    return sum(side.counts.tolist()) == 0 and (mon is None or mon[2] <= 0)


def add_special_groups(st, armies) -> None:
    """Give each army its 13 special groups (index 5 + u), once per battle."""
    for s in armies:
        if len(s.counts) == FIRST_SPECIAL and not s.specials_added:
            s.specials_added = True
            hi = s.hero
            sp = st.heroes[hi].specials if hi >= 0 and s.seat >= 0 else np.zeros(NUM_SPECIALS)
            s.counts = np.concatenate([s.counts, sp]).astype(np.int64)


def write_back_specials(st, armies) -> None:
    """Write the surviving special troops back to the Heroes."""
    for s in armies:
        hi = s.hero
        if hi >= 0 and s.seat >= 0 and len(s.counts) > FIRST_SPECIAL:
            st.heroes[hi].specials = s.counts[FIRST_SPECIAL:].copy()


def casualty_mask(side: Army, mask: np.ndarray) -> None:
    """The special groups the side may lose a unit of (LOSS_SP0 + u)."""
    cnt = side.counts
    for u in range(len(cnt) - FIRST_SPECIAL):
        mask[LOSS_SP0 + u] = cnt[FIRST_SPECIAL + u] > 0
