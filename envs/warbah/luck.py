"""Warbah dice and RARE ABILITY Luck: once per turn a player with a lucky Hero may have one die
roll made again.

A roll is offered, in order, to the players it concerns (the roller's player first, then the
player it is aimed at); a player with a living Hero whose Luck is unused this turn chooses
``REROLL`` or ``KEEP_ROLL`` (phase ``luck``). After a reroll the next player may in turn reroll
the new result; then the function the roll was offered with resolves it. Rolls reach Luck three
ways, each given the functions that carry on (no registry: a reader follows them from the call):

- ``offer``: one roll (realm and battle spell dice, agents' rolls, initiative, a caravan's gold)
  with its ``resume`` function (state.Resolve);
- ``chain``: several rolls made one after the other (exploration, encounters, treasure, new
  abilities, Healing, Undead, storms), each open to Luck: a state.Chain names its kind and the
  step giving the next roll; ``after`` goes on with the procedure that started it after a pause;
- ``window``: after a battle segment's dice, one die of the player's choice (a state.Window:
  battle_luck.py, battle_flow.py).

This is the one Luck path: every roll open to Luck (the sea encounter roll and the espionage
rolls included) goes through ``offer`` / ``chain`` / ``window``, which ask every Hero of the
player (``lucky_hero``), not only the Hero the roll is about.
"""
from __future__ import annotations

from typing import Iterable, get_args

import numpy as np

from . import heroes
from .actions import KEEP_ROLL, NUM_ACTIONS, REROLL
from .state import Chain, LuckDecision, Resolve, Resume, RollKind, WarbahState, Window

#: roll kinds shown in the magic observation (observe_magic: index + 1 over len(KINDS));
#: new kinds are appended (state.RollKind)
KINDS: tuple[RollKind, ...] = get_args(RollKind)
KIND_INDEX = {k: i for i, k in enumerate(KINDS)}


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


def seat_order(seats: Iterable[int | None]) -> tuple[int, ...]:
    """The seats asked, in order, each once (None and negative seats left out; plain ints)."""
    out: list[int] = []
    for s in seats:
        if s is not None and s >= 0:
            s = int(s)
            if s not in out:
                out.append(s)
    return tuple(out)


def roll(rng: np.random.Generator, dice: tuple[int, int]) -> int:
    """The sum of ``dice`` = (n, faces) dice from ``rng``."""
    n, faces = dice
    if n == 1:  # most rolls: one scalar draw
        return int(rng.integers(1, faces + 1))
    if 0 < n <= 3:  # scalar draws: the same numbers as size=n, without the array
        return sum([int(rng.integers(1, faces + 1)) for _ in range(n)])
    return sum(rng.integers(1, faces + 1, size=n).tolist())


def d10(rng: np.random.Generator, n: int = 1) -> int:
    """The sum of n ten-sided dice."""
    return roll(rng, (n, 10))


def d5(rng: np.random.Generator, n: int = 1) -> int:
    """The sum of n five-sided dice (1D10 halved, as the rulebook's 1D5)."""
    return roll(rng, (n, 5))


def offer(st: WarbahState, what: RollKind, seats: Iterable[int | None], value: int, dice: tuple[int, int],
          resume: Resolve, ctx: tuple, roller: int | None = None) -> bool:
    """Offer Luck on a roll of kind ``what`` just made. True: a player decides now (phase
    ``luck``) and ``resume(st, value, ctx)`` runs afterwards; False: nobody can, the caller
    resolves ``value`` itself. A kind not in ``KINDS`` raises ValueError (nothing changes)."""
    if what not in KIND_INDEX:
        raise ValueError(f"unknown kind of roll {what!r} (luck.KINDS: {', '.join(KINDS)})")
    order = seat_order(seats)
    if roller is None:
        roller = order[0] if order else -1
    for j, s in enumerate(order):
        hi = lucky_hero(st, s)
        if hi >= 0:
            n, faces = dice
            st.luck = LuckDecision(hi, max(1, min(10, -(-10 * int(value) // (n * faces)))),
                                   st.phase, what, value=int(value), dice=(n, faces),
                                   resume=resume, ctx=tuple(ctx), seats=order[j + 1:],
                                   roller=roller)
            st.phase, st.to_act = "luck", s
            st._mask = None
            return True
    return False


# -- the phase ``luck`` -------------------------------------------------------------------------
def deciding(st: WarbahState) -> bool:
    """A Luck decision is pending (phase ``luck``): what a procedure asks after a call that may
    have offered a roll to Luck (a function, so that the type checker does not keep the phase
    it saw before the call)."""
    return st.phase == "luck"


def mask(st: WarbahState) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    out[mask_actions(st)] = 1
    return out


def _pending(st: WarbahState) -> LuckDecision:
    """The Luck decision of the phase ``luck``."""
    s = st.luck
    assert s is not None, "phase luck without a Luck decision"
    return s


def advance(st: WarbahState) -> bool:
    """The decision waits for the Hero's player."""
    st.to_act = st.heroes[_pending(st).hero].seat
    return True


def apply(st: WarbahState, a: int) -> None:
    """REROLL (uses this Hero's Luck for the turn) or KEEP_ROLL, then the next player in line,
    then the function resolving the roll."""
    s = _pending(st)
    if s.window is not None:
        return _window_apply(st, s, s.window, a)
    value = s.value
    if a == REROLL:
        st.heroes[s.hero].luck_used_turn = st.turn
        value = roll(st.rng, s.dice)
    st.phase, st.luck = s.return_phase, None
    st._mask = None
    assert s.resume is not None   # an offered roll always carries its resolution
    if offer(st, s.what, s.seats, value, s.dice, s.resume, s.ctx, s.roller):
        return
    s.resume(st, value, s.ctx)


def pending_for(st: WarbahState, seat: int) -> tuple[int, bool] | None:
    """(kind index, own roll?) of a Luck decision ``seat`` must take now, else None."""
    s = st.luck
    if st.phase != "luck" or s is None or st.heroes[s.hero].seat != seat:
        return None
    return KIND_INDEX[s.what], s.roller == seat


def mask_actions(st: WarbahState) -> list[int]:
    """Legal actions of the pending Luck decision: REROLL / KEEP_ROLL for one roll; for a
    battle window the reroll choices the window offers, and KEEP_ROLL."""
    s = _pending(st)
    if s.window is not None:
        seat = st.heroes[s.hero].seat
        return list(s.window.can(st, seat, s.ctx)) + [KEEP_ROLL]
    return [REROLL, KEEP_ROLL]


# -- roll chains: several rolls made one after the other, each open to Luck ---------------------
def chain(st: WarbahState, ch: Chain, ctx: tuple, vals: tuple = (), after: Resume | None = None) -> bool:
    """Make the rolls ``ch.step`` asks for, one at a time, offering Luck on each (to the seats
    it names, in order). True: paused for a Luck decision (``after``, else ``ch.after``, runs
    with ``ctx`` once the chain is done); False: every roll is made and applied."""
    while True:
        nxt = ch.step(st, ctx, vals)
        if nxt is None:
            return False
        seats, dice = nxt
        v = roll(st.rng, dice)
        if offer(st, ch.kind, seats, v, dice, _chain_roll,
                 (ch if after is None else ch._replace(after=after), ctx, vals)):
            return True
        vals = vals + (v,)


def _chain_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    """A chain's roll once Luck is settled: the rest of the chain, then its ``after``."""
    ch, c, vals = ctx
    if chain(st, ch, c, vals + (value,)):
        return
    if ch.after is not None:
        ch.after(st, c)


# -- windows: after a battle segment's dice the players may reroll one die of their choice ----
def window(st: WarbahState, seats: Iterable[int | None], win: Window, ctx: tuple) -> bool:
    """Ask the players in ``seats`` (in order) whose Luck is unused this turn and for whom a
    reroll can matter (``win.can`` names at least one choice). True: a player decides now
    (phase ``luck``; ``win.done(st, ctx)`` runs once all are asked); False: nobody can, the
    caller goes on. A kind not in ``KINDS`` raises ValueError (nothing changes)."""
    if win.kind not in KIND_INDEX:
        raise ValueError(f"unknown kind of roll {win.kind!r} (luck.KINDS: {', '.join(KINDS)})")
    order = seat_order(seats)
    for j, s in enumerate(order):
        hi = lucky_hero(st, s)
        if hi >= 0 and win.can(st, s, ctx):
            st.luck = LuckDecision(hi, 1, st.phase, win.kind, value=1, ctx=tuple(ctx),
                                   seats=order[j + 1:], window=win)
            st.phase, st.to_act = "luck", s
            st._mask = None
            return True
    return False


def _window_apply(st: WarbahState, s: LuckDecision, win: Window, a: int) -> None:
    seat = st.heroes[s.hero].seat
    if a != KEEP_ROLL:
        st.heroes[s.hero].luck_used_turn = st.turn
        win.act(st, seat, a, s.ctx)
    st.phase, st.luck = s.return_phase, None
    st._mask = None
    if window(st, s.seats, win, s.ctx):
        return
    win.done(st, s.ctx)
