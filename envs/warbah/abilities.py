"""Warbah ability rolls (HEROES / ABILITY TABLE, RARE ABILITY table): a Hero's first ability
at set-up, new abilities for a recruited Hero, an Avatar and experience, each roll open to Luck.
"""
from __future__ import annotations

from . import luck
from .state import Chain, Hero, NextRoll, WarbahState
from .tables import BASIC, Ability

#: the troop types an ability may apply to, in battle.Army group order (BASIC, then the Hero)
TROOP_TYPES = BASIC + ("hero",)
#: abilities that apply to one random troop type (ABILITY TABLE / RARE ABILITY TABLE)
TYPED: frozenset[Ability] = frozenset(("leadership", "tactics", "prowess"))


def troop_type(cfg: dict, roll: int) -> int:
    """RANDOM TROOP TYPE TABLE: the 1D5 roll -> the Army group index (TROOP_TYPES)."""
    return TROOP_TYPES.index(cfg["random_troop_type"][roll])


def ability_rolls(cfg: dict, vals: tuple, i: int):
    """One Ability roll read from vals[i:] (ABILITY TABLE 1D10, the RARE ABILITY table on
    9-10, then the troop type 1D5): (dice still needed, None, i) or (None, (name, type), next
    index)."""
    if len(vals) <= i:
        return (1, 10), None, i
    name, i = cfg["abilities"].get(vals[i]), i + 1
    if not name:
        if len(vals) <= i:
            return (1, 10), None, i
        name, i = cfg["rare_abilities"][vals[i]], i + 1
    if len(vals) <= i:
        return (1, 5), None, i
    return None, (name, troop_type(cfg, vals[i])), i + 1


def gain_ability(st: WarbahState, h: Hero) -> None:
    """One Ability roll (set-up: no Luck; ``gain_abilities`` offers Luck on the rolls)."""
    vals: tuple = ()
    while True:  # the same table reading and dice as the Luck chain (``ability_rolls``)
        dice, ability, _ = ability_rolls(st.game.cfg, vals, 0)
        if dice is None:
            break
        vals += (luck.roll(st.rng, dice),)
    h.abilities.append(ability)


def gain_abilities(st: WarbahState, hi: int, n: int = 1) -> bool:
    """Hero hi gains n abilities (n = 0: one per 2 XP, in recovery); each roll (Ability /
    Rare Ability table, troop type 1D5) is open to Luck for the Hero's player (luck.chain
    ``ability``, same dice as ``gain_ability``). True: paused for a Luck decision."""
    return luck.chain(st, ABILITY_ROLLS, (hi, n))


def _ability_rolls(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """HEROES / ABILITY TABLE: new abilities (n; n = 0: one per 2 XP, the recovery task), each
    roll open to Luck for the Hero's player; the abilities are written once all are rolled."""
    hi, n = ctx
    h = st.heroes[hi]
    if not h.alive:
        return None
    k = n or h.xp // 2
    got, i = [], 0
    for _ in range(k):
        nxt, ab, i = ability_rolls(st.game.cfg, vals, i)
        if nxt is not None:
            return (h.seat,), nxt
        got.append(ab)
    h.abilities.extend(got)
    if not n:
        h.xp -= 2 * k
    return None


#: new abilities' rolls, open to Luck (``gain_abilities``; in recovery one per 2 XP)
ABILITY_ROLLS = Chain("ability", _ability_rolls)


def roll_granted_types(st: WarbahState, hi: int, in_recovery: bool) -> bool:
    """SPECIAL UNIT TYPES: a unit granting a typed ability (Goblins: "Hero gets Tactics
    ability") gives the Hero that ability, and Tactics needs its random troop type (1D5, the
    Random Troop Type table, open to Luck like every ability roll). Rolled once per Hero and
    ability when the units first join him (recruited: at once; handed over or taken: in
    recovery), kept on the Hero (``Hero.granted_types``; in force only while such a unit is
    present). True: paused for a Luck decision."""
    return luck.chain(st, GRANTED, (hi, in_recovery))


def _missing_granted(st: WarbahState, h: Hero) -> list[str]:
    sp = h.specials.tolist()
    if not any(sp):  # no special units: nothing granted (most Heroes)
        return []
    return [a for a, units in st.game.granting_units.items()
            if a in TYPED and a not in h.granted_types and any(sp[u] for u in units)]


def _granted_rolls(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """The troop-type rolls of abilities granted by special units (``roll_granted_types``)."""
    hi, _ = ctx
    h = st.heroes[hi]
    if not h.alive:
        return None
    todo = _missing_granted(st, h)
    if len(vals) < len(todo):
        return (h.seat,), (1, 5)
    for a, v in zip(todo, vals):
        h.granted_types[a] = troop_type(st.game.cfg, v)
    return None


#: the troop types of abilities granted by special units (``roll_granted_types``)
GRANTED = Chain("granted", _granted_rolls)

