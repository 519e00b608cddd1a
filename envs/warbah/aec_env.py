"""Warbah as a PettingZoo AEC environment (``warbah_v0``).

The game (full section-by-section mapping, designed choices and the list of what is still
missing in RULES.md): 2-4 players on a generated hex map (land, water, islands, rivers on hex
edges) each pick a capitol and start with one Hero. Every turn runs the rulebook's phases in
initiative order: realm magic, gold, recruiting (troops, Heroes, Wizards, ships, special
units), espionage with agents, alliances (option), move & explore (terrain, settlement, variant
and encounter tables, fleets and sea encounters, troop / item exchanges, garrisons), disaster
magic, battles (kill-rank segments, walls, battle spells, casualty choice, calling off) and
recovery (treasure, control, experience, abilities). Long choices are AEC sub-steps ending with
an explicit "done"; the mask offers only legal actions.

Options (``envs.make("warbah_v0", **options)``):

| option         | values                                             | default |
|----------------|----------------------------------------------------|---------|
| num_players    | 2, 3, 4 (map 9x7, 10x8, 11x9)                      | 2       |
| allies         | True: alliances (3-4 players only)                 | False   |
| rules          | dict overriding configs/warbah.yaml                | {}      |
| render_mode    | None, ansi, rgb_array (a drawn picture), human     | None    |
| ansi_color     | colour codes in text renders: None = auto (ansi    | None    |
|                | mode plain; human mode only on a terminal without  |         |
|                | NO_COLOR), True / False force them on / off        |         |
| illegal_action | lose (game over, offender -1) or raise (error)     | lose    |
| max_steps      | AEC move cap (truncation); None: the game's        | None    |
|                | max_game_length(), the engine's own action cap     |         |
|                | (960 / 2160 / 3840 at 2 / 3 / 4 players)           |         |

Actions: ``Discrete(actions.NUM_ACTIONS)``, one table for every phase (constants in actions.py):

- base: 0-5 move/explore (move phase) or attack (battle phase) towards E, NE, NW, W, SW, SE;
  ``DONE`` 6; ``RECRUIT`` 7 (one troop at the settlement in question); ``TAKE_GARRISON`` 8
  (whole garrison into the acting Hero's army); ``RECRUIT_HERO`` 9; ``CALL_OFF`` 10 /
  ``CONTINUE`` 11 (attacker, end of a battle round); ``CASUALTY0``+t 12-15 (lose one
  warrior/archer/cavalry/catapult); ``CAPITOL0``+k 16-23 (capitol at candidate k),
  ``CAPITOL_AUTO`` 24; ``EXCHANGE0``+d 25-30 (whole army to the friendly Hero in direction d);
  ``DROP_OFF`` 31 (drop troops of the settlement's type into its garrison).
- magic (``SPELLS0`` .. ``SPELLS_END``): ``REALM0``+k cast or discard realm spell k
  (26); ``BSPELL0``+k cast battle spell k (42); ``GROUP0``+t target group (4 troop types,
  hero, monster); ``TSEAT0``+r-1 target the opponent r seats on; ``CELL0``+c target map cell c
  (99 slots); ``RECRUIT_WIZARD``; ``GIVE_ITEM0``+d hand a magic item to the own or allied Hero
  in direction d.
- empire (``EMPIRE0`` .. ``EMPIRE_END``): ``HIRE_AGENT``; ``TARGET0``+k espionage target slot k
  (12);
  ``GIVE0``+4d+t give one troop of type t to the Hero in direction d; ``TAKE_ONE0``+t /
  ``DROP_ONE0``+t one garrison troop in / out; ``SHIP0``+d recruit a ship; ``REROLL`` /
  ``KEEP_ROLL`` (Luck); ``RECRUIT_SP`` (special unit); ``LOSS_SP0``+u lose one special unit
  of kind u (13); ``ALLY_PROPOSE0`` / ``ALLY_BREAK0`` / ``ALLY_GOLD0`` (+r-1),
  ``ALLY_ACCEPT``, ``ALLY_DECLINE``; ``FLEET0``+6k+d move unmanned fleet k; ``GIVE_SP0``+13d+u
  give one special unit; ``PASS0``+d pass through a friendly Hero; ``LOOK0``+d Scouting look;
  ``CEDE0``+r-1 cede a settlement / ``HERO_TO0``+r-1 hand a Hero to an ally.
- spell targets: ``MAGIC_SPGROUP0``+u target a special-unit group.
- combined attacks (``COMBINED0`` .. ``COMBINED_END``): ``BATTLE_JOIN0``+d the own or allied
  Hero in direction d of the target joins the declared attack; ``BATTLE_START``;
  ``BATTLE_ACCEPT`` / ``BATTLE_DECLINE`` (an ally answers the call); in a combined attack's
  spell step ``BATTLE_JOIN0``+d also picks the army (its Hero in direction d of the target) a
  battle spell reaches; ``TAKE_SPECIAL`` / ``DROP_SPECIAL`` one garrison special unit in / out.
- Luck (``LUCK0`` .. ``LUCK_END``): ``LUCK_MINE`` reroll one of my side's missed attack dice of
  this battle segment, ``LUCK_FOE`` one of the foe's hits (``KEEP_ROLL`` passes).

Observation: ``float32`` vector, observer-relative, hidden information left out; its pieces
are ``WarbahGame.observation_layout``: ``board`` (17, H, W) map planes and ``vector`` (48)
(observe.py), ``board_b`` (7, H, W) and ``vector_b`` (76) for fleets, espionage, special units
and alliances (observe.py), ``magic`` (266) for spells, wizards and items (observe_magic.py).

Rewards and end (designed victory condition, RULES.md "Win condition"): a player whose capitol
is taken, or who has no Hero at the end of the Recruit phase, is out; the game ends when one
player is left, when a player holds at least 6 settlements and 60 % of all held settlements at
the end of a Recovery phase (domination); backstops (``final_info()["ended_by"] == "cap"``): the
game is ranked after ``designed.turn_cap_per_player`` (10) turns a player (20 / 30 / 40) or
``designed.action_cap_per_player_turn`` (24) engine actions a player a turn of that limit
(960 / 2160 / 3840). Rewards come at the end only, rank based and
zero-sum (envs.core.game.rank_returns): the winner first, then survivors over eliminated players
(later elimination ranks higher), then settlements held, then gold.

Version history: v0 (see RULES.md for what is still simplified).
"""
from __future__ import annotations

from ..core.aec import TabletopAEC
from ..core.wrappers import OrderEnforcing
from .game import WarbahGame

ENV_NAME = "warbah_v0"


class raw_env(TabletopAEC):
    metadata = dict(TabletopAEC.metadata, name=ENV_NAME)

    def __init__(self, render_mode: str | None = None, illegal_action: str = "lose",
                 max_steps: int | None = None, ansi_color: bool | None = None,
                 **options):
        game = WarbahGame(**options)
        super().__init__(game, render_mode=render_mode, illegal_action=illegal_action,
                         max_steps=max_steps, ansi_color=ansi_color)


def env(**kwargs):
    return OrderEnforcing(raw_env(**kwargs))
