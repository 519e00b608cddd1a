"""Gorgasali battle royale as a PettingZoo AEC environment (``gorgasali_v0``).

Rules in brief (full text and every designed value in RULES.md): 2-10 warriors start on the gates
of d20-drawn sectors of a 20x20 map (water, forest, mountain cost extra movement; blocking areas
stop movement and targeting; 72 chests; healing squares). A turn: optional healing card / extra
chest / ability, roll two dice and walk exactly that far orthogonally, one square a step, never
crossing a square twice (stop early on a chest by choice; skip but not twice running nor on a
double), then throwables, defensive banners, extensions and abilities, and one main action
(shoot, reload both weapons, or manage the backpack) which ends the turn. Before each turn the
other players may use a ready ability (the reaction window). Weapons: six shooters and strikers (damage per pip), massive weapons and scouts (fixed
damage on a minimum roll), skills on epic/legendary cards. Ten characters with abilities and
cooldowns. Zones go inactive one by one every five rounds; each inactive square entered costs
5/10/15 (then 20) health. At zero health a player is out and the eliminator takes its mat.
Last player (duo: last team) standing wins.

Options (``envs.make("gorgasali_v0", **options)``):

| option         | values                                                   | default  |
|----------------|----------------------------------------------------------|----------|
| num_players    | 2..10 (duo: even, 4..10)                                 | 4        |
| mode           | solo (free for all) or duo (teams of two, seats s and    | solo     |
|                | s + n/2)                                                 |          |
| characters     | random (distinct, drawn by the env), choose (the agents  | random   |
|                | pick in turn, CHOOSE actions), or a list of names         |          |
| rules          | dict overriding ``rules:`` of configs/gorgasali.yaml      | {}       |
|                | (max_rounds, zone_penalty, movement_cost, skill_die, ...) |          |
| config_path    | another YAML with the same tables                         | None     |
| render_mode    | None, ansi, rgb_array (a drawn picture), human                | None |
| ansi_color     | colour codes in text renders: None = auto (ansi mode plain;   | None |
|                | human mode only on a terminal without NO_COLOR), True / False |      |
|                | force them on / off                                           |      |
| illegal_action | lose (PettingZoo classic: game over, -1) or raise (error) | lose     |
| max_steps      | AEC move cap (every sub-step counts); truncates; None:    | None     |
|                | the game's max_game_length() (2p 8,102, 4p 21,724, 10p    |          |
|                | 95,710), 10000 in duo (no bound: a trade has no limit)    |          |

The engine itself ends every game at ``rules["max_rounds"]`` (designed 30 rounds; survivors are
ranked by health, ``infos[agent]["round_cap"]``), so the AEC cap is only a safety net: with the
walk one step a square, random 10-player games take about 730 actions and rule-based ones about
1,000 (20 rounds).

Actions: ``Discrete(586)`` with a mask; full table in ``envs/gorgasali/actions.py``: 400 SQUARE
actions (the walk's next square or stopping on a chest, Ebue's placement, bonus move, Teleport
landing), SKIP, ROLL, END_TURN (also "pass" in the reaction window), RELOAD,
EXTRA_CHEST, loot choices, SHOOT weapon x target, THROW throwable x target, ABILITY / COPY target,
CONSUME / REVIVE slot, DEFEND slot x placement, BACKPACK swaps, STEAL, duo GIVE / TAKE, CHOOSE,
Kruber's RETURN.
Targets are seats relative to the actor. Sub-steps (same agent acts again): move (each walk step),
loot, pull, steal, bonus, trade, teleport; the select step only offers choices with a legal
completion. Out of turn: the reaction window (``react``: ABILITY or END_TURN to pass) and the
LOOT choices for spoils of an elimination outside one's own action.

Observation: ``{"observation": float32[10680], "action_mask": int8[586]}``: 21 map planes of
20x20 (terrain, chests, zones, banners, players, choosable squares, the walk so far), then a
2280-entry vector
(phase, round, dice, own health / cooldown / character / mat, the 9 other seats relative to the
observer, the teammate's mat in duo); table in ``envs/gorgasali/observe.py``. Opponents'
face-down weapons and backpack cards are hidden.

Rewards: at the end, zero-sum rank rewards (``envs.core.game.rank_returns``) over players (duo:
over teams; both teammates get the team's value): +1 for the winner, -1 for the first out,
evenly spaced in between by elimination time (simultaneous eliminations tie); at the round cap
survivors rank above the fallen, by health. 0 on every other step.

Version history: v0 (first release; Kruber's return, Octor copying passives, the Teleport card,
loot choice of an elimination's spoils, the rgb_array renderer, the square-by-square walk, the
reaction window and the eliminator's loot choice for end-of-turn spoils added before any
release). Rules changes without a layout change (issue 20): Tochinator range 1; D'rain's bonus
is ability damage (not on E'moon, through armour); extra chests also in the reaction window;
Octor copies any number of times a turn (capped); the Dobergun bonus move avoids the walk.
"""
from __future__ import annotations

from ..core.aec import TabletopAEC
from ..core.game import default_max_steps
from ..core.wrappers import OrderEnforcing
from .game import GorgasaliGame

#: AEC move cap in duo, where the game has no max_game_length() (a trade has no limit of its own)
DEFAULT_MAX_STEPS = 10000


class raw_env(TabletopAEC):
    metadata = dict(TabletopAEC.metadata, name=GorgasaliGame.name)

    def __init__(self, render_mode: str | None = None, illegal_action: str = "lose",
                 max_steps: int | None = None, ansi_color: bool | None = None,
                 **options):
        game = GorgasaliGame(**options)
        if max_steps is None:
            max_steps = default_max_steps(game, DEFAULT_MAX_STEPS)
        super().__init__(game, render_mode=render_mode,
                         illegal_action=illegal_action, max_steps=max_steps,
                         ansi_color=ansi_color)


def env(**kwargs):
    return OrderEnforcing(raw_env(**kwargs))
