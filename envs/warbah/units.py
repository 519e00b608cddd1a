"""Warbah special units (block B): the 13 "Recruit X" terrain variants, castle variants, the
abilities special troops give their Hero, Undead regeneration and the 5-troop-types limit.

Representation: a Hero carries ``h.specials`` int[13] (order ``SPECIALS``) next to its four
basic ``troops``; in battle a side's ``counts`` is extended to 18 entries: the five base entries
(warriors, archers, cavalry, catapults, hero) then the 13 special groups (index 5 + u).

Designed (RULES.md): special units are recruited in the recruit phase at a controlled variant hex
(or a Knights castle) straight into a Hero of that player standing there (garrisons hold basic
troops only), at most 5 per hex per turn, within the army cap and the type limit.
"""
from __future__ import annotations

import numpy as np

from .config import CASUALTY0, LOSS_SP0, RECRUIT_SP, SETTLEMENTS, SPECIALS

NS = len(SPECIALS)
BASE = 5  # counts index of the first special group in a battle side


def ucfg(st) -> dict:
    return st.game.cfg["special_units"]


def special(h) -> np.ndarray:
    return h.specials


def granted(h: dict, name: str, table: dict) -> int:
    """Abilities given by special troops present in the army (one per kind present)."""
    sp = h.specials
    if sp is None:
        return 0
    n = 0
    for u, k in enumerate(sp.tolist()):  # plain ints: faster than numpy on 13 entries
        if k and name in table[SPECIALS[u]].get("grants", ()):
            n += 1
    return n


def type_count(h: dict) -> int:
    sp = h.specials
    n = 0
    for k in h.troops.tolist():
        if k > 0:
            n += 1
    if sp is not None:
        for k in sp.tolist():
            if k > 0:
                n += 1
    return n


def type_limit(st, h: dict) -> int:
    """A Hero may have 5 troop types; each Command ability adds one."""
    return st.game.cfg["designed"]["troop_types"] + st.abil(h, "command")


def gain_warriors(st, h: dict, n: int) -> int:
    """Add ``n`` warriors to Hero ``h`` (Animate Dead, Heal, the Healing ability, a treasure's
    followers) and return how many joined. SPECIAL UNIT NOTES allow 5 troop types (Command +1):
    when warriors would be a new type over that limit, none join (designed, the same reading as
    for special units taken over by Control spells). Only as many join as the army cap leaves
    room for (designed: the rest disband at once, as RECOVERY's trim would disband them, warriors
    first; so a Research or Animate Dead in the Realm phase cannot take an army over the cap)."""
    n = min(n, st.army_cap(h) - army_size(h))
    if n <= 0 or (h.troops[0] == 0 and type_count(h) >= type_limit(st, h)):
        return 0
    h.troops[0] += n
    return n


def army_size(h: dict) -> int:
    sp = h.specials
    return sum(h.troops.tolist()) + (sum(sp.tolist()) if sp is not None else 0)


def recruit_unit(st, c: int) -> str | None:
    """The special unit recruitable at hex c, or None."""
    v = st.variant[c]
    if v.startswith("recruit_"):
        return v[len("recruit_"):]
    return None


def recruit_hexes(st, seat: int) -> list[int]:
    """Controlled non-settlement hexes with a 'Recruit X' variant (castles are queued anyway)."""
    return [c for c in np.flatnonzero(st.owner == seat).tolist()
            if st.settle[c] < 0 and st.variant[c].startswith("recruit_")]


def recruit_mask(st, seat: int, c: int, mask: np.ndarray) -> None:
    u = recruit_unit(st, c)
    if u is None or st.recruited[c] >= st.game.cfg["designed"]["max_recruit_per_settlement"]:
        return
    j = st.hero_at(c)
    if j < 0 or st.heroes[j].seat != seat:
        return
    h = st.heroes[j]
    k = SPECIALS.index(u)
    if st.gold[seat] < ucfg(st)[u]["cost"] or army_size(h) >= st.army_cap(h):
        return
    sp = h.specials
    if (sp is None or sp[k] == 0) and type_count(h) >= type_limit(st, h):
        return
    mask[RECRUIT_SP] = 1


def recruit_apply(st, seat: int, c: int) -> None:
    u = recruit_unit(st, c)
    h = st.heroes[st.hero_at(c)]
    st.gold[seat] -= ucfg(st)[u]["cost"]
    special(h)[SPECIALS.index(u)] += 1
    st.recruited[c] += 1


def castle_variant(st, m: int) -> None:
    """CASTLE VARIANT TYPES: rolled when a castle is discovered (Knights or Cavalry)."""
    if SETTLEMENTS[st.settle[m]] == "castle":
        st.variant[m] = st.game.cfg["variants"]["castle"].get(int(st.rng.integers(1, 11)), "")


# -- battle ---------------------------------------------------------------------------------------
def extend_sides(st, armies) -> None:
    """Give each army its 13 special groups (index 5 + u), once per battle."""
    for s in armies:
        if len(s.counts) == BASE and not s.specials_added:
            s.specials_added = True
            hi = s.hero
            sp = special(st.heroes[hi]) if hi >= 0 and s.seat >= 0 else np.zeros(NS)
            s.counts = np.concatenate([s.counts, sp]).astype(np.int64)


def attacks(st, side: dict, seg: int) -> int:
    """Kills by the side's special groups in segment ``seg`` (1D10 <= Kill each)."""
    from .battle import segment_of
    cnt = side.counts
    if len(cnt) <= BASE or not any(cnt.tolist()[BASE:]):  # no numpy reduction
        return 0
    kills = 0
    tab = ucfg(st)
    mg = side.magic  # block A: spells on special groups (target group 6 + u)
    for u in np.flatnonzero(cnt[BASE:]):
        row = tab[SPECIALS[u]]
        init, kill, n = row["init"] + row.get("self_tactics", 0), row["kill"], int(cnt[BASE + u])
        if mg is not None:  # neutralized units and blocked groups do not attack
            init, kill = init + mg.special_init[u], kill + mg.special_kill[u]
            n = 0 if mg.blocked[6 + u] else n - mg.neutral[6 + u]
        if n <= 0 or segment_of(init) != seg:  # Goblins' Tactics: self_tactics
            continue
        from .battle import magic_hits, record  # record: Luck's segment window
        if mg is None:
            kills += record(side, kill, n, int((st.rng.integers(1, 11, size=n) <= kill).sum()))
        else:
            hit = magic_hits(mg, 6 + u, n, kill, st.rng)
            kills += hit if mg.auto_hit[6 + u] else record(side, kill, n, hit)
    return kills


def finish(st, armies) -> None:
    """Write the surviving special troops back to the Heroes."""
    for s in armies:
        hi = s.hero
        if hi >= 0 and s.seat >= 0 and len(s.counts) > BASE:
            st.heroes[hi].specials = s.counts[BASE:].copy()


def casualty_mask(side: dict, mask: np.ndarray) -> None:
    cnt = side.counts
    for u in range(len(cnt) - BASE):
        mask[LOSS_SP0 + u] = cnt[BASE + u] > 0


def casualty_index(action: int) -> int:
    """Counts index for a LOSS_SP0 + u action."""
    return BASE + action - LOSS_SP0


# -- recovery -------------------------------------------------------------------------------------
def recovery(st) -> None:
    """Undead regenerate 1D10 in the recovery phase (designed: when at least one is present,
    within the army cap)."""
    k = SPECIALS.index("undead")
    for h in st.heroes:
        sp = h.specials
        if h.alive and sp is not None and sp[k] > 0:
            room = st.army_cap(h) - army_size(h)
            sp[k] += max(0, min(room, int(st.rng.integers(1, 11))))


def trim_to_cap(st, h: dict) -> None:
    """Recovery: troops over the army cap (40, Command +10; special troops count) disband.
    The rulebook gives no choice here (designed): basic troops go first (warriors, archers,
    cavalry, catapults), then special units, the cheapest kind first (table order on ties)."""
    over = army_size(h) - st.army_cap(h)
    for t in range(4):
        if over <= 0:
            return
        k = min(over, int(h.troops[t]))
        h.troops[t] -= k
        over -= k
    sp = h.specials
    if over <= 0 or sp is None:
        return
    tab = ucfg(st)
    for u in sorted(range(NS), key=lambda u: (tab[SPECIALS[u]]["cost"], u)):
        k = min(over, int(sp[u]))
        sp[u] -= k
        over -= k


# -- troop losses outside battle (sea capacity, agents) -------------------------------------------
def loss_actions(h: dict) -> list[int]:
    """Actions that remove one of this Hero's troops: CASUALTY0 + t (basic), LOSS_SP0 + u."""
    out = [CASUALTY0 + t for t in range(4) if h.troops[t] > 0]
    sp = h.specials
    if sp is not None:
        out += [LOSS_SP0 + int(u) for u in np.flatnonzero(sp)]
    return out


def lose(h: dict, a: int) -> None:
    if a >= LOSS_SP0:
        h.specials[a - LOSS_SP0] -= 1
    else:
        h.troops[a - CASUALTY0] -= 1
