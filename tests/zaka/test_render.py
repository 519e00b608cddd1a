"""Zaka's text view: what a player reads about the monsters on the table."""
from __future__ import annotations

from .helpers import position


def _line(text: str, name: str) -> str:
    return next(ln for ln in text.splitlines() if name in ln)


def test_weapons_text_view_shows_the_total_once():
    """WEAPONS: a weapon adds its swords to the monster's. The text view shows the ability's whole
    strength once and how it is made up, so "Disarm 3" with a Great Axe (+2) does not read as
    3 + 2 = 5 (issue 42): Knight Errant's Disarm 1 plus the axe's 2 is 3, and nothing else."""
    st = position(num_players=3, fields={
        0: [("knight_errant", 4, "great_axe"), ("orc_brute", 5, "troll_buckler"),
            ("battle_cleric", 4, "shortsword"), ("goblin_grunt", 3, "runebane_spear"), "sorcerer"],
        1: ["imp"], 2: ["imp"]})
    text = st.render_text(observer=0, color=False)
    knight = _line(text, "Knight Errant")
    assert knight.endswith("Disarm 3 (1 + 2 Great Axe)")
    assert "+2" not in knight and "+ Great Axe" not in knight
    assert _line(text, "Goblin Grunt").endswith("Attack 2 (1 + 1 Runebane Spear, 2 more vs R)")
    # a heart weapon adds no swords; a mender's weapon adds nothing to Mend
    assert _line(text, "Orc Brute").endswith("Attack 2 (Trollhide Buckler: +1 heart per use)")
    assert _line(text, "Battle Cleric").endswith("Mend 2 (Shortsword: no effect on Mend)")
    assert _line(text, "Sorcerer").endswith("Attack 2")
