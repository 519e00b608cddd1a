"""Flat action layout for Zaberias (one Discrete space, masked). U = units per roster (9),
S = city sites (3 per board), N = cells of the global grid (H * W).

| block        | count | meaning                                                              |
|--------------|-------|----------------------------------------------------------------------|
| END          | 1     | declare the end of the turn (always legal in the main phase)          |
| SELECT u     | U     | select own unit in roster slot u (then MOVE/ATTACK/ABILITY/...)       |
| BUY u        | U     | buy the unit in slot u (then MOVE x: the city cell to create it in)   |
| UPGRADE s    | S     | upgrade own city on site s (wood -> metal -> gold)                   |
| CITYATK s    | S     | own city on site s attacks the enemy unit standing in it (city dice) |
| MOVE x       | N     | destination cell: a move, a creation city, the Teleporter's own walk  |
|              |       | while holding a unit, a teleport landing, a Rhino Rider step, the     |
|              |       | cell of the wood unit a Dragon picks up on its way                    |
| ATTACK x     | N     | attack the unit/city on x; x = own cell: take over / attack the city  |
|              |       | the unit stands in                                                    |
| ABILITY x    | N     | use the selected unit's ability on cell x (sorcerers, helpers)        |
| ROTATE k     | 3     | Earth Mover: turn its board 90 (k=0), 180 (k=1), 270 (k=2) clockwise  |
| PLAGUE       | 1     | Mutant Corpse: spread the plague over its board                      |
| JOIN u       | U     | ambush: unit in slot u joins the pending attack                       |
| ROLL         | 1     | ambush: roll with the units gathered                                  |
| REROLL       | 1     | tie: attack again                                                    |
| STANDDOWN    | 1     | tie: stand down                                                      |
| RELEASE k    | K     | siphon over capacity: release the held unit in position k; K = the    |
|              |       | enemy units in the game ((n-1) U), the most a Siphon can ever hold    |
| STOP         | 1     | Rhino Rider: stop moving; Dragon: pick nobody up on the way;          |
|              |       | Teleporter holding a unit: stay where it is                           |
"""
from __future__ import annotations

from typing import Literal

#: the name of an action's block (``ActionLayout.decode``), compared with literals in the engine
ActionKind = Literal["end", "select", "buy", "upgrade", "cityatk", "move", "attack", "ability",
                     "rotate", "plague", "join", "roll", "reroll", "standdown", "release", "stop"]


class ActionLayout:
    def __init__(self, U: int, S: int, N: int, K: int = 4):
        self.U, self.S, self.N, self.K = U, S, N, K
        self.END = 0
        self.SELECT = 1
        self.BUY = self.SELECT + U
        self.UPGRADE = self.BUY + U
        self.CITYATK = self.UPGRADE + S
        self.MOVE = self.CITYATK + S
        self.ATTACK = self.MOVE + N
        self.ABILITY = self.ATTACK + N
        self.ROTATE = self.ABILITY + N
        self.PLAGUE = self.ROTATE + 3
        self.JOIN = self.PLAGUE + 1
        self.ROLL = self.JOIN + U
        self.REROLL = self.ROLL + 1
        self.STANDDOWN = self.REROLL + 1
        self.RELEASE = self.STANDDOWN + 1
        self.STOP = self.RELEASE + K
        self.size = self.STOP + 1
        self._blocks: list[tuple[ActionKind, int, int]] = [
            ("end", self.END, 1), ("select", self.SELECT, U), ("buy", self.BUY, U),
            ("upgrade", self.UPGRADE, S), ("cityatk", self.CITYATK, S),
            ("move", self.MOVE, N), ("attack", self.ATTACK, N),
            ("ability", self.ABILITY, N), ("rotate", self.ROTATE, 3),
            ("plague", self.PLAGUE, 1), ("join", self.JOIN, U),
            ("roll", self.ROLL, 1), ("reroll", self.REROLL, 1),
            ("standdown", self.STANDDOWN, 1), ("release", self.RELEASE, K),
            ("stop", self.STOP, 1)]

    def decode(self, action: int) -> tuple[ActionKind, int]:
        """(block name, argument) for an action index."""
        a = int(action)
        for name, start, count in self._blocks:
            if start <= a < start + count:
                return name, a - start
        raise ValueError(f"action {a} out of range 0..{self.size - 1}")


def cell_name(cell: int, W: int) -> str:
    r, c = divmod(cell, W)
    return f"{chr(ord('a') + c)}{r + 1}"
