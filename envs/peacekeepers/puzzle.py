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

from typing import TYPE_CHECKING

import numpy as np

from .board import BLACK, COMPAT, EMPTY, GRAY, NEIGHBOURS, RACES, SIZE, WHITE, YELLOW

if TYPE_CHECKING:   # for the type checker only: state.py (which game.py imports) imports this module
    from .game import PeacekeepersGame
    from .state import PeacekeepersState

MAX_TRIES = 50
SOLVER_BUDGET = 4000


def field_cells(size: int) -> list[int]:
    return [r * SIZE + c for r in range(size) for c in range(size)]


#: COMPAT as plain Python: _ALLOWED[colour][code + 1] (the solver reads it thousands of times a
#: set-up, where numpy scalar indexing cost ~25-50 ms per puzzle)
_ALLOWED = tuple(tuple(bool(x) for x in row) for row in COMPAT)


def _fits(board, cell: int, colour: int) -> bool:
    """Whether ``colour`` breaks no neighbour rule at ``cell`` (``board``: a list of codes)."""
    ok = _ALLOWED[colour]
    return all(ok[board[z] + 1] for z in NEIGHBOURS[cell])


def generate(state: PeacekeepersState) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Run the generator with the state's rng. Returns (board, board_cube, bag)."""
    g = state.game
    rng = state.rng
    cells = field_cells(g.rules["puzzle_size"])
    board = [EMPTY] * (SIZE * SIZE)   # lists while generating: the fit test reads them cell by cell
    cubes = [-1] * (SIZE * SIZE)
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
    return np.array(board, np.int8), np.array(cubes, np.int16), bag


def solve(board: np.ndarray, holes: list[int], colours: list[int], budget: int = SOLVER_BUDGET):
    """Backtracking colouring of ``holes``; Giants need a Giant or Temple neighbour at the end."""
    b = [int(x) for x in board]  # plain ints: numpy scalar reads would dominate the search
    n = len(holes)
    near = [NEIGHBOURS[c] for c in holes]
    pairs = [(col, _ALLOWED[col]) for col in colours]
    company = (YELLOW, WHITE)
    # the Giant rule on the finished field (cells outside it stay empty and keep no Giant company):
    # a set-up Giant with set-up company is always fine; the others need a filled hole next to them
    hole_set = set(holes)
    waiting = []   # set-up Giants without set-up company: their hole neighbours
    for c, x in enumerate(b):
        if x == YELLOW and not any(z not in hole_set and b[z] in company for z in NEIGHBOURS[c]):
            waiting.append([z for z in NEIGHBOURS[c] if z in hole_set])
    hole_giants = list(zip(holes, near))
    nodes = 0

    def no_lonely_giant() -> bool:
        for nbs in waiting:
            if not any(b[z] in company for z in nbs):
                return False
        for h, around in hole_giants:
            if b[h] == YELLOW and not any(b[z] in company for z in around):
                return False
        return True

    def rec(i: int) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            return False
        if i == n:
            return no_lonely_giant()
        cell, nbs = holes[i], near[i]
        for col, ok in pairs:
            for z in nbs:
                if not ok[b[z] + 1]:
                    break
            else:
                b[cell] = col
                if rec(i + 1):
                    return True
                b[cell] = EMPTY
        return False

    if rec(0):
        return [b[c] for c in holes]
    return None


def setup_puzzle(state: PeacekeepersState) -> None:
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
        assert stock is not None   # the standard level leaves the loop with a matched stock
        order = [int(i) for i in rng.permutation(len(stock))]
        for k, i in enumerate(order):  # the stock is shared out among the players in turn
            state.hands[k % g.num_seats].append(stock[i])
    elif g.puzzle_level == "challenge":
        for s in range(g.num_seats):
            state._draw(s, g.hand_size)
    state._begin_turn(0)


def _match_cubes(g: PeacekeepersGame, bag: list[int],
                 solution: list[int]) -> list[tuple[int, int]] | None:
    """Take one bag cube with the right face for each solution colour (rarest colours first)."""
    stock = []
    pool = list(bag)
    have = {c: sum(c in g.face_sets[x] for x in pool) for c in set(solution)}
    for colour in sorted(solution, key=have.__getitem__):
        for i, cube in enumerate(pool):
            if colour in g.face_sets[cube]:
                stock.append((cube, colour))
                pool.pop(i)
                break
        else:
            return None
    for cube, _ in stock:
        bag.remove(cube)
    return stock
