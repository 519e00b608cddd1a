"""Whole-game invariants of Zaka under seeded random play (every state of every game): no card
comes from nowhere or vanishes, and no monster has more hearts than its card or none at all.
Each check is also shown to fire on a state edited to break it."""
from __future__ import annotations

import numpy as np

from tests.random_play import invariant_test, play_until, variant_state


def violations(st) -> list[str]:
    g = st.game
    out = []
    cards = (len(st.deck) + len(st.discard) + sum(sum(h) for h in st.hands)
             + sum(1 + (m[2] >= 0) for f in st.fields for m in f))  # a monster and its weapon
    if cards != g.deck_size:
        out.append(f"{cards} cards in the game, not {g.deck_size}")
    for f in st.fields:
        for design, hearts, _weapon in f:
            if not 0 < hearts <= g.hearts[design]:
                out.append(f"a monster with {hearts} hearts (card: {g.hearts[design]})")
    if any(c < 0 for h in st.hands for c in h):
        out.append("a negative hand count")
    return out


test_random_games_never_break_the_invariants = invariant_test("zaka_v0", range(10), violations)


def test_each_invariant_fires_on_a_broken_state():
    st = variant_state("zaka_v0", "2p", 1)
    play_until(st, np.random.default_rng(1), lambda s: any(s.fields))
    assert not violations(st)
    s = st.clone()
    s.deck.pop()
    assert any("cards in the game" in v for v in violations(s))
    s = st.clone()
    f = next(f for f in s.fields if f)
    f[0][1] = st.game.hearts[f[0][0]] + 1
    assert any("hearts" in v for v in violations(s))
    s = st.clone()
    s.hands[0][0] = -1
    assert any("negative hand" in v for v in violations(s))
