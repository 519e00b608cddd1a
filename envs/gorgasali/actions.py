"""Flat action layout for Gorgasali (one Discrete space, masked).

``rel`` is a seat relative to the actor (0 = self, k = the k-th seat after it, clockwise).
Mat positions ``p``: 0-1 weapons, 2-3 armour, 4-6 consumables, 7-8 throwables, 9-10 defensive,
11-13 backpack (see ``MAT_LAYOUT``).

| range    | count | meaning                                                                   |
|----------|-------|---------------------------------------------------------------------------|
| 0..399   | 400   | SQUARE s (row * 20 + col): the walk's next square (an orthogonal          |
|          |       | neighbour), or its own square to stop on a chest it entered (or, boxed in |
|          |       | by the terrain before the first step, to end the move in place); Ebue's   |
|          |       | placement square, the six-shooter bonus move, the Teleport landing        |
| 400      | 1     | SKIP the movement (not twice in a row, not on a double)                   |
| 401      | 1     | ROLL the two movement dice (ends the before-the-roll part of the turn)    |
| 402      | 1     | END_TURN (without a main action); in the reaction window: pass            |
| 403      | 1     | RELOAD both weapons (main action, ends the turn)                          |
| 404      | 1     | EXTRA_CHEST: open one extra chest (one per turn)                          |
| 405      | 1     | DISCARD_LOOT: throw away the card waiting for a slot                      |
| 406      | 1     | END_TRADE (duo): finish trading, which ends the turn                      |
| 407      | 1     | TRADE (duo): start trading with the adjacent teammate                     |
| 408, 409 | 2     | GIVE_CHEST / TAKE_CHEST (duo trade of an extra chest)                     |
| 410..429 | 20    | SHOOT with weapon slot w at rel: ``410 + w * 10 + rel`` (main action)     |
| 430..449 | 20    | THROW throwable slot t at rel: ``430 + t * 10 + rel`` (smoke: rel 0)      |
| 450..459 | 10    | ABILITY at rel (rel 0: abilities without a target)                        |
| 460..469 | 10    | COPY (Octor): take the ability of the player at rel                       |
| 470..472 | 3     | CONSUME consumable slot c (heal, movement card, extension, ammo bag)      |
| 473..475 | 3     | REVIVE (duo) the fallen teammate with the healing card in slot c          |
| 476..485 | 10    | DEFEND with defensive slot d: ``476 + d * 5 + v``; v 0 on one's own       |
|          |       | square, v 1..4 a Barrier line to the north, east, south, west             |
| 486..518 | 33    | BACKPACK: swap backpack card b with mat position p: ``486 + b * 11 + p``  |
|          |       | (main action "manage the backpack", ends the turn)                       |
| 519..532 | 14    | LOOT p: put the waiting card on mat position p (the card there is         |
|          |       | discarded)                                                                |
| 533..546 | 14    | STEAL p (Varas): take the card at the target's mat position p             |
| 547..560 | 14    | GIVE p (duo trade): hand the card at own position p to the teammate       |
| 561..574 | 14    | TAKE p (duo trade): take the card at the teammate's position p            |
| 575..584 | 10    | CHOOSE character k at set-up (``characters="choose"``), order of          |
|          |       | ``CHARACTER_NAMES``                                                       |
| 585      | 1     | RETURN (Kruber): undo this turn's swap, both figures back (no movement    |
|          |       | since the swap)                                                           |

The walk reuses the SQUARE actions (no new action ids): one step names the neighbouring square.
"""
from __future__ import annotations

from typing import Callable, Literal, Union

from ..core.game import seats_after

SIZE = 20
SQUARES = SIZE * SIZE
MAX_PLAYERS = 10

SQUARE = 0
SKIP = 400
ROLL = 401
END_TURN = 402
RELOAD = 403
EXTRA_CHEST = 404
DISCARD_LOOT = 405
END_TRADE = 406
TRADE = 407
GIVE_CHEST = 408
TAKE_CHEST = 409
SHOOT = 410
THROW = 430
ABILITY = 450
COPY = 460
CONSUME = 470
REVIVE = 473
DEFEND = 476
BACKPACK = 486
LOOT = 519
STEAL = 533
GIVE = 547
TAKE = 561
CHOOSE = 575
RETURN = 585
NUM_ACTIONS = 586

#: (category, number of positions) in mat order; backpack last
MAT_LAYOUT = (("weapon", 2), ("armour", 2), ("consumable", 3), ("throwable", 2), ("defensive", 2),
              ("backpack", 3))
MAT_SIZE = sum(n for _, n in MAT_LAYOUT)
ACTIVE_SIZE = MAT_SIZE - 3
CATEGORY_POSITIONS: dict[str, tuple[int, ...]] = {}
_p = 0
for _cat, _n in MAT_LAYOUT:
    CATEGORY_POSITIONS[_cat] = tuple(range(_p, _p + _n))
    _p += _n
POSITION_CATEGORY = [cat for cat, n in MAT_LAYOUT for _ in range(n)]
WEAPON_POS = CATEGORY_POSITIONS["weapon"]
CONSUMABLE_POS = CATEGORY_POSITIONS["consumable"]
THROWABLE_POS = CATEGORY_POSITIONS["throwable"]
DEFENSIVE_POS = CATEGORY_POSITIONS["defensive"]
ARMOUR_POS = CATEGORY_POSITIONS["armour"]
BACKPACK_POS = CATEGORY_POSITIONS["backpack"]
DIRECTIONS = ("north", "east", "south", "west")
CHARACTER_NAMES = ("Armazi", "Ebue", "Varas", "Medea", "Tsiva", "Octor", "Kruber", "Tharsis",
                   "D'rain", "E'moon")

_SIMPLE = {SKIP: "skip the movement", ROLL: "roll the movement dice", END_TURN: "end the turn",
           RELOAD: "reload both weapons", EXTRA_CHEST: "open an extra chest",
           DISCARD_LOOT: "discard the new card", END_TRADE: "finish trading (ends the turn)",
           TRADE: "trade with the adjacent teammate", GIVE_CHEST: "give an extra chest",
           TAKE_CHEST: "take an extra chest",
           RETURN: "return to your square before the swap (Kruber)"}


def square_name(s: int) -> str:
    r, c = divmod(int(s), SIZE)
    return f"{chr(ord('A') + c)}{r + 1}"


def shoot(w: int, rel: int) -> int:
    return SHOOT + w * 10 + rel


def throw(t: int, rel: int) -> int:
    return THROW + t * 10 + rel


def defend(d: int, v: int) -> int:
    return DEFEND + d * 5 + v


def backpack(b: int, p: int) -> int:
    return BACKPACK + b * 11 + p


#: the kinds ``decode`` gives, by the numbers that follow them: none, one, two
SimpleKind = Literal["skip", "roll", "end_turn", "reload", "extra_chest", "discard_loot",
                     "end_trade", "trade", "give_chest", "take_chest", "return"]
OneKind = Literal["square", "ability", "copy", "consume", "revive", "loot", "steal", "give",
                  "take", "choose"]
PairKind = Literal["shoot", "throw", "defend", "backpack"]
ActionKind = Union[SimpleKind, OneKind, PairKind]
#: what ``decode`` gives: the kind, then its numbers
Decoded = Union[tuple[SimpleKind], tuple[OneKind, int], tuple[PairKind, int, int]]


def decode(action: int) -> Decoded:
    """(kind, *args) for an action id."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{NUM_ACTIONS - 1}")
    if a < SKIP:
        return ("square", a)
    simple = _SIMPLE_KIND.get(a)
    if simple is not None:
        return (simple,)
    if a < THROW:
        w, rel = divmod(a - SHOOT, 10)
        return ("shoot", w, rel)
    if a < ABILITY:
        t, rel = divmod(a - THROW, 10)
        return ("throw", t, rel)
    if a < COPY:
        return ("ability", a - ABILITY)
    if a < CONSUME:
        return ("copy", a - COPY)
    if a < REVIVE:
        return ("consume", a - CONSUME)
    if a < DEFEND:
        return ("revive", a - REVIVE)
    if a < BACKPACK:
        d, v = divmod(a - DEFEND, 5)
        return ("defend", d, v)
    if a < LOOT:
        b, p = divmod(a - BACKPACK, 11)
        return ("backpack", b, p)
    if a < STEAL:
        return ("loot", a - LOOT)
    if a < GIVE:
        return ("steal", a - STEAL)
    if a < TAKE:
        return ("give", a - GIVE)
    if a < CHOOSE:
        return ("take", a - TAKE)
    return ("choose", a - CHOOSE)   # CHOOSE..RETURN - 1 (RETURN is a simple action)


_SIMPLE_KIND: dict[int, SimpleKind] = {
    SKIP: "skip", ROLL: "roll", END_TURN: "end_turn", RELOAD: "reload", EXTRA_CHEST: "extra_chest",
    DISCARD_LOOT: "discard_loot", END_TRADE: "end_trade", TRADE: "trade", GIVE_CHEST: "give_chest",
    TAKE_CHEST: "take_chest", RETURN: "return"}


def action_to_str(action: int, who: Callable[[int], str] = seats_after) -> str:
    """The words of ``action``; ``who(k)`` names the player ``k`` seats after the one to act (the
    state's ``action_to_str`` passes the player's name)."""
    kind, *args = decode(action)
    if kind == "square":
        return f"square {square_name(args[0])}"
    if len(args) == 0:
        return _SIMPLE[int(action)]
    if kind == "shoot":
        return f"shoot with weapon {args[0] + 1} at {who(args[1])}"
    if kind == "throw":
        return f"throw throwable {args[0] + 1} at {'yourself' if args[1] == 0 else who(args[1])}"
    if kind == "ability":
        return "use the special ability" + ("" if args[0] == 0 else f" on {who(args[0])}")
    if kind == "copy":
        return f"copy the ability of {who(args[0])}"
    if kind == "consume":
        return f"use consumable {args[0] + 1}"
    if kind == "revive":
        return f"revive the teammate with consumable {args[0] + 1}"
    if kind == "defend":
        where = "on your square" if args[1] == 0 else f"as a barrier to the {DIRECTIONS[args[1] - 1]}"
        return f"place defensive card {args[0] + 1} {where}"
    if kind == "backpack":
        return f"swap backpack card {args[0] + 1} with mat position {args[1]}"
    if kind == "loot":
        return f"put the new card on mat position {args[0]}"
    if kind == "steal":
        return f"steal the card on the target's mat position {args[0]}"
    if kind == "give":
        return f"give the card on mat position {args[0]} to the teammate"
    if kind == "choose":
        return f"choose the character {CHARACTER_NAMES[args[0]]}"
    return f"take the card on the teammate's mat position {args[0]}"
