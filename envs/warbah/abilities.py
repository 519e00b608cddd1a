"""Warbah ability rolls (HEROES / ABILITY TABLE, RARE ABILITY table): a Hero's first ability
at set-up, new abilities for a recruited Hero, an Avatar and experience, each roll open to Luck.
"""
from __future__ import annotations

from . import luck
from .heroes import Hero


def ability_rolls(cfg, vals: tuple, i: int):
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
    return None, (name, vals[i] - 1), i + 1


def gain_ability(st, h: Hero) -> None:
    """One Ability roll (set-up: no Luck; ``gain_abilities`` offers Luck on the rolls)."""
    vals: tuple = ()
    while True:  # the same table reading and dice as the Luck chain (``ability_rolls``)
        dice, ability, _ = ability_rolls(st.game.cfg, vals, 0)
        if dice is None:
            break
        vals += (luck.roll(st.rng, dice),)
    h.abilities.append(ability)


def gain_abilities(st, hi: int, n: int = 1) -> bool:
    """Hero hi gains n abilities (n = 0: one per 2 XP, in recovery); each roll (Ability /
    Rare Ability table, troop type 1D5) is open to Luck for the Hero's player (luck.chain
    ``ability``, same dice as ``gain_ability``). True: paused for a Luck decision."""
    return luck.chain(st, "ability", (hi, n))


@luck.step("ability")
def _ability_rolls(st, ctx, vals):
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
