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
"""
from __future__ import annotations

import numpy as np

from .config import ABILITIES, MAX_HEARTS

ARMY_INFO = 8
GLOBAL = 7
_PHASE = {"deploy": 0, "play": 1, "ability": 2}


def slot_features(game) -> int:
    return 1 + game.num_monster_designs + 2 + 2 + len(ABILITIES) + 1 + game.num_weapon_designs


def observation_layout(game) -> list[tuple[str, tuple[int, ...]]]:
    S, F, D = game.num_seats, game.field_cap, game.num_designs
    return [("armies", (S, F, slot_features(game))), ("army_info", (S, ARMY_INFO)),
            ("hands", (S, D)), ("discard", (D,)), ("global", (GLOBAL,))]


def _tables(game):
    """Per-game offsets and the static (index, value) pairs of each monster design's slot row."""
    t = getattr(game, "_zaka_obs_tables", None)
    if t is not None:
        return t
    S, F, D, dm = game.num_seats, game.field_cap, game.num_designs, game.num_monster_designs
    feat = slot_features(game)
    o_type = 1 + dm
    o_hearts = o_type + 2
    o_ability = o_hearts + 2
    o_strength = o_ability + len(ABILITIES)
    o_weapon = o_strength + 1
    static = []
    for d in range(dm):
        static.append(((0, 1 + d, o_type + game.card_type[d], o_hearts + 1, o_ability + game.ability[d]),
                       (1.0, 1.0, 1.0, game.hearts[d] / MAX_HEARTS, 1.0)))
    n_armies = S * F * feat
    t = {"feat": feat, "static": static, "o_hearts": o_hearts, "o_strength": o_strength,
         "o_weapon": o_weapon - dm, "info": n_armies, "hands": n_armies + S * ARMY_INFO,
         "discard": n_armies + S * ARMY_INFO + S * D,
         "global": n_armies + S * ARMY_INFO + S * D + D,
         "inv_copies": [1.0 / c for c in game.copies], "size": game.observation_size}
    game._zaka_obs_tables = t
    return t


def build_observation(state, seat: int) -> np.ndarray:
    g = state.game
    S, F, D = g.num_seats, g.field_cap, g.num_designs
    t = _tables(g)
    feat, static = t["feat"], t["static"]
    o_hearts, o_strength, o_weapon = t["o_hearts"], t["o_strength"], t["o_weapon"]
    idx: list[int] = []
    val: list[float] = []
    me = g.seat_owner(seat)
    info = t["info"]
    hands = t["hands"]
    inv_hearts = 1.0 / MAX_HEARTS
    for rel in range(S):
        a = (seat + rel) % S
        field = state.fields[a]
        hearts_total = 0
        for slot, m in enumerate(field):
            base = (rel * F + slot) * feat
            offs, vals = static[m[0]]
            idx.extend([base + o for o in offs])
            val.extend(vals)
            hp = m[1] if m[1] > 0 else 0
            hearts_total += hp
            idx.append(base + o_hearts)
            val.append(hp * inv_hearts)
            idx.append(base + o_strength)
            val.append(min(1.0, state.strength(m) / 15))
            if m[2] >= 0:
                idx.append(base + o_weapon + m[2])
                val.append(1.0)
        b = info + rel * ARMY_INFO
        hand = state.hands[a]
        idx.extend(range(b, b + ARMY_INFO))
        val.extend((float(not state.out[a]), float(state.deployed[a]), float(g.friendly(seat, a)),
                    float(g.seat_owner(a) == me), float(a == state.cur and state.phase != "over"),
                    min(1.0, sum(hand) / 20), len(field) / F,
                    min(1.0, hearts_total / (MAX_HEARTS * F))))
        if g.seat_owner(a) == me:          # a player sees its own hand(s) only
            hb = hands + rel * D
            for d, k in enumerate(hand):
                if k:
                    idx.append(hb + d)
                    val.append(min(1.0, k / 4))
    counts: dict[int, int] = {}
    for d in state.discard:
        counts[d] = counts.get(d, 0) + 1
    inv = t["inv_copies"]
    db = t["discard"]
    for d, k in counts.items():
        idx.append(db + d)
        val.append(min(1.0, k * inv[d]))
    gb = t["global"]
    if state.phase in _PHASE:
        idx.append(gb + _PHASE[state.phase])
        val.append(1.0)
    idx.extend(range(gb + 3, gb + 7))
    val.extend((min(1.0, state.played / g.rules["plays_per_turn"]), len(state.deck) / g.deck_size,
                min(1.0, state.turns_done / g.rules["max_turns"]),
                min(1.0, state.rewards_lost / g.deck_size)))
    obs = np.zeros(t["size"], np.float32)
    obs[np.array(idx, np.intp)] = np.array(val, np.float32)
    return obs
