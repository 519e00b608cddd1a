"""Warbah's flat action layout (one ``Discrete(NUM_ACTIONS)`` space for every phase) and
``describe``, the text of an action for logs, replays and the human-play CLI.

| block           | actions                                                                    |
|-----------------|----------------------------------------------------------------------------|
| base (0-31)     | 0-5 move / explore / attack E NE NW W SW SE, DONE, RECRUIT, TAKE_GARRISON,   |
|                 | RECRUIT_HERO, CALL_OFF, CONTINUE, CASUALTY0+t, CAPITOL0+k, CAPITOL_AUTO,    |
|                 | EXCHANGE0+d, DROP_OFF                                                      |
| magic           | REALM0+k, BSPELL0+k, GROUP0+t, TSEAT0+r-1, CELL0+c, RECRUIT_WIZARD,        |
| (SPELLS0..)     | GIVE_ITEM0+d                                                               |
| empire          | HIRE_AGENT, TARGET0+k, GIVE0+4d+t, TAKE_ONE0+t, DROP_ONE0+t, SHIP0+d,      |
| (EMPIRE0..)     | REROLL, KEEP_ROLL, RECRUIT_SP, LOSS_SP0+u, ALLY_PROPOSE0 / ALLY_BREAK0 /    |
|                 | ALLY_GOLD0 (+r-1), ALLY_ACCEPT, ALLY_DECLINE, FLEET0+6k+d, GIVE_SP0+13d+u, |
|                 | PASS0+d, LOOK0+d, CEDE0+r-1, HERO_TO0+r-1                                  |
| spell targets   | MAGIC_SPGROUP0+u (a special-unit group)                                    |
| combined attack | BATTLE_JOIN0+d, BATTLE_START, BATTLE_ACCEPT, BATTLE_DECLINE, then the two  |
| (COMBINED0..)   | garrison moves of special units TAKE_SPECIAL, DROP_SPECIAL                  |
| Luck            | LUCK_MINE, LUCK_FOE (reroll one die of a battle segment)                   |

d: a direction (board.DIR_NAMES), t: a basic troop type (config.BASIC), u: a special unit kind
(config.SPECIALS), k: a slot or card id, r: a player r seats after the actor.
"""
from __future__ import annotations

from ..core.game import seats_after
from .board import DIR_NAMES
from .state import WarbahState
from .tables import BASIC, SPECIALS

# -- base ---------------------------------------------------------------------------------------
DONE, RECRUIT, TAKE_GARRISON, RECRUIT_HERO, CALL_OFF, CONTINUE = 6, 7, 8, 9, 10, 11
CASUALTY0 = 12            # 12..15: lose one warrior/archer/cavalry/catapult
CAPITOL0 = 16             # 16..23: capitol candidate k
CAPITOL_AUTO = 24
EXCHANGE0 = 25            # 25..30: hand the army to the friendly hero in direction d
DROP_OFF = 31             # drop troops of the settlement's type into its garrison
BASE_END = 32
# -- magic: spells, wizards, towers, magic items ------------------------------------------------
SPELLS0 = BASE_END
REALM0 = SPELLS0          # +k: cast (or, in the realm phase, discard) realm spell k (26)
BSPELL0 = REALM0 + 26     # +k: cast battle spell k (42)
GROUP0 = BSPELL0 + 42     # +t: target group warriors/archers/cavalry/catapults/hero/monster (6)
TSEAT0 = GROUP0 + 6       # +r: target the opponent r seats after me (r = 1..3; slot r-1)
CELL0 = TSEAT0 + 3        # +c: target map cell c (99 = largest map)
RECRUIT_WIZARD = CELL0 + 99   # recruit the tower's wizard into the hero on the tower
GIVE_ITEM0 = RECRUIT_WIZARD + 1   # +d: hand one magic item to the friendly hero in direction d
SPELLS_END = GIVE_ITEM0 + 6
# -- empire: espionage, troop transfers, ships, Luck, special units, alliances, fleets ----------
EMPIRE0 = SPELLS_END
HIRE_AGENT = EMPIRE0      # espionage: hire one more agent (1 gold, up to the espionage roll)
TARGET0 = EMPIRE0 + 1     # +0..11: pick target slot k (espionage results; see espionage.py)
TARGET_SLOTS = 12
GIVE0 = TARGET0 + TARGET_SLOTS   # +4*d+t: give one troop of type t to the friendly hero in dir d
TAKE_ONE0 = GIVE0 + 24    # +t: take one garrison troop of type t into the acting hero's army
DROP_ONE0 = TAKE_ONE0 + 4  # +t: drop one troop of type t into the settlement's garrison
SHIP0 = DROP_ONE0 + 4     # +d: recruit one ship into the adjacent water hex in direction d
REROLL, KEEP_ROLL = SHIP0 + 6, SHIP0 + 7   # Luck: reroll the die just rolled / keep it
RECRUIT_SP = KEEP_ROLL + 1   # recruit one special unit at this variant hex into the Hero there
LOSS_SP0 = RECRUIT_SP + 1    # +u: lose one special unit of kind u (config.SPECIALS, 13)
ALLY_PROPOSE0 = LOSS_SP0 + 13   # +r-1: offer an alliance to the player r seats on (allies=True)
ALLY_BREAK0 = ALLY_PROPOSE0 + 3  # +r-1: declare the alliance with that player over
ALLY_GOLD0 = ALLY_BREAK0 + 3     # +r-1: give one gold to that ally
ALLY_ACCEPT, ALLY_DECLINE = ALLY_GOLD0 + 3, ALLY_GOLD0 + 4
FLEET0 = ALLY_DECLINE + 1   # +6*k+d: move own unmanned fleet k (k < 4, by cell) one hex in dir d
FLEET_SLOTS = 4
GIVE_SP0 = FLEET0 + 6 * FLEET_SLOTS   # +13*d+u: give one special unit u to the friendly hero in d
PASS0 = GIVE_SP0 + 6 * 13   # +d: two hexes straight on through a friendly/allied hero
LOOK0 = PASS0 + 6   # +d: Scouting: look at the index card of the adjacent Hero in direction d
CEDE0 = LOOK0 + 6    # +r-1: cede the settlement the acting hero stands on to ally r (allies)
HERO_TO0 = CEDE0 + 3  # +r-1: hand the acting hero (army, items) over to ally r (allies)
EMPIRE_END = HERO_TO0 + 3
# -- spell targets: special-unit groups -----------------------------------------------------------
SPELL_TARGETS0 = EMPIRE_END
MAGIC_SPGROUP0 = SPELL_TARGETS0  # +u: battle-spell target = special-unit group u (13)
SPELL_TARGETS_END = MAGIC_SPGROUP0 + 13
# -- combined attacks (declare, add joining Heroes, start), garrison special units -------------
COMBINED0 = SPELL_TARGETS_END
BATTLE_JOIN0 = COMBINED0  # +d: the own/allied Hero in direction d from the target joins in
BATTLE_START = BATTLE_JOIN0 + 6   # start the declared (combined) attack
BATTLE_ACCEPT, BATTLE_DECLINE = BATTLE_START + 1, BATTLE_START + 2  # an ally answers a call
TAKE_SPECIAL = BATTLE_DECLINE + 1  # take one special unit (e.g. Knights) from the garrison
DROP_SPECIAL = TAKE_SPECIAL + 1  # drop one special unit of the settlement's kind into it
COMBINED_END = DROP_SPECIAL + 1
# -- Luck: reroll one die of a battle segment (luck.window, battle_luck.py) ---------------------
LUCK0 = COMBINED_END
LUCK_MINE = LUCK0         # reroll one of my side's missed attack dice of this segment
LUCK_FOE = LUCK0 + 1      # reroll one of the foe's successful attack dice of this segment
LUCK_END = LUCK0 + 2
NUM_ACTIONS = LUCK_END

_GROUP_NAMES = ("warriors", "archers", "cavalry", "catapults", "hero", "monster")


def _after(st: WarbahState, k: int) -> str:
    """The player ``k`` seats after the one to act, by name (``player_<seat>``)."""
    if st.to_act < 0:
        return seats_after(k)
    return f"player_{(st.to_act + k) % st.game.num_seats}"


def _seats(what: str):
    return lambda st, i: f"{what} {_after(st, i + 1)}"


def _realm(st: WarbahState, i: int) -> str:
    T = st.game.spells
    if i >= T.NR:
        return f"action {REALM0 + i}"
    verb = "discard" if st.phase == "realm" and st.magic.window == "discard" else "cast"
    return f"{verb} realm spell {T.realm_names[i]}"


def _direction(st: WarbahState, i: int) -> str:
    """A direction action: an attack (battle phase), a realm spell's hex target (realm_target:
    the spell's name), else a move or exploration."""
    if st.phase == "battle":
        return f"attack {DIR_NAMES[i]}"
    if st.phase == "realm_target" and st.magic.pending is not None:
        return f"cast realm spell {st.game.spells.realm_names[st.magic.pending[0]]} at the hex {DIR_NAMES[i]}"
    return f"move/explore {DIR_NAMES[i]}"


def _battle_spell(st: WarbahState, i: int) -> str:
    T = st.game.spells
    return f"cast battle spell {T.battle_names[i]}" if i < T.NB else f"action {BSPELL0 + i}"


#: (first action, how many, text(state, offset)) for every block of the layout
_TEXTS = (
    (0, 6, lambda st, i: _direction(st, i)),
    (DONE, 1, lambda st, i: "done"), (RECRUIT, 1, lambda st, i: "recruit one"),
    (TAKE_GARRISON, 1, lambda st, i: "take garrison"),
    (RECRUIT_HERO, 1, lambda st, i: "recruit hero"), (CALL_OFF, 1, lambda st, i: "call off attack"),
    (CONTINUE, 1, lambda st, i: "continue attack"),
    (CASUALTY0, 4, lambda st, i: f"lose one of {BASIC[i]}"),
    (CAPITOL0, 8, lambda st, i: f"capitol at candidate {i}"),
    (CAPITOL_AUTO, 1, lambda st, i: "capitol: auto"),
    (EXCHANGE0, 6, lambda st, i: f"hand army to friendly hero {DIR_NAMES[i]}"),
    (DROP_OFF, 1, lambda st, i: "drop troops into the garrison"),
    (REALM0, 26, _realm), (BSPELL0, 42, _battle_spell),
    (GROUP0, 6, lambda st, i: f"target group {_GROUP_NAMES[i]}"),
    (TSEAT0, 3, lambda st, i: f"target {_after(st, i + 1)}"),
    (CELL0, 99, lambda st, i: f"target cell {i}"),
    (RECRUIT_WIZARD, 1, lambda st, i: "recruit the tower's wizard"),
    (GIVE_ITEM0, 6, lambda st, i: f"hand a magic item to the friendly hero {DIR_NAMES[i]}"),
    (HIRE_AGENT, 1, lambda st, i: "hire an agent"),
    (TARGET0, TARGET_SLOTS, lambda st, i: f"target slot {i}"),
    (GIVE0, 24, lambda st, i: f"give one {BASIC[i % 4]} to the hero {DIR_NAMES[i // 4]}"),
    (TAKE_ONE0, 4, lambda st, i: f"take one {BASIC[i]} from the garrison"),
    (DROP_ONE0, 4, lambda st, i: f"drop one {BASIC[i]} into the garrison"),
    (SHIP0, 6, lambda st, i: f"recruit a ship {DIR_NAMES[i]}"),
    (REROLL, 1, lambda st, i: "Luck: reroll"), (KEEP_ROLL, 1, lambda st, i: "Luck: keep the roll"),
    (RECRUIT_SP, 1, lambda st, i: "recruit one special unit here"),
    (LOSS_SP0, len(SPECIALS), lambda st, i: f"lose one of {SPECIALS[i]}"),
    (ALLY_PROPOSE0, 3, _seats("offer an alliance to")),
    (ALLY_BREAK0, 3, _seats("end the alliance with")),
    (ALLY_GOLD0, 3, _seats("give one gold to")),
    (ALLY_ACCEPT, 1, lambda st, i: "accept the alliance"),
    (ALLY_DECLINE, 1, lambda st, i: "decline the alliance"),
    (FLEET0, 6 * FLEET_SLOTS, lambda st, i: f"move unmanned fleet {i // 6} {DIR_NAMES[i % 6]}"),
    (GIVE_SP0, 6 * 13,
     lambda st, i: f"give one {SPECIALS[i % 13]} to the hero {DIR_NAMES[i // 13]}"),
    (PASS0, 6, lambda st, i: f"move through the friendly hero {DIR_NAMES[i]} (two hexes)"),
    (LOOK0, 6, lambda st, i: f"Scouting: look at the card of the hero {DIR_NAMES[i]}"),
    (CEDE0, 3, lambda st, i: f"cede this settlement to the ally {_after(st, i + 1)}"),
    (HERO_TO0, 3, lambda st, i: f"hand this hero over to the ally {_after(st, i + 1)}"),
    (MAGIC_SPGROUP0, len(SPECIALS), lambda st, i: f"target group {SPECIALS[i]}"),
    (BATTLE_JOIN0, 6,
     lambda st, i: f"combined attack: the hero {DIR_NAMES[i]} of the target joins"),
    (BATTLE_START, 1, lambda st, i: "start the (combined) attack"),
    (BATTLE_ACCEPT, 1, lambda st, i: "join the ally's attack"),
    (BATTLE_DECLINE, 1, lambda st, i: "do not join the attack"),
    (TAKE_SPECIAL, 1, lambda st, i: "take one special unit from the garrison"),
    (DROP_SPECIAL, 1, lambda st, i: "drop one special unit into the garrison"),
    (LUCK_MINE, 1, lambda st, i: "Luck: reroll one of my missed attack dice"),
    (LUCK_FOE, 1, lambda st, i: "Luck: reroll one of the foe's hits"),
)
_TEXT_OF: list = [None] * NUM_ACTIONS  # action -> (text function, offset in its block)
for _first, _n, _fn in _TEXTS:
    for _i in range(_n):
        _TEXT_OF[_first + _i] = (_fn, _i)

#: the kind of decision each block of _TEXTS is (by its first action): the names ``decode`` gives
_KINDS = {0: "step", DONE: "done", RECRUIT: "recruit", TAKE_GARRISON: "garrison",
          RECRUIT_HERO: "recruit", CALL_OFF: "attack", CONTINUE: "attack", CASUALTY0: "casualty",
          CAPITOL0: "capitol", CAPITOL_AUTO: "capitol", EXCHANGE0: "exchange", DROP_OFF: "garrison",
          REALM0: "realm_spell", BSPELL0: "battle_spell", GROUP0: "spell_target",
          TSEAT0: "spell_target", CELL0: "spell_target", RECRUIT_WIZARD: "recruit",
          GIVE_ITEM0: "exchange", HIRE_AGENT: "espionage", TARGET0: "espionage", GIVE0: "exchange",
          TAKE_ONE0: "garrison", DROP_ONE0: "garrison", SHIP0: "recruit", REROLL: "luck",
          KEEP_ROLL: "luck", RECRUIT_SP: "recruit", LOSS_SP0: "casualty", ALLY_PROPOSE0: "diplomacy",
          ALLY_BREAK0: "diplomacy", ALLY_GOLD0: "diplomacy", ALLY_ACCEPT: "diplomacy",
          ALLY_DECLINE: "diplomacy", FLEET0: "fleet", GIVE_SP0: "exchange", PASS0: "step",
          LOOK0: "espionage", CEDE0: "diplomacy", HERO_TO0: "diplomacy",
          MAGIC_SPGROUP0: "spell_target", BATTLE_JOIN0: "join", BATTLE_START: "join",
          BATTLE_ACCEPT: "join", BATTLE_DECLINE: "join", TAKE_SPECIAL: "garrison",
          DROP_SPECIAL: "garrison", LUCK_MINE: "luck", LUCK_FOE: "luck"}
_KIND_OF: list = [None] * NUM_ACTIONS  # action -> (kind, offset in its block)
for _first, _n, _fn in _TEXTS:
    for _i in range(_n):
        _KIND_OF[_first + _i] = (_KINDS[_first], _i)


def decode(a: int) -> tuple[str, int]:
    """(kind of decision, offset in its block) of action ``a``: imitation diagnostics group the
    clone's agreement by the kind (train/imitation.py ``action_kind``)."""
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{NUM_ACTIONS - 1}")
    return _KIND_OF[a]


def describe(st: WarbahState, a: int) -> str:
    """The text of action ``a`` in state ``st`` (the phase picks move or attack, discard or
    cast; spell names come from the rules tables)."""
    entry = _TEXT_OF[a] if 0 <= a < NUM_ACTIONS else None
    return entry[0](st, entry[1]) if entry is not None else f"action {a}"
