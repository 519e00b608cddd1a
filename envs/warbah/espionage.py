"""Warbah espionage phase: contact, the espionage roll, hiring agents, the Espionage
and Agent Success tables, Intrigue.

Flow (masked AEC sub-steps, see RULES.md "ESPIONAGE PHASE"):

1. ``begin`` (after recruiting) updates contacts and queues every live player that has made
   contact with another empire, in initiative order.
2. The player's espionage roll X = 1D10 + Intrigue (one per Intrigue ability among its heroes).
   It may hire agents one at a time (``HIRE_AGENT``, designed cost 1 gold each) up to X, and
   ends hiring with ``DONE``.
3. Each agent rolls on the Espionage table; a "look" result or an Agent Success result asks the
   spy to pick a target from a slot list (``TARGET0 + k``) or to forgo it (``DONE``).
   The targets suit the result (interpretation: the target is named after the roll).
4. "Opponent's choice" results hand the choice to the victim (phase ``spy_loss``, actions
   ``CASUALTY0 + t``); False Orders lets the spy step the target Hero one hex (actions 0-5).
5. Fortell: a victim able to cast it decides at stage ``fortell`` (``REALM0 + fortell`` casts
   and negates the result, ``DONE`` lets it pass). Luck (luck.py) may reroll the Agent Success
   roll (spy) and the gold / disband dice (spy, then victim).

State (``st.espionage``, an Espionage record): ``mission`` (a SpyMission, or None) for the
player now spying; ``contact`` bool[N, N]; ``revealed`` {(seat, hero index): turn} (index cards
seen this turn); a delayed Hero has ``delayed_turn`` = the turn.
"""
from __future__ import annotations

from typing import get_args

import numpy as np

from . import fleets, heroes, hexes, luck, magic, realm_spells
from .actions import DONE, HIRE_AGENT, NUM_ACTIONS, REALM0, TARGET0, TARGET_SLOTS
from .state import Hero, SpyMission, SpyStage, WarbahState

STAGES: tuple[SpyStage, ...] = get_args(SpyStage)
#: agent success d10 -> stage that picks its target
SUCCESS_STAGE: dict[int, SpyStage] = {1: "kill_hero", 2: "garrison", 3: "item", 4: "steal_gold", 5: "damage",
                 6: "delay", 7: "wizard", 8: "disband", 9: "false_orders", 10: "sink"}


def spy_rules(st: WarbahState) -> dict:
    """configs/warbah.yaml, section espionage."""
    return st.game.cfg["espionage"]


def mission(st: WarbahState) -> SpyMission:
    """The espionage of the player now spying (phases ``espionage``, ``spy_loss``, a Luck
    decision on an espionage roll)."""
    e = st.espionage.mission
    assert e is not None, "no espionage in progress"
    return e


def update_contact(st: WarbahState) -> None:
    """Two empires are in contact once a hex of one (hero or controlled hex) is within
    ``contact_distance`` (designed: 1, adjacent) of a hex of the other; contact is permanent."""
    N = st.game.num_seats
    con = st.espionage.contact
    if N == 2 and con[0, 1] and con[1, 0]:
        return  # every pair already in contact (permanent): nothing to add
    nbl = st.neighbours
    _, owned = hexes.owned_cells(st)
    held = [set(owned.get(s, ())) for s in range(N)]  # each player's hexes: controlled, Heroes
    for h in st.heroes:
        if h.alive:
            held[h.seat].add(h.cell)
    pres = []
    for cells in held:
        near = set(cells)
        for c in cells:
            near.update(nbl[c])
        near.discard(-1)
        pres.append((cells, near))
    for s in range(N):
        for o in range(s + 1, N):
            if not st.espionage.contact[s, o] and (pres[s][1] & pres[o][0]):
                st.espionage.contact[s, o] = st.espionage.contact[o, s] = True


def begin(st: WarbahState) -> bool:
    """Start the espionage phase; False when nobody may spy this turn (or it already ran)."""
    if st.espionage.turn == st.turn:
        return False
    st.espionage.turn = st.turn
    update_contact(st)
    seats = [s for s in st.order if st.alive[s] and _foes(st, s)]
    if not seats:
        return False
    st.phase, st.espionage.queue, st.espionage.mission = "espionage", seats, None
    return True


def _intrigue(st: WarbahState, seat: int) -> int:
    return sum(heroes.ability(st, h, "intrigue") for h in st.heroes if h.alive and h.seat == seat)


def _foes(st: WarbahState, seat: int) -> list[int]:
    N = st.game.num_seats
    return [(seat + k) % N for k in range(1, N)
            if st.espionage.contact[seat, (seat + k) % N] and st.alive[(seat + k) % N]
            and not st.diplomacy.allied[seat, (seat + k) % N]]  # no spying on allies (designed)


def targets(st: WarbahState) -> list[int]:
    """Target slot list for the current stage: hero indices, cells or seats (max TARGET_SLOTS)."""
    e = mission(st)
    seat, stage = e.seat, e.stage
    foes = _foes(st, seat)
    if stage in ("steal_gold", "damage"):
        out = [s for s in foes if st.gold[s] > 0]
    elif stage == "garrison":
        gar = st.garrison.sum(1) + st.garrison_specials.sum(1)  # + Knights
        out = [int(c) for c in np.flatnonzero((st.settle >= 0) & (gar > 0))
               if st.owner[c] in foes and st.capitol[st.owner[c]] != c]
    elif stage == "give_item":
        out = [i for i, h in enumerate(st.heroes) if h.alive and h.seat == seat]
    else:
        fs = set(foes)
        out = []
        for i, h in enumerate(st.heroes):
            if not (h.alive and h.seat in fs):
                continue
            land = bool(st.land[h.cell])
            if stage == "kill_hero" and not land:
                continue
            if stage == "disband" and heroes.army_size(h) <= 0:
                continue
            if stage == "item" and not h.items:
                continue
            if stage == "wizard" and not h.wizard:
                continue
            if stage == "sink" and not fleets.ships_of(st, i):
                continue
            if stage == "false_orders" and (not land or not any(
                    _false_order_ok(st, h, d) for d in range(6))):
                continue
            out.append(i)
        out.sort(key=lambda i: ((st.heroes[i].seat - seat) % st.game.num_seats,
                                st.heroes[i].id))
    return out[:TARGET_SLOTS]


def _false_order_ok(st: WarbahState, h: Hero, d: int) -> bool:
    m = int(st.neighbours[h.cell][d])
    return (m >= 0 and bool(st.land[m]) and bool(st.explored[m])
            and hexes.enterable(st, h.seat, h, m) > 0)


def mask(st: WarbahState) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    e = mission(st)
    if st.phase == "spy_loss":
        out[heroes.loss_actions(st.heroes[e.victim])] = 1
        return out
    out[DONE] = 1
    stage = e.stage
    if stage == "hire":
        out[HIRE_AGENT] = e.hired < e.roll and st.gold[e.seat] >= spy_rules(st)["agent_cost"]
    elif stage == "move":
        h = st.heroes[e.victim]
        for d in range(6):
            out[d] = _false_order_ok(st, h, d)
    elif stage == "fortell":
        out[REALM0 + realm_spells.fortell_id(st)] = 1
    else:
        out[TARGET0:TARGET0 + len(e.targets)] = 1
    return out


def advance(st: WarbahState) -> bool:
    """Run espionage until a player decides (True) or the phase is over (False)."""
    while True:
        e = st.espionage.mission
        if e is None:
            if not st.espionage.queue:
                st.phase = "recruit"  # hand back: turn.advance goes on to the move phase
                st.queue, st.queue_pos = [], 0
                return False
            seat = st.espionage.queue.pop(0)
            die = luck.d10(st.rng)
            roll = die + _intrigue(st, seat)
            st.espionage.mission = e = SpyMission(seat, roll)
            st.espionage.log.append((st.turn, seat, "roll", roll))
            if luck.offer(st, "esp_roll", (seat,), die, (1, 10), _own_esp_roll, (die,)):
                return True  # Luck (luck.py): the spy's player may have it rolled again
            if victims_luck(st, die, die):  # then by the players it is aimed at (designed)
                return True
        if st.phase == "spy_loss":
            h = st.heroes[e.victim]
            alive = heroes.loss_actions(h)
            if e.left <= 0 or not alive:
                st.phase, e.stage = "espionage", "done"
            elif len(alive) == 1:
                heroes.lose(h, alive[0])
                e.left -= 1
                continue
            else:
                st.to_act = h.seat
                return True
        if e.stage == "hire":
            if mask(st)[HIRE_AGENT]:
                st.to_act = e.seat
                return True
            e.agents, e.stage = e.hired, "done"
        if e.stage != "done":
            st.to_act = e.fortell_seat if e.stage == "fortell" else e.seat
            return True
        # resolve the next agent
        if e.agents <= 0:
            st.espionage.mission = None
            continue
        e.agents -= 1
        r = luck.d10(st.rng)
        if luck.offer(st, "esp_table", (e.seat,), r, (1, 10), _spy_table_roll, ()):
            return True  # Luck: the spy's player may have the Espionage table roll made again
        resolve_agent(st, r)
        if luck.deciding(st):  # Luck on the Agent Success roll (luck.py)
            return True


def victims_luck(st: WarbahState, die: int, value: int) -> bool:
    """RARE ABILITY Luck on an enemy's espionage roll (designed reading; also called after the
    spy's own Luck decision on the roll): the roll is aimed at
    every player the spy may spy on (``_foes``: in contact, not allied), known when it is made;
    after the spy's own chance those players, in turn order from the spy, may have it rolled
    again (``offer``: one after the other). ``die``: the 1D10 first rolled (the roll already
    holds it), ``value``: its value now. True: a player decides now."""
    e = mission(st)
    if not luck.offer(st, "esp_roll", _foes(st, e.seat), value, (1, 10), _esp_roll, (die,),
                      roller=e.seat):
        e.roll += value - die
        return False
    return True


def _esp_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    mission(st).roll += value - ctx[0]


def resolve_agent(st: WarbahState, r: int, victims: bool = True) -> None:
    """ESPIONAGE TABLE for one agent's roll r (then the Agent Success table on 9-0). With
    ``victims``, a result other than failure is first offered to Luck of the players the agent
    may act against (``_foes``, designed: see ``victims_luck``)."""
    e = mission(st)
    t = spy_rules(st)["table"]
    if victims and r > t["failure_max"] and luck.offer(
            st, "esp_table", _foes(st, e.seat), r, (1, 10), _table_roll, (), roller=e.seat):
        return
    if r <= t["failure_max"]:
        st.espionage.log.append((st.turn, e.seat, "fail", r))
        e.stage = "done"
        return
    if r <= t["look_max"]:
        _set_stage(st, "look", r)
        return
    s = luck.d10(st.rng)  # AGENT SUCCESS TABLE; Luck: the spy may have it rolled again
    if not luck.offer(st, "agent_success", (e.seat,), s, (1, 10), _success_roll, (r,)):
        _success_roll(st, s, (r,))


def _table_roll(st: WarbahState, r: int, ctx: tuple) -> None:
    resolve_agent(st, r, False)


def _success_roll(st: WarbahState, s: int, ctx: tuple) -> None:
    _set_stage(st, SUCCESS_STAGE[s], ctx[0])


def _set_stage(st: WarbahState, stage: SpyStage, r: int) -> None:
    e = mission(st)
    e.stage = stage
    st.espionage.log.append((st.turn, e.seat, e.stage, r))
    e.targets = targets(st)
    if not e.targets:
        e.stage = "done"


def apply(st: WarbahState, a: int) -> None:
    e = mission(st)
    seat = e.seat
    if st.phase == "spy_loss":
        heroes.lose(st.heroes[e.victim], a)
        e.left -= 1
        return
    stage = e.stage
    if stage == "hire":
        if a == DONE:
            e.agents, e.stage = e.hired, "done"
        else:
            e.hired += 1
            st.gold[seat] -= spy_rules(st)["agent_cost"]
        return
    if a == DONE and stage != "fortell":  # forgo this agent's result
        e.stage = "done"
        return
    if stage == "move":
        h = st.heroes[e.victim]
        h.cell = int(st.neighbours[h.cell][a])
        e.stage = "done"
        return
    if stage == "fortell":  # the victim casts Fortell (REALM0 + fortell) or lets it pass (DONE)
        assert e.fortell is not None   # stage fortell: the result a victim may negate
        stage, x = e.fortell
        e.fortell = None
        e.stage, e.fortell_seat = "done", -1
        if a == DONE:
            _result(st, stage, x)
        else:
            realm_spells.use_fortell(st, _victim(st, stage, x))
            st.espionage.log.append((st.turn, seat, "fortell", stage))
        return
    assert stage != "done", "a target picked after the agent's result"   # advance moves on
    x = e.targets[a - TARGET0]
    e.stage = "done"
    if stage != "give_item" and _fortell_offer(st, stage, x):
        return
    _result(st, stage, x)


def _result(st: WarbahState, stage: SpyStage, x: int) -> None:
    """The agent's result ``stage`` against target x takes effect."""
    _RESULTS[stage](st, mission(st), stage, x)


def _look(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    st.espionage.revealed[(e.seat, x)] = st.turn


def _kill_hero(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    """The army stays behind as a garrison of its owner; a wizard teleports home."""
    h = st.heroes[x]
    h.alive = False
    c = h.cell
    if st.owner[c] < 0:
        st.owner[c] = h.seat
    if st.owner[c] == h.seat:
        st.garrison[c, :4] += h.troops
    heroes.disband_army(h)  # designed: special units cannot garrison here, they disband
    if h.wizard:
        magic.kill_wizard(st, x)


def _garrison(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    st.owner[x] = e.seat


def _gold(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    """Steal gold / damage: 1D10 gold (Luck: the spy, then the victim, may reroll it)."""
    _lucky_amount(st, stage, x, luck.d10(st.rng), (1, 10), x)


def _delay(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    st.heroes[x].delayed_turn = st.turn


def _wizard(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    magic.kill_wizard(st, x)


def _disband(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    """1D5 troops (Luck: the spy, then the victim, may reroll it)."""
    _lucky_amount(st, stage, x, int(st.rng.integers(1, 6)), (1, 5), st.heroes[x].seat)


def _false_orders(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    e.victim, e.stage = x, "move"


def _sink(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    fleets.sink_ship(st, x)


def _item(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    """A random item (designed) is taken; the spy hands it to one of his Heroes."""
    items = st.heroes[x].items
    it = items[int(st.rng.integers(len(items)))]
    magic.drop_item(st.heroes[x], it)  # an ability item takes its ability with it
    e.item = it
    e.stage = "give_item"
    e.targets = targets(st)
    if not e.targets:
        e.stage = "done"


def _give_item(st: WarbahState, e: SpyMission, stage: SpyStage, x: int) -> None:
    it = e.item
    assert it is not None   # stage give_item: the stolen item (``_item``)
    if it.kind == "ability":  # as magic.take_items does
        assert it.ability is not None   # an ability item names its ability
        st.heroes[x].abilities.append(it.ability)
    st.heroes[x].items.append(it)
    e.item = None


#: stage -> its result against the target picked
_RESULTS = {"look": _look, "kill_hero": _kill_hero, "garrison": _garrison, "steal_gold": _gold,
            "damage": _gold, "delay": _delay, "wizard": _wizard, "disband": _disband,
            "false_orders": _false_orders, "sink": _sink, "item": _item,
            "give_item": _give_item}


def _lucky_amount(st: WarbahState, stage: SpyStage, x: int, value: int, dice: tuple[int, int], victim: int) -> None:
    if not luck.offer(st, "agent_amount", (mission(st).seat, victim), value, dice,
                      _amount_roll, (stage, x)):
        _amount_roll(st, value, (stage, x))


def _amount_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    """AGENT SUCCESS 4 / 5 / 8 once the amount die is known."""
    e = mission(st)
    stage, x = ctx
    if stage == "steal_gold":
        k = min(value, int(st.gold[x]))
        st.gold[x] -= k
        st.gold[e.seat] += k
    elif stage == "damage":
        st.gold[x] -= min(value, int(st.gold[x]))
    else:
        st.phase = "spy_loss"
        e.victim, e.left = x, value
        e.stage = "disband"


def _victim(st: WarbahState, stage: SpyStage, x: int) -> int:
    return (x if stage in ("steal_gold", "damage") else int(st.owner[x]) if stage == "garrison"
            else st.heroes[x].seat)


def _fortell_offer(st: WarbahState, stage: SpyStage, x: int) -> bool:
    """REALM SPELLS Fortell ("negate espionage result. Cast in espionage phase"): a victim able
    to cast it decides now (stage ``fortell``: REALM0 + fortell casts, DONE lets it pass)."""
    v = _victim(st, stage, x)
    if realm_spells.fortell_caster(st, v) < 0:
        return False
    e = mission(st)
    e.stage, e.fortell, e.fortell_seat, e.targets = "fortell", (stage, x), v, []
    return True


def hero_delayed(st: WarbahState, h: Hero) -> bool:
    """Agent Success 6: the Hero cannot move or attack this turn."""
    return h.delayed_turn == st.turn


def is_revealed(st: WarbahState, observer: int, hi: int) -> bool:
    """``observer`` has seen Hero hi's index card this turn (a look, Scouting)."""
    return st.espionage.revealed.get((observer, hi), -1) == st.turn


def _own_esp_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    """The espionage roll after the spy's Luck decision: then its victims' chance at it."""
    victims_luck(st, ctx[0], value)


def _spy_table_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    """An agent's Espionage table roll after the spy's Luck decision (then the victims')."""
    resolve_agent(st, value)
