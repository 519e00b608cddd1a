"""The Warbah engine contract (envs.core.game.State) over a position: ``WarbahPosition``, the
class of the states the game builds, is state.WarbahState (every field, its creation and its
clone) with the contract's methods: legal actions, apply, returns, final info, observation,
determinize and the views. The turn's flow and the dispatch of every phase's actions are in
turn.py; the rules modules take a ``state.WarbahState``.
"""
from __future__ import annotations

import numpy as np

from ..core.game import rank_returns
from . import hexes, magic, observe, render, turn
from .actions import describe
from .state import OUT_BY, WarbahState

#: final_info ``ended_by`` of each ending (turn.ENDINGS)
ENDED_BY = {"last_standing": "designed", "domination": "designed", "cap": "cap"}


class WarbahPosition(WarbahState):
    """A Warbah position under the engine contract (its fields: state.WarbahState)."""

    # -- the engine contract ------------------------------------------------------------------
    def legal_actions_mask(self) -> np.ndarray:
        if self._mask is not None and self._mask_at == (self.phase, self.to_act, self.queue_pos):
            return self._mask
        step = turn.SUBSTEPS.get(self.phase)
        if step is not None:
            mask = step[0](self)
        elif self.phase == "over":
            mask = np.zeros(self.game.num_actions, np.int8)
        else:
            seat, x = self.queue[self.queue_pos]
            mask = turn.QUEUE_STEPS[self.phase][0](self, seat, x)
        mask.setflags(write=False)   # cached: callers read it, a write would corrupt the cache
        self._mask, self._mask_at = mask, (self.phase, self.to_act, self.queue_pos)
        return mask

    def _apply(self, a: int) -> None:
        step = turn.SUBSTEPS.get(self.phase)
        if step is not None:
            step[1](self, a)
        else:
            seat, x = self.queue[self.queue_pos]
            turn.QUEUE_STEPS[self.phase][1](self, seat, x, a)
        self._mask = None
        turn.advance(self)

    @property
    def current_player(self) -> int:
        return self.to_act

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def phase_name(self) -> str:
        return self.phase

    def scores(self) -> list[float]:
        """The winner by the victory condition first; then survivors (eliminated players: later
        elimination ranks higher), then settlements, then gold."""
        out = []
        for s in range(self.game.num_seats):
            live = 1 if self.alive[s] else 0
            out.append(2e6 * (s == self.winner) + live * 1e6
                       + self.out_turn[s] * 1e4 * (1 - live)
                       + 100 * len(hexes.settlements_of(self, s)) + min(int(self.gold[s]), 99))
        return out

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.game.num_seats)
        return rank_returns(self.scores())

    def final_info(self) -> dict:
        """``ended_by``: "designed" for the designed victory conditions (last player standing,
        domination: the rulebook names no ending; RULES.md "Win condition"), "cap" for the turn
        and action backstops; ``out_by``: a seat's way out ("capitol_taken", "no_hero"; None: in)."""
        return {"turn": min(self.turn, self.game.turn_cap),
                "capped": bool(self.capped),
                "ending": self.ending, "winner": int(self.winner),
                "ended_by": ENDED_BY.get(self.ending, ""),
                "settlements": [len(hexes.settlements_of(self, s))
                                for s in range(self.game.num_seats)],
                "alive": self.alive.tolist(),
                "out_by": [OUT_BY[k] for k in self.out_by.tolist()]}

    def action_to_str(self, a: int) -> str:
        return describe(self, a)

    def _determinize(self, observer: int, rng: np.random.Generator):
        """A clone with what ``observer`` cannot see resampled: enemy index cards (the troop
        split and the special troops shuffled, totals kept; unless seen this turn, in battle, or
        scried), hidden hands, deck order and the cards behind enemy items (magic.py)."""
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        s._mask = None   # the cached mask belongs to the real hands and items, not the sample's
        busy = set()
        if s.battle is not None:
            busy = {s.battle.sides[k].hero for k in (0, 1)}
            busy |= {m.hero for m in s.battle.members}  # a combined attack
        scried = magic.scried(s, observer)
        for i, h in enumerate(s.heroes):
            if (h.seat != observer and i not in busy and not s.espionage.revealed.get(
                    (observer, i), -1) == s.turn and not scried):
                h.troops = h.troops[rng.permutation(4)]
        magic.determinize(s, observer, rng)  # hidden hands, deck order, items
        if not scried:  # enemy special troops (index cards)
            for i, h in enumerate(s.heroes):
                sp = h.specials
                if (sp.any() and h.seat != observer and i not in busy
                        and not s.espionage.revealed.get((observer, i), -1) == s.turn):
                    h.specials = sp[rng.permutation(len(sp))]
        return s

    def _observation(self, seat: int) -> np.ndarray:
        return observe.observe(self, seat)

    def render_text(self, observer=None, color=False) -> str:
        return render.render_text(self, observer, color)

    def render_rgb(self, observer=None):
        return render.render_rgb(self, observer)
