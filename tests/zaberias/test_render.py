"""Zaberias text render: cities and units cannot be mistaken for each other."""
from __future__ import annotations

from tabletop_arena.envs.zaberias.actions import cell_name
from tests.zaberias.util import blank, cell, put


def test_city_grades_are_digits_and_cities_under_units_are_listed():
    """A city shows as seat + grade digit (unit glyphs are letters, so a Spider Witch 'W' is no
    longer read as a wood city); a city with a unit standing in it is still named in its owner's
    cities list."""
    st = blank(tribes=["undead", "guardians"])
    g = st.game
    assert not any(spec.glyph.isdigit() for spec in g.specs)
    site = 2                                    # the vacant site (12, 6) in util's 2-player map
    st.city_owner[site], st.city_grade[site] = 1, 2
    x = st.geo.site_cells[site]
    assert x == cell(st, 12, 6)
    put(st, 1, "Spider Witch", 12, 5)
    text = st.render_text(color=False)
    rows = text.splitlines()[2:2 + g.H]
    assert rows[12].split()[6:8] == ["1W", "12"]   # the Witch at f13, the metal city at g13
    assert f"cities: {cell_name(x, g.W)} metal" in text
    put(st, 0, "Skeleton", 12, 6)               # an enemy unit in the city hides it on the map
    text = st.render_text(color=False)
    assert text.splitlines()[2 + 12].split()[7] == "0k"
    assert f"{cell_name(x, g.W)} metal" in text.split("player_1")[-1]
