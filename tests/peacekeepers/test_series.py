"""Multi-Player Competitive - Multiple Games for Points: a series of games scored by totals."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers.series import Series, play_series

from .helpers import make_state


def _finished(captured_by_seat):
    """A finished competitive game on an empty field: seat s scores captured[s] - 50."""
    st = make_state("", hands=["", ""])
    st.captured = [list(range(k)) for k in captured_by_seat]
    st.phase, st.cur = "over", -1
    return st


def test_multiple_games_for_points_totals_decide_the_series():
    """Game Summary / Multi-Player Competitive - Multiple Games for Points: players score each game
    by the Scoring rules and the series goes to the best total, not to the most games won. Player
    0 wins game 0 by one point, player 1 wins game 1 by ten: player 1 wins the series. Seats
    rotate (player p at seat (p + k) % n in game k), so in game 1 player 1 sits at seat 0."""
    series = Series(num_games=2, seed=0, mountains="none")
    assert series.seating(0) == [0, 1] and series.seating(1) == [1, 0]
    assert series.record(_finished([2, 1])) == [-48.0, -49.0]
    assert series.winners() == [0]
    assert series.record(_finished([10, 0])) == [-50.0, -40.0]   # seat 0 is player 1
    assert series.finished and series.totals == [-98.0, -89.0]
    assert series.winners() == [1] and list(series.returns()) == [-1.0, 1.0]
    with pytest.raises(ValueError):
        series.record(_finished([0, 0]))                          # the series is over


def test_multiple_games_for_points_refuses_bad_games():
    """Only finished games of the series' own variant count."""
    series = Series(num_games=1, mountains="none")
    running = make_state("", hands=["R", "R"])
    with pytest.raises(ValueError, match="finished"):
        series.record(running)
    other = Series(num_games=1, mountains="choose")
    with pytest.raises(ValueError, match="options"):
        other.record(_finished([0, 0]))
    with pytest.raises(envs.ConfigError):
        Series(num_games=0)
    with pytest.raises(envs.ConfigError):
        Series(num_games=2, mode="solo")


def test_multiple_games_for_points_play_series():
    """A whole series: each game is a complete game of its own, replayed by hand from its seed it
    gives the recorded scores with player p at seat (p + k) % 2, and the totals add them up."""
    def policy(k):   # a deterministic policy: a legal action picked from the position
        def act(state, seat):
            legal = np.flatnonzero(state.legal_actions_mask())
            return int(legal[(len(state.history) * 7 + 3 * seat + k) % len(legal)])
        return act

    series = play_series([policy(0), policy(1)], num_games=3, seed=11)
    assert series.finished and len(set(series.game_seeds)) == 3
    for k, seed in enumerate(series.game_seeds):
        st = series.game.new_initial_state(np.random.default_rng(seed))
        player_at = [(seat - k) % 2 for seat in range(2)]
        while not st.is_terminal():
            st.apply(policy(player_at[st.current_player])(st, st.current_player))
        sc = st.scores()
        assert series.results[k] == [sc[(p + k) % 2] for p in range(2)]
    assert series.totals == [sum(r[p] for r in series.results) for p in range(2)]
    again = play_series([policy(0), policy(1)], num_games=3, seed=11)
    assert again.results == series.results
