"""Small fixtures for Zaberias scenario tests: an emptied map, units put by hand, scripted dice.

2-player grid (14 rows x 7 cols), seat 0 (Undead by default) owns the bottom board, home city at
(13, 0); seat 1 the top board, home city at (0, 6). Useful cells (row, col):
grass (12,4) (12,5) (13,4) (13,5) (13,6) (11,5) (11,6) (10,4) (10,5) (10,6) (9,5) (9,4)
water (7,3) (7,4) (8,3) (6,2) (6,3); portals (10,3) (3,3); star (8,5); mine (11,0);
vacant sites (12,6) (7,5); diagonal road (13,1)-(12,2)-(11,3); roads (9,3)-(8,4)-(7,5).
"""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.zaberias import make_game
from tabletop_arena.envs.zaberias import movement as M


class ScriptedDice:
    """Stands in for the state's generator: ``integers(k)`` returns the scripted die faces
    (face index = face value on the designed die 0..5)."""

    def __init__(self, faces):
        self.faces = list(faces)

    def integers(self, k, *a, **kw):
        if not self.faces:
            raise AssertionError("the test ran out of scripted dice")
        return self.faces.pop(0)


def cell(st, r: int, c: int) -> int:
    return r * st.game.W + c


def blank(num_players=2, tribes=None, coins=6, rules=None):
    """A state at the start of seat 0's turn with no units, only the home cities, ``coins``."""
    g = make_game(num_players=num_players, tribes=tribes, rules=rules)
    st = g.new_initial_state(np.random.default_rng(0))
    st.order = list(range(num_players))
    st.cur = 0
    st.phase = "main"
    st.coins = [coins] * num_players
    st.turn = 1
    st.turns_taken = [1] + [0] * (num_players - 1)
    st.turn_started = [1] + [0] * (num_players - 1)
    st.prev_turn_start = [1] + [0] * (num_players - 1)
    st._memo = {}
    return st


def put(st, seat: int, name: str, r: int, c: int, fresh=True) -> int:
    """Put the unit called ``name`` of ``seat`` on (r, c); returns its unit id."""
    g = st.game
    uid = seat * g.U + g.slot_of(seat, name)
    st.place_unit(uid, cell(st, r, c))
    if not fresh:
        st.moved[uid], st.attacks[uid], st.attacked[uid] = True, 0, True
    st._memo = {}
    return uid


def act(st, kind: str, arg: int = 0):
    """Apply the action ``kind`` (layout block name) with argument ``arg``."""
    L = st.game.layout
    base = {"end": L.END, "select": L.SELECT, "buy": L.BUY, "upgrade": L.UPGRADE,
            "cityatk": L.CITYATK, "move": L.MOVE, "attack": L.ATTACK, "ability": L.ABILITY,
            "rotate": L.ROTATE, "plague": L.PLAGUE, "join": L.JOIN, "roll": L.ROLL,
            "reroll": L.REROLL, "standdown": L.STANDDOWN, "release": L.RELEASE,
            "stop": L.STOP}[kind]
    st.apply(base + arg)


def legal(st, kind: str) -> list[int]:
    """Arguments of the legal actions of block ``kind``."""
    L = st.game.layout
    out = []
    for a in st.legal_actions():
        k, arg = L.decode(a)
        if k == kind:
            out.append(arg)
    return out


def select(st, uid: int):
    act(st, "select", uid % st.game.U)


def attack(st, uid: int, r: int, c: int, dice=None):
    if dice is not None:
        st.rng = ScriptedDice(dice)
    select(st, uid)
    act(st, "attack", cell(st, r, c))


def on_map(st, uid: int) -> bool:
    return M.on_map(st, uid)


def hold(st, siphon, seat, names):
    """Put the named units of ``seat`` into ``siphon``'s hold (Siphon rules), by hand."""
    g = st.game
    for name in names:
        u = seat * g.U + g.slot_of(seat, name)
        st.status[u], st.holder[u] = M.HELD, siphon
        st.held[siphon].append(u)
