"""Rule-based Warbah baseline (reads the engine state: ``needs_state = True``; only what the
acting seat may see: map, chits, its own heroes and the troops on the battlefield).

- capitol: the automatic choice;
- recruit every troop the treasury allows; a second Hero once 10 gold is left over; with no
  Hero left, a Hero first (10 gold kept back): a player without one after recruiting is out
  (the designed victory condition, RULES.md "Win condition");
- move: take garrisons into the army, step onto unclaimed / enemy settlements, explore unknown
  land, otherwise walk towards the nearest unclaimed settlement or unexplored hex;
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
"""
from __future__ import annotations

from collections import deque

import numpy as np

from ..envs.warbah import battle_luck, battle_spells, heroes, hexes
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
    TARGET0,
)
from .base import RuleBasedAgent

LOSS_ORDER = (3, 1, 2, 0)  # catapults (kill 2), archers (3), cavalry (4), warriors (5)


class HeuristicAgent(RuleBasedAgent):
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
        """Troops first; but a player without a living Hero is out at the end of this phase
        (the designed victory condition): then a Hero comes first, and the gold for one is
        kept back from the other settlements' troops."""
        seat = st.current_player
        hero_cost = st.game.troop["hero"][2]
        heroless = not any(h.alive and h.seat == seat for h in st.heroes)
        if heroless:
            if mask[RECRUIT_HERO]:
                return RECRUIT_HERO
            if st.gold[seat] < hero_cost + 1:
                return DONE
        if mask[RECRUIT_WIZARD]:
            return RECRUIT_WIZARD
        if mask[RECRUIT]:
            return RECRUIT
        if mask[RECRUIT_HERO] and st.gold[seat] >= hero_cost:
            return RECRUIT_HERO
        return DONE

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

    def _goal(self, st, seat: int, c: int) -> bool:
        return (not st.explored[c]) or (st.settle[c] >= 0 and st.owner[c] != seat)

    def _move(self, st, seat, h, mask) -> int:
        if mask[TAKE_GARRISON]:
            return TAKE_GARRISON
        dirs = [d for d in range(6) if mask[d]]
        if not dirs:
            return DONE
        for d in dirs:
            m = int(st.neighbours[h.cell][d])
            if st.explored[m] and st.settle[m] >= 0 and st.owner[m] != seat:
                return d
        unexplored = [d for d in dirs if not st.explored[int(st.neighbours[h.cell][d])]]
        if unexplored:
            return unexplored[self.rng.integers(len(unexplored))]
        dist = self._dist_to_goal(st, seat)
        best = min(dirs, key=lambda d: dist[int(st.neighbours[h.cell][d])])
        if dist[int(st.neighbours[h.cell][best])] < dist[h.cell]:
            return best
        return DONE

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
        if s.window == "wall_dice":
            return REROLL
        if s.window == "battle_dice":
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

    def _dist_to_goal(self, st, seat: int) -> np.ndarray:
        n = st.game.n_cells
        dist = np.full(n, 10**6)
        q: deque[int] = deque()
        for c in range(n):
            if st.land[c] and self._goal(st, seat, c):
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
            else:  # an enemy garrison: taking settlements is the way to win (domination)
                gar = int(st.garrison[m].sum() + st.garrison_specials[m].sum())
                if mine > 2 * gar or (gar and mine >= gar + 3 * hexes.walls(st, m, h.cell) + 5):
                    return d
        return DONE
