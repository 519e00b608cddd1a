"""Puzzle Solver set-up: the rulebook's "Create Your Own Puzzle" generator and a solver.

Generator (rulebook, Solo Puzzle Solver - Create Your Own Puzzle): cubes are drawn and rolled one at
a time and put in the first cell, in reading order from the top-left corner of the field, where they
break no neighbour rule; cells passed over stay empty. Those holes are the puzzle. Brown cubes are
placed like any other cube (they sit next to anything); gray is re-rolled (designed: an eruption
needs a volcano to act on); Giants may stand alone during set-up.

Standard level (designed, since there are no printed puzzle sheets): the listed stock is a solution
that a small backtracking solver finds (races and volcanoes first, a Temple only where nothing else
fits), matched to real cubes in the bag; a set-up the solver cannot finish is generated again.
"""
from __future__ import annotations

import numpy as np

from envs.peacekeepers.board import (BLACK, COMPAT, EMPTY, GRAY, NEIGHBOURS, RACES, SIZE,
                                     WHITE, YELLOW)

MAX_TRIES = 50
SOLVER_BUDGET = 4000


def field_cells(size: int) -> list[int]:
    return [r * SIZE + c for r in range(size) for c in range(size)]


def _fits(board: np.ndarray, cell: int, colour: int) -> bool:
    return all(COMPAT[colour, board[z] + 1] for z in NEIGHBOURS[cell])


def generate(state) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Run the generator with the state's rng. Returns (board, board_cube, bag)."""
    g = state.game
    rng = state.rng
    cells = field_cells(g.rules["puzzle_size"])
    board = np.full(SIZE * SIZE, EMPTY, np.int8)
    cubes = np.full(SIZE * SIZE, -1, np.int16)
    bag = list(range(100))
    aside = []
    cursor = 0
    while cursor < len(cells) and bag:
        cube = bag.pop(int(rng.integers(len(bag))))
        faces = g.faces[cube]
        if all(f == GRAY for f in faces):
            aside.append(cube)
            continue
        face = int(faces[rng.integers(6)])
        while face == GRAY:
            face = int(faces[rng.integers(6)])
        for k in range(cursor, len(cells)):
            if _fits(board, cells[k], face):
                board[cells[k]] = face
                cubes[cells[k]] = cube
                cursor = k + 1
                break
        else:
            aside.append(cube)  # fits nowhere further on: set aside, back in the bag afterwards
    bag.extend(aside)
    return board, cubes, bag


def solve(board: np.ndarray, holes: list[int], colours: list[int], budget: int = SOLVER_BUDGET):
    """Backtracking colouring of ``holes``; Giants need a Giant or Temple neighbour at the end."""
    b = board.copy()
    nodes = 0

    def lonely_giant(cell: int) -> bool:
        # checked on the finished field: cells outside it stay empty and keep no Giant company
        return not any(b[z] in (YELLOW, WHITE) for z in NEIGHBOURS[cell])

    def rec(i: int) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            return False
        if i == len(holes):
            return not any(lonely_giant(c) for c in np.flatnonzero(b == YELLOW))
        cell = holes[i]
        for col in colours:
            if _fits(b, cell, col):
                b[cell] = col
                if rec(i + 1):
                    return True
                b[cell] = EMPTY
        return False

    if rec(0):
        return [int(b[c]) for c in holes]
    return None


def setup_puzzle(state) -> None:
    """Fill ``state`` with a generated puzzle and deal the stock for its level."""
    g = state.game
    rng = state.rng
    size = g.rules["puzzle_size"]
    state.active[:] = False
    state.active[field_cells(size)] = True
    for _ in range(MAX_TRIES):
        board, cubes, bag = generate(state)
        holes = [c for c in field_cells(size) if board[c] == EMPTY]
        if not holes:
            continue
        if g.puzzle_level != "standard":
            break
        # races and volcanoes in a random order, Temples last (they fit anywhere)
        colours = [int(c) for c in rng.permutation(np.array(RACES + (BLACK,)))] + [WHITE]
        solution = solve(board, holes, colours)
        if solution is None:
            continue
        stock = _match_cubes(g, bag, solution)
        if stock is not None:
            break
    else:
        raise RuntimeError("could not generate a solvable puzzle; try a smaller puzzle_size")
    state.board[:] = board
    state._codes = None
    state._cache = None
    state.board_cube[:] = cubes
    state.bag = bag
    state.puzzle_holes = len(holes)
    state.first_done = [True] * g.num_seats
    state.cur = 0
    state.phase = "play"
    if g.puzzle_level == "standard":
        order = [int(i) for i in rng.permutation(len(stock))]
        for k, i in enumerate(order):  # the stock is shared out among the players in turn
            state.hands[k % g.num_seats].append(stock[i])
    elif g.puzzle_level == "challenge":
        for s in range(g.num_seats):
            state._draw(s, g.hand_size)
    state._begin_turn(0)


def _match_cubes(g, bag: list[int], solution: list[int]):
    """Take one bag cube with the right face for each solution colour (rarest colours first)."""
    stock = []
    pool = list(bag)
    for colour in sorted(solution, key=lambda c: sum(c in g.faces[x] for x in pool)):
        for i, cube in enumerate(pool):
            if colour in g.faces[cube]:
                stock.append((cube, colour))
                pool.pop(i)
                break
        else:
            return None
    for cube, _ in stock:
        bag.remove(cube)
    return stock
