"""Gorgasali combat, cards and abilities (a mixin of ``GorgasaliState``; numpy + stdlib only).

Section names in comments are the rulebook's (../shared/rulebooks/gorgasali.txt).
"""
from __future__ import annotations

from typing import Literal

from . import actions as A
from .board import AROUND, STEP, distance
from .fields import Banner, GorgasaliFields
from .tables import COPYABLE, CardKind, CardType, Category

ARMAZI, EBUE, VARAS, MEDEA, TSIVA, OCTOR, KRUBER, THARSIS, DRAIN, EMOON = range(10)


#: what dealt damage (``_damage``): card damage (weapon, throwable, Ball Lightning) meets armour
#: and the Magic Field; an ability or a zone goes straight through
DamageSource = Literal["weapon", "throwable", "ball", "ability", "zone"]


class CombatMixin(GorgasaliFields):
    """Damage, elimination, cards on the mat, shooting, throwables, banners and abilities."""

    # ------------------------------------------------------------------ helpers -------------
    def enemies(self, a: int, b: int) -> bool:
        return a != b and self.game.team[a] != self.game.team[b]

    def occupied(self, exclude: int = -1) -> set[int]:
        """Squares holding a living figure (a fallen teammate's banner counts as vacant)."""
        return {self.pos[t] for t in range(self.game.num_seats) if self.alive[t] and t != exclude}

    def barrier_squares(self) -> set[int]:
        return {sq for b in self.banners if b[0] == "barrier" for sq in b[1]}

    def banner_at(self, sq: int) -> Banner | None:
        for b in self.banners:
            if sq in b[1]:
                return b
        return None

    def standing_on(self, seat: int, kind: CardKind) -> bool:
        if not self.banners:
            return False
        b = self.banner_at(self.pos[seat])
        return b is not None and b[0] == kind and (kind != "smoke" or b[2] == seat)

    def inactive(self, sq: int) -> bool:
        return self.game.board.zone[sq] <= self.zones_out

    def zone_penalty(self) -> int:
        return int(self.game.rules["zone_penalty"][self.zones_out - 1]) if self.zones_out else 0

    def card(self, seat: int, p: int) -> CardType | None:
        cid = self.mat[seat][p]
        return None if cid < 0 else self.game.cards[cid]

    def card_on(self, seat: int, p: int) -> CardType:
        """The card on a mat position that holds one (the caller's action or mask checked it)."""
        card = self.card(seat, p)
        assert card is not None, f"seat {seat} has no card on mat position {p}"
        return card

    def character(self, seat: int) -> int:
        return self.char[seat]

    def immune(self, seat: int) -> bool:
        """E'moon: immune to every other character's special ability."""
        return self.char[seat] == EMOON

    def card_target_ok(self, s: int, t: int, lo: int, hi: int) -> bool:
        """``s`` may target enemy ``t`` with a card at range lo..hi (line of sight: blocking areas
        and Barriers; a frozen player cannot target the Tsiva who froze it)."""
        if not self.alive[t] or not self.enemies(s, t):
            return False
        if self.frozen[s] and self.frozen_by[s] == t:
            return False
        d = distance(self.pos[s], self.pos[t])
        if not lo <= d <= hi:
            return False
        board = self.game.board
        walls = (board.blocking | self.barrier_squares()) if self.banners else board.blocking
        return board.clear_line(self.pos[s], self.pos[t], walls)

    def ability_target_ok(self, s: int, t: int, hi: int, enemy_only: bool = True) -> bool:
        """Abilities ignore Barriers (rulebook) but not the blocking areas; E'moon is immune."""
        if t == s or not self.alive[t] or self.immune(t):
            return False
        if enemy_only and not self.enemies(s, t):
            return False
        if self.frozen[s] and self.frozen_by[s] == t:
            return False
        d = distance(self.pos[s], self.pos[t])
        return 1 <= d <= hi and self.game.board.clear_line(self.pos[s], self.pos[t],
                                                          self.game.board.blocking)

    def _discard(self, cid: int) -> None:
        if cid >= 0:
            self.discard.append(cid)

    def _draw(self, weapon: bool) -> int:
        """Top card of a deck; an empty deck is refilled from the shuffled discards of its kind
        (designed); -1 when none is left."""
        deck = self.weapon_deck if weapon else self.support_deck
        if not deck:
            cards = self.game.cards
            mine = [c for c in self.discard if (cards[c].category == "weapon") == weapon]
            if not mine:
                return -1
            self.discard = [c for c in self.discard if (cards[c].category == "weapon") != weapon]
            deck.extend(mine[i] for i in self.rng.permutation(len(mine)))
        return deck.pop()

    # ------------------------------------------------------------------ the mat ------------
    def _empty_slot(self, seat: int, category: Category, backpack: bool) -> int:
        mat = self.mat[seat]
        for p in A.CATEGORY_POSITIONS[category]:
            if mat[p] < 0:
                return p
        if backpack:
            for p in A.BACKPACK_POS:
                if mat[p] < 0:
                    return p
        return -1

    def _put(self, seat: int, p: int, cid: int) -> None:
        old = self.mat[seat][p]
        self._discard(old)
        self.mat[seat][p] = cid
        if p in A.WEAPON_POS:
            self.loaded[seat][p] = cid >= 0

    def _receive(self, cid: int, seat: int = -1) -> None:
        """``seat`` (default: the player acting) collects a card (Character Mat): 'you must place
        the collected cards on the relevant empty slots' -- an empty slot of its category takes
        it; with none free the player chooses (LOOT sub-step) a card of the category to replace,
        the backpack, or discards it."""
        if cid < 0:
            return
        if seat < 0:
            seat = self.cur
        p = self._empty_slot(seat, self.game.cards[cid].category, backpack=False)
        if p >= 0:
            self._put(seat, p, cid)
        else:
            self.loot.append((seat, cid))

    def _open_chest(self, extra: bool) -> None:
        """Chests and extra chests: one weapon card and two support cards (rulebook)."""
        r = self.game.rules
        for _ in range(r["chest_weapons"]):
            self._receive(self._draw(True))
        for _ in range(r["chest_supports"]):
            self._receive(self._draw(False))

    def _refill_from_backpack(self, seat: int) -> None:
        """End of turn: backpack cards move to emptied active slots of their category."""
        mat = self.mat[seat]
        for b in A.BACKPACK_POS:
            cid = mat[b]
            if cid < 0:
                continue
            p = self._empty_slot(seat, self.game.cards[cid].category, backpack=False)
            if p >= 0:
                mat[b] = -1
                mat[p] = cid
                if p in A.WEAPON_POS:
                    self.loaded[seat][p] = True

    # ------------------------------------------------------------------ damage -------------
    def _heal(self, seat: int, amount: int) -> None:
        self.health[seat] = min(self.game.rules["max_health"], self.health[seat] + amount)

    def _damage(self, t: int, amount: int, by: int, source: DamageSource,
                piercing: bool = False) -> int:
        """Deal damage; returns the health lost. Magic Field halves card damage, armour blocks
        card damage (Armor cards); abilities and zones go straight through."""
        if not self.alive[t] or amount <= 0:
            return 0
        if source in ("weapon", "throwable", "ball"):
            if self.standing_on(t, "field"):
                amount -= amount // 2
            if not piercing:
                amount = self._absorb(t, amount)
        if amount <= 0:
            return 0
        lost = min(amount, self.health[t])
        self.health[t] -= amount
        if self.health[t] <= 0:
            self.health[t] = 0
            self._eliminate(t, None if source == "zone" else by)
        return lost

    def _absorb(self, t: int, amount: int) -> int:
        """Armor cards: one card enough for the whole hit is the only one discarded (the
        smallest such); otherwise every armour card blocks and is discarded."""
        mat = self.mat[t]
        armour = [p for p in A.ARMOUR_POS if mat[p] >= 0]
        if not armour:
            return amount
        cards = self.game.cards
        enough = [p for p in armour if cards[mat[p]].value >= amount]
        if enough:
            p = min(enough, key=lambda q: cards[mat[q]].value)
            self._put(t, p, -1)
            return 0
        for p in armour:
            amount -= cards[mat[p]].value
            self._put(t, p, -1)
        return max(0, amount)

    def _eliminate(self, t: int, by: int | None) -> None:
        """Elimination: the eliminator takes every card on the mat and the extra chests; a zone
        death passes nothing on. Duo: the fallen player's banner stays for a revival."""
        self.alive[t] = False
        self.out_time[t] = self.turn_count
        spoils = [c for c in self.mat[t] if c >= 0]
        self.mat[t] = [-1] * A.MAT_SIZE
        self.loaded[t] = [False, False]
        chests, self.extra_chests[t] = self.extra_chests[t], 0
        if self.loot:   # cards the fallen player was still placing are part of the spoils
            spoils += [cid for seat, cid in self.loot if seat == t]
            self.loot = [e for e in self.loot if e[0] != t]
        if by is not None and by >= 0 and self.alive[by] and by != t:
            # the eliminator places them like any collected card (free slot, else its choice:
            # replace / backpack / discard, one LOOT sub-step per card) -- also when the
            # elimination happens outside its own action (end-of-turn effects, reactions)
            for cid in spoils:
                self._receive(cid, by)
            self.extra_chests[by] += chests
        else:
            for cid in spoils:
                self._discard(cid)
        mate_alive = any(self.alive[m] for m in self.team_members(t) if m != t)
        self.fallen_at[t] = self.pos[t] if mate_alive else -1
        for m in self.team_members(t):  # a team wiped out leaves no banner to revive
            if not mate_alive:
                self.fallen_at[m] = -1
        self.pos[t] = -1
        self.frozen[t] = False
        # its banners stay: "The defensive card banner remains on the map for 2 rounds after which
        # it must be removed" (rules._pass_turn removes them at the turn the player would have had)
        self._check_over()

    def team_members(self, seat: int) -> list[int]:
        team = self.game.team[seat]
        return [s for s in range(self.game.num_seats) if self.game.team[s] == team]

    # ------------------------------------------------------------------ shooting -----------
    def weapon_range(self, seat: int, p: int) -> tuple[int, int]:
        card = self.card_on(seat, p)
        hi = card.range_max
        ext = self.extension
        if ext is not None and ext.group == card.group == "scout":
            hi += ext.value
        return card.range_min, hi

    def can_shoot(self, s: int, p: int, t: int) -> bool:
        card = self.card(s, p)
        if card is None or not self.loaded[s][p] or self.standing_on(t, "smoke"):
            return False
        lo, hi = self.weapon_range(s, p)
        return self.card_target_ok(s, t, lo, hi)

    def _shoot(self, p: int, t: int) -> None:
        """Weapon cards: per-bullet groups multiply the sum of the dice, fixed-damage groups need
        a minimum roll; skills of epic and legendary cards; the weapon goes face down."""
        s = self.cur
        card = self.card_on(s, p)
        ext = self.extension if (self.extension is not None
                                 and self.extension.group == card.group) else None
        n = card.dice + (ext.value if ext is not None and card.group in ("six_shooter", "striker")
                         else 0)
        rolled = [int(x) for x in self.rng.integers(1, 7, size=n)]
        dice = rolled
        if self.standing_on(t, "tree"):  # Tree Platform: every die one less against weapons
            dice = [max(0, x - 1) for x in rolled]
        total = sum(dice)
        skill_roll = dice[0] if self.game.rules["skill_die"] == "first" else total
        if card.per_bullet:
            if card.skill == "seven_is_twelve" and total == 7:
                total = 6 * n
            dmg = total * card.per_bullet
        else:
            need = card.hit if card.hit else card.hit_by_range[
                min(distance(self.pos[s], self.pos[t]), len(card.hit_by_range)) - 1]
            roll = total + (ext.value if ext is not None and card.group == "massive" else 0)
            dmg = card.damage if roll >= need else 0
            if dmg and card.skill == "bonus_on_11" and total >= 11:
                dmg += card.skill_value
        hit = dmg > 0
        drain = 0
        if hit and self.has_passive(s, DRAIN) and not self.immune(t):
            # D'rain: +5 per die above 4, healed by as much. It is his special ability: E'moon is
            # immune to it, and armour and the Magic Field do not stop it (they stop card damage).
            # "cannot be affected by any card": it counts the dice as rolled, before the Tree
            # Platform ("only effective against weapon cards") lowers them
            ch = self.game.chars[DRAIN]
            drain = ch.bonus * sum(1 for x in rolled if x > ch.above)
            self._spend_copy(s)
        self.extension = None
        self._remove_smoke(s)
        if not (card.skill == "no_reload" and skill_roll >= card.skill_value):
            self.loaded[s][p] = False
        # the six shooter's extra move is a move: a frozen player ("unable to move during their
        # turn", Tsiva) gets none
        bonus = card.skill == "extra_move" and skill_roll >= card.skill_value and not self.frozen[s]
        dealt = self._damage(t, dmg, s, "weapon", piercing=card.skill == "armour_piercing")
        if hit and drain:
            dealt += self._damage(t, drain, s, "ability")
            self._heal(s, drain)
            dmg += drain
        if hit and card.skill == "heal_on_hit":
            self._heal(s, card.skill_value)
        self.last_event = (f"{self.name(s)} shot {self.name(t)} with {card.name}: dice {dice}, "
                           f"damage {dmg} ({dealt} taken)")
        self.bonus_move = bonus and self.alive[s]

    # ------------------------------------------------------------------ throwables ---------
    def can_throw(self, s: int, p: int, t: int) -> bool:
        card = self.card(s, p)
        if card is None:
            return False
        if card.kind == "smoke":
            return t == s and self.banner_at(self.pos[s]) is None
        if t == s:
            return False
        return self.card_target_ok(s, t, card.range_min, card.range_max)

    def _throw(self, p: int, t: int) -> None:
        s = self.cur
        card = self.card_on(s, p)
        self._put(s, p, -1)
        if card.kind == "smoke":
            self._add_banner("smoke", (self.pos[s],), s)
            self.last_event = f"{self.name(s)} hides in smoke"
            return
        if card.kind == "flame":  # two dice, 9+: 40 to the target and every enemy next to it
            roll = int(self.rng.integers(1, 7)) + int(self.rng.integers(1, 7))
            hit = roll >= card.hit
            victims = [t] + [u for u in range(self.game.num_seats) if u != t and self.alive[u]
                             and self.enemies(s, u) and distance(self.pos[u], self.pos[t]) <= 1]
            if hit:
                for u in victims:
                    self._damage(u, card.value, s, "throwable")
            self.last_event = f"{self.name(s)} threw a Flame Bulb: {roll} ({'hit' if hit else 'miss'})"
        elif card.kind == "spear":  # one die equal to the distance: 60
            roll = int(self.rng.integers(1, 7))
            hit = roll == distance(self.pos[s], self.pos[t])
            if hit:
                self._damage(t, card.value, s, "throwable")
            self.last_event = f"{self.name(s)} threw a Magic Spear: {roll} ({'hit' if hit else 'miss'})"
        elif card.kind == "ntt":  # the target's weapons go face down
            self.loaded[t] = [False, False]
            self.last_event = f"{self.name(s)} threw an NTT Bulb at {self.name(t)}"

    # ------------------------------------------------------------------ banners ------------
    def _add_banner(self, kind: CardKind, squares: tuple[int, ...], owner: int) -> None:
        self.banners.append((kind, tuple(squares), owner,
                             self.round + self.game.rules["banner_rounds"]))

    def _remove_smoke(self, seat: int) -> None:
        """Smoke Bulb: shooting or moving ends its effect."""
        self.banners = [b for b in self.banners if not (b[0] == "smoke" and b[2] == seat)]

    def barrier_line(self, seat: int, v: int) -> tuple[int, ...] | None:
        """The 5 squares of a Barrier placed towards direction v (1..4): a line across that
        direction centred on the neighbouring square (designed shape); None if not vacant."""
        d = v - 1
        centre = STEP[self.pos[seat]][d]
        if centre < 0:
            return None
        side = (d + 1) % 4
        line = [centre]
        for k in (side, (side + 2) % 4):
            sq = centre
            for _ in range(2):
                sq = STEP[sq][k]
                if sq < 0:
                    return None
                line.append(sq)
        occ = self.occupied()
        board = self.game.board
        for sq in line:
            if sq in board.blocking or sq in occ or sq in self.chests or self.banner_at(sq) is not None:
                return None
        return tuple(sorted(line))

    def can_defend(self, s: int, p: int, v: int) -> bool:
        card = self.card(s, p)
        if card is None:
            return False
        if card.kind == "barrier":
            return v > 0 and self.barrier_line(s, v) is not None
        return v == 0 and self.banner_at(self.pos[s]) is None

    def _defend(self, p: int, v: int) -> None:
        s = self.cur
        card = self.card_on(s, p)
        squares = self.barrier_line(s, v) if card.kind == "barrier" else (self.pos[s],)
        assert squares is not None, "a Barrier line is offered only where it fits (can_defend)"
        self._put(s, p, -1)
        self._add_banner(card.kind, squares, s)
        self.last_event = f"{self.name(s)} placed {card.name}"

    # ------------------------------------------------------------------ abilities ----------
    def active_ability(self, s: int) -> int:
        """The ability ``s`` would use now: its own, or Octor's copied one; -1 if none."""
        c = self.char[s]
        if c == OCTOR:
            return self.held[s] if self.held_cd[s] == 0 else -1
        if c in (THARSIS, DRAIN, EMOON) or self.cooldown[s] > 0:
            return -1
        return c

    def has_passive(self, s: int, ab: int) -> bool:
        """``s`` has the passive ability ``ab`` now: its own, or Octor's unspent copy of it."""
        c = self.char[s]
        return c == ab or (c == OCTOR and self.held[s] == ab and self.held_cd[s] == 0)

    def _spend_copy(self, s: int) -> None:
        """Octor's copied passive ability is for one use: spent at its first trigger."""
        if self.char[s] == OCTOR:
            self.held[s] = -1

    def ability_targets(self, s: int) -> list[int]:
        """Legal ABILITY rel values for the current player ``s``."""
        ab = self.active_ability(s)
        if ab < 0 or ab in (THARSIS, DRAIN, EMOON):   # passive: acts by itself
            return []
        n = self.game.num_seats
        ch = self.game.chars[ab]
        if ab in (EBUE, KRUBER) and self.inactive(self.pos[s]):
            return []  # disabled in an inactive zone (rulebook)
        if ab == MEDEA:
            return [0]
        if ab == TSIVA:
            return [0] if any(self.alive[t] and self.enemies(s, t) and not self.immune(t)
                              and distance(self.pos[s], self.pos[t]) <= ch.range
                              for t in range(n)) else []
        out = []
        for rel in range(1, n):
            t = (s + rel) % n
            if ab == EBUE:
                if self.ability_target_ok(s, t, ch.range, enemy_only=False) and self.pull_squares(s, t):
                    out.append(rel)
            elif ab == VARAS:
                if self.ability_target_ok(s, t, ch.range) and self.steal_positions(t):
                    out.append(rel)
            elif self.ability_target_ok(s, t, ch.range):
                out.append(rel)
        return out

    def pull_squares(self, s: int, t: int) -> list[int]:
        """Ebue: a vacant square next to Ebue, no chest on it; an opponent in an active zone is
        not pulled out of it (rulings)."""
        occ = self.occupied(exclude=t)
        cost = self.game.cost
        keep_active = not self.inactive(self.pos[t])
        bar = self.barrier_squares()
        return [q for q in AROUND[self.pos[s]] if cost[q] and q not in occ and q not in self.chests
                and q not in bar and not (keep_active and self.inactive(q))]

    def steal_positions(self, t: int) -> list[int]:
        """Varas: any card of the mat except the weapons."""
        cards = self.game.cards
        return [p for p in range(2, A.MAT_SIZE)
                if self.mat[t][p] >= 0 and cards[self.mat[t][p]].category != "weapon"]

    def _use_ability(self, rel: int) -> None:
        s = self.cur
        n = self.game.num_seats
        ab = self.active_ability(s)
        ch = self.game.chars[ab]
        if self.char[s] == OCTOR:
            self.held[s] = -1      # a copied ability is for one use only
        else:
            self.cooldown[s] = ch.cooldown
        t = (s + rel) % n
        if ab == ARMAZI:  # 35 to the target and to one enemy next to it (two targets at most)
            second = [u for u in range(n) if u != t and self.ability_target_ok(s, u, ch.range)
                      and distance(self.pos[u], self.pos[t]) <= 1]
            second.sort(key=lambda u: (self.health[u], u))
            self._damage(t, ch.damage, s, "ability")
            if second:
                self._damage(second[0], ch.damage, s, "ability")
            self.last_event = f"{self.name(s)} released the sun on {self.name(t)}"
        elif ab == EBUE:
            self.pending_target = t
            self.phase = "pull"
        elif ab == VARAS:
            self.pending_target = t
            self.phase = "steal"
        elif ab == MEDEA:
            self._heal(s, ch.heal)
            self._receive(self._draw(False))
            self.last_event = f"{self.name(s)} cured herself"
        elif ab == TSIVA:
            for u in range(n):
                if self.alive[u] and self.enemies(s, u) and not self.immune(u) \
                        and distance(self.pos[s], self.pos[u]) <= ch.range:
                    self.frozen[u] = True
                    self.frozen_by[u] = s
            self.last_event = f"{self.name(s)} froze her surroundings"
        elif ab == KRUBER:
            self.swap_back = (t, self.pos[s], self.pos[t])   # for the return (see can_return)
            self.pos[s], self.pos[t] = self.pos[t], self.pos[s]
            self._remove_smoke(s)
            self._remove_smoke(t)
            self._teleport_penalty(s)
            self._teleport_penalty(t)
            self.last_event = f"{self.name(s)} swapped places with {self.name(t)}"

    def _teleport_penalty(self, seat: int) -> None:
        """Ruling: landing outside the active zone by an effect costs one square's penalty."""
        if self.alive[seat] and self.game.rules["teleport_penalty"] and self.inactive(self.pos[seat]):
            self._damage(seat, self.zone_penalty(), -1, "zone")

    def _pull(self, q: int) -> None:
        t = self.pending_target
        self.pos[t] = q
        self._remove_smoke(t)
        self._teleport_penalty(t)
        self.last_event = f"{self.name(self.cur)} pulled {self.name(t)}"

    def copy_targets(self, s: int) -> list[int]:
        """Octor: copy any ability but E'moon's within range 1-3, "as many times as you desire,
        per one turn". A copy that would change nothing (the ability he holds, at its standard
        cooldown) is not offered; ``octor_copies_per_turn`` caps the copies of one turn (the
        move-cap safeguard: switching back and forth could otherwise go on for ever)."""
        if self.char[s] != OCTOR or self.copies >= self.game.rules["octor_copies_per_turn"]:
            return []
        n = self.game.num_seats
        chars = self.game.chars
        rng = chars[OCTOR].range
        out = []
        for rel in range(1, n):
            t = (s + rel) % n
            c = self.char[t]
            if self.held[s] == c and self.held_cd[s] == chars[c].cooldown:
                continue      # he holds exactly this copy already
            if chars[c].name in COPYABLE and self.ability_target_ok(s, t, rng, enemy_only=False):
                out.append(rel)
        return out

    def _copy(self, rel: int) -> None:
        s = self.cur
        t = (s + rel) % self.game.num_seats
        self.copies += 1
        self.held[s] = self.char[t]
        self.held_cd[s] = self.game.chars[self.char[t]].cooldown
        self.last_event = f"{self.name(s)} copied the ability of {self.name(t)}"

