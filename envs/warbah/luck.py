"""Warbah Luck (RARE ABILITY: one target die roll per turn is rolled again) on the dice beyond
block B's own sea-encounter, espionage and agent-table rolls (those stay in sea.py /
espionage.py): realm-spell dice, battle-spell dice, the Agent Success roll and the agents'
gold / disband dice.

A roll is offered, in order, to the players it concerns (the roller's player first, then the
player it is aimed at); a player with a living Hero whose Luck is unused this turn chooses
``REROLL`` or ``KEEP_ROLL`` (phase ``luck``, handled by sea.py's sub-step with a one-line hook
into ``apply`` here). After a reroll the next player may in turn reroll the new result. Then the
continuation registered under the roll's name resolves it.

Pending step: ``st.sea = {"kind": "luck", "hero", "roll" (the value scaled to 1-10 for block B's
observation), "value" (the real value), "ret" (phase to return to), "resume" (continuation
name), "ctx" (tuple), "dice" ((n, faces): the roll is the sum of n dice), "seats" (still to
ask)}``.
"""
from __future__ import annotations

from envs.warbah.config import REROLL

#: continuation name -> function(st, value, ctx); registered by spells / battle_magic /
#: espionage
CONT: dict = {}
#: context kinds shown in the magic observation (spells.observe)
KINDS = ("realm", "bspell", "agent_success", "agent_amount", "initiative")


def register(name: str):
    def deco(f):
        CONT[name] = f
        return f
    return deco


def lucky_hero(st, seat: int) -> int:
    """A living Hero of ``seat`` with Luck not used this turn (lowest index), else -1."""
    if seat < 0:
        return -1
    for i, h in enumerate(st.heroes):
        if h["alive"] and h["seat"] == seat and h.get("luck_turn") != st.turn \
                and st.abil(h, "luck"):
            return i
    return -1


def roll(rng, dice) -> int:
    n, faces = dice
    return int(rng.integers(1, faces + 1, size=n).sum())


def offer(st, seats, value: int, dice, resume: str, ctx: tuple, roller: int | None = None) -> bool:
    """Offer Luck on a roll just made. True: a player decides now (phase ``luck``) and
    ``CONT[resume](st, value, ctx)`` runs afterwards; False: nobody can, the caller resolves
    ``value`` itself."""
    order = tuple(dict.fromkeys(int(s) for s in seats if s is not None and s >= 0))
    if roller is None:
        roller = order[0] if order else -1
    for j, s in enumerate(order):
        hi = lucky_hero(st, s)
        if hi >= 0:
            n, faces = dice
            st.sea = {"kind": "luck", "hero": hi, "value": int(value), "dice": tuple(dice),
                      "roll": max(1, min(10, -(-10 * int(value) // (n * faces)))),
                      "ret": st.phase, "resume": resume, "ctx": tuple(ctx),
                      "seats": order[j + 1:], "roller": roller}
            st.phase, st._cp = "luck", s
            st._mask = None
            return True
    return False


def apply(st, a: int) -> None:
    """REROLL (uses this Hero's Luck for the turn) or KEEP_ROLL, then the next player in line,
    then the continuation."""
    s = st.sea
    value = s["value"]
    if a == REROLL:
        st.heroes[s["hero"]]["luck_turn"] = st.turn
        value = roll(st.rng, s["dice"])
    st.phase, st.sea = s["ret"], None
    st._mask = None
    if offer(st, s["seats"], value, s["dice"], s["resume"], s["ctx"], s["roller"]):
        return
    CONT[s["resume"]](st, value, s["ctx"])


def pending_for(st, seat: int):
    """(kind index, own roll?) of a Luck decision ``seat`` must take now, else None."""
    s = getattr(st, "sea", None)
    if st.phase != "luck" or s is None or "resume" not in s \
            or st.heroes[s["hero"]]["seat"] != seat:
        return None
    return KINDS.index(s["resume"]), s["roller"] == seat


# -- Initiative phase ---------------------------------------------------------------------------
def initiative(st, rolls: dict) -> bool:
    """INITIATIVE PHASE: each player with Luck (asked in seat order) may have its own initiative
    die rolled again (designed; the tie-break fraction is kept). True: a player decides now and
    the continuation orders the players and starts the turn (spells.begin_turn); False: nobody
    has Luck, the caller goes on."""
    return _initiative_from(st, tuple(sorted(rolls.items())), 0)


def _initiative_from(st, rolls: tuple, i: int) -> bool:
    for j in range(i, len(rolls)):
        s, r = rolls[j]
        if offer(st, (s,), int(r), (1, 10), "initiative", (rolls, j)):
            return True
    return False


@register("initiative")
def _initiative_roll(st, value: int, ctx) -> None:
    rolls, j = ctx
    s, r = rolls[j]
    rolls = rolls[:j] + ((s, value + (r - int(r))),) + rolls[j + 1:]
    if _initiative_from(st, rolls, j + 1):
        return
    order = dict(rolls)
    st.order = sorted(order, key=lambda q: -order[q])
    from envs.warbah import spells as SP
    SP.begin_turn(st)
