"""Hidden information in Zaka: a player sees its own hand(s), every battlefield, the discard pile,
the deck size and the other hands' sizes; never another hand's cards nor the deck order."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tests.zaka.helpers import position


def _played(num_players, seed, steps):
    game = envs.make_game("zaka_v0", num_players=num_players)
    st = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        st.apply(legal[rng.integers(len(legal))])
    return st


def _swap_hidden(st, observer, rng):
    """Exchange cards between the hands the observer cannot see and the deck (same sizes)."""
    g = st.game
    s = st.clone()
    me = g.seat_owner(observer)
    for seat in range(g.num_seats):
        if g.seat_owner(seat) == me or not s.deck or not sum(s.hands[seat]):
            continue
        held = [d for d, k in enumerate(s.hands[seat]) for _ in range(k)]
        give = held[rng.integers(len(held))]
        i = int(rng.integers(len(s.deck)))
        take = s.deck[i]
        s.hands[seat][give] -= 1
        s.hands[seat][take] += 1
        s.deck[i] = give
    s.deck = [s.deck[i] for i in rng.permutation(len(s.deck))]
    s._mask = None
    return s


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_other_hands_and_deck_order_do_not_change_the_observation(num_players):
    """Changing what an observer may not see (other players' hands, deck order) leaves its
    observation unchanged; its own hand is in it."""
    rng = np.random.default_rng(0)
    for seed in range(6):
        for steps in (0, 15, 40):
            st = _played(num_players, seed, steps)
            for seat in range(st.game.num_seats):
                other = _swap_hidden(st, seat, rng)
                assert np.array_equal(st.observation(seat), other.observation(seat))


def test_own_hand_is_visible():
    """A player's own hand is part of its observation (changing it changes the observation)."""
    st = position(num_players=3, fields={0: ["imp"], 1: ["imp"], 2: ["imp"]}, hands={0: ["imp"]})
    before = st.observation(0).copy()
    st.hands[0][0] += 1
    assert not np.array_equal(before, st.observation(0))
    # but another player's hand change is only seen as a size change
    st2 = position(num_players=3, fields={0: ["imp"], 1: ["imp"], 2: ["imp"]},
                   hands={1: ["imp"]})
    st3 = position(num_players=3, fields={0: ["imp"], 1: ["imp"], 2: ["imp"]},
                   hands={1: ["wand"]})
    assert np.array_equal(st2.observation(0), st3.observation(0))
    assert not np.array_equal(st2.observation(1), st3.observation(1))


def test_two_player_sees_both_own_hands_only():
    """2 PLAYER GAME: a player holds two hands and sees both; the opponent's two stay hidden."""
    a = position(num_players=2, fields={s: ["imp"] for s in range(4)}, hands={2: ["imp"], 3: ["imp"]})
    b = position(num_players=2, fields={s: ["imp"] for s in range(4)}, hands={2: ["wand"], 3: ["wand"]})
    # seat 0 (player_0) sees army 2's hand but not army 3's
    assert not np.array_equal(a.observation(0), b.observation(0))
    c = position(num_players=2, fields={s: ["imp"] for s in range(4)}, hands={2: ["imp"], 3: ["wand"]})
    assert np.array_equal(a.observation(0), c.observation(0))
    assert np.array_equal(a.observation(2), c.observation(2))
    assert not np.array_equal(a.observation(1), c.observation(1))


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_determinize_resamples_only_hidden_cards(num_players):
    """determinize(observer): own hand(s), battlefields, discard and hand sizes are kept; the
    unseen cards (other hands + deck) keep their multiset and are redealt."""
    rng = np.random.default_rng(1)
    changed = 0
    for seed in range(8):
        st = _played(num_players, seed, 30)
        g = st.game
        for seat in range(g.num_seats):
            d = st.determinize(seat, rng)
            me = g.seat_owner(seat)
            unseen_a, unseen_b = list(st.deck), list(d.deck)
            for t in range(g.num_seats):
                assert sum(d.hands[t]) == sum(st.hands[t])
                if g.seat_owner(t) == me:
                    assert d.hands[t] == st.hands[t]
                else:
                    unseen_a += [x for x, k in enumerate(st.hands[t]) for _ in range(k)]
                    unseen_b += [x for x, k in enumerate(d.hands[t]) for _ in range(k)]
                    changed += d.hands[t] != st.hands[t]
            assert sorted(unseen_a) == sorted(unseen_b)
            assert d.fields == st.fields and d.discard == st.discard
            assert np.array_equal(d.observation(seat), st.observation(seat))
    assert changed > 0


def test_render_hides_other_hands():
    """The text view for an observer shows its own hand and only the sizes of the others."""
    st = position(num_players=3, fields={0: ["imp"], 1: ["imp"], 2: ["imp"]},
                  hands={0: ["warlord"], 1: ["elder_dragon"]})
    text = st.render_text(observer=0, color=False)
    assert "Warlord" in text and "Elder Dragon" not in text and "hand 1: ?" in text
