"""Warbah magic that outlives a battle: the spell decks and realm hands (towers, temples),
Wizards, magic items, and the realm spells' lasting effects (MagicState).

Realm spells are cast in realm_spells.py, battle spells in battle_spells.py. Items: a realm- or
battle-spell item is defined by a card drawn (and discarded, designed) when it is found; a
magic ability item grants its ability while held; an item changes hands once per turn and a
Hero who beats an enemy Hero takes all his items.
"""
from __future__ import annotations

import numpy as np

from . import abilities, diplomacy, heroes
from .actions import GIVE_ITEM0
from .state import Chain, Hero, Item, ItemKind, NextRoll, WarbahState
from .tables import SETTLEMENTS

TOWER = SETTLEMENTS.index("tower")


def scried(st: WarbahState, observer: int) -> bool:
    """Scry shows the observer every hero card and realm hand and the decks' tops this turn."""
    return st.magic.scry_turn[observer] == st.turn


def _without(cards: list[int], card: int | None) -> list[int]:
    """``cards`` less one ``card`` (None: all of them)."""
    if card is None:
        return list(cards)
    out = list(cards)
    out.remove(card)
    return out


def determinize(s: WarbahState, observer: int, rng: np.random.Generator) -> None:
    """Resample hidden magic: opponents' realm hands, enemy battle hands, deck order, the cards
    behind enemy heroes' items (unless the observer scried this turn). What the observer has
    seen stays: the items of a Hero whose index card it espied this turn or who is in the
    battle, and what pays for a spell awaiting its target (every observation shows that spell;
    the card stays in its hand, or the item on its Hero, as realm_spells.pay and
    battle_spells._pay_battle will take it)."""
    if scried(s, observer):
        return
    m, T = s.magic, s.game.spells
    held: dict = {}      # seat -> the realm card paying for the pending realm spell
    paying = None        # (Hero, item index) paying for it
    if m.pending is not None:
        spell, hi = m.pending
        h = s.heroes[hi]
        if h.seat != observer:
            if has_wizard(h) and h.wizard_cast_turn != s.turn and spell in m.hands[h.seat]:
                held[h.seat] = spell
            else:
                paying = next((hi, j) for j, it in enumerate(h.items) if it.kind == "realm"
                              and it.spell == spell and it.used_turn != s.turn)
    opp = [q for q in range(s.game.num_seats) if q != observer]
    pool = list(m.realm_deck) + [k for q in opp for k in _without(m.hands[q], held.get(q))]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for q in opp:
        n = len(m.hands[q]) - (q in held)
        m.hands[q], pool = pool[:n] + ([held[q]] if q in held else []), pool[n:]
    m.realm_deck = pool
    b = s.battle
    busy = set()
    if b is not None:
        everyone = list(b.sides) + list(b.members)  # combined attacks too (battle_spells.armies)
        # the other players' armies with spells, each with its spell state
        sides = [(sd, sm) for sd in everyone if (sm := sd.magic) is not None and sd.seat != observer]
        busy = {sd.hero for sd in everyone}
        kept = {}   # id(army) -> the battle card paying for the pending battle spell
        bm = b.magic
        if bm is not None and bm.pending is not None and 0 <= bm.caster < len(everyone):
            sd = everyone[bm.caster]
            sm = sd.magic
            if (sm is not None and sd.seat != observer and sm.wizard and not sm.cast
                    and b.round not in sm.spellbound and bm.pending in sm.hand):
                kept[id(sd)] = bm.pending
        pool = list(m.battle_deck) + [k for sd, sm in sides
                                      for k in _without(sm.hand, kept.get(id(sd)))]
        pool = [pool[i] for i in rng.permutation(len(pool))]
        for sd, sm in sides:
            n = len(sm.hand) - (id(sd) in kept)
            extra = [kept[id(sd)]] if id(sd) in kept else []
            sm.hand, pool = pool[:n] + extra, pool[n:]
        m.battle_deck = pool
    else:
        m.battle_deck = [m.battle_deck[i] for i in rng.permutation(len(m.battle_deck))]
    revealed, turn = s.espionage.revealed, s.turn
    for i, h in enumerate(s.heroes):
        if (h.seat != observer and i not in busy and h.items
                and revealed.get((observer, i), -1) != turn):   # espionage.is_revealed
            for j, it in enumerate(h.items):
                if (i, j) == paying:
                    continue
                if it.kind == "realm":
                    it.spell = int(rng.integers(T.NR))
                elif it.kind == "battle":
                    it.spell = int(rng.integers(T.NB))


def draw(st: WarbahState, kind: str):
    """Top card of the realm ('r') or battle ('b') deck; the discards are reshuffled when empty."""
    m = st.magic
    deck, disc = (m.realm_deck, m.realm_discard) if kind == "r" else (m.battle_deck,
                                                                     m.battle_discard)
    if not deck:
        if not disc:
            return None
        deck.extend(disc[i] for i in st.rng.permutation(len(disc)))
        disc.clear()
    return deck.pop()


def towers(st: WarbahState, seat: int) -> int:
    """Towers ``seat`` controls."""
    settle = st.settle.tolist()  # plain lists: usually no tower at all (no numpy calls)
    if TOWER not in settle:
        return 0
    return sum(1 for o, x in zip(st.owner.tolist(), settle) if o == seat and x == TOWER)


def temples(st: WarbahState, seat: int) -> int:
    if "temple" not in st.variant:
        return 0
    return sum(1 for o, v in zip(st.owner.tolist(), st.variant) if o == seat and v == "temple")


def hand_limit(st: WarbahState, seat: int) -> int:
    """Towers controlled, +1 per controlled Temple (desert variant)."""
    return towers(st, seat) + temples(st, seat)


def refill(st: WarbahState, seat: int) -> None:
    """The Realm phase's draw: ``seat`` draws up to its hand limit."""
    hand = st.magic.hands[seat]
    lim = st.magic.hand_limit[seat] = hand_limit(st, seat)
    while len(hand) < lim:
        k = draw(st, "r")
        if k is None:
            break
        hand.append(k)


def has_wizard(h: Hero) -> bool:
    return bool(h.wizard)


def tower_wizard_home(st: WarbahState, c: int) -> bool:
    """The tower's wizard is home unless a living hero has him (killed wizards teleport home)."""
    return not any(h.alive and h.wizard == c + 1 for h in st.heroes)


def kill_wizard(st: WarbahState, hi: int) -> None:
    """The wizard leaves the army: a tower wizard goes home (recruitable again), a wandering
    one leaves the map."""
    st.heroes[hi].wizard = 0


def gain_ability_item(h: Hero, ab: tuple) -> None:
    """A magic ability item holding ability ``ab`` (rolled by the treasure chain, turn.py, open
    to Luck): the Hero has the ability while he holds the item."""
    h.abilities.append(ab)
    h.items.append(Item("ability", ability=ab))


def gain_item(st: WarbahState, h: Hero, kind: ItemKind) -> None:
    """A realm- or battle-spell item: the card drawn defines it (ability items:
    ``gain_ability_item``)."""
    k = draw(st, kind[0])
    if k is None:
        return
    # the card only defines the item (designed): it goes to the discards
    (st.magic.realm_discard if kind == "realm" else st.magic.battle_discard).append(k)
    h.items.append(Item(kind, spell=k))


def _abilities_without(h: Hero, it: Item) -> list:
    """Hero ``h``'s abilities once item ``it`` is gone (an ability item takes its ability)."""
    rest = list(h.abilities)
    ab = it.ability
    if it.kind == "ability" and ab is not None and tuple(ab) in [tuple(a) for a in rest]:
        rest.remove(next(a for a in rest if tuple(a) == tuple(ab)))
    return rest


def drop_item(h: Hero, it: Item) -> None:
    h.items.remove(it)
    h.abilities[:] = _abilities_without(h, it)


def take_items(st: WarbahState, winner: Hero, loser: Hero) -> None:
    """A Hero who defeats an enemy Hero takes all his magic items."""
    for it in list(loser.items):
        drop_item(loser, it)
        if it.kind == "ability":
            assert it.ability is not None   # an ability item names its ability
            winner.abilities.append(it.ability)
        winner.items.append(it)


def _givable(st: WarbahState, h: Hero) -> list:
    return [it for it in h.items if it.moved_turn != st.turn]


def _friend(st: WarbahState, seat: int, h: Hero, d: int, occ: dict | None = None) -> int:
    """The own or allied Hero in direction d of ``h`` (allies may trade magic items too);
    ``occ``: an optional heroes.hero_map of this state, to skip the hero scan."""
    m = int(st.neighbours[h.cell][d])
    j = (heroes.hero_at(st, m) if occ is None else occ.get(m, -1)) if m >= 0 else -1
    if j < 0:
        return -1
    return j if diplomacy.friendly(st, seat, st.heroes[j].seat) else -1


def item_give_mask(st: WarbahState, seat: int, h: Hero, mask: np.ndarray, occ: dict | None = None) -> None:
    """Move phase: a hero who has not moved this turn, with an item not yet exchanged this turn,
    may hand it to an adjacent friendly (own or allied) hero (instead of moving), unless it is a Command item whose loss
    would leave him with more troop types than his limit (designed)."""
    givable = _givable(st, h) if h.items and h.alive and heroes.unmoved(st, h) else None
    if givable:
        it = givable[0]  # the item give_item hands over
        if (it.kind == "ability" and tuple(it.ability)[0] == "command"
                and heroes.type_count(h) > heroes.type_limit(st, h) - (
                    len(h.abilities) - len(_abilities_without(h, it)))):
            return
        for d in range(6):
            if _friend(st, seat, h, d, occ) >= 0:
                mask[GIVE_ITEM0 + d] = 1


def give_item(st: WarbahState, seat: int, hi: int, d: int) -> None:
    """Hand the first item not exchanged this turn to the friendly hero in direction d; an item
    changes hands once per turn; the giver's movement ends (designed: he may still give more)."""
    h = st.heroes[hi]
    o = st.heroes[_friend(st, seat, h, d)]
    it = _givable(st, h)[0]
    drop_item(h, it)
    if it.kind == "ability":
        o.abilities.append(tuple(it.ability))
    it.moved_turn = st.turn
    o.items.append(it)
    h.mp, h.scout_moves = 0, 0


def treasure_item(st: WarbahState, hi: int, row: dict) -> None:
    """Treasure 7 (Wandering Mage: a wizard, else a realm-spell item) and 10 (battle-spell
    item); 8-9 (ability item) is rolled and given by the treasure chain (``TREASURE``)."""
    h = st.heroes[hi]
    if not h.alive:
        return
    if row.get("wandering_mage"):
        if not has_wizard(h):
            h.wizard = -1
        else:
            gain_item(st, h, "realm")
    elif row.get("magic_item") in ("realm", "battle"):
        gain_item(st, h, row["magic_item"])


def _treasure_rolls(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """TREASURE TABLE (1D10), then its gold or followers dice or a magic ability item's Ability
    rolls; the finder's player may reroll. ``vals`` may start with the table roll (Research)."""
    hi = ctx[0]
    h = st.heroes[hi]
    who = (h.seat,)
    if not vals:
        return who, (1, 10)
    row = next(t for t in st.game.cfg["treasure"] if vals[0] in t["rolls"])
    if "gold_dice" in row:
        if len(vals) == 1:
            return who, (row["gold_dice"], 10)
        st.gold[h.seat] += vals[1]
    elif "followers_dice" in row:
        if not h.alive:
            return None
        if len(vals) == 1:
            return who, (row["followers_dice"], 10)
        heroes.gain_warriors(st, h, vals[1])
    elif row.get("magic_item") == "ability" and h.alive:  # its ability rolls (Luck)
        nxt, ab, _ = abilities.ability_rolls(st.game.cfg, vals, 1)
        if nxt is not None:
            return who, nxt
        gain_ability_item(h, ab)
    else:
        treasure_item(st, hi, row)  # wizard / magic items
    return None


#: TREASURE TABLE and its dice (recovery, for beating an encounter; Research), open to Luck
TREASURE = Chain("treasure", _treasure_rolls)


def blighted(st: WarbahState, c: int) -> bool:
    """Razed or decimated last turn: no income this turn."""
    return st.magic.blight[c] == st.turn
