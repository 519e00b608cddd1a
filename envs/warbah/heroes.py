"""Warbah Heroes and their magic items as typed records.

A Hero (HEROES) leads an army: four basic troop types (``troops``, order config.BASIC) and the 13
special unit kinds (``specials``, order config.SPECIALS); abilities are (name, troop type)
pairs. The per-turn bookkeeping fields hold the turn they refer to, so that a new turn needs no
reset pass (a field equal to the current turn is "this turn").
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .config import SPECIALS


def _no_specials() -> np.ndarray:
    return np.zeros(len(SPECIALS), np.int64)


def _no_troops() -> np.ndarray:
    return np.zeros(4, np.int64)


@dataclass(slots=True)
class Item:
    """A magic item: a realm- or battle-spell item (``spell``: the card id that defines it) or
    a magic ability item (``ability``: the (name, troop type) it grants while held)."""
    kind: str                       # "realm", "battle" or "ability"
    spell: int = -1
    ability: tuple | None = None
    used_turn: int = -1             # a spell item is usable once per turn
    moved_turn: int = -1            # an item changes hands once per turn

    def clone(self) -> "Item":
        return Item(self.kind, self.spell, self.ability, self.used_turn, self.moved_turn)


@dataclass(slots=True, eq=False)
class Hero:
    seat: int
    cell: int
    troops: np.ndarray              # int64[4]: warriors, archers, cavalry, catapults
    id: int                         # 1, 2, ... among the Heroes of its player
    abilities: list = field(default_factory=list)   # (name, troop type) pairs
    xp: int = 0
    alive: bool = True
    mp: int = 0                     # movement points left this turn
    scout_moves: int = 0            # Scouting: explore-only moves left this turn
    attacks_left: int = 0
    troops_lost: int = 0            # this turn (Healing, Heal)
    specials: np.ndarray = field(default_factory=_no_specials)  # int64[13] special units
    items: list = field(default_factory=list)       # Item records
    wizard: int = 0                 # 0 none, tower cell + 1, -1 a wandering wizard
    wizard_cast_turn: int = -1      # the wizard casts one realm spell per turn
    received_army: bool = False     # took a whole army this turn (EXCHANGE0)
    received_troops: np.ndarray = field(default_factory=_no_troops)  # one by one (GIVE0) ...
    received_troops_turn: int = -1  # ... in this turn
    received_specials: np.ndarray = field(default_factory=_no_specials)
    received_specials_turn: int = -1
    exchanged_turn: int = -1        # handed troops over instead of moving
    garrison_lock: tuple | None = None  # (turn, cell, taking): one direction per turn and hex
    delayed_turn: int = -1          # Agent Success 6: cannot move or attack
    luck_used_turn: int = -1        # RARE ABILITY Luck: one reroll per turn
    sea_moves: int = 0              # sea moves left ...
    sea_moves_turn: int = -1        # ... in this turn (set when first needed)

    def clone(self) -> "Hero":
        """A copy that shares no mutable container with this Hero."""
        return Hero(self.seat, self.cell, self.troops.copy(), self.id, list(self.abilities),
                    self.xp, self.alive, self.mp, self.scout_moves, self.attacks_left,
                    self.troops_lost, self.specials.copy(), [it.clone() for it in self.items],
                    self.wizard, self.wizard_cast_turn, self.received_army,
                    self.received_troops.copy(), self.received_troops_turn,
                    self.received_specials.copy(), self.received_specials_turn,
                    self.exchanged_turn, self.garrison_lock, self.delayed_turn,
                    self.luck_used_turn, self.sea_moves, self.sea_moves_turn)


def new_hero(heroes: list, seat: int, cell: int, troops: np.ndarray | None = None) -> Hero:
    """A new Hero of ``seat`` at ``cell`` (numbered after that player's Heroes), appended."""
    h = Hero(seat, cell, _no_troops() if troops is None else troops,
             sum(1 for x in heroes if x.seat == seat) + 1)
    heroes.append(h)
    return h
