"""RARE ABILITY Luck in battle (designed window, RULES.md): after a segment's attack dice
(``battle_dice``) and after its wall-break dice (``wall_dice``) a player of the battle whose
Luck is unused this turn may have one die rolled again: one of his side's misses or one of the
foe's hits (LUCK_MINE / LUCK_FOE), or a wall-break die (REROLL). battle_flow.py opens the
windows (luck.window, its DICE_WINDOW and WALL_WINDOW) and resumes the segment afterwards."""
from __future__ import annotations

from . import battle, luck
from .actions import LUCK_FOE, LUCK_MINE, REROLL
from .state import Army, Battle, WarbahState


def battle_seats(st: WarbahState, b: Battle) -> tuple[int, ...]:
    """Players in the battle, the attacking force first (lead, joiners), then the defender."""
    return luck.seat_order([b.sides[0].seat] + [m.seat for m in b.members] + [b.sides[1].seat])


def anyone_lucky(st: WarbahState, b: Battle) -> bool:
    """A player in the battle has a Hero with Luck unused this turn (``luck.lucky_hero``)."""
    return any(luck.lucky_hero(st, q) >= 0 for q in battle_seats(st, b))


def teams(b: Battle, seat: int) -> tuple[list[Army], list[Army]]:
    """(the seat's side of the battle: its armies, the other side's armies)."""
    force = [b.sides[0]] + list(b.members)
    if any(sd.seat == seat for sd in force):
        return force, [b.sides[1]]
    return [b.sides[1]], force


def pick_die(armies: list[Army], miss: bool, b: Battle) -> tuple[int, list[int], float] | None:
    """The recorded die a reroll aims at: a miss at the highest Kill rank (most likely to hit)
    or a hit at the lowest (most likely to miss); a die of the designer's mass formula (one per
    group) with the largest expected gain (mean kills of a new die above / below its kills).
    Dice aimed at ships count only while a reroll can change the ships (a miss while the
    target has ships left, a hit that sank one). (army index, record, score) or None."""
    best: tuple[int, list[int], float] | None = None
    for i, sd in enumerate(armies):
        for r in sd.dice or ():
            k, n, hit = r[0], r[1], r[2]
            flags = r[3] if len(r) > 3 else 0
            if flags & battle.AT_SHIPS and ((facing(b, sd).ships or 0) <= 0 if miss
                                       else sd.ship_spare > 0):
                continue
            score: float
            if flags & battle.MASS:
                gain = battle.mass_mean(n, k, bool(flags & battle.BLESSED)) - hit
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


def facing(b: Battle, sd: Army) -> Army:
    """The lead side facing ``sd`` (ships fight only between the two lead sides)."""
    return b.sides[1] if sd is b.sides[0] else b.sides[0]


def dice_can(st: WarbahState, seat: int, ctx: tuple) -> list[int]:
    b = battle.current(st)
    mine, foe = teams(b, seat)
    out = []
    if pick_die(mine, True, b):
        out.append(LUCK_MINE)
    if pick_die(foe, False, b):
        out.append(LUCK_FOE)
    return out


def dice_act(st: WarbahState, seat: int, a: int, ctx: tuple) -> None:
    """LUCK_MINE: one of my side's missed dice is rolled again (a hit adds a kill); LUCK_FOE:
    one of the foe's hits is rolled again (a miss takes the kill away). A mass-formula die is
    rolled again for its group (its kills replaced; a Blessed group's two dice as one roll);
    dice aimed at ships sink one more ship or
    give one back instead of a kill."""
    b = battle.current(st)
    mine, foe = teams(b, seat)
    armies = mine if a == LUCK_MINE else foe
    pick = pick_die(armies, a == LUCK_MINE, b)
    assert pick is not None   # the action was offered: a die to reroll exists (dice_can)
    i, rec, _ = pick
    k, n, flags = rec[0], rec[1], rec[3] if len(rec) > 3 else 0
    if flags & battle.MASS:
        delta = battle.mass_again(st.rng, n, k, bool(flags & battle.BLESSED)) - rec[2]
    else:
        hit = int(st.rng.integers(1, 11)) <= k
        delta = (1 if hit else 0) if a == LUCK_MINE else (0 if hit else -1)
    rec[2] += delta
    if flags & battle.AT_SHIPS:  # ships sunk by these dice: more, or one given back
        sd = armies[i]
        tgt = facing(b, sd)
        assert tgt.ships is not None   # ships were counted when these dice were rolled
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
        assert b.raw_kills is not None   # the window opens before the segment's kills resolve
        b.raw_kills[0 if att else 1] += delta


def wall_can(st: WarbahState, seat: int, ctx: tuple) -> list[int]:
    mine, foe = teams(battle.current(st), seat)
    own_broke = any(True in (sd.wall_rolls or ()) for sd in mine)
    foe_held = any(False in (sd.wall_rolls or ()) for sd in foe)
    return [REROLL] if own_broke or foe_held else []


def wall_act(st: WarbahState, seat: int, a: int, ctx: tuple) -> None:
    """REROLL: a wall-break die is rolled again: one that broke an own wall rank (a miss undoes
    the damage), else one of the foe's that did not (a hit breaks the rank)."""
    mine, foe = teams(battle.current(st), seat)
    chance = st.game.cfg["designed"]["wall_break_chance"]
    broke = int(st.rng.integers(1, 11)) <= chance
    for sd in mine:
        rolls = sd.wall_rolls
        if rolls and True in rolls:
            if not broke:
                rolls.remove(True)
                rolls.append(False)
                sd.wall_damage -= 1
            return
    for sd in foe:
        rolls = sd.wall_rolls
        if rolls and False in rolls:
            if broke:
                rolls.remove(False)
                rolls.append(True)
                sd.wall_damage += 1
            return

