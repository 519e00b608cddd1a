"""Scenario tests for the Warbah departures found by the third rules audit (issue 42), each named
after its rulebook section and quoting the rule: a victor does not advance into an enemy
garrison (MOVE), exchanges only instead of moving and each troop once per turn (MOVE),
Blizzard stops a Hero at sea (REALM SPELLS), a Hero does not take his ally's settlement
(RECOVERY); and the text of a realm spell's hex target."""
from __future__ import annotations

from tabletop_arena.envs.warbah import battle_flow, fleets, heroes, realm_spells, turn
from tabletop_arena.envs.warbah.actions import (
    CONTINUE,
    DONE,
    EXCHANGE0,
    GIVE0,
    GIVE_ITEM0,
    REALM0,
    describe,
)
from tabletop_arena.envs.warbah.state import Item
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS
from tests.warbah.test_allies import diplomacy_state
from tests.warbah.test_rules import setup_state
from tests.warbah.test_sea import dir_to, sea_world
from tests.warbah.test_spells import R, two_heroes
from tests.warbah.test_units import two_heroes as own_pair


def _fight_to_the_end(st) -> None:
    while st.battle is not None:
        st.apply(CONTINUE if st.phase == "call_off" else st.legal_actions()[0])


# -- MOVE & EXPLORE: "Heroes cannot move into hexes that contain ... enemy garrison" -------------
def test_move_victor_does_not_advance_into_an_enemy_garrison():
    """MOVE & EXPLORE: "Heroes cannot move into hexes that contain: Another Hero or enemy
    garrison, or an encounter chit." A Hero who kills the enemy Hero standing over his own
    garrison does not advance into the hex: the garrison is still there, so in RECOVERY the
    settlement does not change hands and the garrison does not vanish unfought."""
    g, st, a, b, d, cell = two_heroes()
    st.terrain[cell], st.settle[cell], st.owner[cell] = (
        TERRAINS.index("settlement"), SETTLEMENTS.index("town"), 1)
    st.garrison[cell] = [0, 18, 0, 0]
    a.troops[:] = [30, 0, 0, 0]
    b.troops[:] = 0  # the Hero alone: the first kill that lands slays him
    home = a.cell
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    battle_flow.start_battle(st, 0, cell)
    _fight_to_the_end(st)
    assert a.alive and not b.alive
    assert a.cell == home  # no advance into the garrisoned hex
    turn.recovery(st)
    assert st.owner[cell] == 1 and st.garrison[cell].tolist() == [0, 18, 0, 0]
    # a capitol the same way: its garrison keeps it, its player stays in the game
    g, st, a, b, d, cell = two_heroes()
    st.capitol[1], st.owner[cell] = cell, 1
    st.terrain[cell], st.settle[cell] = TERRAINS.index("settlement"), SETTLEMENTS.index("capitol")
    st.garrison[cell] = [3, 0, 0, 0]
    a.troops[:], b.troops[:] = [30, 0, 0, 0], 0
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    battle_flow.start_battle(st, 0, cell)
    _fight_to_the_end(st)
    assert a.alive and a.cell != cell
    turn.recovery(st)
    assert st.alive[1] and st.owner[cell] == 1 and st.garrison[cell, 0] == 3


def test_recovery_no_control_marker_over_an_enemy_garrison():
    """MOVE & EXPLORE ("Heroes cannot move into hexes that contain ... enemy garrison") with
    RECOVERY ("A Hero may remove an enemy control marker in the hex he occupies"): a Hero who
    finds himself over an enemy garrison without having entered (an agent took the garrison
    under him: Agent Success 2) does not remove its marker, and the garrison is not wiped out
    without a battle."""
    g, st, a, b, d, cell = two_heroes()
    b.alive = False
    st.terrain[cell], st.settle[cell], st.owner[cell] = (
        TERRAINS.index("settlement"), SETTLEMENTS.index("village"), 1)
    st.garrison[cell] = [4, 0, 0, 0]
    a.cell = cell
    turn.recovery(st)
    assert st.owner[cell] == 1 and st.garrison[cell, 0] == 4 and a.xp == 0


# -- MOVE & EXPLORE: "Instead of moving, friendly adjacent heroes may exchange troops or magic items.
#    A troop or magic item may be exchanged only once per turn." ----------------------------------
def _moved_next_to_friend():
    """Seat 0's Hero 0 steps into a clear hex next to his friend (Hero 2): he has moved."""
    g, st, a, b, d = own_pair()
    common = [int(x) for x in st.neighbours[a.cell] if x >= 0 and st.land[x]
              and int(x) in st.neighbours[b.cell] and heroes.hero_at(st, int(x)) < 0]
    z = common[0]
    st.explored[z], st.terrain[z], st.settle[z], st.encounter[z] = True, TERRAINS.index("clear"), -1, 0
    st.owner[z], st.variant[z] = -1, ""
    st.rivers.clear()
    st._mask = None
    st.apply(dir_to(st, a.cell, z))
    assert a.cell == z and st.queue[st.queue_pos] == (0, 0)
    return st, a, b, dir_to(st, z, b.cell)


def test_move_exchange_whole_army_only_instead_of_moving():
    """MOVE & EXPLORE: "Instead of moving, friendly adjacent heroes may exchange troops or magic
    items." A Hero who has moved this turn may not hand his whole army over (EXCHANGE0 + d),
    nor a troop (GIVE0), nor a magic item (GIVE_ITEM0 + d); before moving he may."""
    st, a, b, d = _moved_next_to_friend()
    a.items = [Item("ability", ability=("defense", 0))]
    a.abilities = [("defense", 0)]
    st._mask = None
    mask = st.legal_actions_mask()
    assert not mask[EXCHANGE0 + d] and not mask[GIVE_ITEM0 + d]
    assert not mask[GIVE0 + 4 * d:GIVE0 + 4 * d + 4].any()
    # the same Heroes before moving: all three are offered
    g, st, a, b, d = own_pair()
    a.items = [Item("ability", ability=("defense", 0))]
    a.abilities = [("defense", 0)]
    st._mask = None
    mask = st.legal_actions_mask()
    assert mask[EXCHANGE0 + d] and mask[GIVE_ITEM0 + d] and mask[GIVE0 + 4 * d]


def test_move_exchange_a_troop_only_once_per_turn():
    """MOVE & EXPLORE: "A troop or magic item may be exchanged only once per turn." Troops handed
    over one by one cannot go straight back in a whole-army hand-over, and troops received in a
    whole-army hand-over cannot go back one by one."""
    g, st, a, b, d = own_pair()
    b.troops[:] = 0
    st.apply(GIVE0 + 4 * d)  # one warrior to Hero 2
    st.apply(DONE)
    assert st.queue[st.queue_pos] == (0, 2) and b.troops.tolist() == [1, 0, 0, 0]
    back = dir_to(st, b.cell, a.cell)
    mask = st.legal_actions_mask()
    assert not mask[EXCHANGE0 + back]  # his only troop came this turn
    assert not mask[GIVE0 + 4 * back:GIVE0 + 4 * back + 4].any()
    # the whole army the other way round
    g, st, a, b, d = own_pair()
    b.troops[:] = 0
    st.apply(EXCHANGE0 + d)  # Hero 0 hands his whole army to Hero 2; Hero 2 acts next
    assert st.queue[st.queue_pos] == (0, 2) and b.troops.tolist() == [5, 5, 5, 5]
    back = dir_to(st, b.cell, a.cell)
    mask = st.legal_actions_mask()
    assert not mask[GIVE0 + 4 * back:GIVE0 + 4 * back + 4].any()
    assert not mask[EXCHANGE0 + back]
    # troops of his own he had before may still go (not received this turn)
    g, st, a, b, d = own_pair()
    b.troops[:] = [0, 2, 0, 0]
    st.apply(EXCHANGE0 + d)
    back = dir_to(st, b.cell, a.cell)
    a.troops[:] = 0  # room for the hand-over back
    st._mask = None
    mask = st.legal_actions_mask()
    assert mask[GIVE0 + 4 * back + 1] and not mask[GIVE0 + 4 * back]
    assert mask[EXCHANGE0 + back]
    st.apply(EXCHANGE0 + back)
    assert a.troops.tolist() == [0, 2, 0, 0] and b.troops.tolist() == [5, 5, 5, 5]


# -- REALM SPELLS: "Blizzard- Target adjacent army cannot move or attack." -------------------------
def test_realm_spells_blizzard_stops_a_hero_at_sea():
    """REALM SPELLS: "Blizzard- Target adjacent army cannot move or attack. Cast in beginning of
    Move Phase". A Hero at sea chosen as the target cannot sail (nor land, nor explore) for the
    rest of the turn; his player's other Hero still moves."""
    g, st, h = sea_world()
    m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and not st.land[x]))
    st.fleets.ships[m], st.fleets.owner[m] = 2, 0
    st.apply(dir_to(st, h.cell, m))  # board: now at sea with sea moves left
    assert fleets.at_sea(st, h) and fleets.sea_moves_left(st, h) > 0
    caster = st.heroes[1]
    caster.alive, caster.abilities, caster.wizard = True, [], -1
    caster.cell = int(next(x for x in st.neighbours[m] if x >= 0 and st.land[x]
                           and heroes.hero_at(st, int(x)) < 0))
    st.magic.hands[1] = [R["blizzard"]]
    d = dir_to(st, caster.cell, m)
    assert realm_spells.realm_targets(st, 1, 1, R["blizzard"]) == [d]
    realm_spells.cast_realm(st, 1, 1, R["blizzard"], d)
    st._mask = None
    mask = st.legal_actions_mask()
    assert st.queue[st.queue_pos] == (0, 0) and not mask[:6].any()
    assert fleets.sea_moves_left(st, h) == 0
    # nor may he attack in the battle phase (an enemy Hero at sea next to him)
    st.phase, st.queue, st.queue_pos, st._mask = "battle", [(0, 0)], 0, None
    h.attacks_left = 1
    assert not st.legal_actions_mask()[:6].any()


def test_realm_spells_blizzard_target_text_names_the_spell():
    """REALM SPELLS (a realm spell's target): the hex target of Blizzard reads as the spell cast
    at that hex, not as "move/explore"."""
    g, st, a, b, d, cell = two_heroes()
    a.wizard = -1
    st.magic.hands[0] = [R["blizzard"]]
    st.phase, st.queue, st.queue_pos, st._mask = "realm", [(0, 0)], 0, None
    st.magic.window = "move"
    st.apply(REALM0 + R["blizzard"])
    assert st.phase == "realm_target"
    text = describe(st, d)
    assert "move" not in text and "blizzard" in text.lower()
    assert text.endswith(("E", "NE", "NW", "W", "SW", "SE"))


# -- RECOVERY: "A Hero may remove an enemy control marker in the hex he occupies." ------------------
def _on_ally_settlement(capitol: bool):
    g, st = diplomacy_state()
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = True
    a, b = st.heroes[0], st.heroes[1]
    b.alive = False
    c = int(st.capitol[1]) if capitol else int(next(
        x for x in st.neighbours[a.cell] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0))
    if not capitol:
        st.explored[c], st.terrain[c], st.encounter[c] = True, TERRAINS.index("settlement"), 0
        st.settle[c], st.owner[c] = SETTLEMENTS.index("town"), 1
    st.garrison[c] = 0
    a.cell = c
    return st, a, c


def test_recovery_no_marker_removed_from_an_ally():
    """RECOVERY: "A Hero may remove an enemy control marker in the hex he occupies" and "Heroes
    earn one Experience point (XP) for ... every enemy settlement they take control of"; ALLIES:
    "An alliance ends as soon as one ally attacks another". A Hero standing on his ally's
    unguarded settlement or capitol at the end of the turn takes nothing from him: no marker
    changes, no XP, the ally is not eliminated and the alliance stays."""
    for capitol in (False, True):
        st, a, c = _on_ally_settlement(capitol)
        turn.recovery(st)
        assert st.owner[c] == 1 and a.xp == 0 and st.alive[1]
        assert st.diplomacy.allied[0, 1]
    # once the alliance is over, the same settlement is an enemy's: it is taken (1 XP)
    st, a, c = _on_ally_settlement(False)
    st.diplomacy.allied[0, 1] = st.diplomacy.allied[1, 0] = False
    turn.recovery(st)
    assert st.owner[c] == 0 and a.xp == 1


def test_allies_ceded_settlement_stays_with_the_ally():
    """ALLIES: "Allies may trade anything ... settlements": the settlement a Hero cedes to his
    ally (CEDE0) stays the ally's through RECOVERY, though the Hero still stands on it."""
    from tabletop_arena.envs.warbah.actions import CEDE0
    st, a, c = _on_ally_settlement(False)
    st.owner[c] = 0
    a.mp, a.scout_moves = 3, 0
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0)], 0, 0, None
    st.apply(CEDE0)
    assert st.owner[c] == 1
    turn.recovery(st)
    assert st.owner[c] == 1 and a.xp == 0



# -- Win condition (designed, RULES.md): the backstops and how a game ended -------------------------
def test_game_length_backstops_scale_with_the_player_count():
    """RULES.md "Win condition" (designed; the rulebook names no ending and no turn limit): the
    turn and action caps are backstops that scale with the player count (10 turns a player, 24
    actions a player a turn); a game they end says so (``ended_by`` "cap"), a game won by the
    designed victory conditions says "designed"."""
    from tabletop_arena import envs
    from tabletop_arena.envs.warbah import make_game
    caps = {n: (make_game(num_players=n).turn_cap, make_game(num_players=n).max_actions)
            for n in (2, 3, 4)}
    assert caps == {2: (20, 960), 3: (30, 2160), 4: (40, 3840)}
    # the env caps at the game's max_game_length(), the engine's own action cap (issue 44)
    assert envs.make("warbah_v0", num_players=4).unwrapped.max_steps == 3840 \
        == make_game(num_players=4).max_game_length()
    g = make_game(num_players=3, rules={"designed": {"action_cap_per_player_turn": 1}})
    st = g.new_initial_state(5)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    assert len(st.history) == g.max_actions == 90
    info = st.final_info()
    assert (info["ending"], info["ended_by"]) == ("cap", "cap")
    g, st = setup_state(2)
    st.heroes[1].alive = False
    st.heroes[0].cell = int(st.capitol[1])
    turn.recovery(st)  # the capitol taken: the last player standing
    assert st.final_info()["ended_by"] == "designed"
