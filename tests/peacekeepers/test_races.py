"""Race abilities: Trolls (orange), Giants (yellow), Elves (green), Wizards (blue).

Competitive scenarios use the default zones: seat 0 owns rows 1-5 (cells 0..49), seat 1 rows 6-10.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import BLUE, EMPTY, GREEN, ORANGE, RED, YELLOW

from .helpers import all_cubes_accounted, cell, faces_in_hand, make_state


def _targets(st):
    m = st.legal_actions_mask()
    return {int(x) for x in np.flatnonzero(m[A.CELL:A.CELL + 100])}


# ------------------------------------------------------------------------------- Trolls -----

def test_troll_chases_off_opponent_cube_captured():
    """Orange (Placing a Cube): a Troll may chase off one adjacent inhabitant when it moves in; in
    competitive games an opponent's cube is captured. Seat 0 puts a Troll on E5 (own zone) and chases
    the Dwarf on E6 (seat 1's zone)."""
    st = make_state("""
    ....R
    .....
    ....R
    """, origin=(3, 0), hands=["OR", "WWW"])
    victim = int(st.board_cube[54])
    st.apply(A.place(ORANGE, 44))
    assert st.phase == "troll_chase" and st.cur == 0
    assert _targets(st) == {34, 54}
    assert st.legal_actions_mask()[A.PASS] == 1     # chasing is optional
    st.apply(A.cell_target(54))
    assert st.board[54] == EMPTY and st.board[44] == ORANGE and st.board[34] == RED
    assert st.captured == [[victim], []]
    assert victim not in st.discard
    assert st.phase == "play" and st.cur == 1
    assert all_cubes_accounted(st)


def test_troll_chases_own_zone_cube_discarded():
    """Competitive: 'If a Troll replaces or chases off a cube within the player's own zone that cube
    is discarded.'"""
    st = make_state("""
    ....R
    .....
    ....R
    """, origin=(3, 0), hands=["OR", "WWW"])
    victim = int(st.board_cube[34])
    st.apply(A.place(ORANGE, 44))
    st.apply(A.cell_target(34))
    assert st.board[34] == EMPTY and st.board[54] == RED
    assert st.captured == [[], []] and st.discard == [victim]


def test_troll_decline_chase():
    """Orange: 'A player may remove one other cube ... if they choose' -- PASS keeps every cube."""
    st = make_state("....R\n.....\n....R", origin=(3, 0), hands=["OR", "WWW"])
    st.apply(A.place(ORANGE, 44))
    st.apply(A.PASS)
    assert st.board[34] == RED and st.board[54] == RED and st.board[44] == ORANGE
    assert st.captured == [[], []] and st.discard == []


def test_troll_may_chase_a_troll_not_a_giant():
    """Orange: Trolls 'can cause an adjacent Troll to leave' but 'cannot chase off Giants'. A Troll
    put on D4 between a Troll (E4) and a Giant (D5) may chase only the Troll."""
    st = make_state("""
    ....O.
    ..YYWK
    ......
    """, origin=(3, 0), hands=["OR", "WWW"])
    st.apply(A.place(ORANGE, cell(3, 3)))
    assert st.phase == "troll_chase"
    assert _targets(st) == {cell(3, 4)}
    st.apply(A.cell_target(cell(3, 4)))
    assert st.board[cell(3, 4)] == EMPTY and st.board[cell(4, 3)] == YELLOW
    assert st.board[cell(3, 3)] == ORANGE


def test_troll_chase_excludes_giant_temple_volcano():
    """Orange / White / Black: a Troll moving in next to a Giant, a Temple and a Volcano may chase
    none of them; with a Dwarf as the fourth neighbour only the Dwarf can go."""
    st = make_state("""
    .W.
    Y.K
    YR.
    """, origin=(3, 3), hands=["OR", "WWW"])
    # the new Troll goes on the centre E5: Temple above, Giant left, Volcano right, Dwarf below
    st.apply(A.place(ORANGE, cell(4, 4)))
    assert st.phase == "troll_chase"
    assert _targets(st) == {cell(5, 4)}


def test_troll_replaces_a_cube():
    """Orange: a Troll 'may replace a cube on the board': the cube on the cell leaves (captured from
    an opponent's zone) and the Troll takes its place; no further chase follows."""
    st = make_state("""
    ....R
    ....R
    ....R
    """, origin=(4, 0), hands=["OR", "WWW"])
    victim = int(st.board_cube[54])
    m = st.legal_actions_mask()
    assert m[A.place(ORANGE, 54)] == 1
    st.apply(A.place(ORANGE, 54))
    assert st.board[54] == ORANGE and int(st.board_cube[54]) != victim
    assert st.captured == [[victim], []]
    assert st.phase == "play" and st.cur == 1
    assert st.board[44] == RED and st.board[64] == RED


def test_troll_replace_targets():
    """Orange: Trolls cannot replace another Troll, a Giant, a Temple or a Volcano; they can replace
    Dwarves, Elves, Wizards and Faerie -- provided the Troll then fits its new neighbours. Each
    candidate sits alone next to a Temple (so it touches a cube and the Troll fits there)."""
    st = make_state("""
    WR.WO.WY.
    .........
    WG.WB.WP.
    .........
    WK.WW.....
    """, hands=["O", "WWW"])
    m = st.legal_actions_mask()
    assert m[A.place(ORANGE, cell(0, 1))] == 1   # Dwarf
    assert m[A.place(ORANGE, cell(2, 1))] == 1   # Elf
    assert m[A.place(ORANGE, cell(2, 4))] == 1   # Wizard
    assert m[A.place(ORANGE, cell(2, 7))] == 1   # Faerie
    assert m[A.place(ORANGE, cell(0, 4))] == 0   # Troll
    assert m[A.place(ORANGE, cell(0, 7))] == 0   # Giant
    assert m[A.place(ORANGE, cell(4, 1))] == 0   # Volcano
    assert m[A.place(ORANGE, cell(4, 4))] == 0   # Temple
    assert m[A.place(ORANGE, cell(0, 0))] == 0   # Temple


def test_troll_replace_must_fit_neighbours():
    """Placing a Cube + Orange: a Troll replacing the Dwarf at B1 would sit next to the Wizard at
    C1 (Trolls and Wizards may not touch): not allowed."""
    st = make_state("WRB", hands=["O", "WWW"])
    assert st.legal_actions_mask()[A.place(ORANGE, 1)] == 0


@pytest.mark.parametrize("flag", [True, False])
def test_troll_check_after_chase_flag(flag):
    """Orange, reading flag ``troll_check_after_chase`` (RULES.md): on (default) a Troll may move in
    next to one incompatible cube (the Elf at F5, with a Dwarf as second neighbour) that it then
    must chase off; off, the Troll's cell must be legal before it chases."""
    st2 = make_state("""
    ....R.
    .....G
    """, origin=(3, 0), hands=["OR", "WWW"], rules={"troll_check_after_chase": flag})
    # Troll on F4: neighbours R at E4 and G at F5; the Elf is hostile to Trolls
    target = cell(3, 5)
    assert st2.legal_actions_mask()[A.place(ORANGE, target)] == int(flag)
    if flag:
        st2.apply(A.place(ORANGE, target))
        assert st2.phase == "troll_chase"
        assert _targets(st2) == {cell(4, 5)}
        assert st2.legal_actions_mask()[A.PASS] == 0   # the Elf must go
        st2.apply(A.cell_target(cell(4, 5)))
        assert st2.board[cell(4, 5)] == EMPTY and st2.board[target] == ORANGE


def test_orange_troll_may_chase_its_only_neighbour():
    """Placing a Cube, Orange (and Cubes - Descriptions): a Troll chases off one adjacent
    inhabitant, with Giants (and Temples, Volcanoes, which can never be removed) as the only
    exceptions, so the cube it chases may be its only neighbour. The Troll is placed touching
    that cube; it may stand alone afterwards."""
    # a lone friendly Dwarf: the Troll's cell is legal anyway, chasing is offered and optional
    st = make_state("R", origin=(4, 4), hands=["O", "WWW"])
    dwarf = int(st.board_cube[cell(4, 4)])
    st.apply(A.place(ORANGE, cell(4, 5)))
    assert st.phase == "troll_chase" and _targets(st) == {cell(4, 4)}
    assert st.legal_actions_mask()[A.PASS] == 1
    st.apply(A.cell_target(cell(4, 4)))
    assert st.board[cell(4, 4)] == EMPTY and st.board[cell(4, 5)] == ORANGE
    assert dwarf in st.discard                      # own zone: discarded
    # a lone hostile Elf (opponent's zone): check after chase (default), the Troll may move in
    # next to it and must then chase it
    st = make_state("G", origin=(5, 4), hands=["O", "WWW"])
    elf = int(st.board_cube[cell(5, 4)])
    assert st.legal_actions_mask()[A.place(ORANGE, cell(4, 4))] == 1
    st.apply(A.place(ORANGE, cell(4, 4)))
    assert st.phase == "troll_chase" and _targets(st) == {cell(5, 4)}
    assert st.legal_actions_mask()[A.PASS] == 0
    st.apply(A.cell_target(cell(5, 4)))
    assert st.captured == [[elf], []] and st.cur == 1
    # a lone Giant is never chased: the Troll may sit next to it, with nothing to chase
    st = make_state("Y", origin=(4, 4), hands=["O", "WWW"])
    st.apply(A.place(ORANGE, cell(4, 5)))
    assert st.phase == "play" and st.cur == 1


def test_orange_troll_only_neighbour_check_before_chase():
    """Placing a Cube, Orange, reading ``troll_check_after_chase: false``: the Troll's cell must
    be legal before it chases, so it cannot move next to a lone Elf, but it may still chase a
    lone compatible neighbour."""
    st = make_state("G", origin=(4, 4), hands=["O", "WWW"], rules={"troll_check_after_chase": False})
    m = st.legal_actions_mask()
    assert not m[A.place(ORANGE, 0):A.place(ORANGE, 0) + 100].any()
    st = make_state("R", origin=(4, 4), hands=["O", "WWW"], rules={"troll_check_after_chase": False})
    st.apply(A.place(ORANGE, cell(4, 5)))
    assert st.phase == "troll_chase" and _targets(st) == {cell(4, 4)}


@pytest.mark.parametrize("flag", [True, False])
def test_orange_troll_check_after_chase_first_cube_too(flag):
    """Placing a Cube, Orange: 'Trolls can chase off one inhabitant when they move in' -- read
    with ``troll_check_after_chase`` (RULES.md: the Troll may move in next to one cube it cannot
    live with and chase exactly that one) the same way on a player's first cube (Multi-Player
    Competitive Game Play: 'They may play any cube from their hand in a space along an outer edge
    of the playing field in their zone') as on later turns (issue 42: only later turns had it).
    Seat 1 has not placed yet; an opponent's Elf lies on its zone's bottom edge."""
    st = make_state("G.R", origin=(9, 3), hands=["WWW", "O"], cur=1, first_done=[True, False],
                    rules={"troll_check_after_chase": flag})
    elf = int(st.board_cube[cell(9, 3)])
    troll = A.place(ORANGE, cell(9, 4))     # beside the Elf (hostile) and the Dwarf (fine)
    assert st.legal_actions_mask()[troll] == int(flag)
    assert st.legal_actions_mask()[A.place(ORANGE, cell(9, 6))] == 1   # beside the Dwarf only
    if flag:
        st.apply(troll)
        assert st.phase == "troll_chase" and _targets(st) == {cell(9, 3)}
        assert st.legal_actions_mask()[A.PASS] == 0      # the Elf must go
        st.apply(A.cell_target(cell(9, 3)))
        assert st.board[cell(9, 3)] == EMPTY and st.board[cell(9, 4)] == ORANGE
        assert st.discard == [elf] and st.first_done == [True, True]   # own zone: discarded


def test_troll_solo_removed_cube_discarded():
    """Orange: 'In all other games the removed cube is discarded' (solo: not back to the bag)."""
    st = make_state("WR\n..W", origin=(4, 4), mode="solo", hands=["OR"], hand_size=2)
    victim = int(st.board_cube[45])
    st.apply(A.place(ORANGE, 55))
    st.apply(A.cell_target(45))
    assert st.board[45] == EMPTY and victim in st.discard and victim not in st.bag


# ------------------------------------------------------------------------------- Giants -----

def test_lone_giant_needs_company():
    """Yellow: 'Giants must live next to at least one other Giant' -- with one Giant in hand it may
    only go next to a Giant already on the board."""
    st = make_state("""
    R...Y
    """, origin=(4, 0), hands=["Y", "WWW"])
    m = st.legal_actions_mask()
    legal = {int(x) for x in np.flatnonzero(m[A.place(YELLOW, 0):A.place(YELLOW, 0) + 100])}
    assert legal == {cell(3, 4), cell(5, 4), cell(4, 3), cell(4, 5)}


def test_giant_pair_from_hand_is_mandatory():
    """Yellow: 'Giants must be placed two at a time, adjacent to each other' -- with two Giants in
    hand and no Giant on the board, the first may go next to any cube where a second fits beside
    it; the second Giant must then be placed (no PASS) on a cell next to the first."""
    st = make_state("R", origin=(4, 4), hands=["YY", "WWW"])
    m = st.legal_actions_mask()
    assert m[A.place(YELLOW, cell(4, 5))] == 0       # a Giant may not touch a Dwarf
    st2 = make_state("O", origin=(4, 4), hands=["YY", "WWW"])
    st2.apply(A.place(YELLOW, cell(4, 5)))
    assert st2.phase == "giant2" and st2.cur == 0
    m = st2.legal_actions_mask()
    assert m[A.PASS] == 0
    assert _targets(st2) == {cell(3, 5), cell(5, 5), cell(4, 6)}
    st2.apply(A.cell_target(cell(4, 6)))
    assert st2.board[cell(4, 5)] == YELLOW and st2.board[cell(4, 6)] == YELLOW
    assert st2.hands[0] == [] and st2.cur == 1


def test_giant_pair_partner_cell_respects_neighbours():
    """Yellow + Placing: the second Giant's cell must itself be legal for a Giant. A Giant offered at
    F5 (beside the Troll at E5) has partner cells F4, F6, G5, each next to a Wizard: illegal. Without
    the Wizard at H5, G5 becomes the only partner cell."""
    board = """
    ..B..
    .....
    .O..B
    .....
    ..B..
    """
    st = make_state(board, origin=(2, 3), hands=["YY", "WWW"])
    assert st.legal_actions_mask()[A.place(YELLOW, cell(4, 5))] == 0
    st = make_state(board[:board.rindex("B", 0, 40)] + "." + board[board.rindex("B", 0, 40) + 1:],
                    origin=(2, 3), hands=["YY", "WWW"])
    assert st.board[cell(4, 7)] == EMPTY
    assert st.legal_actions_mask()[A.place(YELLOW, cell(4, 5))] == 1
    st.apply(A.place(YELLOW, cell(4, 5)))
    assert _targets(st) == {cell(4, 6)} and st.legal_actions_mask()[A.PASS] == 0


def test_giant_next_to_board_giant_second_optional():
    """Yellow: a Giant joining a Giant already on the board needs no partner; with a second Giant
    in hand the player may add it (PASS allowed)."""
    st = make_state("Y", origin=(4, 4), hands=["YY", "WWW"])
    st.apply(A.place(YELLOW, cell(4, 5)))
    assert st.phase == "giant2"
    m = st.legal_actions_mask()
    assert m[A.PASS] == 1
    st.apply(A.PASS)
    assert faces_in_hand(st, 0) == "Y" and st.cur == 1


def test_giant_pairs_only_flag():
    """Yellow, reading flag ``giant_pairs_only: true`` (RULES.md): every Giant comes with a partner
    from hand, even next to a board Giant."""
    st = make_state("Y", origin=(4, 4), hands=["Y", "WWW"], rules={"giant_pairs_only": True})
    m = st.legal_actions_mask()
    assert not m[A.place(YELLOW, 0):A.place(YELLOW, 0) + 100].any()
    st = make_state("Y", origin=(4, 4), hands=["YY", "WWW"], rules={"giant_pairs_only": True})
    st.apply(A.place(YELLOW, cell(4, 5)))
    assert st.phase == "giant2" and st.legal_actions_mask()[A.PASS] == 0
    # default reading: one Giant next to a board Giant is fine
    st = make_state("Y", origin=(4, 4), hands=["Y", "WWW"])
    assert st.legal_actions_mask()[A.place(YELLOW, cell(4, 5))] == 1


def test_solitary_giant_after_horde_discarded_not_captured():
    """Yellow / Resolving a Goblin Horde: 'remove solitary Giants after resolving Goblin Horde
    attacks ... Solitary Giants that are removed are discarded, never captured.' Seat 0's horde at
    G7 chases the Giant at E7 (captured, through the empty F7) and the Elf at G8; the Giant left at
    D7 is now alone and is discarded."""
    st = make_state("""
    ...YY..
    ......G
    """, origin=(6, 0), hands=["NR", "WWW"])
    g_left, g_right, elf = (int(st.board_cube[x]) for x in (cell(6, 3), cell(6, 4), cell(7, 6)))
    horde = st.hands[0][0][0]
    st.apply(A.place(8, cell(6, 6)))
    assert st.board[cell(6, 3)] == EMPTY and st.board[cell(6, 4)] == EMPTY
    assert st.board[cell(7, 6)] == EMPTY
    assert sorted(st.captured[0]) == sorted([g_right, elf])
    assert g_left in st.discard and horde in st.discard
    assert g_left not in st.captured[0]


def test_solitary_giant_after_eruption_discarded():
    """Yellow / Resolving a Volcanic Eruption: the eruption at E5 destroys the Giant at G5 (two to the
    right); its partner at H5 (outside the zone) is then solitary and discarded, not captured."""
    st = make_state("....K.YY", origin=(4, 0), hands=["A", "WWW"], zones="""
    0000000000
    0000000000
    0000000000
    0000000000
    0000001111
    1111111111
    1111111111
    1111111111
    1111111111
    1111111111
    """)
    near, far = int(st.board_cube[46]), int(st.board_cube[47])
    st.apply(A.place(9, 44))
    assert st.board[46] == EMPTY and st.board[47] == EMPTY
    assert st.captured[0] == [near]
    assert far in st.discard


# ------------------------------------------------------------------------------- Elves ------

def test_elf_rerolls_a_cube_in_opponent_hand():
    """Green: 'Elves allow players to re-roll one other cube in either their own hand or an
    opponent's hand after the Green Elf is placed.' The choice lists the player's own remaining
    colours (relative seat 0) and the opponent's (relative seat 1), or PASS."""
    st = make_state("G", origin=(4, 4), hands=["GR", "BYYK"])
    st.apply(A.place(GREEN, cell(4, 5)))
    assert st.phase == "elf" and st.cur == 0
    m = st.legal_actions_mask()
    allowed = {int(a) for a in np.flatnonzero(m)}
    assert allowed == {A.reroll(0, RED), A.reroll(1, BLUE), A.reroll(1, YELLOW), A.reroll(1, 6),
                       A.PASS}
    cube = next(c for c, f in st.hands[1] if f == BLUE)
    before_other = [x for x in st.hands[1] if x[1] != BLUE]
    st.apply(A.reroll(1, BLUE))
    new = dict(st.hands[1])[cube]
    assert new in st.game.faces[cube]
    assert [x for x in st.hands[1] if x[0] != cube] == before_other
    assert faces_in_hand(st, 0) == "R"
    assert st.phase == "play" and st.cur == 1


def test_elf_reroll_own_hand_and_decline():
    """Green: re-roll a cube of one's own hand, or decline (PASS leaves every hand as it was)."""
    st = make_state("G", origin=(4, 4), hands=["GR", "B"])
    st.apply(A.place(GREEN, cell(4, 5)))
    snapshot = [list(h) for h in st.hands]
    st.apply(A.PASS)
    assert st.hands == snapshot and st.cur == 1
    # own hand: the rolled face comes from the cube's own faces; over a few seeds it changes
    changed = 0
    for seed in range(12):
        st = make_state("G", origin=(4, 4), hands=["GR", "B"], seed=seed)
        st.apply(A.place(GREEN, cell(4, 5)))
        cube = st.hands[0][0][0]
        st.apply(A.reroll(0, RED))
        face = st.hands[0][0][1]
        assert st.hands[0][0][0] == cube and face in st.game.faces[cube]
        changed += face != RED
    assert changed > 0


def test_elf_hidden_hands_targets_positions():
    """Green with ``hidden_hands: true`` (RULES.md): the opponent's cubes are chosen by position
    (relative seat 1, index k) since their colours are unknown; one's own still by colour."""
    st = make_state("G", origin=(4, 4), hands=["GR", "BYK"], rules={"hidden_hands": True})
    st.apply(A.place(GREEN, cell(4, 5)))
    allowed = {int(a) for a in np.flatnonzero(st.legal_actions_mask())}
    assert allowed == {A.reroll(0, RED), A.reroll(1, 0), A.reroll(1, 1), A.reroll(1, 2), A.PASS}
    second = st.hands[1][1][0]
    others = [st.hands[1][0], st.hands[1][2]]
    st.apply(A.reroll(1, 1))
    assert st.hands[1][1][0] == second and st.hands[1][1][1] in st.game.faces[second]
    assert [st.hands[1][0], st.hands[1][2]] == others


# ------------------------------------------------------------------------------- Wizards ----

def test_wizard_another_turn():
    """Blue: 'When placed, a Blue Wizard lets the player take another turn' -- after each Wizard the
    same player moves again; after a non-Wizard cube play passes on."""
    st = make_state("B", origin=(4, 4), hands=["BBGRRR", "WWW"])
    st.apply(A.place(BLUE, cell(4, 5)))
    assert st.cur == 0 and st.phase == "play"
    st.apply(A.place(BLUE, cell(4, 6)))
    assert st.cur == 0 and st.phase == "play"
    st.apply(A.place(GREEN, cell(4, 7)))
    st.apply(A.PASS)                       # decline the Elf re-roll
    assert st.cur == 1 and faces_in_hand(st, 0) == "RRR"


def test_blue_wizard_extra_turn_may_be_declined():
    """Placing & Resolving Cubes, Blue: a Wizard 'lets the player take another turn' -- a
    permission, so on the extra turn PASS is legal (and shown in the observation's "may be
    declined" entry); declining hands the turn on. On a normal turn PASS stays illegal."""
    st = make_state("BP", origin=(4, 4), hands=["BRRR", "RRR"])
    assert st.legal_actions_mask()[A.PASS] == 0
    st.apply(A.place(BLUE, cell(3, 4)))
    assert st.cur == 0 and st.phase == "play"
    assert st.legal_actions_mask()[A.PASS] == 1
    assert st.observation(0)[18 * 100 + 79] == 1.0
    st.apply(A.PASS)
    assert st.cur == 1 and faces_in_hand(st, 0) == "RRR"
    assert st.penalty == [0, 0] and not st.out[0]
    assert st.legal_actions_mask()[A.PASS] == 0 and st.observation(1)[18 * 100 + 79] == 0.0


def test_blue_wizard_extra_turn_without_a_placement_is_not_out():
    """Placing & Resolving Cubes, Blue, with Multi-Player Competitive end of play: a player who has
    nothing to place on a Wizard's extra turn is not 'stuck' (it only declines a turn it was
    offered): it stays in with no unplaced cubes, and play passes to the next player."""
    # after the Wizard at F5 seat 0 holds only Dwarves, and no cell next to a cube takes one
    st = make_state("""
    GGG
    GB.
    GGG
    """, origin=(3, 3), hands=["BRRR", "OOO"])
    st.apply(A.place(BLUE, cell(4, 5)))
    assert not st.is_terminal()
    assert st.cur == 1 and st.phase == "play"
    assert st.out == [False, False] and st.end_phase is None and st.penalty == [0, 0]


def test_wizard_no_extra_turn_in_zone_end_phase():
    """Blue + Multi-Player Competitive end: after a zone is filled every other player places exactly
    one more cube (RULES.md: no Wizard extra turn), so a Wizard there ends the game."""
    top = "\n".join(["GGGGGGGGGG"] * 5)
    st = make_state(top + "\nB.........", hands=["RRR", "BBB"], end_phase="zone", filler=0,
                    allot=[0, 1], cur=1)
    st.apply(A.place(BLUE, cell(5, 1)))
    assert st.phase == "over"


def test_wizard_filling_own_zone_gets_no_extra_turn():
    """Blue + Multi-Player Competitive end: filling one's zone ends normal play at once (RULES.md),
    so a Wizard that completes the zone does not give its player another turn: the other player
    gets its one extra cube next."""
    top = "\n".join(["BBBBBBBBBB"] * 4 + ["BBBBBBBBB."])
    st = make_state(top, hands=["BBB", "PPP"])
    st.apply(A.place(BLUE, cell(4, 9)))
    assert st.end_phase == "zone" and st.filler == 0
    assert st.cur == 1 and st.allot == [0, 1]
