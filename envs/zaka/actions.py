"""Flat action layout for Zaka (one Discrete space, masked).

The sizes depend on the card list (``Dm`` monster designs, ``Dw`` weapon designs; the default deck
has 17 and 8), the battlefield cap ``F`` (8) and the number of seats ``S`` (4 with 2 players, who
run two armies each; otherwise the number of players). Seats in actions are *relative* to the
acting army: ``rel 0`` is the acting army, ``rel k`` the k-th army after it clockwise. Battlefield
slots count the army's active monsters in the order they were played (0 = oldest).

| block          | count      | index                              | meaning                              |
|----------------|------------|------------------------------------|--------------------------------------|
| PLAY_MONSTER   | Dm         | ``m``                              | put a monster of design m from hand  |
|                |            |                                    | onto one's own battlefield           |
| PLAY_WEAPON    | Dw * F     | ``Dm + w * F + slot``              | give a weapon of design w from hand  |
|                |            |                                    | to one's own monster in ``slot``     |
| END_PLAY       | 1          | ``Dm + Dw*F``                      | stop playing cards (first turn: after|
|                |            |                                    | one monster; regular: go to ability) |
| USE_ON_MONSTER | F * S * F  | ``base + (user * S + rel) * F + t``| use the ability of own monster       |
|                |            |                                    | ``user`` on monster ``t`` of army rel|
| USE_ON_ARMY    | F * S      | ``base + user * S + rel``          | Rampage of ``user`` on army ``rel``  |

Default deck, 2 and 4 players (S=4): 17 + 64 + 1 + 256 + 32 = 370 actions; 3 players (S=3):
17 + 64 + 1 + 192 + 24 = 298.
Copies of one design are identical, so a card in hand is named by its design (no hand order leaks
into the action space and no duplicate actions exist).
"""
from __future__ import annotations

from typing import Literal, Union

#: what ``ActionLayout.decode`` gives: the kind, then its numbers
Decoded = Union[tuple[Literal["monster"], int], tuple[Literal["weapon"], int, int], tuple[Literal["end"]],
                tuple[Literal["use"], int, int, int], tuple[Literal["rampage"], int, int]]


class ActionLayout:
    """Index arithmetic for one (deck, battlefield cap, seats) combination."""

    def __init__(self, num_monster_designs: int, num_weapon_designs: int, field_cap: int,
                 num_seats: int):
        self.dm, self.dw, self.f, self.s = num_monster_designs, num_weapon_designs, field_cap, num_seats
        self.play_monster = 0
        self.play_weapon = self.dm
        self.end_play = self.play_weapon + self.dw * self.f
        self.use_monster = self.end_play + 1
        self.use_army = self.use_monster + self.f * self.s * self.f
        self.num_actions = self.use_army + self.f * self.s

    # -- encoders ---------------------------------------------------------------------------
    def monster(self, design: int) -> int:
        return self.play_monster + design

    def weapon(self, weapon_index: int, slot: int) -> int:
        """``weapon_index`` counts weapon designs from 0 (design id minus Dm)."""
        return self.play_weapon + weapon_index * self.f + slot

    def use_on_monster(self, user: int, rel: int, target: int) -> int:
        return self.use_monster + (user * self.s + rel) * self.f + target

    def use_on_army(self, user: int, rel: int) -> int:
        return self.use_army + user * self.s + rel

    # -- decoder ----------------------------------------------------------------------------
    def decode(self, action: int) -> Decoded:
        """('monster', design) | ('weapon', weapon_index, slot) | ('end',)
        | ('use', user, rel, target) | ('rampage', user, rel)"""
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} out of range 0..{self.num_actions - 1}")
        if a < self.play_weapon:
            return ("monster", a)
        if a < self.end_play:
            return ("weapon",) + divmod(a - self.play_weapon, self.f)
        if a == self.end_play:
            return ("end",)
        if a < self.use_army:
            ur, t = divmod(a - self.use_monster, self.f)
            return ("use",) + divmod(ur, self.s) + (t,)
        return ("rampage",) + divmod(a - self.use_army, self.s)


def army_name(army: int, rel: int, game) -> str:
    """How the army ``army``, ``rel`` seats after the acting one, is named in a move's words: the
    mover's own ("your army 0", "your other army 2": two players run two armies each) or an
    opponent's, with its player ("army 1 (player_1)")."""
    if rel == 0:
        return f"your army {army}"
    if game.seat_owner(army) == game.seat_owner((army - rel) % game.num_seats):
        return f"your other army {army}"
    return f"army {army} (player_{game.seat_owner(army)})"
