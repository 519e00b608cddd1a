"""Zaka as a PettingZoo AEC environment (``zaka_v0``), 2-4 players, hidden hands.

Rules in brief (full text and every designed value in RULES.md): a shuffled deck of monsters and
weapons (card list designed in configs/zaka.yaml); 5 cards each, a hand with fewer than 3 monsters
puts its weapons under the deck and redraws until every hand holds 3. On its first turn an army
places one or two monsters. Every later turn: play up to 2 cards (monsters to one's battlefield,
weapons onto an own monster of the same weapon type that holds none), then use the ability of one
active monster on one target: Attack, Rampage (every monster of one opponent army) or a card's own
ability (Mend, Drain, Disarm, Snatch, Reap). Monsters enter at full hearts; at zero hearts they
are discarded with their weapon, and the army that struck the final blow draws a card. An army with
no active monsters is out; the last player with monsters wins. With 2 players each runs two armies
with two hands, seated as in a 4-player game (armies 0 and 2 are player_0's, 1 and 3 player_1's).

Options (``envs.make("zaka_v0", **options)``):

| option         | values                                            | default |
|----------------|---------------------------------------------------|---------|
| num_players    | 2 (two armies each), 3, 4                          | 2       |
| rules          | dict overriding ``rules:`` of configs/zaka.yaml:   | {}      |
|                | empty_deck (no_reward, reshuffle_discard),         |         |
|                | kill_reward (per_monster, per_ability),            |         |
|                | two_player_friendly (owner, army), max_turns,      |         |
|                | hand_size, min_monsters, plays_per_turn, ...       |         |
| config_path    | another card list (same schema as configs/zaka.yaml)| None   |
| render_mode    | None, ansi, rgb_array (a drawn picture), human     | None    |
| ansi_color     | colour codes in text renders: None = auto (ansi    | None    |
|                | mode plain; human mode only on a terminal without  |         |
|                | NO_COLOR), True / False force them on / off        |         |
| illegal_action | lose (game over, offender -1) or raise (error)     | lose    |
| max_steps      | AEC move cap; the game is truncated there; None:   | None    |
|                | the game's max_game_length() (600 by default)      |         |

Actions: ``Discrete(370)`` with the default deck (298 with 3 players); table in
``envs/zaka/actions.py``. A turn is at most 3 actions: PLAY_MONSTER(design) / PLAY_WEAPON(design,
own slot) up to twice, END_PLAY, then USE_ON_MONSTER(own slot, relative army, slot) or
USE_ON_ARMY(own slot, relative army) for Rampage. The play step ends by itself after 2 cards or when
nothing in hand can be played; the mask offers only completable choices.

Observation: ``{"observation": float32[1380] (2 and 4 players; 1043 with 3), "action_mask":
int8[N]}``; armies relative to the observer; pieces ``armies`` (S, F, 38), ``army_info`` (S, 8),
``hands`` (S, 25: own player's hands only), ``discard`` (25), ``global`` (7); table in
``envs/zaka/observe.py``.

Rewards: at the end only. 2 players: +1 / -1 (both armies of a player get the player's reward).
3-4 players: rank based, summing to 0 (``envs.core.game.rank_returns``): the last player standing
first, the others by how long they lasted. The engine ends a game after ``rules.max_turns`` turns
(default 200, ranked by hearts left); the AEC cap ``max_steps`` truncates with zero rewards and
``infos[agent]["truncated_by_cap"]``. A turn is at most 3 actions, so 200 turns stay within the
default cap, the game's ``max_game_length()`` (600).

Version history: v0 (first release).
"""
from __future__ import annotations

from ..core.aec import TabletopAEC
from ..core.wrappers import OrderEnforcing
from .game import ZakaGame


class raw_env(TabletopAEC):
    metadata = dict(TabletopAEC.metadata, name=ZakaGame.name)

    def __init__(self, render_mode: str | None = None, illegal_action: str = "lose",
                 max_steps: int | None = None, ansi_color: bool | None = None,
                 **options):
        super().__init__(ZakaGame(**options), render_mode=render_mode,
                         illegal_action=illegal_action, max_steps=max_steps,
                         ansi_color=ansi_color)


def env(**kwargs):
    return OrderEnforcing(raw_env(**kwargs))
