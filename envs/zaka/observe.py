"""Observation builder for Zaka: one flat float32 vector in [0, 1] (inside the [-1, 1] Box).

Armies are *relative* to the observing army: ``rel 0`` is the observer, ``rel k`` the k-th army
after it clockwise (with 2 players ``rel 2`` is the observer's own second army). ``Dm``/``Dw``/``D``:
monster / weapon / all card designs (17 / 8 / 25 by default), ``F`` the battlefield cap (8), ``S``
the number of armies (4 with 2 players). Sizes below are for the default deck.

| piece       | shape          | content                                                             |
|-------------|----------------|---------------------------------------------------------------------|
| armies      | (S, F, 13+D)   | per battlefield slot (play order): present; monster design one-hot  |
|             |                | (Dm); weapon type one-hot (2); hearts left /10; full hearts /10;    |
|             |                | ability kind one-hot (7: attack rampage mend drain disarm snatch    |
|             |                | reap); strength (swords + weapon) /15; weapon design one-hot (Dw)   |
| army_info   | (S, 8)         | in the game; first turn done; friendly (never damaged by the        |
|             |                | observer); same player; to move; hand size /20; monsters /F;        |
|             |                | hearts on the battlefield /(10 F)                                   |
| hands       | (S, D)         | hand count per design /4 (capped at 1) for armies of the            |
|             |                | observer's own player only; zeros for everyone else (hidden)        |
| discard     | (D,)           | discard pile count per design / copies in the deck                  |
| global      | (7,)           | phase one-hot (deploy, play, ability); cards played this turn /     |
|             |                | plays_per_turn; deck size / deck total; turns done / max_turns;     |
|             |                | kill rewards lost to an empty deck / deck total                     |

Everything a player may see: battlefields, the discard pile, deck and hand sizes, its own hand(s).
Never another player's hand or the deck order (checked by ``tests/zaka/test_hidden_info.py``).

How it is built (the observation was ~60% of a step): a battlefield slot's features depend only on
(monster design, weapon, hearts left), so every possible slot row is computed once per game as
float32 bytes (``ObservationTables``); an observation joins the rows of the monsters in play, zero
bytes for empty slots, and the few per-army, discard and global numbers packed in one call.
"""
from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

import numpy as np

from .tables import ABILITIES, MAX_HEARTS

if TYPE_CHECKING:   # for the type checker only: game.py and state.py import this module
    from .game import ZakaGame
    from .state import ZakaState

ARMY_INFO = 8
GLOBAL = 7
_PHASE = {"deploy": 0, "play": 1, "ability": 2}
_FLOAT32 = np.dtype(np.float32).itemsize


def slot_features(game: ZakaGame) -> int:
    return 1 + game.num_monster_designs + 2 + 2 + len(ABILITIES) + 1 + game.num_weapon_designs


def observation_layout(game: ZakaGame) -> list[tuple[str, tuple[int, ...]]]:
    S, F, D = game.num_seats, game.field_cap, game.num_designs
    return [("armies", (S, F, slot_features(game))), ("army_info", (S, ARMY_INFO)),
            ("hands", (S, D)), ("discard", (D,)), ("global", (GLOBAL,))]


class ObservationTables:
    """Everything about one game variant's observation that does not depend on the position."""

    def __init__(self, game: ZakaGame):
        S, F, D, dm = game.num_seats, game.field_cap, game.num_designs, game.num_monster_designs
        self.feat = feat = slot_features(game)
        o_type = 1 + dm
        o_hearts = o_type + 2
        o_ability = o_hearts + 2
        o_strength = o_ability + len(ABILITIES)
        o_weapon = o_strength + 1
        #: slot_rows[design][weapon + 1][hearts left]: the slot's features as float32 bytes
        #: (weapon: a weapon design id, or -1 for none; monster ids hold no rows)
        self.slot_rows: list[list[list[bytes]]] = []
        for d in range(dm):
            per_weapon: list[list[bytes]] = [[] for _ in range(D + 1)]
            for w in [-1] + list(game.weapon_designs):
                per_hearts = per_weapon[w + 1]
                for hp in range(MAX_HEARTS + 1):
                    row = np.zeros(feat, np.float32)
                    row[0] = 1.0
                    row[1 + d] = 1.0
                    row[o_type + game.card_type[d]] = 1.0
                    row[o_hearts + 1] = game.hearts[d] / MAX_HEARTS
                    row[o_ability + game.ability[d]] = 1.0
                    row[o_hearts] = hp * (1.0 / MAX_HEARTS)
                    row[o_strength] = min(1.0, game.strength(d, w) / 15)
                    if w >= 0:
                        row[o_weapon + w - dm] = 1.0
                    per_hearts.append(row.tobytes())
            self.slot_rows.append(per_weapon)
        #: zero bytes for k empty slots, k = 0..F
        self.empty_slots = [bytes(k * feat * _FLOAT32) for k in range(F + 1)]
        self.hidden_hand = bytes(D * _FLOAT32)
        #: hand counts k (at most every copy of a design) -> min(1, k / 4)
        self.hand_value = [min(1.0, k / 4) for k in range(max(game.copies) + 1)]
        self.inv_copies = [1.0 / c for c in game.copies]
        #: own-hand bytes by hand counts, discard features by pile (bounded memos: a hand or a
        #: pile changes at a few steps of a game, an observation is built at every step)
        self.hand_memo = _Memo()
        self.discard_memo = _Memo()
        self.size = game.observation_size
        self.num_designs = D
        self.field_cap = F
        self.hearts_cap = MAX_HEARTS * F
        self.plays_per_turn = game.rules["plays_per_turn"]
        self.max_turns = game.rules["max_turns"]
        self.deck_size = game.deck_size
        #: per observer seat: (army seen at rel 0..S-1, friendly, same player) for each rel
        self.views = []
        for seat in range(S):
            me = game.seat_owner(seat)
            self.views.append(tuple(((seat + rel) % S, float(game.friendly(seat, (seat + rel) % S)),
                                     game.seat_owner((seat + rel) % S) == me) for rel in range(S)))


class _Memo(dict):
    """A bounded memo (cleared when full): values depend on the key alone, so what it holds
    changes only the speed."""

    def __init__(self, limit: int = 1 << 14):
        super().__init__()
        self.limit = limit

    def put(self, key, value):
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value


def _own_hand(t: "ObservationTables", hand: list[int]) -> bytes:
    key = tuple(hand)
    data = t.hand_memo.get(key)
    if data is None:
        data = t.hand_memo.put(key, array("f", [t.hand_value[k] for k in hand]).tobytes())
    return data


def _discard(t: "ObservationTables", pile: list[int]) -> tuple[float, ...]:
    key = tuple(pile)
    values = t.discard_memo.get(key)
    if values is None:
        counts = [0] * t.num_designs
        for d in pile:
            counts[d] += 1
        inv = t.inv_copies
        values = t.discard_memo.put(key, tuple(min(1.0, k * inv[d]) if k else 0.0
                                               for d, k in enumerate(counts)))
    return values


def build_observation(state: ZakaState, seat: int) -> np.ndarray:
    t: ObservationTables = state.game.observation_tables
    F = t.field_cap
    rows, empty = t.slot_rows, t.empty_slots
    field_bytes: list[bytes] = []
    info: list[float] = []
    hands: list[bytes] = []
    fields, out, deployed, all_hands = state.fields, state.out, state.deployed, state.hands
    mover = state.cur if state.phase != "over" else -1
    for a, friendly, own in t.views[seat]:
        field = fields[a]
        hearts_total = 0
        for design, hp, weapon in field:
            if hp < 0:
                hp = 0
            hearts_total += hp
            field_bytes.append(rows[design][weapon + 1][hp])
        field_bytes.append(empty[F - len(field)])
        hand = all_hands[a]
        info += (0.0 if out[a] else 1.0, 1.0 if deployed[a] else 0.0, friendly, 1.0 if own else 0.0,
                 1.0 if a == mover else 0.0, min(1.0, sum(hand) / 20), len(field) / F,
                 min(1.0, hearts_total / t.hearts_cap))
        hands.append(_own_hand(t, hand) if own else t.hidden_hand)   # own hand(s) only
    tail = [*_discard(t, state.discard), 0.0, 0.0, 0.0]
    if state.phase in _PHASE:
        tail[-3 + _PHASE[state.phase]] = 1.0
    tail += (min(1.0, state.played / t.plays_per_turn), len(state.deck) / t.deck_size,
             min(1.0, state.turns_done / t.max_turns), min(1.0, state.rewards_lost / t.deck_size))
    data = b"".join(field_bytes) + array("f", info).tobytes() + b"".join(hands) + array("f", tail).tobytes()
    return np.frombuffer(bytearray(data), np.float32)
