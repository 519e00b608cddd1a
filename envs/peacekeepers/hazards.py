"""Peacekeepers hazards (a mixin of ``PeacekeepersState``; numpy + stdlib only): resolving a
Goblin Horde and a Volcanic Eruption, and the solitary Giants that leave afterwards.

Rulebook sections: Goblin Horde (attack zone, walls, Temples and Faeries), Volcanic Eruption
(the arrow diagram, Dwarves and Mountains shield), Giants (pairs).
"""
from __future__ import annotations

import numpy as np

from .board import BLACK, BLUE, EMPTY, ERUPTED, GREEN, HORDE_ZONE, MOUNTAIN, NEIGHBOURS, ORANGE, RED, WHITE, YELLOW
from .fields import PeacekeepersFields

#: cubes a Goblin Horde chases off (Faerie, Temples, Volcanoes and puzzle blocks stay)
HORDE_TARGETS = (RED, ORANGE, YELLOW, GREEN, BLUE)
HORDE_WALLS = (BLACK, ERUPTED, MOUNTAIN)


class HazardMixin(PeacekeepersFields):
    """Hordes and eruptions of the current position (board writes go through ``_set``)."""

    def _horde(self, target: int, by: int) -> None:
        """Resolving a Goblin Horde at ``target``: chase every exposed race in the attack zone."""
        b = self.board
        victims = []
        for cell, via, kind in HORDE_ZONE[target]:
            walls = [b[v] in HORDE_WALLS for v in via]
            if via and (all(walls) if kind == "both" else any(walls)):
                continue
            if b[cell] in HORDE_TARGETS and self.active[cell] \
                    and not any(b[z] == WHITE for z in NEIGHBOURS[cell]):
                victims.append(cell)
        for cell in victims:
            self._remove(cell, by, "horde")
        self._cache = None

    def _eruption(self, volcano: int, by: int) -> None:
        """Resolving a Volcanic Eruption: destruction spreads along the diagram's arrows."""
        b = self.board
        spreads = {volcano: True}
        victims = []
        for cell, parent in self.game.eruption[volcano]:
            if not spreads.get(parent, False):
                spreads[cell] = False
                continue
            code = b[cell]
            if code in (RED, MOUNTAIN):
                spreads[cell] = False          # Dwarves and Mountains shield what lies behind
            else:
                spreads[cell] = True
                if code in (EMPTY, WHITE, BLACK, ERUPTED):
                    continue                   # Temples and Volcanoes survive, shielding nothing
                victims.append(cell)
        for cell in victims:
            self._remove(cell, by, "eruption")
        self._cache = None

    def _lonely_giants(self) -> set[int]:
        """Cells of Giants with no Giant neighbour (in puzzles a Temple keeps a Giant company)."""
        b = self.board
        lonely = set()
        for cell in np.flatnonzero(b == YELLOW):
            nbs = NEIGHBOURS[cell]
            if any(b[z] == YELLOW for z in nbs):
                continue
            if self.game.puzzle and any(b[z] == WHITE for z in nbs):
                continue
            lonely.add(int(cell))
        return lonely

    def _remove_solitary_giants(self, spared: frozenset[int] | set[int] = frozenset()) -> None:
        """After hordes and eruptions: Giants this hazard left without company leave (discarded).

        ``spared``: Giants that were already alone before the hazard. Only puzzle set-ups have
        them (Create Your Own Puzzle: Giants may be placed alone during set-up and need company
        "at some point" while solving); the hazard did not make them solitary, so they stay.
        """
        lonely = sorted(self._lonely_giants() - spared)
        for cell in lonely:
            self._set(cell, EMPTY)
            self.discard.append(int(self.board_cube[cell]))
            self.board_cube[cell] = -1
        self._cache = None
