"""``arena play`` in the terminal (issue 47 item 8): ``help`` explains what to type, a number out of
range says so and how many moves there are, and a whole word (a cell such as ``A1``) picks that
cell, not every cell that starts with it (``A10``)."""
from __future__ import annotations

import builtins

from tabletop_arena.app import cli
from tabletop_arena.app.match import PICK_HELP, filter_moves, pick_move

MOVES = [(10, "place Giants (yellow) [Y] at A1"), (11, "place Giants (yellow) [Y] at A10"),
         (12, "place Trolls (red) [R] at A1"), (13, "place Trolls (red) [R] at B4")]


def test_help_explains_what_to_type():
    pick = pick_move("help", MOVES, MOVES)
    assert pick.action is None and pick.message == PICK_HELP and pick.shown == MOVES
    assert pick_move("?", MOVES, MOVES).message == PICK_HELP


def test_a_number_out_of_range_says_how_many_moves_there_are():
    pick = pick_move("999", MOVES, MOVES)
    assert pick.action is None
    assert pick.message.startswith("999 is out of range: the list has moves 0..3")
    assert pick_move("3", MOVES, MOVES).action == 13
    many = [(i, f"move {i}") for i in range(75)]
    msg = pick_move("70", many, many).message
    assert "moves 0..59" in msg and "15 more are not numbered" in msg


def test_a_whole_word_picks_that_cell_not_the_cells_it_starts():
    assert pick_move("giants A1", MOVES, MOVES).action == 10      # not A10
    assert pick_move("giants a10", MOVES, MOVES).action == 11
    assert [a for a, _ in filter_moves(["A1"], MOVES)] == [10, 12]
    assert [a for a, _ in filter_moves(["gia"], MOVES)] == [10, 11]   # part of a word still matches
    assert [a for a, _ in filter_moves(["troll"], MOVES)] == [12, 13]


def test_no_match_names_what_was_typed_and_shows_every_move():
    pick = pick_move("dragons", MOVES, MOVES[:1])
    assert pick.action is None and pick.shown == MOVES
    assert pick.message.startswith("no legal move matches 'dragons'") and "help" in pick.message


def test_arena_play_answers_help_and_out_of_range(monkeypatch, capsys):
    typed = iter(["help", "999"])

    def answer(prompt=""):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr(builtins, "input", answer)
    code = cli.main(["play", "zaka", "--seed", "1", "--opponents", "random"])
    out = capsys.readouterr().out
    assert code == 0
    assert PICK_HELP in out
    assert "999 is out of range: the list has moves 0.." in out
    assert "no legal move matches" not in out
