"""Warbah as a PettingZoo AEC environment (``warbah_v0``).

Rules in brief (full mapping in RULES.md): 2-4 players on a generated hex map (land/water, rivers
on hex edges) each choose a capitol from spread-out candidate sites and start with one Hero
(1D10 warriors, archers, cavalry and catapults, one Ability-table skill). Land outside the
capitols is unexplored. Each turn: initiative roll sets the order; gold is collected; players
recruit into their settlements' garrisons (max 5 per settlement, a Hero at the capitol for 10);
Heroes spend Move Points to explore adjacent unknown hexes (Terrain, Settlement, variant, encounter
tables) or to enter explored ones (terrain cost, 3 across a river) and may take garrisons into
their army; then each Hero may attack an adjacent enemy Hero, enemy garrison or encounter: battles
run in initiative segments 5+,4,3,2,1,0-, each unit rolling 1D10 <= its Kill rank, walls negating
kills, the Hero dying last, each player choosing its own casualties and the attacker choosing to
call off at the end of each round. Recovery: treasure, control markers, XP and abilities.
A player whose capitol is taken is eliminated. NOT implemented: spells, wizards, espionage,
fleets/sea, magic items, special units (variants give gold only), alliances (see RULES.md).

Options (``envs.make("warbah_v0", **options)``):

| option         | values                                     | default |
|----------------|--------------------------------------------|---------|
| num_players    | 2, 3, 4 (map 9x7, 10x8, 11x9)              | 2       |
| rules          | dict overriding configs/warbah.yaml        | {}      |
| render_mode    | None, ansi, human                          | None    |
| illegal_action | raise or lose                              | raise   |
| max_steps      | AEC move cap (truncation)                  | 1000    |

Actions ``Discrete(32)``: 0-5 move/explore (move phase) or attack (battle phase) towards
E, NE, NW, W, SW, SE; 6 done; 7 recruit one troop at the settlement in question; 8 take the
garrison into the acting Hero's army; 9 recruit a Hero at the capitol; 10 call off the attack;
11 continue the attack; 12-15 lose one warrior/archer/cavalry/catapult; 16-23 capitol at
candidate site k; 24 capitol at the first free candidate (auto); 25-30 hand the army to
the friendly Hero in direction d (instead of moving); 31 drop troops into the garrison.

Observation: ``float32[17*H*W + 48]``: 17 board planes and 48 scalars, see observe.py.

Rewards: rank based, zero-sum (envs.core.game.rank_returns): survivors over eliminated players
(later elimination ranks higher), then settlements controlled, then gold. The game ends when one
player is left, after ``designed.turn_cap`` (10) turns, or after ``designed.max_actions`` (950).

Version history: v0 (first release, partial rules: see RULES.md).
"""
from __future__ import annotations

from envs.core.wrappers import OrderEnforcing

from envs.core.aec import TabletopAEC
from envs.warbah.config import WarbahGame

ENV_NAME = "warbah_v0"


def make_game(**options) -> WarbahGame:
    return WarbahGame(**options)


class raw_env(TabletopAEC):
    metadata = dict(TabletopAEC.metadata, name=ENV_NAME)

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 max_steps: int = 1000, **options):
        super().__init__(WarbahGame(**options), render_mode=render_mode,
                         illegal_action=illegal_action, max_steps=max_steps)


def env(**kwargs):
    return OrderEnforcing(raw_env(**kwargs))
