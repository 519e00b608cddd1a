"""Zaka rule scenarios: one test per rule, each built from a small fixture (tests/zaka/helpers.py).

Docstrings name the rulebook section (shared/rulebooks/zaka.txt) or the RULES.md entry for a
designed value. Armies are seats; with 2 players armies 0 and 2 belong to player_0, 1 and 3 to
player_1.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core.game import ConfigError, IllegalActionError
from tests.zaka.helpers import card, hand_ids, names_in, position


def L(st):
    return st.game.layout


def weapon_action(st, weapon_id, slot):
    g = st.game
    return L(st).weapon(card(g, weapon_id) - g.num_monster_designs, slot)


# ---------------------------------------------------------------- STARTING ----------------
def test_setup_deals_five_and_every_hand_has_three_monsters():
    """STARTING: 5 cards each from the shuffled deck; every hand ends with at least 3 monsters;
    no card is lost or duplicated."""
    for k in (2, 3, 4):
        game = envs.make_game("zaka_v0", num_players=k)
        for seed in range(40):
            st = game.new_initial_state(np.random.default_rng(seed))
            for seat in range(game.num_seats):
                assert sum(st.hands[seat]) == 5
                assert st.monsters_in_hand(seat) >= 3
            counts = np.zeros(game.num_designs, int)
            for h in st.hands:
                counts += h
            for d in st.deck:
                counts[d] += 1
            assert counts.tolist() == list(game.copies)
            assert st.phase == "deploy" and st.cur == 0


def test_setup_short_hand_puts_weapons_under_the_deck_and_redraws():
    """STARTING: a hand with fewer than 3 monsters puts its weapons on the bottom of the deck and
    draws as many from the top, repeated until it holds 3 (reshuffle off to see the deck order)."""
    st = position(num_players=3, rules={"reshuffle_after_redraw": False})
    g = st.game
    # cards listed top first; dealt one at a time round the table, so seat 0 gets the 1st, 4th,
    # 7th, 10th and 13th: Ember Wand, Shortsword, Stone Troll, Minotaur, Great Axe (2 monsters)
    top_first = ["wand", "imp", "orc_brute",
                 "shortsword", "sorcerer", "goblin_grunt",
                 "stone_troll", "treant", "wyvern",
                 "minotaur", "hexer", "bandit",
                 "great_axe", "vampire", "reaper",
                 "storm_staff", "dryad", "warlord",     # seat 0's three replacement cards
                 "knight_errant"]
    st.deal_from([card(g, c) for c in reversed(top_first)])
    assert st.redraws == 1
    assert sorted(hand_ids(st, 0)) == sorted(["stone_troll", "minotaur", "storm_staff", "dryad",
                                              "warlord"])
    assert sorted(hand_ids(st, 1)) == sorted(["imp", "sorcerer", "treant", "hexer", "vampire"])
    # the three weapons went under the deck; the untouched card is still on top
    assert sorted(g.cards[d]["id"] for d in st.deck[:3]) == ["great_axe", "shortsword", "wand"]
    assert [g.cards[d]["id"] for d in st.deck[3:]] == ["knight_errant"]


def test_setup_reshuffles_after_a_redraw():
    """STARTING ("shuffle the deck again if needed"): after any redraw the deck is reshuffled,
    so the weapons put under it do not stay at the bottom (flag reshuffle_after_redraw)."""
    game = envs.make_game("zaka_v0", num_players=4)
    moved = 0
    for seed in range(60):
        st = game.new_initial_state(np.random.default_rng(seed))
        if st.redraws:
            bottom_weapons = sum(1 for d in st.deck[:3] if not game.is_monster[d])
            moved += bottom_weapons < 3
    assert moved > 0


# ---------------------------------------------------------------- FIRST TURN --------------
def test_first_turn_one_or_two_monsters_and_no_ability():
    """FIRST TURN: an army places one or two monsters; no weapons, no abilities; it cannot end
    the turn before placing one; after two the turn passes by itself."""
    st = position(num_players=3, hands={0: ["imp", "orc_brute", "sorcerer", "wand"]},
                  fields={1: ["imp"], 2: ["imp"]}, phase="deploy",
                  deployed=[False, True, True])
    g = st.game
    mask = st.legal_actions_mask()
    legal = set(np.flatnonzero(mask))
    assert legal == {card(g, "imp"), card(g, "orc_brute"), card(g, "sorcerer")}
    with pytest.raises(IllegalActionError):
        st.apply(L(st).end_play)
    st.apply(card(g, "orc_brute"))
    assert st.legal_actions_mask()[L(st).end_play] == 1
    assert not st.legal_actions_mask()[L(st).use_monster:].any()
    st.apply(card(g, "imp"))
    assert st.cur == 1 and names_in(st, 0) == ["orc_brute", "imp"] and st.deployed[0]


def test_first_turn_may_stop_after_one_monster():
    """FIRST TURN: one monster is enough; END_PLAY then ends the turn without an ability."""
    st = position(num_players=3, hands={0: ["imp", "orc_brute", "sorcerer"]},
                  fields={1: ["imp"], 2: ["imp"]}, phase="deploy", deployed=[False, True, True])
    st.apply(card(st.game, "sorcerer"))
    st.apply(L(st).end_play)
    assert st.cur == 1 and names_in(st, 0) == ["sorcerer"]
    assert sum(st.hands[0]) == 2


def test_first_round_nobody_is_out_before_deploying():
    """FIRST TURN: an army with no monster yet is not out while it waits for its first turn."""
    game = envs.make_game("zaka_v0", num_players=4)
    st = game.new_initial_state(np.random.default_rng(5))
    st.apply(st.legal_actions()[0])
    st.apply(game.layout.end_play)
    assert st.cur == 1 and not any(st.out)


# ---------------------------------------------------------------- REGULAR TURNS -----------
def test_regular_turn_plays_at_most_two_cards_then_one_ability():
    """REGULAR TURNS: play up to 2 cards (monsters or weapons), then use one ability; after two
    cards the play step is over; the turn ends with the ability."""
    st = position(num_players=3, fields={0: ["orc_brute"], 1: ["treant"], 2: ["imp"]},
                  hands={0: ["goblin_grunt", "sorcerer", "shortsword"]})
    g = st.game
    st.apply(card(g, "goblin_grunt"))
    assert st.phase == "play"
    st.apply(weapon_action(st, "shortsword", 0))
    assert st.phase == "ability"
    mask = st.legal_actions_mask()
    assert not mask[:L(st).use_monster].any(), "no card play after the play step"
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[1][0][1] == 7 - 3 and st.cur == 1
    assert hand_ids(st, 0) == ["sorcerer"]


def test_play_step_is_optional():
    """REGULAR TURNS step 1 is optional: END_PLAY goes straight to the ability."""
    st = position(num_players=3, fields={0: ["orc_brute"], 1: ["imp"], 2: ["imp"]},
                  hands={0: ["sorcerer"]})
    st.apply(L(st).end_play)
    assert st.phase == "ability" and hand_ids(st, 0) == ["sorcerer"]


def test_play_step_skipped_when_nothing_can_be_played():
    """REGULAR TURNS (designed shortcut): with nothing playable the turn starts at the ability."""
    st = position(num_players=3, fields={0: ["orc_brute"], 1: ["imp", "imp"], 2: ["imp"]},
                  hands={1: ["heartstone"]}, cur=2, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))   # army 2 hits army 0
    # army 0 has an empty hand -> ability at once
    assert st.cur == 0 and st.phase == "ability"


def test_ability_is_used_on_one_target():
    """REGULAR TURNS step 2: exactly one active monster's ability on one target."""
    st = position(num_players=3, fields={0: ["orc_brute", "imp"], 1: ["sorcerer", "imp"],
                                         2: ["treant"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert [m[1] for m in st.fields[1]] == [2, 3]
    assert [m[1] for m in st.fields[2]] == [7]


# ---------------------------------------------------------------- HEARTS ------------------
def test_monster_enters_at_full_hearts_and_damage_moves_it_down():
    """HEARTS: a played monster starts with all its hearts; damage removes hearts one by one."""
    st = position(num_players=3, fields={0: ["warlord"], 1: ["goblin_grunt"], 2: ["imp"]},
                  hands={1: ["stone_troll"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 2, 0))   # Warlord (3) on army 2's Imp (3) -> defeated
    assert st.fields[2] == [] and st.out[2]
    st2 = position(num_players=3, fields={0: ["goblin_grunt"], 1: ["stone_troll"], 2: ["imp"]},
                   hands={0: ["stone_troll"]})
    st2.apply(card(st2.game, "stone_troll"))
    assert st2.fields[0][-1][1] == 7 and st2.phase == "ability"   # hand empty: play step over
    st2.apply(L(st2).use_on_monster(0, 1, 0))
    assert st2.fields[1][0][1] == 6


# ---------------------------------------------------------------- ATTACK ABILITIES --------
def test_attack_deals_its_swords():
    """ATTACK ABILITIES: Attack removes as many hearts as its swords."""
    st = position(num_players=3, fields={0: ["orc_brute"], 1: ["treant"], 2: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[1][0][1] == 5


def test_rampage_hits_every_monster_of_one_opponent():
    """ATTACK ABILITIES: Rampage deals its damage to each active monster of one opponent only."""
    st = position(num_players=3, fields={0: ["minotaur"], 1: ["imp", "treant", ("sorcerer", 1)],
                                         2: ["imp"]}, phase="ability")
    mask = st.legal_actions_mask()
    assert mask[L(st).use_on_army(0, 1)] and mask[L(st).use_on_army(0, 2)]
    assert not mask[L(st).use_on_army(0, 0)]
    assert not mask[L(st).use_monster:L(st).use_army].any(), "Rampage aims at an army"
    st.apply(L(st).use_on_army(0, 1))
    assert [m[1] for m in st.fields[1]] == [2, 6]
    assert [m[1] for m in st.fields[2]] == [3]


def test_never_damage_own_monsters():
    """ATTACK ABILITIES NOTE: a player never damages their own monsters."""
    st = position(num_players=3, fields={0: ["orc_brute", "minotaur"], 1: ["imp"], 2: ["imp"]},
                  phase="ability")
    mask = st.legal_actions_mask()
    for user in range(2):
        for t in range(2):
            assert not mask[L(st).use_on_monster(user, 0, t)]
        assert not mask[L(st).use_on_army(user, 0)]
    with pytest.raises(IllegalActionError, match="own monsters"):
        st.apply(L(st).use_on_monster(0, 0, 1))


def test_two_players_own_armies_are_safe_by_default():
    """2 PLAYER GAME + NOTE (reading two_player_friendly='owner'): a player's two armies never
    damage each other; Rampage aims only at the other player's armies."""
    st = position(num_players=2, fields={0: ["orc_brute", "minotaur"], 1: ["imp"],
                                         2: ["sorcerer"], 3: ["imp"]}, phase="ability")
    mask = st.legal_actions_mask()
    assert not mask[L(st).use_on_monster(0, 2, 0)]
    assert mask[L(st).use_on_monster(0, 1, 0)] and mask[L(st).use_on_monster(0, 3, 0)]
    assert not mask[L(st).use_on_army(1, 2)] and mask[L(st).use_on_army(1, 3)]


def test_two_players_armies_fight_reading():
    """2 PLAYER GAME, other reading (two_player_friendly='army'): each army protects only itself,
    so a player's other army is a legal target, but the game still ends when one player is left."""
    st = position(num_players=2, fields={0: ["orc_brute"], 1: ["imp"], 2: [("sorcerer", 2)],
                                         3: ["imp"]}, phase="ability",
                  rules={"two_player_friendly": "army"})
    assert st.legal_actions_mask()[L(st).use_on_monster(0, 2, 0)]
    st.apply(L(st).use_on_monster(0, 2, 0))
    assert st.out[2] and not st.is_terminal()


def test_mend_heals_friends_across_a_players_two_armies():
    """2 PLAYER GAME + designed Mend: with the 'owner' reading the other own army is friendly, so
    a mender may heal it; a mender never heals itself or another mender."""
    st = position(num_players=2, fields={0: ["battle_cleric", "dryad", ("orc_brute", 1)],
                                         1: ["imp"], 2: [("sorcerer", 1)], 3: ["imp"]},
                  phase="ability")
    mask = st.legal_actions_mask()
    assert mask[L(st).use_on_monster(0, 2, 0)] and mask[L(st).use_on_monster(0, 0, 2)]
    assert not mask[L(st).use_on_monster(0, 0, 0)] and not mask[L(st).use_on_monster(0, 0, 1)]
    assert not mask[L(st).use_on_monster(0, 1, 0)], "Mend does not heal enemies"
    st.apply(L(st).use_on_monster(0, 2, 0))
    assert st.fields[2][0][1] == 3


def test_mend_never_above_full_hearts():
    """HEARTS: a monster never has more hearts than it started with (Mend, Drain, heart weapons)."""
    st = position(num_players=3, fields={0: ["dryad", ("orc_brute", 4)], 1: ["imp"], 2: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 0, 1))
    assert st.fields[0][1][1] == 5


def test_lone_menders_pass_their_turn():
    """Designed Mend: menders with no other friendly monster have no legal ability; the turn
    ends after the play step (and is skipped when nothing can be played either)."""
    st = position(num_players=3, fields={0: ["dryad"], 1: ["imp"], 2: ["imp"]},
                  hands={0: ["heartstone"]})
    assert set(np.flatnonzero(st.legal_actions_mask())) == {weapon_action(st, "heartstone", 0),
                                                            L(st).end_play}
    st.apply(L(st).end_play)
    assert st.cur == 1


def test_stalemate_when_nobody_can_act():
    """Designed end: a full round in which no army can act ends the game (ranked by hearts)."""
    st = position(num_players=3, fields={0: ["orc_brute"], 1: ["dryad"], 2: [("battle_cleric", 1)]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 2, 0))      # army 2 falls, army 1's lone Dryad cannot act
    assert st.out[2] and not st.is_terminal()
    st2 = position(num_players=2, fields={0: ["dryad"], 1: ["battle_cleric"], 2: [], 3: []},
                   deployed=[True] * 4, phase="ability")
    st2.out = [False, False, True, True]
    st2.fields[0].append(st2.fields[0][0][:])   # two Dryads: they cannot mend each other
    st2._end_turn()
    assert st2.is_terminal() and st2.end_reason == "stalemate"
    assert st2.final_info()["ended_by"] == "designed"    # the game cannot go on


# ---------------------------------------------------------------- DEFEATING A MONSTER -----
def test_defeated_monster_discarded_with_weapon_and_killer_draws():
    """DEFEATING A MONSTER: at zero hearts or below it goes to the discard pile with its weapon;
    the army that struck the final blow takes the top card of the deck."""
    st = position(num_players=3, fields={0: ["warlord"], 1: [("orc_brute", 2, "great_axe"), "imp"],
                                         2: ["imp"]}, deck=["imp", "wand"], phase="ability")
    g = st.game
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert names_in(st, 1) == ["imp"]
    assert sorted(g.cards[d]["id"] for d in st.discard) == ["great_axe", "orc_brute"]
    assert hand_ids(st, 0) == ["wand"] and [g.cards[d]["id"] for d in st.deck] == ["imp"]
    assert st.kills[0] == 1


def test_reward_card_playable_from_next_turn():
    """DEFEATING A MONSTER: the reward card is not played in the turn it is drawn (the ability
    ends the turn) and can be played on the killer's next turn."""
    st = position(num_players=3, fields={0: ["warlord"], 1: [("imp", 1), "treant"], 2: ["treant"]},
                  deck=["sorcerer"], phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.cur == 1 and hand_ids(st, 0) == ["sorcerer"]
    st.apply(L(st).use_on_monster(0, 1, 0))    # army 1 (Treant) hits army 2
    st.apply(L(st).use_on_monster(0, 1, 0))    # army 2 hits army 0
    assert st.cur == 0 and st.legal_actions_mask()[card(st.game, "sorcerer")]


def test_kill_reward_per_monster_and_per_ability():
    """DEFEATING A MONSTER (reading kill_reward): a Rampage that defeats two monsters draws two
    cards by default (one per final blow); 'per_ability' draws one."""
    for reading, drawn in (("per_monster", 2), ("per_ability", 1)):
        st = position(num_players=3, fields={0: ["elder_dragon"], 1: [("imp", 2), ("imp", 1), "treant"],
                                             2: ["imp"]},
                      deck=["imp", "imp", "imp"], phase="ability", rules={"kill_reward": reading})
        st.apply(L(st).use_on_army(0, 1))
        assert sum(st.hands[0]) == drawn and st.kills[0] == 2


def test_empty_deck_no_reward_or_reshuffle():
    """Designed (empty_deck): by default a kill with an empty deck draws nothing; with
    'reshuffle_discard' the discard pile becomes the new deck first."""
    st = position(num_players=3, fields={0: ["warlord"], 1: [("imp", 1), "treant"], 2: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert sum(st.hands[0]) == 0 and st.rewards_lost == 1
    st = position(num_players=3, fields={0: ["warlord"], 1: [("imp", 1), "treant"], 2: ["imp"]},
                  discard=["wand"], phase="ability", rules={"empty_deck": "reshuffle_discard"})
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert sum(st.hands[0]) == 1 and st.rewards_lost == 0
    assert len(st.deck) == 1 and not st.discard   # imp + wand reshuffled, one drawn


def test_army_without_monsters_is_out_even_with_monsters_in_hand():
    """DEFEATING A MONSTER: an army with no active monster has lost, whatever its hand holds; its
    turns are skipped and its hand is discarded face up."""
    st = position(num_players=3, fields={0: ["warlord"], 1: [("imp", 2)], 2: ["treant"]},
                  hands={1: ["orc_brute", "sorcerer"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.out[1] and st.cur == 2
    assert sum(st.hands[1]) == 0 and len(st.discard) == 3
    st.apply(L(st).use_on_monster(0, 1, 0))    # army 2 hits army 0; army 1 is skipped
    assert st.cur == 0


# ---------------------------------------------------------------- WEAPONS -----------------
def test_weapon_only_on_matching_own_monster_one_each():
    """WEAPONS: never played alone, only onto an own monster with the same weapon-type symbol that
    holds no weapon yet."""
    st = position(num_players=3, fields={0: ["orc_brute", "imp", ("goblin_grunt", 3, "shortsword")],
                                         1: ["imp"], 2: ["imp"]},
                  hands={0: ["great_axe", "storm_staff"]})
    mask = st.legal_actions_mask()
    assert mask[weapon_action(st, "great_axe", 0)]
    assert not mask[weapon_action(st, "great_axe", 1)], "Blade weapon on a Rune monster"
    assert not mask[weapon_action(st, "great_axe", 2)], "a monster holds one weapon"
    assert mask[weapon_action(st, "storm_staff", 1)]
    assert not mask[weapon_action(st, "storm_staff", 0)]
    with pytest.raises(IllegalActionError, match="already holds"):
        st.apply(weapon_action(st, "great_axe", 2))


def test_weapon_adds_swords_and_stays():
    """WEAPONS: a weapon adds its swords to the ability (1 + 1 = 2) and stays with its monster."""
    st = position(num_players=3, fields={0: ["goblin_grunt"], 1: ["treant"], 2: ["imp"]},
                  hands={0: ["shortsword"]})
    st.apply(weapon_action(st, "shortsword", 0))
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[1][0][1] == 5
    assert st.fields[0][0][2] == card(st.game, "shortsword")


def test_weapon_type_bonus():
    """WEAPONS: some weapons deal extra damage to monsters of one weapon type (Runebane Spear:
    +1, +2 more against Rune monsters)."""
    st = position(num_players=3, fields={0: [("goblin_grunt", 3, "runebane_spear")],
                                         1: ["treant"], 2: ["stone_troll"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[1][0][1] == 7 - 4
    st = position(num_players=3, fields={0: [("goblin_grunt", 3, "runebane_spear")],
                                         1: ["treant"], 2: ["stone_troll"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 2, 0))
    assert st.fields[2][0][1] == 7 - 2


def test_heart_weapon_heals_when_ability_used():
    """WEAPONS: a heart weapon lets its holder recover one heart each time its ability is used,
    on top of the ability, never above full."""
    st = position(num_players=3, fields={0: [("orc_brute", 2, "troll_buckler")], 1: ["treant"],
                                         2: ["imp"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[0][0][1] == 3 and st.fields[1][0][1] == 5   # heart adds no sword
    st = position(num_players=3, fields={0: [("orc_brute", 5, "troll_buckler")], 1: ["treant"],
                                         2: ["imp"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[0][0][1] == 5


# ---------------------------------------------------------------- designed abilities ------
def test_disarm_discards_the_targets_weapon():
    """Designed card ability (weapons "unjoined" by a card): Disarm / Dispel discards the target's
    weapon after the damage."""
    st = position(num_players=3, fields={0: ["knight_errant"], 1: [("treant", 7, "storm_staff")],
                                         2: ["imp"]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[1][0] == [card(st.game, "treant"), 6, -1]
    assert st.discard == [card(st.game, "storm_staff")]


def test_snatch_moves_a_matching_weapon():
    """Designed card ability (weapons moved by a card): Snatch takes the target's weapon when it
    matches and the Bandit holds none, then hits with it; otherwise the weapon stays put."""
    st = position(num_players=3, fields={0: ["bandit"], 1: [("stone_troll", 7, "great_axe")],
                                         2: [("treant", 7, "storm_staff")]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[0][0][2] == card(st.game, "great_axe") and st.fields[1][0][2] == -1
    assert st.fields[1][0][1] == 7 - 3
    st = position(num_players=3, fields={0: ["bandit"], 1: [("stone_troll", 7, "great_axe")],
                                         2: [("treant", 7, "storm_staff")]}, phase="ability")
    st.apply(L(st).use_on_monster(0, 2, 0))     # Rune weapon: the Bandit cannot hold it
    assert st.fields[0][0][2] == -1 and st.fields[2][0][2] == card(st.game, "storm_staff")


def test_drain_heals_the_vampire():
    """Designed card ability: Drain deals its damage, then the Vampire recovers 1 heart."""
    st = position(num_players=3, fields={0: [("vampire", 2)], 1: ["treant"], 2: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[0][0][1] == 3 and st.fields[1][0][1] == 5


def test_reap_finishes_a_weak_monster():
    """Designed card ability: Reap defeats a target left with 2 hearts or fewer."""
    st = position(num_players=3, fields={0: ["reaper"], 1: [("orc_brute", 3), "imp"], 2: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert names_in(st, 1) == ["imp"]
    st = position(num_players=3, fields={0: ["reaper"], 1: [("orc_brute", 4), "imp"], 2: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.fields[1][0][1] == 3


def test_battlefield_cap():
    """Designed (battlefield_cap): an army holds at most 8 active monsters."""
    st = position(num_players=3, fields={0: ["imp"] * 8, 1: ["imp"], 2: ["imp"]},
                  hands={0: ["orc_brute", "wand"]})
    mask = st.legal_actions_mask()
    assert not mask[card(st.game, "orc_brute")] and mask[weapon_action(st, "wand", 7)]


# ---------------------------------------------------------------- ENDING ------------------
def test_last_player_with_monsters_wins_two_player_owner():
    """ENDING + 2 PLAYER GAME: the owner of the last army standing wins; both of a player's armies
    get the player's reward (+1 / -1)."""
    st = position(num_players=2, fields={0: ["warlord"], 1: [("imp", 1)], 2: [], 3: []},
                  phase="ability")
    st.out = [False, False, True, True]
    st.elim = [-1, -1, 0, 1]
    st.n_elim = 2
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.is_terminal() and st.winner() == 0
    assert st.returns().tolist() == [1.0, -1.0, 1.0, -1.0]
    assert st.final_info()["ended_by"] == "rules"        # the rulebook's ENDING


def test_two_player_game_continues_while_each_player_has_an_army():
    """2 PLAYER GAME: losing one army does not lose the game while the other army stands."""
    st = position(num_players=2, fields={0: ["warlord"], 1: [("imp", 1)], 2: ["imp"], 3: ["imp"]},
                  phase="ability")
    st.apply(L(st).use_on_monster(0, 1, 0))
    assert st.out[1] and not st.is_terminal() and st.cur == 2


def test_four_player_rank_rewards():
    """ENDING: the last player standing ranks first, the others by how long they lasted; rank
    rewards sum to zero (1, 1/3, -1/3, -1)."""
    st = position(num_players=4, fields={0: ["warlord"], 1: [], 2: [("imp", 2)], 3: []},
                  phase="ability")
    st.out = [False, True, False, True]
    st.elim = [-1, 1, -1, 0]
    st.n_elim = 2
    st.apply(L(st).use_on_monster(0, 2, 0))
    assert st.is_terminal()
    ret = st.returns()
    assert np.allclose(ret, [1.0, -1 / 3, 1 / 3, -1.0]) and abs(ret.sum()) < 1e-9


def test_turn_limit_ranks_survivors_by_hearts():
    """Designed (max_turns): the game ends after the turn limit; surviving players are ranked by
    hearts left on their battlefields."""
    st = position(num_players=3, fields={0: ["imp"], 1: ["treant"], 2: ["goblin_grunt"]},
                  phase="ability", rules={"max_turns": 10})
    st.turns_done = 9
    st.apply(L(st).use_on_monster(0, 2, 0))
    assert st.is_terminal() and st.end_reason == "turn limit"
    assert np.allclose(st.returns(), [0.0, 1.0, -1.0])
    assert st.final_info()["ended_by"] == "cap"          # a backstop, not the rulebook's ending


# ---------------------------------------------------------------- options -----------------
@pytest.mark.parametrize("kwargs", [
    {"num_players": 1}, {"num_players": 5}, {"num_players": "2"},
    {"rules": {"empty_deck": "burn"}}, {"rules": {"no_such_rule": 1}},
    {"rules": {"max_turns": 5}}, {"rules": {"two_player_friendly": True}},
    {"config_path": "/nonexistent/zaka.yaml"},
])
def test_bad_options_raise_config_error(kwargs):
    """Config validation: unknown or out-of-range options raise ConfigError."""
    with pytest.raises(ConfigError):
        envs.make_game("zaka_v0", **kwargs)


def test_every_card_has_name_numbers_and_text():
    """Designed deck: every card has a name, its numbers and ability text; both weapon types,
    heart weapons and type-bonus weapons exist; enough cards for four hands plus rewards."""
    g = envs.make_game("zaka_v0", num_players=4)
    assert g.deck_size >= 4 * 5 + 20
    for c in g.cards:
        assert c["name"] and c["text"] and c["copies"] >= 1
    weapons = [c for c in g.cards if c["kind"] == "weapon"]
    assert {c["type"] for c in weapons} == {0, 1}
    assert any(c["heart"] for c in weapons) and any(c["bonus_vs"] >= 0 for c in weapons)
    monsters = [c for c in g.cards if c["kind"] == "monster"]
    assert len({c["hearts"] for c in monsters}) >= 4 and len({c["swords"] for c in monsters}) >= 3
    assert len({c["ability"] for c in monsters}) == 7


def test_running_score_is_hearts_left_and_feeds_score_shaping():
    """HEARTS (a designed running score for training's score shaping, RULES.md): each army's score
    is the hearts left on its monsters, 0 once it is out; a player's two armies count as their mean
    in the score margin."""
    from tabletop_arena.train.selfplay import score_margins
    st = position(num_players=2, fields={0: ["warlord", ("imp", 1)], 1: ["goblin_grunt"],
                                         2: ["stone_troll"], 3: ["imp"]})
    g = st.game
    hearts = [sum(m[1] for m in st.fields[t]) for t in range(4)]
    assert st.scores() == [float(h) for h in hearts] and hearts[3] > 0
    st.out[3] = True  # an army out scores 0 (its monsters no longer count)
    assert st.scores()[3] == 0.0
    owners = [g.seat_owner(t) for t in range(4)]
    mine = np.mean([hearts[t] for t in range(4) if owners[t] == 0])
    theirs = np.mean([0.0 if t == 3 else hearts[t] for t in range(4) if owners[t] == 1])
    assert np.allclose(score_margins(st, g), [mine - theirs, theirs - mine])
