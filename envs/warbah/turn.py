"""Warbah's turn: set-up, the phases in order and the dispatch of every decision.

SET-UP (capitol choice, first Hero), then each turn: INITIATIVE, the Realm phase (discard,
draw, the collect window), GOLD, RECRUIT TROOPS, ESPIONAGE, diplomacy (allies), MOVE & EXPLORE,
the Disaster window, BATTLE, RECOVERY. ``advance`` runs the automatic steps until a player must
decide; the tables below name, for each phase, the functions that mask and apply its actions:
``QUEUE_STEPS`` for the phases that walk a queue of (seat, hex or Hero) entries, ``SUBSTEPS``
for the others, ``ADVANCE`` for the sub-steps that run on by themselves between decisions.
"""
from __future__ import annotations

from typing import Callable, get_args

import numpy as np

from . import (
    abilities,
    battle_flow,
    battle_spells,
    diplomacy,
    espionage,
    fleets,
    heroes,
    hexes,
    luck,
    magic,
    movement,
    realm_spells,
    recruit,
)
from .actions import CAPITOL0, CAPITOL_AUTO, NUM_ACTIONS
from .state import OUT_BY, Chain, Ending, Hero, NextRoll, WarbahState
from .tables import BATTLE_SPELL_PHASES, JOIN_PHASES, SETTLEMENTS, SPECIALS, TERRAINS, Phase

try:  # numpy's C function behind np.count_nonzero(a) (no Python-level wrapper per call)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - other numpy layouts
    _count_nonzero = np.count_nonzero
_INT8 = np.dtype(np.int8)
_UNDEAD = SPECIALS.index("undead")


def _one_above_1(m: np.ndarray) -> bool:
    """m.max() > 1 for an int8 mask with exactly one nonzero entry, without a numpy reduction:
    stripping the zero bytes leaves that entry's byte; as int8 it is above 1 for 2..127."""
    return 1 < m.tobytes().strip(b"\0")[0] < 128


# -- set-up -------------------------------------------------------------------------------------
def capitol_mask(st: WarbahState) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for k in hexes.free_candidates(st):
        mask[CAPITOL0 + k] = 1
    mask[CAPITOL_AUTO] = 1
    return mask


def capitol_apply(st: WarbahState, a: int) -> None:
    """CAPITOL0 + k: the capitol at candidate k; CAPITOL_AUTO: the first free candidate (or,
    with none left, the first land hex away from the other capitols)."""
    free = hexes.free_candidates(st)
    k = a - CAPITOL0 if a != CAPITOL_AUTO else free[0] if free else None
    if k is None:  # every candidate taken: any free land hex far from others
        taken = [c for c in st.capitol if c >= 0]
        cells = [int(c) for c in np.flatnonzero(st.land) if c not in taken
                 and all(int(m) not in taken for m in st.neighbours[c] if m >= 0)]
        cell = cells[0]
    else:
        cell = st.capitol_candidates[k]
    place_capitol(st, st.queue_pos, cell)
    st.queue_pos += 1


def place_capitol(st: WarbahState, seat: int, cell: int) -> None:
    """SET-UP: the capitol and the first Hero (1D10 of each basic troop type, one ability)."""
    st.explored[cell] = True
    st.terrain[cell] = TERRAINS.index("settlement")
    st.settle[cell] = SETTLEMENTS.index("capitol")
    st.owner[cell], st.capitol[seat] = seat, cell
    troops = st.rng.integers(1, 11, size=4).astype(np.int64)
    h = heroes.new_hero(st.heroes, seat, cell, troops)
    abilities.gain_ability(st, h)


def start_turn(st: WarbahState) -> None:
    """The next turn: INITIATIVE PHASE (1D10 each, open to Luck), then the Realm phase."""
    st.turn += 1
    if st.turn > st.game.turn_cap:
        st.capped, st.ending = True, "cap"
        st.phase = "over"
        return
    live = [s for s in range(st.game.num_seats) if st.alive[s]]
    rolls = {s: luck.d10(st.rng) + st.rng.random() for s in live}  # fraction breaks ties
    if initiative(st, rolls):  # Luck: own initiative die rolled again (luck.py)
        return
    st.order = sorted(live, key=lambda s: -rolls[s])
    begin_turn(st)  # Realm phase, collect-phase spells, then begin_recruit


def initiative(st: WarbahState, rolls: dict) -> bool:
    """INITIATIVE PHASE: each initiative die (in seat order) is offered to its own player, then
    to the opponents with Luck (designed; the tie-break fraction is kept). True: a player
    decides now and the continuation orders the players and starts the turn (begin_turn);
    False: nobody has Luck, the caller goes on."""
    return _initiative_from(st, tuple(sorted(rolls.items())), 0)


def _initiative_from(st: WarbahState, rolls: tuple, i: int) -> bool:
    for j in range(i, len(rolls)):
        s, r = rolls[j]
        others = tuple(o for o, _ in rolls if o != s)  # then the opponents, in seat order
        if luck.offer(st, "initiative", (s,) + others, int(r), (1, 10), _initiative_roll, (rolls, j)):
            return True
    return False


def _initiative_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    rolls, j = ctx
    s, r = rolls[j]
    rolls = rolls[:j] + ((s, value + (r - int(r))),) + rolls[j + 1:]
    if _initiative_from(st, rolls, j + 1):
        return
    order = dict(rolls)
    st.order = sorted(order, key=lambda q: -order[q])
    begin_turn(st)


def begin_turn(st: WarbahState) -> None:
    """Realm phase: seats holding cards may discard (sub-steps), then all draw up to their
    limit; then the collect-phase window, gold, and the recruit phase."""
    m = st.magic
    m.sanctuary.clear()
    m.bonus_walls.clear()
    m.opened = set()
    m.curse = [0] * st.game.num_seats
    q = []
    for s in st.order:
        if m.hands[s] and magic.hand_limit(st, s) > 0:
            q.append((s, -1))
        else:
            magic.refill(st, s)
    if q:
        m.saved = None
        realm_spells.open_queue(st, "discard", q)
        return
    _after_discard(st)


def _after_discard(st: WarbahState) -> None:
    """The collect-phase window, then gold and the recruit phase (and its window)."""
    if realm_spells.open_window(st, "collect"):
        return
    begin_recruit(st)
    realm_spells.open_window(st, "recruit")


def end_window(st: WarbahState) -> None:
    """A realm-spell window's queue is done: after the discard step everyone draws and the
    collect window / recruit phase follow; after the collect window the recruit phase; else
    the interrupted phase resumes."""
    m = st.magic
    t = m.window
    m.window = ""
    if t == "discard":
        for s in st.order:  # everyone draws up to the limit (also seats skipped in the queue)
            magic.refill(st, s)
        _after_discard(st)
    elif t == "collect":
        begin_recruit(st)
        realm_spells.open_window(st, "recruit")
    else:
        assert m.saved is not None   # open_window saved the phase it interrupted
        st.phase, st.queue, st.queue_pos = m.saved
        m.saved = None


def begin_recruit(st: WarbahState) -> None:
    """GOLD, then RECRUIT TROOPS: a queue entry per settlement and 'Recruit X' hex of each
    player, in initiative order."""
    sets, owned = hexes.owned_cells(st)  # gold collection changes no owner / settlement
    collect_gold(st, sets, owned)
    st.recruited[:] = 0
    st.queue = [(s, c) for s in st.order
                for c in (*sets.get(s, ()), *recruit.recruit_hexes(st, s, owned.get(s, ())))]
    st.queue_pos, st.phase = 0, "recruit"


def collect_gold(st: WarbahState, sets: dict | None = None, owned: dict | None = None) -> None:
    """GOLD: each settlement's income (none when razed or decimated last turn), adjacency
    bonuses, variant hexes, Wealth, less a Curse (``sets`` / ``owned``: hexes.owned_cells of
    this state, when the caller has them)."""
    g = st.game
    if sets is None or owned is None:
        sets, owned = hexes.owned_cells(st)
    settle, terrain = st.settle.tolist(), st.terrain.tolist()  # plain ints, read per cell
    adjacency, vg = g.cfg["adjacency_bonus"], g.cfg["variant_gold"]
    for s in st.order:
        total = 0
        for c in sets.get(s, ()):
            if magic.blighted(st, c):  # razed / decimated: no income
                continue
            name = SETTLEMENTS[settle[c]]
            total += g.settle[name]["gold"]
            bonus = adjacency.get(name)
            if bonus:
                total += sum(1 for m in st.neighbours[c] if m >= 0 and terrain[m] >= 0
                             and TERRAINS[terrain[m]] == bonus)
        total += sum(vg.get(st.variant[c], 0) for c in owned.get(s, ()))
        total += sum(heroes.ability(st, h, "wealth") for h in st.heroes
                     if h.alive and h.seat == s)
        st.gold[s] += max(0, total - st.magic.curse[s])  # Curse


def hero_queue(st: WarbahState) -> list[tuple[int, int]]:
    """(seat, hero) of every living Hero, players in initiative order."""
    return [(s, i) for s in st.order for i, h in enumerate(st.heroes)
            if h.alive and h.seat == s]




# -- the phases in order ----------------------------------------------------------------------
def _after_recruit(st: WarbahState) -> None:
    """ESPIONAGE and diplomacy, then MOVE & EXPLORE (and its realm-spell window). The first
    time in a turn (espionage hands back here once it is done): the heroless check."""
    if st.espionage.turn != st.turn and heroless_out(st):
        return
    if espionage.begin(st) or diplomacy.begin(st):
        return
    d = st.game.cfg["designed"]
    st.phase, st.queue_pos = "move", 0
    st.queue = hero_queue(st)
    for h in st.heroes:
        h.mp = d["hero_mp"] + heroes.ability(st, h, "logistics")
        h.scout_moves = heroes.ability(st, h, "scouting")  # explore-only points
        h.attacks_left = 1 + heroes.ability(st, h, "strategy")
        h.troops_lost = 0
    realm_spells.open_window(st, "move")  # move-phase realm spells


def _after_move(st: WarbahState) -> None:
    """The Disaster window, then BATTLE."""
    st.phase, st.queue_pos = "battle", 0
    st.queue = hero_queue(st)
    realm_spells.open_window(st, "disaster")


def _after_battles(st: WarbahState) -> None:
    """The recovery window (Heal, Cure Wounds), RECOVERY, then the next turn."""
    if realm_spells.open_window(st, "recovery"):
        return
    if recovery(st):  # paused for a Luck decision (it goes on by itself)
        return
    if st.phase != "over":
        start_turn(st)


#: phases walking a queue of (seat, hex or Hero) entries: (mask(st, seat, x),
#: apply(st, seat, x, action))
QUEUE_STEPS: dict[Phase, tuple[Callable[[WarbahState, int, int], np.ndarray],
                               Callable[[WarbahState, int, int, int], object]]] = {
    "recruit": (recruit.mask, recruit.apply),
    "move": (movement.mask, movement.apply),
    "battle": (battle_flow.attack_mask, battle_flow.attack_apply),
    "realm": (realm_spells.mask, realm_spells.apply),
    "realm_target": (realm_spells.mask, realm_spells.apply),
}
#: what follows when a phase's queue is done
QUEUE_DONE: dict[Phase, Callable[[WarbahState], object]] = {"recruit": _after_recruit, "move": _after_move, "battle": _after_battles,
              "realm": end_window}
#: the other decisions: (mask(st), apply(st, action))
SUBSTEPS: dict[Phase, tuple[Callable[[WarbahState], np.ndarray], Callable[[WarbahState, int], object]]] = {
    "capitol": (capitol_mask, capitol_apply),
    "casualty": (battle_flow.casualty_mask, battle_flow.casualty_apply),
    "call_off": (battle_flow.call_off_mask, battle_flow.call_off_apply),
    "join": (battle_flow.join_mask, battle_flow.join_apply),
    "join_answer": (battle_flow.join_mask, battle_flow.join_apply),
    "spell": (battle_spells.mask, battle_flow.spell_apply),
    "spell_target": (battle_spells.mask, battle_flow.spell_apply),
    "espionage": (espionage.mask, espionage.apply),
    "spy_loss": (espionage.mask, espionage.apply),
    "luck": (luck.mask, luck.apply),
    "sea_loss": (fleets.loss_mask, fleets.loss_apply),
    "diplomacy": (diplomacy.mask, diplomacy.apply),
    "ally_answer": (diplomacy.mask, diplomacy.apply),
}
#: sub-steps with automatic steps between decisions: advance(st) -> True when a player decides
ADVANCE: dict[Phase, Callable[[WarbahState], bool]] = {"espionage": espionage.advance, "spy_loss": espionage.advance,
           "luck": luck.advance, "sea_loss": fleets.loss_advance,
           "diplomacy": diplomacy.advance, "ally_answer": diplomacy.advance}
#: decisions set up by the code that entered them (battles, combined attacks)
_WAIT_PHASES: frozenset[Phase] = frozenset(("casualty", "call_off") + BATTLE_SPELL_PHASES + JOIN_PHASES)


def queue_mask(st: WarbahState, seat: int, x: int) -> np.ndarray:
    """The mask of the current queue entry (seat, x) of a queue phase."""
    return QUEUE_STEPS[st.phase][0](st, seat, x)


def advance(st: WarbahState) -> None:
    """Run automatic steps until a player must decide (or the game ends). Queue entries with
    nothing to decide (only DONE) are skipped; the mask of the entry that stops the loop is
    kept as the state's cached mask."""
    max_actions = st.game.max_actions - 1  # the action being applied is not in the history yet
    while True:
        if st.phase != "over" and len(st.history) >= max_actions:
            st.capped, st.phase, st.ending = True, "over", "cap"
        phase = st.phase
        if phase == "over":
            st.to_act = -1
            return
        if phase == "capitol":
            if st.queue_pos < st.game.num_seats:
                st.to_act = st.queue_pos
                return
            start_turn(st)
            continue
        if phase in _WAIT_PHASES:
            return
        step = ADVANCE.get(phase)
        if step is not None:
            if step(st):
                return
            continue
        if st.queue_pos < len(st.queue):
            seat, x = st.queue[st.queue_pos]
            if st.alive.item(seat):
                m = QUEUE_STEPS[phase][0](st, seat, x)
                c = _count_nonzero(m)  # == (m.sum() > 1): entries are 0 / 1 (int8)
                if c > 1 or (c == 1 and (_one_above_1(m) if m.dtype == _INT8 else m.max() > 1)):
                    st.to_act = seat
                    if st.reuse_advance_mask:  # the mask legal_actions_mask would compute
                        m.setflags(write=False)   # cached, as legal_actions_mask keeps it
                        st._mask, st._mask_at = m, (phase, seat, st.queue_pos)
                    return
            st.queue_pos += 1
            continue
        QUEUE_DONE[phase](st)


# -- RECOVERY -----------------------------------------------------------------------------------
def recovery(st: WarbahState) -> bool:
    """RECOVERY PHASE as a list of tasks (treasure rolls, each Hero in initiative order,
    Undead regeneration, the end), so that a Luck decision on a roll (treasure, Healing,
    Undead: luck.py) can pause it. True: paused (it resumes by itself and then starts the
    next turn)."""
    tasks: list[tuple[Chain | None, tuple]] = [
        (magic.TREASURE, (hi,)) for hi, n_tr in st.pending_treasure for _ in range(n_tr)]
    st.pending_treasure = []
    tasks += [t for s in st.order for i, h in enumerate(st.heroes)
              if h.alive and h.seat == s
              for t in ((HEAL, (i,)), (abilities.ABILITY_ROLLS, (i, 0)),
                        (abilities.GRANTED, (i, True)))]
    tasks += [(UNDEAD, (i,)) for i in range(len(st.heroes))] + [(None, ())]
    st.recovery_tasks = tuple(tasks)
    return recovery_run(st)


def recovery_run(st: WarbahState) -> bool:
    """The recovery tasks left: each task's roll chain (a chain paused by Luck goes on with
    ``recovery_resume``), then the end (None)."""
    while st.recovery_tasks:
        (chain, ctx), st.recovery_tasks = st.recovery_tasks[0], st.recovery_tasks[1:]
        if chain is None:
            fleets.disband_at_sea(st)  # sea capacity, fleets of eliminated players
            st.wall_damage[:] = 0
            victory(st)
        elif luck.chain(st, chain, ctx, after=recovery_resume):
            return True
    return False


def recovery_resume(st: WarbahState, ctx: tuple = ()) -> None:
    """After a Luck decision in recovery: the rest of the phase, then the next turn."""
    if recovery_run(st):
        return
    if st.phase != "over":
        start_turn(st)


def recover_hero(st: WarbahState, h: Hero, healed: int) -> None:
    """RECOVERY for one Hero after Healing: the army cap, markers on variant hexes, Diplomacy,
    capturing the settlement he stands on (an enemy capitol eliminates its player)."""
    g, s = st.game, h.seat
    heroes.gain_warriors(st, h, healed)  # as warriors, within the type limit
    heroes.trim_to_cap(st, h)  # over the cap: basic, then special troops
    c = h.cell
    v = st.variant[c]
    # RECOVERY: "A Hero may remove an enemy control marker in the hex he occupies": not an
    # ally's (ALLIES), nor over an enemy garrison he could not have entered (MOVE & EXPLORE:
    # an agent may have turned the garrison under him); the garrison is fought first
    prev = int(st.owner[c])
    may_mark = prev == -1 or (not diplomacy.friendly(st, s, prev)
                              and not hexes.foreign_garrison(st, s, c))
    if v and may_mark and (v in g.cfg["variant_gold"] or v == "temple"
                           or (v.startswith("recruit_") and st.settle.item(c) < 0)):
        st.owner[c] = s  # designed: a Hero marks a Lumbermill / Gold Mine hex
    for _ in range(heroes.ability(st, h, "diplomacy")):  # 1 adjacent neutral settlement
        near = [int(m) for m in st.neighbours[c] if m >= 0 and st.settle[m] >= 0
                and st.owner[m] < 0]
        if near:
            st.owner[near[0]] = s
    if st.settle.item(c) >= 0 and prev != s and may_mark:
        st.owner[c] = s
        st.garrison[c] = 0
        st.garrison_specials[c] = 0
        if prev >= 0:
            h.xp += 1
            if st.capitol[prev] == c:
                eliminate(st, prev, "capitol_taken")


# -- VICTORY (designed, RULES.md "Win condition"; numbers in configs/warbah.yaml designed.victory)
#: how a game ends (final_info "ending"): one player left, one player holds most of the
#: settlements, or the turn / action cap
ENDINGS: tuple[Ending, ...] = get_args(Ending)


def heroless_out(st: WarbahState) -> bool:
    """End of the RECRUIT TROOPS phase (designed): a player without a living Hero, who did not
    (or could not) recruit one at his capitol, is out. True: the game is over."""
    if not st.game.cfg["designed"]["victory"]["heroless_out"]:
        return False
    held = {h.seat for h in st.heroes if h.alive}
    for s in st.order:
        if st.alive[s] and s not in held:
            eliminate(st, s, "no_hero")
    return victory(st, domination=False)


def domination_winner(st: WarbahState) -> int:
    """The player holding at least ``domination_min`` settlements and at least
    ``domination_share`` of all the settlements the players hold, else -1."""
    v = st.game.cfg["designed"]["victory"]
    n = st.game.num_seats
    sets, _ = hexes.owned_cells(st)  # settlements_of every player in one pass
    alive = st.alive.tolist()
    held = [len(sets.get(s, ())) if alive[s] else 0 for s in range(n)]
    best = max(range(n), key=lambda s: held[s])
    if held[best] >= v["domination_min"] and held[best] >= v["domination_share"] * sum(held):
        return best
    return -1


def victory(st: WarbahState, domination: bool = True) -> bool:
    """The victory condition: one player left (last standing), or (at the end of a Recovery
    phase) a dominating player. True: the game is over."""
    live = [s for s, a in enumerate(st.alive.tolist()) if a]
    if len(live) <= 1:
        st.winner, st.ending = (live[0] if live else -1), "last_standing"
    elif domination and (best := domination_winner(st)) >= 0:
        st.winner, st.ending = best, "domination"
    else:
        return False
    st.phase = "over"
    return True


def eliminate(st: WarbahState, seat: int, why: str) -> None:
    """A player whose capitol is taken (``why`` "capitol_taken"; or who has no Hero left:
    ``heroless_out``, "no_hero") is out: his Heroes, fleets and hexes are gone; the Heroes'
    armies disband and their Wizards go home."""
    st.alive[seat] = False
    st.out_turn[seat] = st.turn
    st.out_by[seat] = OUT_BY.index(why)
    for i, h in enumerate(st.heroes):
        if h.seat == seat:
            h.alive = False
            heroes.disband_army(h)
            if h.wizard:
                magic.kill_wizard(st, i)
    gone = st.fleets.owner == seat  # his fleets go at once (not only at the end of recovery)
    st.fleets.ships[gone] = 0
    st.fleets.owner[gone] = -1
    own = st.owner == seat
    st.owner[own] = -1
    st.garrison[own] = 0
    st.garrison_specials[own] = 0


def _heal_roll(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """Recovery for one Hero: Healing (1D10 troops back, at most those lost; Luck may reroll
    it), then the cap, markers, Diplomacy, settlement capture and abilities from XP."""
    hi, = ctx
    h = st.heroes[hi]
    if not h.alive:
        return None
    heal = h.troops_lost > 0 and heroes.ability(st, h, "healing") > 0
    if heal and not vals:
        return (h.seat,), (1, 10)
    recover_hero(st, h, min(h.troops_lost, vals[0]) if heal else 0)
    return None


def _undead_roll(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """SPECIAL UNIT TYPES, Undead: 1D10 regenerate in recovery (designed: while one is
    present, within the army cap); the owner may reroll it."""
    hi, = ctx
    h = st.heroes[hi]
    sp = h.specials
    k = _UNDEAD
    if not (h.alive and sp.item(k) > 0):
        return None
    if not vals:
        return (h.seat,), (1, 10)
    room = heroes.army_cap(st, h) - heroes.army_size(h)
    sp[k] += max(0, min(room, vals[0]))
    return None


#: the recovery tasks' roll chains of one Hero (``recovery``): Healing (then the rest of his
#: recovery), Undead regeneration
HEAL = Chain("heal", _heal_roll)
UNDEAD = Chain("undead", _undead_roll)
