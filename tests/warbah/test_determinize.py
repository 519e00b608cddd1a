"""What a Warbah determinize() sample keeps: what the observer has seen (issue 41)."""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.warbah.actions import TARGET0
from tabletop_arena.envs.warbah.state import Item
from tests.warbah.test_espionage import at_stage, contact_state


def _espied_position(look: bool):
    """Seat 1's Hero carries a realm-spell and a battle-spell item; with ``look``, seat 0's
    agent has just looked at his index card (ESPIONAGE TABLE 6-8)."""
    g, st, a, b = contact_state()
    b.items = [Item("realm", spell=3), Item("battle", spell=30)]
    if look:
        at_stage(st, "look")
        st.apply(TARGET0)
    return st, 1   # b is st.heroes[1]


def test_items_seen_through_espionage_stay_in_the_sample():
    """ESPIONAGE TABLE 6-8 (look at the target Hero's index card): the card shows his items,
    so a sample for the spy keeps them (it resampled the items' spells, which the spy's own
    view of the position then contradicted)."""
    st, hi = _espied_position(look=True)
    view = st.render_text(observer=0)
    assert "items" in view
    for k in range(20):
        sample = st.determinize(0, np.random.default_rng(k))
        assert [(it.kind, it.spell) for it in sample.heroes[hi].items] == [("realm", 3), ("battle", 30)]
        assert sample.render_text(observer=0) == view
        assert np.array_equal(sample.observation(0), st.observation(0))


def test_items_not_seen_are_resampled():
    """The control: without the look the items' cards are hidden, and samples draw them."""
    st, hi = _espied_position(look=False)
    spells = {tuple(it.spell for it in st.determinize(0, np.random.default_rng(k)).heroes[hi].items)
              for k in range(20)}
    assert len(spells) > 1
