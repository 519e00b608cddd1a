"""Warbah dice and RARE ABILITY Luck: once per turn a player with a lucky Hero may have one die
roll made again.

A roll is offered, in order, to the players it concerns (the roller's player first, then the
player it is aimed at); a player with a living Hero whose Luck is unused this turn chooses
``REROLL`` or ``KEEP_ROLL`` (phase ``luck``). After a reroll the next player may in turn reroll
the new result; then the continuation registered under the roll's name resolves it. Rolls reach
Luck three ways:

- ``offer``: one roll (realm and battle spell dice, agents' rolls, initiative, a caravan's gold);
- ``chain``: several rolls made one after the other (exploration, encounters, treasure, new
  abilities, Healing, Undead, storms), each open to Luck; ``STEPS[name]`` names the next roll;
- ``window``: after a battle segment's dice, one die of the player's choice (battle_luck.py).

This is the one Luck path: every roll open to Luck (the sea encounter roll and the espionage
rolls included) goes through ``offer`` / ``chain`` / ``window``, which ask every Hero of the
player (``lucky_hero``), not only the Hero the roll is about.
"""
from __future__ import annotations

import numpy as np

from . import heroes
from .actions import KEEP_ROLL, NUM_ACTIONS, REROLL
from .state import LuckDecision, WarbahState

#: continuation name -> function(st, value, ctx) of a roll offered with ``offer``; registered
#: by the modules owning the rolls
CONT: dict = {}
#: roll kinds shown in the magic observation (observe_magic: index + 1 over len(KINDS));
#: new kinds are appended
KINDS = ("realm", "bspell", "agent_success", "agent_amount", "initiative", "explore",
         "encounter", "treasure", "heal", "undead", "storm", "battle_dice", "wall_dice",
         "ability", "caravan", "esp_roll", "esp_table", "granted", "sea")
#: roll chains (``chain``): name -> step(st, ctx, vals) giving the next roll
#: ((seats...), (n, faces)) or None once all rolls are known and applied; AFTER[name](st, ctx)
#: runs when a chain finishes after a pause (to resume the interrupted procedure)
STEPS: dict = {}
AFTER: dict = {}
#: windows (``window``): kind -> (can(st, seat, ctx) -> legal actions besides KEEP_ROLL,
#: act(st, seat, a, ctx))
WINDOWS: dict = {}


def register(name: str):
    def deco(f):
        CONT[name] = f
        return f
    return deco


def lucky_hero(st: WarbahState, seat: int) -> int:
    """A living Hero of ``seat`` with Luck not used this turn (lowest index), else -1."""
    if seat < 0:
        return -1
    turn = st.turn
    for i, h in enumerate(st.heroes):
        if h.alive and h.seat == seat and h.luck_used_turn != turn \
                and heroes.ability(st, h, "luck"):
            return i
    return -1


def seat_order(seats) -> tuple:
    """The seats asked, in order, each once (None and negative seats left out; plain ints)."""
    out: list[int] = []
    for s in seats:
        if s is not None and s >= 0:
            s = int(s)
            if s not in out:
                out.append(s)
    return tuple(out)


def roll(rng, dice) -> int:
    """The sum of ``dice`` = (n, faces) dice from ``rng``."""
    n, faces = dice
    if n == 1:  # most rolls: one scalar draw
        return int(rng.integers(1, faces + 1))
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n, without the array
        return sum([int(rng.integers(1, faces + 1)) for _ in range(n)])
    return sum(rng.integers(1, faces + 1, size=n).tolist())


def d10(rng, n: int = 1) -> int:
    """The sum of n ten-sided dice."""
    return roll(rng, (n, 10))


def d5(rng, n: int = 1) -> int:
    """The sum of n five-sided dice (1D10 halved, as the rulebook's 1D5)."""
    return roll(rng, (n, 5))


def offer(st: WarbahState, seats, value: int, dice, resume: str, ctx: tuple, roller: int | None = None,
          what: str | None = None) -> bool:
    """Offer Luck on a roll just made. True: a player decides now (phase ``luck``) and
    ``CONT[resume](st, value, ctx)`` runs afterwards; False: nobody can, the caller resolves
    ``value`` itself."""
    order = seat_order(seats)
    if roller is None:
        roller = order[0] if order else -1
    for j, s in enumerate(order):
        hi = lucky_hero(st, s)
        if hi >= 0:
            n, faces = dice
            st.luck = LuckDecision(hi, max(1, min(10, -(-10 * int(value) // (n * faces)))),
                                   st.phase, value=int(value), dice=tuple(dice), resume=resume,
                                   ctx=tuple(ctx), seats=order[j + 1:], roller=roller,
                                   what=what or resume)
            st.phase, st.to_act = "luck", s
            st._mask = None
            return True
    return False


# -- the phase ``luck`` -------------------------------------------------------------------------
def mask(st: WarbahState) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    out[mask_actions(st)] = 1
    return out


def advance(st: WarbahState) -> bool:
    """The decision waits for the Hero's player."""
    st.to_act = st.heroes[st.luck.hero].seat
    return True


def apply(st: WarbahState, a: int) -> None:
    """REROLL (uses this Hero's Luck for the turn) or KEEP_ROLL, then the next player in line,
    then the continuation."""
    s = st.luck
    if s.window:
        return _window_apply(st, a)
    value = s.value
    if a == REROLL:
        st.heroes[s.hero].luck_used_turn = st.turn
        value = roll(st.rng, s.dice)
    st.phase, st.luck = s.return_phase, None
    st._mask = None
    if offer(st, s.seats, value, s.dice, s.resume, s.ctx, s.roller, s.what):
        return
    CONT[s.resume](st, value, s.ctx)


def pending_for(st: WarbahState, seat: int):
    """(kind index, own roll?) of a Luck decision ``seat`` must take now, else None."""
    s = st.luck
    if st.phase != "luck" or s is None or st.heroes[s.hero].seat != seat:
        return None
    return KINDS.index(s.what), s.roller == seat


def mask_actions(st: WarbahState) -> list:
    """Legal actions of the pending Luck decision: REROLL / KEEP_ROLL for one roll; for a
    battle window the reroll choices ``WINDOWS[kind]`` offers, and KEEP_ROLL."""
    s = st.luck
    if s.window:
        seat = st.heroes[s.hero].seat
        return list(WINDOWS[s.window][0](st, seat, s.ctx)) + [KEEP_ROLL]
    return [REROLL, KEEP_ROLL]


# -- roll chains: several rolls made one after the other, each open to Luck ---------------------
def step(name: str):
    def deco(f):
        STEPS[name] = f
        return f
    return deco


def chain(st: WarbahState, name: str, ctx: tuple, vals: tuple = ()) -> bool:
    """Make the rolls ``STEPS[name]`` asks for, one at a time, offering Luck on each (to the
    seats it names, in order). True: paused for a Luck decision (``AFTER[name]`` runs once the
    chain is done); False: every roll is made and applied."""
    while True:
        nxt = STEPS[name](st, ctx, vals)
        if nxt is None:
            return False
        seats, dice = nxt
        v = roll(st.rng, dice)
        if offer(st, seats, v, dice, "chain", (name, ctx, vals), what=name):
            return True
        vals = vals + (v,)


@register("chain")
def _chain_roll(st: WarbahState, value: int, ctx) -> None:
    name, c, vals = ctx
    if chain(st, name, c, vals + (value,)):
        return
    if name in AFTER:
        AFTER[name](st, c)


# -- windows: after a battle segment's dice the players may reroll one die of their choice ----
def window(st: WarbahState, seats, kind: str, ctx: tuple, resume: str) -> bool:
    """Ask the players in ``seats`` (in order) whose Luck is unused this turn and for whom a
    reroll can matter (``WINDOWS[kind][0]`` names at least one choice). True: a player decides
    now (phase ``luck``; ``CONT[resume](st, None, ctx)`` runs once all are asked); False: nobody
    can, the caller goes on."""
    order = seat_order(seats)
    for j, s in enumerate(order):
        hi = lucky_hero(st, s)
        if hi >= 0 and WINDOWS[kind][0](st, s, ctx):
            st.luck = LuckDecision(hi, 1, st.phase, value=1, resume=resume, ctx=tuple(ctx),
                                   seats=order[j + 1:], what=kind, window=kind)
            st.phase, st.to_act = "luck", s
            st._mask = None
            return True
    return False


def _window_apply(st: WarbahState, a: int) -> None:
    s = st.luck
    seat = st.heroes[s.hero].seat
    if a != KEEP_ROLL:
        st.heroes[s.hero].luck_used_turn = st.turn
        WINDOWS[s.window][1](st, seat, a, s.ctx)
    st.phase, st.luck = s.return_phase, None
    st._mask = None
    if window(st, s.seats, s.window, s.ctx, s.resume):
        return
    CONT[s.resume](st, None, s.ctx)
