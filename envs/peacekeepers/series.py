"""Multi-Player Competitive - Multiple Games for Points: a series of competitive games whose
rulebook scores are added up per player (numpy + stdlib only).

The rulebook names this way to play ("Multiple Games for Points") next to the single game without
points, and gives no further rule than its name and the per-game Scoring section. Our reading
(RULES.md): every game of the series is a complete competitive game of its own (new bag, new
mountains, new zone choice, new hands); nothing but the score carries over. After the last game
each player's total is the sum of their per-game scores, and the highest total wins (ties share).

Why a runner and not an env option: one env episode is one game (its reward, its move cap, its
observation of one board). A series only adds finished games' scores, so it is played as a
sequence of episodes, each observed and rewarded like any other game; an observation of the
running totals would change the env's layout for something no in-game decision depends on
(the per-game score already rewards every cube placed or captured).

Seats (designed): player ``p`` sits at seat ``(p + k) % n`` in game ``k`` (``rotate_seats``),
so every player places the first mountain range in turn; with ``rotate_seats=False`` player p
always has seat p.

Usage::

    from tabletop_arena.envs.peacekeepers.series import Series, play_series
    result = play_series([policy_a, policy_b], num_games=5, seed=7)   # policy(state, seat) -> action
    result.totals, result.winners(), result.returns()
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..core.game import ConfigError, rank_returns
from .game import PeacekeepersGame

#: policy(state, seat) -> a legal action for ``seat`` in ``state`` (the state may be read only)
Policy = Callable[[object, int], int]


class Series:
    """The running score sheet of a series of competitive Peacekeepers games."""

    def __init__(self, num_games: int, seed: int | None = None, rotate_seats: bool = True,
                 **options):
        if not isinstance(num_games, int) or isinstance(num_games, bool) or num_games < 1:
            raise ConfigError(f"num_games must be a positive int, got {num_games!r}")
        if options.get("mode", "competitive") != "competitive":
            raise ConfigError("a series for points is played in mode='competitive' "
                              f"(the points game), got mode={options.get('mode')!r}")
        options["mode"] = "competitive"
        self.game = PeacekeepersGame(**options)
        self.num_players = self.game.num_seats
        self.num_games = num_games
        self.rotate_seats = bool(rotate_seats)
        root = np.random.SeedSequence(seed)
        if seed is None:
            entropy = root.entropy   # an int when drawn from OS entropy
            assert isinstance(entropy, int)
            seed = entropy
        self.seed = seed
        #: the engine seed of each game (independent streams of one root seed)
        self.game_seeds = [int(s.generate_state(1, np.uint64)[0] % (2**63))
                           for s in root.spawn(num_games)]
        #: per finished game: each player's rulebook score (indexed by player, not seat)
        self.results: list[list[float]] = []
        self.totals = [0.0] * self.num_players

    def seating(self, k: int) -> list[int]:
        """``seating(k)[seat]``: the player sitting at ``seat`` in game ``k``."""
        n = self.num_players
        return [((seat - k) % n if self.rotate_seats else seat) for seat in range(n)]

    @property
    def finished(self) -> bool:
        return len(self.results) == self.num_games

    def new_state(self):
        """The initial state of the next game (seeded from the series seed)."""
        if self.finished:
            raise ValueError("the series is over")
        seed = self.game_seeds[len(self.results)]
        state = self.game.new_initial_state(np.random.default_rng(seed))
        state.seed = seed
        return state

    def record(self, state) -> list[float]:
        """Add a finished game (the next one of the series) to the totals; returns its scores
        by player. Raises for an unfinished game or one of another variant."""
        if self.finished:
            raise ValueError("the series is over")
        if not state.is_terminal():
            raise ValueError("only a finished game can be scored")
        if state.game.options() != self.game.options():
            raise ValueError(f"game options {state.game.options()} differ from the series' "
                             f"{self.game.options()}")
        seats = state.scores()
        by_player = [0.0] * self.num_players
        for seat, player in enumerate(self.seating(len(self.results))):
            by_player[player] = float(seats[seat])
        self.results.append(by_player)
        self.totals = [t + s for t, s in zip(self.totals, by_player)]
        return by_player

    def winners(self) -> list[int]:
        """The players with the highest total (several on a tie)."""
        top = max(self.totals)
        return [p for p, t in enumerate(self.totals) if t == top]

    def returns(self) -> np.ndarray:
        """Rank returns over the totals (+1 / -1 / 0 for two players, as a single game)."""
        return rank_returns(self.totals)


def play_series(policies: Sequence[Policy], num_games: int, seed: int | None = None,
                rotate_seats: bool = True, max_steps: int = 1000, **options) -> Series:
    """Play a whole series; ``policies[p]`` moves for player ``p`` whatever seat it has."""
    series = Series(num_games, seed, rotate_seats, **options)
    if len(policies) != series.num_players:
        raise ValueError(f"{len(policies)} policies for {series.num_players} players")
    while not series.finished:
        state = series.new_state()
        seating = series.seating(len(series.results))
        while not state.is_terminal():
            if len(state.history) >= max_steps:
                raise RuntimeError(f"game {len(series.results)} of the series passed "
                                   f"{max_steps} actions (move cap)")
            seat = state.current_player
            state.apply(int(policies[seating[seat]](state, seat)))
        series.record(state)
    return series
