"""Rule-based Warbah baseline (reads the engine state: ``needs_state = True``; only what the
acting seat may see: map, chits, its own heroes and the troops on the battlefield).

- capitol: the automatic choice;
- recruit: with no Hero left, a Hero first (10 gold kept back): a player without one after
  recruiting is out (the designed victory condition, RULES.md "Win condition"); a Wizard; a
  Hero while the player has fewer than it can use (one, plus one per four settlements, at most
  four, with 15 troops in garrisons and armies for each), the gold for him kept back at the
  settlements before the capitol; troops only into garrisons below their target (8, the
  capitol 20) or under an own Hero (who takes them);
- move: take the garrison of an own hex (at the capitol leaving 10 while an enemy Hero is
  within 3 hexes); step onto adjacent unclaimed / enemy settlements that are open; a Hero
  below half his army cap walks back to the nearest own garrison of 5 or more; else explore
  unknown land, or walk towards the nearest goal: unexplored land, unclaimed settlements, enemy
  settlements he would attack, an enemy capitol he would attack first unless another goal is
  more than 3 hexes nearer (issue 42: play to win; before, Heroes bled out while garrisons grew
  to hundreds and 4-player games stalled at the caps);
- battle: attack encounters with 12+ troops, enemy garrisons when twice as strong or ahead by
  5 plus 3 per wall rank (taking settlements wins by domination), enemy Heroes
  with 15+ troops; casualties from the lowest Kill rank first (catapults, archers, cavalry,
  warriors); call off a battle when the foe's visible troops outnumber ours; every own or
  allied Hero that can join an attack joins it (their troops count towards the thresholds),
  and calls from allies are accepted.
- magic: recruit a tower's wizard when possible; keep realm cards (no discards); cast
  the first castable realm spell at its first target; in battle cast the first castable spell
  at the largest target group (in a combined attack: at the army with the most troops first).
- Luck: reroll its own rolls that came out worse than average and the foe's that came out
  better; in a battle segment reroll the die most likely to turn (see ``_luck``).

Styles (``HeuristicAgent(game, seed, style=...)``, ``agents.heuristics.make_heuristic``): ``default``
as above (the baseline everywhere); ``economy``: troops only into the capitol's garrison or under an
own Hero, a Hero per two settlements (up to six, 10 troops each); ``assault``: attack an enemy
garrison at more than 1.2 times its size. Alone each moves first place at a 4-player table by a few
points at most (docs/training-notes.md); the ``hplan`` agent picks one each turn by rollouts.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from ..envs.warbah import battle_luck, battle_spells, board, heroes, hexes, recruit
from ..envs.warbah.actions import (
    ALLY_ACCEPT,
    BATTLE_ACCEPT,
    BATTLE_JOIN0,
    BATTLE_START,
    CALL_OFF,
    CAPITOL_AUTO,
    CASUALTY0,
    CONTINUE,
    DONE,
    GROUP0,
    HIRE_AGENT,
    KEEP_ROLL,
    LUCK_FOE,
    LUCK_MINE,
    MAGIC_SPGROUP0,
    RECRUIT,
    RECRUIT_HERO,
    RECRUIT_WIZARD,
    REROLL,
    TAKE_GARRISON,
    TAKE_ONE0,
    TARGET0,
)
from ..envs.warbah.tables import SETTLEMENTS
from .base import RuleBasedAgent

LOSS_ORDER = (3, 1, 2, 0)  # catapults (kill 2), archers (3), cavalry (4), warriors (5)
GARRISON_TARGET = 8   # troops recruited into a settlement's garrison (more: only under a Hero)
CAPITOL_TARGET = 20   # ... into the capitol's (losing it puts the player out)
CAPITOL_KEEP = 10     # troops a Hero leaves in the capitol's garrison when he takes it
REFILL_MIN = 5        # a weak Hero walks back to an own garrison of at least this many
MAX_HEROES = 4        # Heroes a player buys at most (with no Hero left: always one)
HERO_TROOPS = 15      # ... and only with this many troops for each Hero to lead
CAPITOL_PULL = 3      # hexes a Hero goes out of his way for an enemy capitol he can take
THREAT_RANGE = 3      # an enemy Hero this close to the capitol: keep its garrison


def _garrison(st, c: int) -> int:
    return int(st.garrison[c].sum() + st.garrison_specials[c].sum())


def _beats_garrison(st, army: int, c: int, from_cell: int, ratio: float = 2.0) -> bool:
    """Attack the garrison of hex c with ``army`` troops: ``ratio`` times its size (twice), or 5
    more than it plus 3 per wall rank."""
    gar = _garrison(st, c)
    return army > ratio * gar or (gar > 0 and army >= gar + 3 * hexes.walls(st, c, from_cell) + 5)


class HeuristicAgent(RuleBasedAgent):
    #: ways to play (``style=``; the ``hplan`` agent picks one a turn): ``default`` (the baseline);
    #: ``economy``: troops only into the capitol's garrison or under an own Hero, and more Heroes
    #: (one per two settlements, up to six, with 10 troops each); ``assault``: attack an enemy
    #: garrison at more than 1.2 times its size (not twice)
    STYLES = ("default", "economy", "assault")

    def __init__(self, game=None, seed: int | None = None, style: str = "default"):
        super().__init__(game, seed, style)
        economy = style == "economy"
        self._sets_per_hero, self._max_heroes, self._hero_troops = (2, 6, 10) if economy else (
            4, MAX_HEROES, HERO_TROOPS)
        self._garrisons = not economy   # troops into garrisons below their target
        self._attack_ratio = 1.2 if style == "assault" else 2.0

    def act(self, obs, state=None) -> int:
        mask = np.asarray(obs["action_mask"])
        if state is None:
            return self.random_legal(mask)
        st = state
        ph = st.phase
        if ph == "capitol":
            return CAPITOL_AUTO
        if ph in ("espionage", "spy_loss", "luck", "sea_loss", "diplomacy", "ally_answer"):
            return self._espionage_luck_diplomacy(st, ph, mask)
        if ph in ("realm", "realm_target", "spell", "spell_target"):  # magic sub-steps
            return self._magic(st, ph, mask)
        if ph in ("join", "join_answer"):  # combined attacks: every possible joiner joins
            if ph == "join_answer":
                return BATTLE_ACCEPT
            joins = [a for a in range(BATTLE_JOIN0, BATTLE_JOIN0 + 6) if mask[a]]
            return joins[0] if joins else BATTLE_START
        if ph == "casualty":
            for t in LOSS_ORDER:
                if mask[CASUALTY0 + t]:
                    return CASUALTY0 + t
        if ph == "call_off":
            b = st.battle
            me = 0 if b.sides[0].seat == st.current_player else 1
            mine = int(b.sides[me].counts.sum())
            if me == 0:  # a combined attack: the joining armies count too
                mine += sum(int(m.counts.sum()) for m in b.members)
            foe = b.sides[1 - me]
            theirs = int(foe.counts.sum()) + (foe.monster[2] if foe.monster else 0)
            return CONTINUE if mine >= theirs else CALL_OFF
        if ph == "recruit":
            return self._recruit(st, mask)
        seat, hi = st.queue[st.queue_pos]
        h = st.heroes[hi]
        if ph == "move":
            return self._move(st, seat, h, mask)
        if ph == "battle":
            return self._battle(st, seat, h, mask)
        return self.random_legal(mask)

    def _recruit(self, st, mask) -> int:
        """A player without a living Hero is out at the end of this phase (the designed victory
        condition): then a Hero comes first, and the gold for one is kept back from the other
        settlements' troops. Otherwise: a Wizard; a Hero while the player has fewer than it
        can use (``_heroes_wanted``: Heroes are what attacks and takes land), with the gold
        for him kept back at the settlements before the capitol; troops only into garrisons
        below their target (``GARRISON_TARGET``, the capitol's ``CAPITOL_TARGET``) or under
        an own Hero (who takes them): troops nobody fights with are gold lost."""
        seat = st.current_player
        hero_cost = st.game.troop["hero"][2]
        mine = sum(1 for h in st.heroes if h.alive and h.seat == seat)
        if not mine:
            if mask[RECRUIT_HERO]:
                return RECRUIT_HERO
            if st.gold[seat] < hero_cost + 1:
                return DONE
        if mask[RECRUIT_WIZARD]:
            return RECRUIT_WIZARD
        want_hero = mine < self._heroes_wanted(st, seat)
        if mask[RECRUIT_HERO] and (want_hero or not mine):
            return RECRUIT_HERO
        if not mask[RECRUIT]:
            return DONE
        c = st.queue[st.queue_pos][1]
        cap = int(st.capitol[seat])
        keep = 0
        if want_hero and cap >= 0 and heroes.hero_at(st, cap) < 0 and (seat, cap) in st.queue[st.queue_pos + 1:]:
            keep = hero_cost  # the capitol's turn is still to come: a Hero there first
        if st.gold[seat] - self._unit_cost(st, c) < keep:
            return DONE
        j = heroes.hero_at(st, c)
        if j >= 0 and st.heroes[j].seat == seat:
            return RECRUIT  # he takes them into his army
        if c != cap and not self._garrisons:
            return DONE
        target = CAPITOL_TARGET if c == cap else GARRISON_TARGET
        return RECRUIT if _garrison(st, c) < target else DONE

    def _heroes_wanted(self, st, seat: int) -> int:
        """One Hero, and one more for every four settlements held (at most ``MAX_HEROES``),
        as long as there are ``HERO_TROOPS`` troops (in garrisons and armies) for each (the
        economy style: every two, six, 10)."""
        sets = hexes.settlements_of(st, seat)
        troops = sum(_garrison(st, c) for c in sets) + sum(
            heroes.army_size(h) for h in st.heroes if h.alive and h.seat == seat)
        return max(1, min(self._max_heroes, 1 + len(sets) // self._sets_per_hero, troops // self._hero_troops))

    @staticmethod
    def _unit_cost(st, c: int) -> int:
        u = hexes.garrison_kind(st, c)
        if u >= 0:
            return recruit.special_cost(st, u)
        rec = st.game.settle[SETTLEMENTS[st.settle[c]]]["recruit"]
        return st.game.troop[rec][2] if rec in st.game.troop else 0

    def _magic(self, st, ph, mask) -> int:
        legal = [int(a) for a in np.flatnonzero(mask) if a != DONE]
        if not legal or (ph == "realm" and st.magic.window == "discard"):
            return DONE
        if ph == "spell_target":
            b = st.battle
            bm = b.magic
            k, s = bm.caster, bm.pending
            if bm.target_army is None and any(BATTLE_JOIN0 <= a < BATTLE_JOIN0 + 6 for a in legal):
                # a combined attack: the army with the most troops (friend or foe alike)
                arms = {BATTLE_JOIN0 + battle_spells.army_dir(st, x): x
                        for x in battle_spells.spell_armies(st, k, s)}
                return max((a for a in legal if a in arms),
                           key=lambda a: int(battle_spells.army(b, arms[a]).counts.sum()))
            x = bm.target_army
            sd = battle_spells.army(b, battle_spells.natural(st, k, s) if x is None else x)

            def size(a):
                t = (a - GROUP0 if a < MAGIC_SPGROUP0
                     else battle_spells.SPECIAL_GROUP0 + a - MAGIC_SPGROUP0)
                if t == 5:
                    return int(sd.monster[2]) if sd.monster is not None else 0
                return int(sd.counts[battle_spells.cidx(t)])
            return max(legal, key=size)
        return legal[0]

    def _goal(self, st, seat: int, c: int, army: int) -> bool:
        """Where a Hero with ``army`` troops heads: unexplored land, unclaimed settlements and
        the enemy settlements he can take (an empty one, or a garrison he would attack)."""
        if not st.explored[c]:
            return True
        if st.settle[c] < 0 or st.owner[c] == seat:
            return False
        if st.owner[c] < 0:
            return True
        if st.game.allies and st.diplomacy.allied[seat, st.owner[c]]:
            return False
        return _beats_garrison(st, army, c, c)

    def _move(self, st, seat, h, mask) -> int:
        """Take the garrison of an own hex (at the capitol, leaving ``CAPITOL_KEEP``); step
        onto an adjacent unclaimed or enemy settlement that is open; a weak Hero (below half
        his army cap) goes back to the nearest own garrison to fill up; else explore, or walk
        towards the nearest goal (``_goal``)."""
        take = self._take(st, seat, h, mask)
        if take is not None:
            return take
        dirs = [d for d in range(6) if mask[d]]
        if not dirs:
            return DONE
        nb = st.neighbours[h.cell]
        for d in dirs:
            m = int(nb[d])
            if st.explored[m] and st.settle[m] >= 0 and st.owner[m] != seat:
                return d
        army = heroes.army_size(h)
        if army < heroes.army_cap(st, h) // 2:  # weak: back to a garrison of his own
            mine = {x.cell for x in st.heroes if x.alive and x.seat == seat and x is not h}
            src = [c for c in hexes.settlements_of(st, seat)
                   if c != h.cell and c not in mine and _garrison(st, c) >= REFILL_MIN]
            step = self._step_towards(st, h, dirs, src)
            if step is not None:
                return step
        unexplored = [d for d in dirs if not st.explored[int(nb[d])]]
        if unexplored:
            return unexplored[self.rng.integers(len(unexplored))]
        goals = [c for c in range(st.game.n_cells) if st.land[c] and self._goal(st, seat, c, army)]
        caps = [c for c in goals if st.owner[c] >= 0 and st.capitol[st.owner[c]] == c]
        if caps:  # finish a player: his capitol, unless another goal is much nearer
            step = self._step_towards(st, h, dirs, caps)
            if step is not None and self._dist_from(st, caps)[h.cell] <= (
                    self._dist_from(st, goals)[h.cell] + CAPITOL_PULL):
                return step
        step = self._step_towards(st, h, dirs, goals)
        return DONE if step is None else step

    def _take(self, st, seat, h, mask):
        """The garrison of an own hex into the army; at the capitol one troop at a time while
        more than ``CAPITOL_KEEP`` would stay (its walls and garrison keep the player in the
        game), the whole garrison when that leaves enough. None: nothing to take."""
        if not mask[TAKE_GARRISON] and not any(mask[TAKE_ONE0:TAKE_ONE0 + 4]):
            return None
        if h.cell != st.capitol[seat]:
            return TAKE_GARRISON if mask[TAKE_GARRISON] else None
        gar = _garrison(st, h.cell)
        room = heroes.army_cap(st, h) - heroes.army_size(h)
        if mask[TAKE_GARRISON] and (gar - room >= CAPITOL_KEEP or not self._threatened(st, seat, h.cell)):
            return TAKE_GARRISON
        if gar <= CAPITOL_KEEP:
            return None
        ones = [t for t in range(4) if mask[TAKE_ONE0 + t]]
        if not ones:
            return None
        return TAKE_ONE0 + max(ones, key=lambda t: int(st.garrison[h.cell, t]))

    @staticmethod
    def _threatened(st, seat: int, c: int) -> bool:
        """An enemy Hero within ``THREAT_RANGE`` hexes of c (straight-line hex distance)."""
        return any(x.alive and x.seat != seat and board.hex_distance(st.game.h, st.game.w, c, x.cell) <= THREAT_RANGE
                   for x in st.heroes)

    def _step_towards(self, st, h, dirs, targets):
        """The legal direction that brings the Hero closer to the nearest of ``targets`` (land
        distance), or None."""
        if not targets:
            return None
        dist = self._dist_from(st, targets)
        nb = st.neighbours[h.cell]
        best = min(dirs, key=lambda d: dist[int(nb[d])])
        return best if dist[int(nb[best])] < dist[h.cell] else None

    def _espionage_luck_diplomacy(self, st, ph, mask) -> int:
        """Espionage: hire agents while gold lasts beyond 5, take the first target; Luck: see
        ``_luck``; losses: lowest Kill rank first."""
        if ph in ("spy_loss", "sea_loss"):
            for t in LOSS_ORDER:
                if mask[CASUALTY0 + t]:
                    return CASUALTY0 + t
        if ph == "luck":  # every roll open to Luck (luck.py)
            return self._luck(st, mask)
        if ph == "ally_answer":  # alliances: accept offers, never offer
            return ALLY_ACCEPT
        if ph == "diplomacy":
            return DONE
        if mask[HIRE_AGENT] and st.gold[st.current_player] > 5:
            return HIRE_AGENT
        if mask[TARGET0]:
            return TARGET0
        legal = np.flatnonzero(mask)
        return int(legal[0]) if mask[DONE] == 0 else DONE

    def _luck(self, st, mask) -> int:
        """Luck (luck.py): in a battle segment reroll the die most likely to turn (one of our
        misses or one of the foe's hits) when that chance is at least one half; always reroll
        a wall-break die (only offered when it helps). Single rolls: reroll our own roll when
        it is worse than average for us (low gold / healing / initiative; high losses, a
        storm's sinking, Disease, an encounter's size, the Dragon), the foe's when better than
        average for him; exploration: reroll a roll that gives no settlement, or an encounter
        chit."""
        s = st.luck
        me = st.current_player
        if s.what == "wall_dice":  # a battle window (luck.window): its kind
            return REROLL
        if s.what == "battle_dice":
            mine, foe = battle_luck.teams(st.battle, me)
            best, act = 0.0, KEEP_ROLL
            p = battle_luck.pick_die(mine, True, st.battle)
            if mask[LUCK_MINE] and p is not None and min(p[2], 10) / 10 > best:
                best, act = min(p[2], 10) / 10, LUCK_MINE
            p = battle_luck.pick_die(foe, False, st.battle)
            if mask[LUCK_FOE] and p is not None and 1 - max(p[2], 0) / 10 > best:
                best, act = 1 - max(p[2], 0) / 10, LUCK_FOE
            return act if best >= 0.5 else KEEP_ROLL
        v, (n, faces) = s.value, s.dice
        avg = n * (faces + 1) / 2
        what = s.what
        if what == "explore":
            name, (m, _), vals = s.ctx
            if not vals:  # the terrain roll: a settlement is worth most
                return KEEP_ROLL if st.game.terrain_roll[v] == "settlement" else REROLL
            t = st.game.terrain_roll[vals[0]]
            if t != "settlement" and len(vals) == 2:  # the encounter chit
                return REROLL if v <= st.game.cfg["encounter_chance"] else KEEP_ROLL
            return KEEP_ROLL
        if what == "storm":
            return REROLL if v <= s.ctx[1][1] else KEEP_ROLL  # (hero, sink_max)
        if what == "encounter":
            vals = s.ctx[2]
            if not vals and s.dice == (1, 10) and st.encounter[s.ctx[1][1]] < 0:
                return REROLL if v in (4, 8, 9) else KEEP_ROLL  # Disease, Warlord, Dragon
            return REROLL if v > avg else KEEP_ROLL  # losses / the foe's size: high is bad
        if what == "sea":  # sea encounter: monster, storm, pirates, becalmed
            return REROLL if v in (1, 2, 4, 5) else KEEP_ROLL
        if what == "esp_roll" and s.roller == me:  # my espionage roll: reroll a low one
            return REROLL if v <= 4 else KEEP_ROLL
        if what == "esp_table":  # an agent's roll: mine when it failed, the foe's when it did not
            fail = v <= st.game.cfg["espionage"]["table"]["failure_max"]
            return REROLL if fail == (s.roller == me) else KEEP_ROLL
        if what == "treasure" and not s.ctx[2]:
            return REROLL if v in (3, 4, 5) else KEEP_ROLL  # 1D10 gold: the poorest row
        if s.roller == me:
            return REROLL if v < avg else KEEP_ROLL
        return REROLL if v > avg else KEEP_ROLL

    @staticmethod
    def _dist_from(st, targets) -> np.ndarray:
        """Land distance (steps) of every cell to the nearest of ``targets``."""
        n = st.game.n_cells
        dist = np.full(n, 10**6)
        q: deque[int] = deque()
        for c in targets:
            dist[c] = 0
            q.append(c)
        while q:
            c = q.popleft()
            for m in st.neighbours[c]:
                if m >= 0 and st.land[m] and dist[m] > dist[c] + 1:
                    dist[m] = dist[c] + 1
                    q.append(int(m))
        return dist

    def _battle(self, st, seat, h, mask) -> int:
        own = int(h.troops.sum())
        for d in range(6):
            if not mask[d]:
                continue
            m = int(st.neighbours[h.cell][d])
            # a combined attack: own Heroes next to the target with an attack left join in
            mine = own + sum(int(o.troops.sum()) for o in st.heroes
                             if o is not h and o.alive and o.seat == seat
                             and o.attacks_left > 0 and m in st.neighbours[o.cell])
            if heroes.hero_at(st, m) >= 0:
                if mine >= 15:
                    return d
            elif st.encounter[m] != 0:
                if mine >= 12:
                    return d
            elif _beats_garrison(st, mine, m, h.cell, self._attack_ratio):  # taking settlements wins (domination)
                return d
        return DONE
