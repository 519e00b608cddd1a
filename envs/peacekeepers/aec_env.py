"""Peacekeepers of Jar-Zabonia as a PettingZoo AEC environment (``peacekeepers_v0``).

Rules in brief (full text in RULES.md): players roll cubes whose faces are races, volcanoes, temples,
goblin hordes and eruptions, and place them on a 10x10 field so that no two incompatible colours
share an edge (a race lives next to itself and its two colour-wheel neighbours; volcanoes next to
anything but a volcano; temples next to anything). Trolls chase off or replace a cube, Giants come in
pairs, Elves re-roll a cube in a hand, Wizards give another turn, Goblin Hordes clear a zone around
an open cell, Eruptions blast around a volcano. Modes: ``solo``, ``collaborative``, ``competitive``
(points), ``competitive_no_points`` and ``puzzle`` (levels standard, easy, challenge).

Options (``envs.make("peacekeepers_v0", **options)``):

| option        | values                                         | default                     |
|---------------|------------------------------------------------|-----------------------------|
| mode          | solo, collaborative, competitive,              | competitive                 |
|               | competitive_no_points, puzzle                  |                             |
| num_players   | 1 (solo), 2-4 (collaborative, puzzle), 2 or 4  | by mode                     |
| hand_size     | 1..4 (solo, collaborative, puzzle challenge)   | solo 3, others 1            |
| mountains     | choose (players place them), random, none      | choose (puzzle: none)       |
| zones         | halves or quadrants (2-player competitive)     | halves                      |
| puzzle_level  | standard, easy, challenge                      | standard                    |
| reward        | result (+1/-1, rank based) or score            | result                      |
| rules         | dict overriding configs/peacekeepers.yaml      | {}                          |
| config_path   | rules file replacing configs/peacekeepers.yaml | None                        |
| render_mode   | None, ansi, rgb_array (a drawn picture), human | None                        |
| ansi_color    | colour codes in text renders: None = auto      | None                        |
|               | (ansi mode plain; human mode only on a         |                             |
|               | terminal without NO_COLOR), True / False force |                             |
|               | them on / off                                  |                             |
| illegal_action| lose (game over, offender -1) or raise (error) | lose                        |
| max_steps     | move cap; the game is truncated there; None:   | None                        |
|               | the game's max_game_length() (5,020)           |                             |

Actions: ``Discrete(1347)``, see ``envs/peacekeepers/actions.py`` for the table (place colour x cell,
sub-step cell targets, Elf re-roll targets, mountain placements, zone choice, reserve, draw, pass).

Observation: ``{"observation": float32[1884], "action_mask": int8[1347]}``; the first 1800 entries
are 18 board planes of 10x10, then 84 scalars; table in ``envs/peacekeepers/observe.py``.

Rewards: competitive modes +1 / -1 / 0 by final score (4 players: 1, 1/3, -1/3, -1 by rank, ties
share); ``reward="score"`` gives the rulebook score / 100 instead. Solo and collaborative: the
rulebook score / 100 (shared). Puzzles: +1 solved, otherwise (filled - left - lone Giants) / holes.

Series: "Multiple Games for Points" (a series of competitive games won on the total score) is
played game by game with ``envs/peacekeepers/series.py`` (``play_series``), one episode per game.

Version history: v0 (first release). Rules changes since without a layout change (issue 20): a Troll
may chase its only neighbour; lone puzzle set-up Giants survive far hazards; a Wizard's extra turn
may be declined (PASS, observation entry 79).
"""
from __future__ import annotations

from ..core.aec import TabletopAEC
from ..core.wrappers import OrderEnforcing
from .game import PeacekeepersGame


class raw_env(TabletopAEC):
    metadata = dict(TabletopAEC.metadata, name=PeacekeepersGame.name)

    def __init__(self, render_mode: str | None = None, illegal_action: str = "lose",
                 max_steps: int | None = None, ansi_color: bool | None = None,
                 **options):
        super().__init__(PeacekeepersGame(**options), render_mode=render_mode,
                         illegal_action=illegal_action, max_steps=max_steps,
                         ansi_color=ansi_color)


def env(**kwargs):
    return OrderEnforcing(raw_env(**kwargs))
