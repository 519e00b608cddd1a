"""Rule-based Zaka baseline: one-ply greedy play over a public board evaluation.

Every legal action is tried on a clone of the (determinized) state and the resulting battlefields
are scored from the mover's side with

    value(monster) = (1 + output) * (hearts left + 3)

summed over friendly monsters (weight 0.8: attacking beats hoarding hearts) minus enemy monsters,
plus 15 per enemy army out of the game and 1 per card in the mover's own hand. ``output`` is the
damage the monster's ability deals per turn (swords + weapon, times the mean size of the armies
it faces (1..3) for Rampage, +1 for Reap, +0.5 for Drain / Disarm / Snatch; 2.5 for
a mender, which undoes damage every turn and so is a priority target; +0.6 with a heart weapon).
What this gives, in the words of the issue:
- strongest monsters first (a monster adds its whole value), weapons to the carrier whose output
  they raise most (a sword weapon on a mender adds nothing, so it is kept in hand);
- focus fire: a kill removes the ``+3`` cushion and the card's whole output, so a blow that defeats
  a monster beats the same damage spread elsewhere, and threats (high output) are hit first;
- Rampage when its summed damage beats the best single target; Mend when the healed value does;
- ties broken at random. Only public information and the mover's own hand are read, so the
  determinized state the evaluator passes in is enough (``needs_state = True``).
"""
from __future__ import annotations

import numpy as np

from ..envs.zaka.tables import DISARM, DRAIN, MEND, RAMPAGE, REAP, SNATCH
from .base import RuleBasedAgent

_OUTPUT_EXTRA = {REAP: 1.0, DRAIN: 0.5, DISARM: 0.5, SNATCH: 0.5}


def monster_output(state, monster, rampage_targets: float = 2.0) -> float:
    g = state.game
    kind = g.ability[monster[0]]
    w = monster[2]
    sustain = 0.6 if w >= 0 and g.heart_weapon[w] else 0.0   # heals itself every use
    if kind == MEND:
        return 2.5 + sustain          # a healer undoes damage every turn: a priority target
    out = float(state.strength(monster)) + sustain
    if w >= 0 and g.bonus_vs[w] >= 0:
        out += 0.5 * g.bonus[w]       # the bonus applies to about half the monsters
    if kind == RAMPAGE:
        return rampage_targets * out
    return out + _OUTPUT_EXTRA.get(kind, 0.0)


OWN_WEIGHT = 0.8   # own monsters count less than enemy ones: attacking beats hoarding hearts


def evaluate(state, seat: int, outputs: dict | None = None) -> float:
    """Board value from the side of ``seat``'s player (public information + own hands).

    ``outputs``: an optional memo for this game, shared by the calls of one player: the
    ``monster_output`` of each (design, weapon, rampage targets), which depends on nothing else,
    and per seat which armies are friendly and which are the player's own."""
    g = state.game
    n = g.num_seats
    if outputs is None:
        outputs = {}
    rel = outputs.get(seat)
    if rel is None:
        owner = g.seat_owner(seat)
        rel = outputs[seat] = ([g.friendly(seat, t) for t in range(n)],
                               [g.seat_owner(t) == owner for t in range(n)])
    friend, own = rel
    out, fields = state.out, state.fields
    friends: list[int] = []
    enemies: list[int] = []
    for t in range(n):
        if not out[t] and fields[t]:
            (friends if friend[t] else enemies).append(len(fields[t]))
    # a Rampage hits a whole army: worth about as many blows as the armies it faces are large
    reach_friend = min(3.0, max(1.0, sum(enemies) / max(1, len(enemies))))
    reach_enemy = min(3.0, max(1.0, sum(friends) / max(1, len(friends))))
    v = 0.0
    for t in range(n):
        f = friend[t]
        if out[t]:
            if not f:
                v += 15.0
            continue
        sign = OWN_WEIGHT if f else -1.0
        r = reach_friend if f else reach_enemy
        for m in fields[t]:
            key = (m[0], m[2], r)
            value = outputs.get(key)
            if value is None:
                value = outputs[key] = monster_output(state, m, r)
            v += sign * (1.0 + value) * (max(0, m[1]) + 3.0)
        if own[t]:
            v += float(sum(state.hands[t]))
    return v


class HeuristicAgent(RuleBasedAgent):
    _outputs: tuple = (None, {})   #: (the game, its monster_output memo): see ``evaluate``

    def act(self, obs, state=None) -> int:
        if state is None:
            raise ValueError("the Zaka heuristic needs the engine state (needs_state=True); "
                             "pass state.determinize(seat, rng)")
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) == 1:
            return int(legal[0])
        best = self.best_actions(obs["action_mask"], state)
        return int(best[self.rng.integers(len(best))])

    def best_actions(self, mask, state) -> np.ndarray:
        """The legal actions of ``mask`` whose one-ply value is the highest (ties all kept), for
        ``state.current_player`` on a (determinized) state."""
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return legal
        seat = state.current_player
        if self._outputs[0] is not state.game:
            self._outputs = (state.game, {})
        outputs = self._outputs[1]
        end = state.game.layout.end_play
        values = np.empty(len(legal))
        state.legal_actions_mask()   # computed once, shared by the clones below
        for i, a in enumerate(legal):
            nxt = state.clone()
            nxt.apply(int(a))
            values[i] = evaluate(nxt, seat, outputs)
            if a == end:
                values[i] += 1e-6   # hold a card that adds nothing (a sword weapon on a mender)
        return legal[values >= values.max() - 1e-9]
