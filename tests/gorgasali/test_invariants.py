"""Whole-game invariants of Gorgasali under seeded random play (every state of every game): no
card comes from nowhere or vanishes (decks, discards, mats and the loot queue), living players
have health 1..max and a square once play has begun, counters never go negative. Each check is
also shown to fire on a state edited to break it."""
from __future__ import annotations

import numpy as np

from tests.random_play import invariant_test, play_until, variant_state


def violations(st) -> list[str]:
    g = st.game
    out = []
    cards = (len(st.weapon_deck) + len(st.support_deck) + len(st.discard) + len(st.loot)
             + sum(1 for mat in st.mat for c in mat if c >= 0))
    if cards != len(g.weapon_deck) + len(g.support_deck):
        out.append(f"{cards} cards in the game, not {len(g.weapon_deck) + len(g.support_deck)}")
    for s in range(g.num_seats):
        if st.alive[s] and not 0 < st.health[s] <= g.rules["max_health"]:
            out.append(f"player {s} alive with health {st.health[s]}")
        if st.alive[s] and st.phase != "choose" and st.pos[s] < 0:
            out.append(f"player {s} alive without a square")
        if min(st.cooldown[s], st.extra_chests[s], st.burned[s]) < 0:
            out.append(f"player {s} with a negative counter")
    return out


test_random_games_never_break_the_invariants = invariant_test("gorgasali_v0", range(4), violations)


def test_each_invariant_fires_on_a_broken_state():
    st = variant_state("gorgasali_v0", "2p", 3)
    play_until(st, np.random.default_rng(3), lambda s: s.phase == "act")
    assert not violations(st)
    s = st.clone()
    s.discard.append(s.weapon_deck[0])
    assert any("cards in the game" in v for v in violations(s))
    s = st.clone()
    s.health[0] = s.game.rules["max_health"] + 1
    assert any("health" in v for v in violations(s))
    s = st.clone()
    s.pos[1] = -1
    assert any("without a square" in v for v in violations(s))
    s = st.clone()
    s.extra_chests[0] = -1
    assert any("negative counter" in v for v in violations(s))
