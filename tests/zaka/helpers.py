"""Scenario fixtures for the Zaka rule tests: a position built from card ids.

    st = position(num_players=3,
                  fields={0: ["orc_brute", ("imp", 1), ("sorcerer", 4, "wand")],
                          1: ["stone_troll"]},
                  hands={0: ["goblin_grunt", "shortsword"]},
                  deck=["imp", "wand"],            # listed bottom -> top (last is drawn first)
                  cur=0, phase="play")

A field entry is a card id (full hearts, no weapon) or a tuple ``(id, hearts[, weapon id])``.
Armies not named in ``fields`` are empty; every army counts as having had its first turn unless
``deployed`` says otherwise. Hands and deck default to empty, so each test says exactly what it needs.
"""
from __future__ import annotations

import numpy as np

from tabletop_arena import envs


def design_ids(game) -> dict[str, int]:
    return {c["id"]: i for i, c in enumerate(game.cards)}


def position(num_players: int = 2, fields=None, hands=None, deck=(), discard=(), cur: int = 0,
             phase: str = "play", deployed=None, rules=None, seed: int = 0):
    game = envs.make_game("zaka_v0", num_players=num_players, rules=rules or {})
    ids = design_ids(game)
    st = game.new_initial_state(np.random.default_rng(seed))
    n = game.num_seats
    st.fields = [[] for _ in range(n)]
    for seat, monsters in (fields or {}).items():
        for entry in monsters:
            if isinstance(entry, str):
                entry = (entry,)
            d = ids[entry[0]]
            hearts = entry[1] if len(entry) > 1 else game.hearts[d]
            weapon = ids[entry[2]] if len(entry) > 2 else -1
            st.fields[seat].append([d, hearts, weapon])
    st.hands = [[0] * game.num_designs for _ in range(n)]
    for seat, cards in (hands or {}).items():
        for c in cards:
            st.hands[seat][ids[c]] += 1
    st.deck = [ids[c] for c in deck]
    st.discard = [ids[c] for c in discard]
    st.deployed = [True] * n if deployed is None else list(deployed)
    st.out = [False] * n
    st.cur, st.phase, st.played = cur, phase, 0
    st.log = []
    st._mask = None
    return st


def card(game, card_id: str) -> int:
    return design_ids(game)[card_id]


def names_in(state, seat: int) -> list[str]:
    """The card ids on ``seat``'s battlefield, in slot order."""
    return [state.game.cards[m[0]]["id"] for m in state.fields[seat]]


def hand_ids(state, seat: int) -> list[str]:
    g = state.game
    return [g.cards[d]["id"] for d, k in enumerate(state.hands[seat]) for _ in range(k)]
