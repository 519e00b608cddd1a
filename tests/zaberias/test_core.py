"""Zaberias core rules: economy, cities, buying, turns, movement, range, combat, ending."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import ConfigError, IllegalActionError
from tabletop_arena.envs.zaberias import make_game
from tabletop_arena.envs.zaberias import movement as M
from tests.random_play import play_checking

from .util import ScriptedDice, act, attack, blank, cell, legal, on_map, put, select


def test_setup_coins_home_city_and_initiative():
    """Rulebook 1/2: 5 coins to start, a wood city in the home slot, highest die roll starts."""
    g = make_game(num_players=3, tribes=["undead", "humans", "orcs"])
    firsts = set()
    for seed in range(12):
        st = g.new_initial_state(np.random.default_rng(seed))
        first = st.current_player
        firsts.add(first)
        assert st.order[0] == first and sorted(st.order) == [0, 1, 2]
        for s in range(3):
            assert st.city_owner[s * 3] == s and st.city_grade[s * 3] == 1
            # the first player already collected the wood city's coin (designed: income on turn 1)
            assert st.coins[s] == (6 if s == first else 5)
    assert len(firsts) > 1


def test_income_cities_mines_and_cap_six():
    """Rulebook 3 and 9: income wood 1, metal 2, gold 3, +1 per occupied gold mine; max 6."""
    st = blank(coins=0)
    st.city_owner[2], st.city_grade[2] = 0, 2          # a metal city on the vacant site
    put(st, 0, "Skeleton", 11, 0)                      # on the gold mine
    st._end_turn()                                     # seat 1's turn
    st._end_turn()                                     # back to seat 0: 1 + 2 + 1
    assert st.cur == 0 and st.coins[0] == 4
    st._end_turn(); st._end_turn()
    assert st.coins[0] == 6                            # 4 + 4 capped at six


def test_upgrade_wood_metal_gold_in_order_same_turn():
    """Rulebook 3: wood -> metal (2) -> gold (3), all in one turn allowed, no skipping."""
    st = blank(coins=6)
    assert legal(st, "upgrade") == [0]
    act(st, "upgrade", 0)
    assert st.city_grade[0] == 2 and st.coins[0] == 4
    act(st, "upgrade", 0)
    assert st.city_grade[0] == 3 and st.coins[0] == 1
    assert legal(st, "upgrade") == []


def test_upgrade_needs_coins_and_no_unit():
    """Rulebook 3 Q&A: upgrading needs no unit in the city; but needs the coins."""
    st = blank(coins=1)
    assert legal(st, "upgrade") == []
    st.coins[0] = 2
    st._memo = {}
    assert legal(st, "upgrade") == [0]


def test_buy_unit_in_own_empty_city_grade_limits_and_move_out():
    """Rulebook 3/10: created in an own city with no unit in it, grade limits, moves at once."""
    st = blank(coins=6)
    g = st.game
    buyable = legal(st, "buy")
    assert g.slot_of(0, "Skeleton") in buyable
    assert g.slot_of(0, "Soul Collector") not in buyable       # metal unit, wood city
    assert g.slot_of(0, "Skull Dragon") not in buyable
    act(st, "buy", g.slot_of(0, "Skeleton"))
    assert st.phase == "buy_city" and legal(st, "move") == [cell(st, 13, 0)]
    act(st, "move", cell(st, 13, 0))
    u = g.slot_of(0, "Skeleton")
    assert st.cell[u] == cell(st, 13, 0) and st.coins[0] == 5
    assert legal(st, "buy") == []                 # the city is occupied now
    select(st, u)
    assert cell(st, 12, 0) in legal(st, "move")   # it can move out at once


def test_held_units_cannot_be_recreated():
    """Vampire/Phantom Q&A: a unit held by a Siphon cannot be created again."""
    st = blank(coins=6)
    v = put(st, 1, "Ninja", 1, 1)
    k = 0 * st.game.U + st.game.slot_of(0, "Skeleton")
    st.status[k], st.holder[k] = M.HELD, v
    st.held[v].append(k)
    st._memo = {}
    assert st.game.slot_of(0, "Skeleton") not in legal(st, "buy")


def test_steps_orthogonal_roads_water_and_blocking():
    """Rulebook 5: orthogonal steps, diagonals only along roads, no water for walkers, units
    block walkers, a move never ends on a unit."""
    st = blank()
    k = put(st, 0, "Skeleton", 13, 1)       # 2 steps, on a road end
    select(st, k)
    dests = set(legal(st, "move"))
    assert cell(st, 12, 2) in dests          # diagonal along the road
    assert cell(st, 11, 3) in dests          # two road steps
    assert cell(st, 12, 0) in dests and cell(st, 13, 2) in dests
    st1 = blank()
    mc = put(st1, 0, "Mutant Corpse", 12, 5)     # one step, off any road
    select(st1, mc)
    assert set(legal(st1, "move")) == {cell(st1, 11, 5), cell(st1, 13, 5), cell(st1, 12, 4),
                                       cell(st1, 12, 6)}
    st2 = blank()
    k = put(st2, 0, "Skeleton", 9, 2)
    put(st2, 0, "Crow", 9, 1)
    select(st2, k)
    dests = set(legal(st2, "move"))
    assert cell(st2, 9, 1) not in dests and cell(st2, 9, 0) not in dests   # blocked by a unit
    assert cell(st2, 8, 3) not in dests                                     # water


def test_flyers_and_swimmers_cross_water_flyers_pass_units():
    """Rulebook 5: flyers pass over units and water, must land on an empty square; swimmers."""
    st = blank(tribes=None)
    crow = put(st, 0, "Crow", 9, 2)
    put(st, 1, "Knight", 9, 1)
    select(st, crow)
    dests = set(legal(st, "move"))
    assert cell(st, 9, 0) in dests           # over the Knight
    assert cell(st, 9, 1) not in dests       # never on a unit
    assert cell(st, 8, 3) in dests           # onto water
    st2 = blank(tribes=["humans", "undead"])
    mer = put(st2, 0, "Mermaid", 8, 2)
    select(st2, mer)
    assert cell(st2, 8, 3) in legal(st2, "move")


def test_portals_one_step_and_blocking():
    """Rulebook 9: portal to portal is one step; a unit on a portal blocks everyone, flyers too."""
    st = blank()
    k = put(st, 0, "Skeleton", 10, 3)        # on the bottom board's portal
    select(st, k)
    dests = set(legal(st, "move"))
    top_portal = cell(st, 3, 3)
    assert cell(st, 3, 2) in dests or cell(st, 3, 4) in dests   # through the portal, one more step
    st2 = blank()
    put(st2, 1, "Knight", 3, 3)              # an occupant on the far portal
    bat = put(st2, 0, "Bat", 9, 3)
    select(st2, bat)
    dests = set(legal(st2, "move"))
    assert top_portal not in dests
    assert cell(st2, 2, 3) not in dests and cell(st2, 4, 3) not in dests


def test_range_crosses_water_not_portals():
    """Rulebook 6: range is counted like steps, crosses water, never through a portal."""
    st = blank(tribes=["humans", "undead"])
    archer = put(st, 0, "Archer", 8, 2)
    put(st, 1, "Skeleton", 8, 4)      # across the water square (8,3)
    select(st, archer)
    assert cell(st, 8, 4) in legal(st, "attack")
    geo = st.geo
    assert not geo.in_range(cell(st, 10, 3), cell(st, 3, 3), 3)   # portals are not a link
    assert not geo.in_range(cell(st, 13, 5), cell(st, 11, 5), 1)  # melee: one square only


def test_battle_winner_and_ranged_attacker_survives_losing():
    """Rulebook 6/7: dice + muscle, the loser is removed only if the winner's range reaches."""
    st = blank(tribes=["humans", "undead"])
    archer = put(st, 0, "Archer", 12, 4)
    skel = put(st, 1, "Skeleton", 10, 4)
    attack(st, archer, 10, 4, dice=[1, 5])   # 1+1 vs 5+1: the Archer loses
    assert on_map(st, archer) and on_map(st, skel)
    assert st.last_battle == (2, 6) and st.attacks[archer] == 0


def test_knight_beats_crow_example():
    """Rulebook 7 example: Knight 1 die (2) + 3 = 5 beats Crow 1 die (1) + 2 = 3."""
    st = blank(tribes=["humans", "undead"])
    knight = put(st, 0, "Knight", 11, 5)
    crow = put(st, 1, "Crow", 10, 5)
    attack(st, knight, 10, 5, dice=[2, 1])
    assert not on_map(st, crow) and st.status[crow] == M.ARMORY and on_map(st, knight)
    assert st.last_battle == (5, 3)
    assert st.attacks[knight] == 0


def test_melee_defender_kills_adjacent_attacker():
    """Rulebook 7: a defender that wins removes an attacker its range reaches."""
    st = blank(tribes=["humans", "undead"])
    knight = put(st, 0, "Knight", 11, 5)
    sc = put(st, 1, "Soul Collector", 10, 5)
    attack(st, knight, 10, 5, dice=[1, 3, 3])   # 4 vs 8
    assert not on_map(st, knight) and on_map(st, sc)


def test_tie_attacker_chooses_reroll_or_stand_down():
    """Rulebook 7 and Dice Rule 10: on a tie the attacker rolls again or stands down."""
    st = blank(tribes=["humans", "undead"])
    knight = put(st, 0, "Knight", 11, 5)
    crow = put(st, 1, "Crow", 10, 5)
    attack(st, knight, 10, 5, dice=[1, 2])      # 4 vs 4
    assert st.phase == "tie" and set(legal(st, "reroll") + legal(st, "standdown")) == {0}
    act(st, "standdown")
    assert on_map(st, knight) and on_map(st, crow) and st.attacks[knight] == 0
    st2 = blank(tribes=["humans", "undead"])
    knight = put(st2, 0, "Knight", 11, 5)
    crow = put(st2, 1, "Crow", 10, 5)
    attack(st2, knight, 10, 5, dice=[1, 2, 4, 1])
    act(st2, "reroll")                           # 7 vs 3
    assert not on_map(st2, crow)


def test_ambush_combines_and_defender_kills_all_in_range():
    """Rulebook 8: attackers combine; a winning defender removes every attacker in its range."""
    st = blank(tribes=["humans", "undead"])
    knight = put(st, 0, "Knight", 11, 5)
    archer = put(st, 0, "Archer", 12, 5)
    sc = put(st, 1, "Soul Collector", 10, 5)
    st.rng = ScriptedDice([0, 0, 5, 5])          # 3 + 1 = 4 vs 10 + 2
    select(st, knight)
    act(st, "attack", cell(st, 10, 5))
    assert st.phase == "ambush" and legal(st, "join") == [st.game.slot_of(0, "Archer")]
    act(st, "join", st.game.slot_of(0, "Archer"))
    assert not on_map(st, knight)                # adjacent: in the defender's range
    assert on_map(st, archer)                    # two squares away: out of melee range
    assert st.attacks[archer] == 0               # it still used its attack
    st2 = blank(tribes=["humans", "undead"])
    knight = put(st2, 0, "Knight", 11, 5)
    archer = put(st2, 0, "Archer", 12, 5)
    sc = put(st2, 1, "Soul Collector", 10, 5)
    st2.rng = ScriptedDice([3, 3, 1, 1])         # 6 + 4 = 10 vs 4
    select(st2, knight)
    act(st2, "attack", cell(st2, 10, 5))
    act(st2, "join", st2.game.slot_of(0, "Archer"))
    assert not on_map(st2, sc)


def test_defence_assist_adds_muscle_only():
    """Rulebook 11: friendly units with the attacker in range add their muscle (not dice)."""
    st = blank(tribes=["undead", "humans"])
    skel = put(st, 0, "Skeleton", 11, 5)
    put(st, 1, "Mermaid", 10, 5)
    put(st, 1, "Archer", 11, 3 + 0)          # (11,3) to (11,5): range 2 -> assists with 1
    put(st, 1, "Knight", 4, 4)               # far away: no help
    attack(st, skel, 10, 5, dice=[4, 3])     # 5 vs 3 + 1 + 1 = 5 -> tie
    assert st.last_battle == (5, 5) and st.phase == "tie"


def test_power_star_adds_muscle_attack_and_defence():
    """Rulebook 9: +1 muscle to every unit of the tribe per star held, attacking and defending."""
    st = blank(tribes=["humans", "undead"])
    knight = put(st, 0, "Knight", 12, 4)
    put(st, 0, "Archer", 8, 5)               # on the star (out of reach of the battle)
    assert M.muscle(st, knight) == 4
    crow = put(st, 1, "Crow", 11, 4)
    attack(st, knight, 11, 4, dice=[1, 2])   # 1 + 4 = 5 vs 4
    assert st.last_battle == (5, 4)
    assert not on_map(st, crow)


def test_take_vacant_site_counts_as_attack():
    """Rulebook 10 / 3 Q&A: taking over a vacant site is the unit's attack; wood city free."""
    st = blank(tribes=["humans", "undead"], coins=3)
    knight = put(st, 0, "Knight", 12, 6)
    select(st, knight)
    assert cell(st, 12, 6) in legal(st, "attack")
    act(st, "attack", cell(st, 12, 6))
    assert st.city_owner[2] == 0 and st.city_grade[2] == 1 and st.coins[0] == 3
    assert st.attacks[knight] == 0
    put(st, 1, "Crow", 11, 6)                  # an enemy next to it: no second attack
    st._memo = {}
    assert st.unit_options(knight)["attack"] == []


def test_city_scenario_1_unit_in_city_defends_with_city_dice():
    """Rulebook 10 scenario 1: unit + city dice defend; a win removes unit and city."""
    st = blank(tribes=["humans", "undead"])
    st.city_owner[2], st.city_grade[2] = 1, 1
    knight = put(st, 0, "Knight", 11, 6)
    skel = put(st, 1, "Skeleton", 12, 6)
    attack(st, knight, 12, 6, dice=[5, 1, 1])    # 8 vs 2 + 1
    assert st.last_battle == (8, 3)
    assert not on_map(st, skel) and st.city_owner[2] == -1 and st.city_grade[2] == 0


def test_city_scenario_2_attack_from_inside_and_city_attacks_back():
    """Rulebook 10 scenario 2: a unit in an unoccupied enemy city attacks it; winning puts up
    its own wood city at once; losing removes the unit. The city may attack the unit in it."""
    st = blank(tribes=["humans", "undead"])
    st.city_owner[2], st.city_grade[2] = 1, 2
    knight = put(st, 0, "Knight", 12, 6)
    attack(st, knight, 12, 6, dice=[3, 1, 1])    # 6 vs 2
    assert st.city_owner[2] == 0 and st.city_grade[2] == 1 and on_map(st, knight)
    st2 = blank(tribes=["humans", "undead"])
    st2.city_owner[2], st2.city_grade[2] = 1, 3
    knight = put(st2, 0, "Knight", 12, 6)
    attack(st2, knight, 12, 6, dice=[1, 3, 3, 3])    # 4 vs 9
    assert not on_map(st2, knight) and st2.city_owner[2] == 1
    # the owner's city attacks an enemy unit standing in it, with its dice only
    st3 = blank(tribes=["undead", "humans"])
    st3.city_owner[2], st3.city_grade[2] = 0, 2
    knight = put(st3, 1, "Knight", 12, 6)
    st3._memo = {}
    assert legal(st3, "cityatk") == [2]
    st3.rng = ScriptedDice([5, 5, 0])            # 10 vs 3
    act(st3, "cityatk", 2)
    assert not on_map(st3, knight) and legal(st3, "cityatk") == []


def test_city_scenario_3_from_afar_and_assist_for_empty_city():
    """Rulebook 10 scenario 3: an unoccupied city attacked from afar; losing costs nothing
    (a city has no range); winning removes the city. Rulebook 11: friends assist an empty city."""
    st = blank(tribes=["humans", "undead"])
    st.city_owner[2], st.city_grade[2] = 1, 1
    archer = put(st, 0, "Archer", 10, 6)
    attack(st, archer, 12, 6, dice=[1, 4])       # 2 vs 4
    assert on_map(st, archer) and st.city_owner[2] == 1
    st2 = blank(tribes=["humans", "undead"])
    st2.city_owner[2], st2.city_grade[2] = 1, 1
    archer = put(st2, 0, "Archer", 10, 6)
    put(st2, 1, "Crow", 9, 6)                    # in range of the Archer: assists with 2
    attack(st2, archer, 12, 6, dice=[4, 3])      # 5 vs 3 + 2
    assert st2.phase == "tie"
    st3 = blank(tribes=["humans", "undead"])
    st3.city_owner[2], st3.city_grade[2] = 1, 1
    archer = put(st3, 0, "Archer", 10, 6)
    attack(st3, archer, 12, 6, dice=[5, 1])
    assert st3.city_owner[2] == -1


def test_elimination_and_last_tribe_wins():
    """Rulebook: a tribe with no units and no cities is out; the last one standing wins (the
    game's own ending: ``final_info()["ended_by"] == "rules"``)."""
    st = blank(tribes=["humans", "undead"])
    st.city_owner[3], st.city_grade[3] = -1, 0   # seat 1 loses its home city
    knight = put(st, 0, "Knight", 11, 5)
    put(st, 1, "Crow", 10, 5)
    attack(st, knight, 10, 5, dice=[5, 0])
    assert st.is_terminal() and st.returns().tolist() == [1.0, -1.0]
    assert st.out_order == [1]
    assert st.final_info()["ended_by"] == "rules" and not st.capped


def test_round_cap_ranks_by_material_zero_sum():
    """Designed backstop: after ``round_cap_per_opponent`` x (players - 1) rounds the survivors
    rank by material; returns sum to zero; ``final_info`` says the cap ended it."""
    st = blank(num_players=3, tribes=["humans", "undead", "orcs"],
               rules={"round_cap_per_opponent": 1})
    assert st.game.round_cap == 2 and st.game.action_cap == 30 * 3 * 2
    put(st, 0, "Knight", 11, 5)
    for _ in range(5):
        st._end_turn()
        assert not st.is_terminal()
    st._end_turn()
    assert st.is_terminal() and st.capped
    r = st.returns()
    assert abs(r.sum()) < 1e-9 and r[0] == 1.0
    info = st.final_info()
    assert info["ended_by"] == "cap" and info["rounds"] == 2


def test_round_cap_counts_rounds_when_a_tribe_is_out():
    """Designed backstop: the round cap counts rounds, so a tribe out does not stretch it (the
    cap used to count the turns all players together could have had: with one of three tribes
    out early, 3 rounds of the others instead of 2)."""
    st = blank(num_players=3, tribes=["humans", "undead", "orcs"],
               rules={"round_cap_per_opponent": 1})
    put(st, 0, "Knight", 11, 5)
    st.alive[2] = False
    st.out_order = [2]
    for _ in range(3):               # seat 0, seat 1 (round 1), seat 0 (round 2)
        st._end_turn()
        assert not st.is_terminal()
    st._end_turn()                   # seat 1 ends round 2
    assert st.is_terminal() and st.capped and st.turns_taken == [2, 2, 0]


def test_end_turn_always_legal_and_bad_options():
    st = blank()
    assert st.legal_actions_mask()[st.game.layout.END] == 1
    with pytest.raises(ConfigError):
        make_game(num_players=5)
    with pytest.raises(ConfigError):
        make_game(num_players=2, tribes=["undead", "undead"])
    with pytest.raises(ConfigError):
        make_game(rules={"nope": 1})
    with pytest.raises(IllegalActionError):
        st.apply(st.game.layout.STOP)


def test_every_tribe_combination_plays_to_the_end():
    """Every 2- and 3-tribe combination and the 4-tribe game: random playouts end, masks apply."""
    from itertools import combinations, permutations

    from tabletop_arena.envs.zaberias.tables import TRIBES
    combos = [list(c) for c in permutations(TRIBES, 2)] + [list(c) for c in combinations(TRIBES, 3)]
    combos.append(list(TRIBES))
    for i, tribes in enumerate(combos):
        g = make_game(num_players=len(tribes), tribes=tribes, rules={"round_cap_per_opponent": 4})
        st = g.new_initial_state(i)
        play_checking(st, np.random.default_rng(i), lambda s: [], f"tribes {tribes}")  # a position
        # without a legal action would stop the random mover with "no legal action in the mask"
        assert abs(st.returns().sum()) < 1e-9


def test_clone_is_independent():
    st = blank(tribes=["humans", "undead"])
    kn = put(st, 0, "Knight", 11, 5)
    c = st.clone()
    select(c, kn)
    act(c, "move", cell(c, 11, 6))
    assert st.cell[kn] == cell(st, 11, 5) and c.cell[kn] == cell(c, 11, 6)
    assert st.phase == "main"
