"""Whole-game invariants of Warbah under seeded random play (every state of every game): the
things a reader of the render would call nonsense (Heroes, fleets, garrisons, settlements,
eliminated players, capitols). Each check is also shown to fire on a state
edited to break it, so the property test cannot pass vacuously."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tabletop_arena.envs.warbah import heroes, make_game
from tests.random_play import play_checking, random_step

VARIANTS = {"2p": dict(num_players=2), "3p": dict(num_players=3), "4p": dict(num_players=4),
            "4p_allies": dict(num_players=4, allies=True),
            "2p_mass": dict(num_players=2, rules={"mass_formula": True})}


def violations(st) -> list[str]:
    """What is wrong with this position (an empty list when nothing is)."""
    out = []
    live = [h for h in st.heroes if h.alive]
    if any(k > 1 for k in Counter(h.cell for h in live).values()):
        out.append("two living Heroes share a hex")  # MOVE & EXPLORE: never end on a Hero
    land = st.land.astype(bool)
    for h in live:
        c = h.cell
        if not land[c] and st.fleets.ships[c] <= 0:
            out.append(f"Hero {h.id} of seat {h.seat} at sea without ships")
        if land[c] and not st.explored[c]:
            out.append(f"Hero {h.id} of seat {h.seat} on an unexplored hex")
        if (h.troops < 0).any() or (h.specials is not None and (h.specials < 0).any()):
            out.append("negative troops")
        if st.phase == "recruit" and heroes.army_size(h) > heroes.army_cap(st, h):  # trimmed in recovery
            out.append(f"army over the cap ({heroes.army_size(h)} > {heroes.army_cap(st, h)})")
        if heroes.type_count(h) > heroes.type_limit(st, h):
            out.append("more troop types than the limit")
    if (st.gold < 0).any():
        out.append("negative gold")
    if (st.garrison < 0).any() or (st.garrison_specials < 0).any():
        out.append("negative garrison")
    if ((st.fleets.ships > 0) & land).any():
        out.append("ships on land")
    if ((st.fleets.ships > 0) & (st.fleets.owner < 0)).any():
        out.append("a fleet without an owner")
    if ((st.owner >= 0) & ~land).any():
        out.append("an owned water hex")
    garrisoned = (st.garrison.sum(1) + st.garrison_specials.sum(1)) > 0
    if (garrisoned & ((st.owner < 0) | ~land)).any():
        out.append("a garrison outside an owned land hex")
    if ((st.settle >= 0) & ~st.explored.astype(bool)).any():
        out.append("a settlement on an unexplored hex")
    for s in range(st.game.num_seats):
        if not st.alive[s] and (any(h.alive and h.seat == s for h in st.heroes)
                                or (st.owner == s).any()):
            out.append(f"eliminated player {s} still has Heroes or hexes")
        if st.alive[s] and st.phase != "capitol" and st.owner[st.capitol[s]] != s:
            out.append(f"player {s} does not own his capitol")
    return out


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_games_never_break_the_invariants(variant):
    for seed in range(3):
        st = make_game(**VARIANTS[variant]).new_initial_state(np.random.default_rng(seed))
        play_checking(st, np.random.default_rng(seed + 50), violations, f"{variant} seed {seed}")


def _mid_game(seed=0):
    g = make_game(num_players=2)
    st = g.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(60):
        random_step(st, rng)
    assert not st.is_terminal() and not violations(st)
    return st


def test_each_invariant_fires_on_a_broken_state():
    st = _mid_game()
    a, b = [h for h in st.heroes if h.alive][:2]
    water = int(np.flatnonzero(~st.land.astype(bool))[0])
    edits = {
        "two living Heroes share a hex": lambda s: setattr(s.heroes[1], "cell", s.heroes[0].cell),
        "at sea without ships": lambda s: (setattr(s.heroes[0], "cell", water), s.fleets.ships.__setitem__(water, 0)),
        "negative gold": lambda s: s.gold.__setitem__(0, -1),
        "negative garrison": lambda s: s.garrison.__setitem__((0, 0), -1),
        "ships on land": lambda s: s.fleets.ships.__setitem__(s.heroes[0].cell, 1),
        "an owned water hex": lambda s: s.owner.__setitem__(water, 0),
        "a garrison outside an owned land hex": lambda s: s.garrison.__setitem__((water, 0), 1),
        "a settlement on an unexplored hex": lambda s: s.explored.__setitem__(
            int(np.flatnonzero(s.settle >= 0)[0]), False),
        "still has Heroes or hexes": lambda s: s.alive.__setitem__(0, False),
        "does not own his capitol": lambda s: s.owner.__setitem__(s.capitol[1], -1),
    }
    assert a is st.heroes[0] and b is st.heroes[1]
    for what, edit in edits.items():
        s = st.clone()
        edit(s)
        assert any(what in v for v in violations(s)), what
