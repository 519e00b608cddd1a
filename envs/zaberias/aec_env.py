"""Zaberias as a PettingZoo AEC environment (``zaberias_v0``).

Rules in brief (full text and designed values in RULES.md): 2-4 tribes (Undead, Humans, Orcs,
Guardians) on one map board each, laid out in one grid. Each starts with a wood city in its home
corner and 5 coins (never more than 6); income each turn from cities (wood 1, metal 2, gold 3) and
occupied gold mines. A turn: buy units into one's own empty cities (grade limits the units),
upgrade cities (wood -> metal -> gold), move each unit once and attack with each unit once (move
then attack or attack then move), use abilities, end the turn. Steps are orthogonal, diagonal only
on roads; water only for flyers and swimmers; portals are one step apart. Battles: dice + muscle
(+ city dice, power stars, auras), attacker first; ties: the attacker rolls again or stands down;
the loser is removed only if the winner's range reaches it; ambushes combine attackers; defenders'
friends in range of the attacker add their muscle. Each tribe has five special units (Sorcerer,
Siphon, Helper, Mighty Titan, Flying Dragon). A tribe with no units and no cities is out; the last
tribe standing wins; backstops (not rules): after ``rules.round_cap_per_opponent`` rounds an
opponent, or ``rules.action_cap_per_player_round`` engine actions a player a round of that cap,
survivors are ranked by material.

Options (``envs.make("zaberias_v0", **options)``):

| option         | values                                               | default             |
|----------------|------------------------------------------------------|---------------------|
| num_players    | 2, 3, 4                                              | 2                   |
| tribes         | list of distinct names: undead, humans, orcs,        | the first n, in     |
|                | guardians (seat order)                               | that order          |
| rules          | dict overriding configs/zaberias.yaml ``rules:``      | {}                  |
|                | (start_coins, max_coins, siphon_capacity,            |                     |
|                | headhunter_coins, round_cap_per_opponent, ...)       |                     |
| config_path    | another rules YAML (boards, rosters, die)            | configs/zaberias.yaml |
| render_mode    | None, ansi, rgb_array (a drawn picture), human       | None                |
| ansi_color     | colour codes in text renders: None = auto (ansi mode | None                |
|                | plain; human mode only on a terminal without         |                     |
|                | NO_COLOR), True / False force them on / off          |                     |
| illegal_action | lose (game over, offender -1) or raise (error)       | lose                |
| max_steps      | env move cap; the game is truncated there; None: the | None                |
|                | game's max_game_length(), the engine's action cap    |                     |
|                | (1,800 / 5,400 / 10,800 at 2 / 3 / 4 players)        |                     |

Actions: ``Discrete(1 + 2U + 2S + 3N + U + 8 + (n - 1)U)`` (U = 9 roster slots, S = 3 city sites
per board, N = grid cells, n players; 2 players: 14x7 grid, 3-4 players: 14x14), table in ``envs/zaberias/actions.py``:
END, SELECT unit, BUY unit, UPGRADE city, CITYATK (city attacks the unit in it), MOVE cell,
ATTACK cell, ABILITY cell, ROTATE (Earth Mover), PLAGUE (Mutant Corpse), JOIN (ambush), ROLL,
REROLL / STANDDOWN (ties), RELEASE (Siphon over capacity), STOP (Rhino Rider stops; the Dragon
picks nobody up on its way; the Teleporter holding a unit stays where it is).

Observation: ``{"observation": float32[(34 + U) * N + 44 + U], "action_mask": int8[A]}``: board
planes over the global grid from the observer's side, then a vector (coins, alive, tribes, stars,
phase, own roster status, turn, last battle); table in ``envs/zaberias/observe.py``.

Rewards: rank based and zero-sum at the end (+1 winner, -1 last; 3-4 players linear in rank,
ties share): the last tribe standing ranks first (``final_info()["ended_by"] == "rules"``),
eliminated tribes rank by when they fell; at a backstop (``"cap"``), the round cap
(``rules.round_cap_per_opponent`` 30 rounds an opponent: 30 / 60 / 90 rounds with 2 / 3 / 4
players) or the engine action cap (``rules.action_cap_per_player_round`` 30 actions a player a
round of that cap: 1,800 / 5,400 / 10,800), survivors rank by material (unit costs + city worth +
coins).

Version history: v0 (first release; the RELEASE block grew from 4 to (n - 1)U actions
so that a Siphon holding more than 4 can choose whom to keep; two phases were added, `pickup`
(the Dragon picks up a wood unit on its way) and `tele_move` (the Teleporter walks while holding
a unit), so the observation vector grew by 2). Rules changes without a layout change (issue
20): a tie re-roll keeps a Dragon's rider; units released by a killed Siphon can be revived; a
Dragon's rider may attack on its own (``rules.rider_attacks_alone``).
"""
from __future__ import annotations

from ..core.aec import TabletopAEC
from ..core.wrappers import OrderEnforcing
from .game import ZaberiasGame


class raw_env(TabletopAEC):
    metadata = dict(TabletopAEC.metadata, name=ZaberiasGame.name)

    def __init__(self, render_mode: str | None = None, illegal_action: str = "lose",
                 max_steps: int | None = None, ansi_color: bool | None = None,
                 **options):
        game = ZaberiasGame(**options)
        super().__init__(game, render_mode=render_mode, illegal_action=illegal_action,
                         max_steps=max_steps, ansi_color=ansi_color)


def env(**kwargs):
    return OrderEnforcing(raw_env(**kwargs))
