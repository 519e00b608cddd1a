"""Rule-based Peacekeepers baseline.

One-ply greedy play on the engine state with cheap static scores:
- fill one's own zone, keep out of opponents' zones (a cube there fills their zone for them);
- Goblin Hordes, Eruptions and Troll replacements are scored by simulating them on a clone:
  the change in (own score - best opponent score);
- play the colour that is hardest to place first (fewest legal cells), keep Wizards' extra turns;
- Trolls chase opponents' cubes (captured), Elves re-roll an opponent's horde or eruption;
- always draw back up to a full hand; never stop early in an end phase.
In the solo, collaborative and puzzle modes every filled cell counts the same, so only the
"hardest colour first" rule and the hazard simulation apply.
"""
from __future__ import annotations

import numpy as np

from ..envs.peacekeepers import actions as A
from ..envs.peacekeepers.board import BLUE, BROWN, CELLS, EMPTY, GRAY, GREEN, NEIGHBOURS, ORANGE
from .base import RuleBasedAgent


class HeuristicAgent(RuleBasedAgent):
    def act(self, obs, state=None) -> int:
        mask = obs["action_mask"]
        if state is None:
            raise ValueError("the Peacekeepers heuristic needs the engine state (needs_state=True)")
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        values = self._values(state, legal)
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(legal[best[self.rng.integers(len(best))]])

    # ------------------------------------------------------------------ scoring -------------
    def _margin(self, st, me: int) -> float:
        sc = st.scores()
        if len(sc) == 1 or not st.game.competitive:
            return float(sc[0])
        return float(sc[me] - max(s for i, s in enumerate(sc) if i != me))

    def _values(self, st, legal: np.ndarray) -> np.ndarray:
        me = st.current_player
        g = st.game
        phase = st.phase
        zone = st.zone
        vals = np.zeros(len(legal))
        if phase == "refill":
            return (legal == A.DRAW).astype(float)
        if phase in ("mountain", "zone", "start_temple"):
            return self.rng.random(len(legal))
        if phase == "play":
            placements = legal[legal < A.CELL]
            per_colour = np.bincount(placements // CELLS, minlength=10)
            base = self._margin(st, me)
            for i, a in enumerate(legal):
                if a == A.PASS:
                    vals[i] = -5.0
                    continue
                if a == A.RESERVE:
                    vals[i] = 0.3
                    continue
                colour, cell = divmod(int(a), CELLS)
                if colour in (BROWN, GRAY) or (colour == ORANGE and st.board[cell] != EMPTY):
                    nxt = st.clone()
                    nxt.apply(int(a))
                    vals[i] = self._margin(nxt, me) - base - 0.5
                    continue
                v = 1.0 / (1 + per_colour[colour])
                if g.competitive:
                    owner = zone[cell]
                    v += 1.0 if owner == me else -1.0
                    # prefer growing into one's own empty cells
                    v += 0.1 * sum(1 for z in NEIGHBOURS[cell]
                                   if zone[z] == me and st.board[z] == EMPTY)
                if colour == BLUE:
                    v += 0.3
                elif colour == GREEN:
                    v += 0.1
                vals[i] = v
            return vals
        if phase == "troll_chase":
            for i, a in enumerate(legal):
                if a == A.PASS:
                    continue
                z = int(a) - A.CELL
                owner = zone[z]
                vals[i] = (1.0 if owner != me else -1.0) if g.competitive else -0.5
            return vals
        if phase == "giant2":
            for i, a in enumerate(legal):
                if a == A.PASS:
                    vals[i] = 0.2
                    continue
                z = int(a) - A.CELL
                vals[i] = (1.0 if zone[z] == me else -1.0) if g.competitive else 0.5
            return vals
        if phase == "elf":
            for i, a in enumerate(legal):
                if a == A.PASS:
                    continue
                rel, colour = divmod(int(a) - A.REROLL, 10)
                if rel == 0:
                    vals[i] = 0.5 if colour in (BROWN, GRAY) and g.competitive is False else -0.2
                elif g.competitive and not g.hidden_information:
                    vals[i] = 1.0 if colour in (BROWN, GRAY, BLUE) else -0.1
            return vals
        return self.rng.random(len(legal))
