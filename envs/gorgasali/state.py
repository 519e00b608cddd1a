"""Gorgasali battle royale: the pure rules engine (numpy + stdlib only).

A mutable ``GorgasaliState`` with a cheap ``clone()``, built from mixins: ``movement.py`` (the
dice move, bonus move, Teleport, Kruber's return), ``masks.py`` (legal actions), ``duo.py``
(trade, revive) and ``combat.py`` (damage, cards, abilities), layered on the position's fields
declared in ``fields.py``; this module holds the state, set-up, turn flow, ``_apply`` and the
results. Turn structure (designed order of the rulebook's turn actions, see RULES.md):

    react   (the reaction window) before the turn starts, each other player whose ability
            can be used now may use it or pass (END_TURN), clockwise from the next seat
    start   heal (healing card), ammo bag, extra chest, ability  ->  ROLL (or frozen: no movement)
    move    movement card or SKIP before the first step, then the walk: one orthogonal square
            a step (SQUARE), exact points, no square twice, optional stop on a chest entered
    act     throwable, defensive card, extension, ammo bag, extra chest, ability, Octor's copy,
            revive / trade (duo); a main action (shoot, reload, manage the backpack) or END_TURN
    sub-steps: loot (a card without a free slot; the player placing it acts, also outside its
            turn), pull (Ebue's square), steal (Varas' card), bonus (six-shooter extra move),
            trade (duo), teleport (the Teleport card's square)

``turn_seat`` is the player whose turn it is; ``cur`` is the player acting now (the same but in
the reaction window and when someone else places spoils).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import copy_generator, owned_copy, rank_returns
from . import actions as A
from .board import AROUND, distance
from .combat import OCTOR, THARSIS
from .masks import MaskMixin
from .observe import build_observation
from .render import render_rgb, render_text
from .tables import COPYABLE, CROSS_KINDS, Phase

if TYPE_CHECKING:   # for the type checker only: game.py imports this module
    from .game import GorgasaliGame

#: the phases a player acts in (``tables.Phase`` also names the two continuations within an
#: action, ``react_next`` and ``pass``)
PHASES: tuple[Phase, ...] = ("choose", "react", "start", "move", "act", "loot", "pull", "steal",
                             "bonus", "trade", "teleport", "over")
_TURN_FLAGS = dict(used_consumable=False, used_throwable=False, used_defensive=False,
                   used_extra_chest=False, main_done=False, revived=False, dice=(0, 0),
                   copies=0,
                   move_points=0, extension=None, bonus_move=False, pending_target=-1,
                   swap_back=None, teleport_range=0, path=(), walk_bits=0, walk_left=0,
                   _walk_cache=None, _walk_ctx=None)

#: what clone() does not copy: the game (shared tables), the generator (copied by state), caches
#: keyed by the identity of the original's objects (rebuilt on demand)
_NOT_CLONED = frozenset({"game", "rng", "_chest_cache", "_chest_bits_cache", "_walk_obs"})


class GorgasaliState(MaskMixin):
    """One position of a Gorgasali game (its fields: ``fields.GorgasaliFields``; the mixins:
    ``MaskMixin`` on ``MovementMixin`` and ``DuoMixin``, both on ``CombatMixin``)."""

    def __init__(self, game: GorgasaliGame, rng: np.random.Generator, _blank: bool = False):
        self.game = game
        self.rng = rng
        self._chest_bits_cache = self._chest_cache = self._walk_obs = None   # _NOT_CLONED
        if _blank:
            return
        n = game.num_seats
        self.history = []
        self.seed = None
        self.phase = "choose"
        self.cur = 0
        self.turn_seat = 0
        self.react_queue = ()
        self.round = 1
        self.turn_count = 0
        self.zones_out = 0
        self.capped = False
        self.char = [-1] * n
        self.pos = [-1] * n
        self.alive = [True] * n
        self.health = [game.rules["max_health"]] * n
        self.cooldown = [0] * n
        self.held = [-1] * n       # Octor's copied ability
        self.held_cd = [0] * n
        self.mat = [[-1] * A.MAT_SIZE for _ in range(n)]
        self.loaded = [[False, False] for _ in range(n)]
        self.extra_chests = [game.rules["start_extra_chests"]] * n
        #: the turn (turn_count) in which each player last opened an extra chest: one per turn,
        #: whoever's turn it is (the rulings)
        self.chest_turn = [-1] * n
        self.frozen = [False] * n
        self.frozen_by = [-1] * n
        self.burned = [0] * n
        self.skipped_last = [False] * n
        self.out_time = [-1] * n
        self.fallen_at = [-1] * n  # duo: banner of a fallen player who may be revived
        self.sector = [-1] * n
        self.chests = set(game.board.chests)
        self.banners = []   # (kind, squares, owner, round it expires)
        self.weapon_deck = [game.weapon_deck[i] for i in rng.permutation(len(game.weapon_deck))]
        self.support_deck = [game.support_deck[i] for i in rng.permutation(len(game.support_deck))]
        self.discard = []
        self.loot = []     # (seat, card) waiting for a slot, in order
        self.return_phase = "act"
        self.cross = set()
        self.last_event = ""
        self.return_phase_after_target = "act"
        self.__dict__.update(_TURN_FLAGS)
        self._mask = None
        self._clear_cache = {}
        self.first = int(rng.integers(n))   # Setup: a d6 decides who starts (seat drawn here)
        ch = game.characters
        if ch == "choose":
            self.cur = self.first
            return
        if ch == "random":
            picks = rng.permutation(10)[:n]
            self.char = [int(c) for c in picks]
        else:
            self.char = [A.CHARACTER_NAMES.index(c) for c in ch]
        self._place_start()

    # ------------------------------------------------------------------ cloning -------------
    def clone(self) -> "GorgasaliState":
        """A state that owns copies of every field. Caches keyed by the identity of this state's
        objects (the chest set, the walk context) could never hit in the copy: left out."""
        s = GorgasaliState(self.game, copy_generator(self.rng), _blank=True)
        d = s.__dict__
        for k, v in self.__dict__.items():
            if k not in _NOT_CLONED:
                d[k] = owned_copy(v)
        return s

    def _determinize(self, observer: int, rng: np.random.Generator) -> "GorgasaliState":
        """Resample what ``observer`` cannot see: deck order, the face-down weapons and the
        backpack cards of the others (the card backs show weapon or support deck)."""
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        cards = self.game.cards
        hidden = []   # (seat, position, is_weapon)
        for t in range(self.game.num_seats):
            if t == observer or self._sees_all(observer, t):
                continue
            for p in A.WEAPON_POS:
                if s.mat[t][p] >= 0 and not s.loaded[t][p]:
                    hidden.append((t, p, True))
            for p in A.BACKPACK_POS:
                if s.mat[t][p] >= 0:
                    hidden.append((t, p, cards[s.mat[t][p]].category == "weapon"))
        for weapon in (True, False):
            slots = [(t, p) for t, p, w in hidden if w == weapon]
            pool = (s.weapon_deck if weapon else s.support_deck) + [s.mat[t][p] for t, p in slots]
            pool = [pool[i] for i in s.rng.permutation(len(pool))]
            for t, p in slots:
                s.mat[t][p] = pool.pop()
            if weapon:
                s.weapon_deck = pool
            else:
                s.support_deck = pool
        s._mask = None
        return s

    def _sees_all(self, observer: int, seat: int) -> bool:
        """Duo: teammates trade and so see each other's mats (designed)."""
        return self.game.team_size > 1 and self.game.team[observer] == self.game.team[seat]

    # ------------------------------------------------------------------ set-up --------------
    def _place_start(self) -> None:
        """Setup: a d20 per team picks the start sector (re-rolled if taken, designed); the
        figure stands on that sector's gate."""
        g = self.game
        taken: dict[int, int] = {}
        for s in range(g.num_seats):
            team = g.team[s]
            if team not in taken:
                while True:
                    sector = int(self.rng.integers(20))
                    if sector not in taken.values():
                        break
                taken[team] = sector
            self.sector[s] = taken[team]
            self.pos[s] = g.board.gates[taken[team]]
        if not g.rules["ability_ready_at_start"]:
            self.cooldown = [g.chars[c].cooldown for c in self.char]
        for s in range(g.num_seats):
            if self.char[s] == OCTOR:  # starts with the ability of the next player (designed)
                for k in range(1, g.num_seats):
                    t = (s + k) % g.num_seats
                    if g.chars[self.char[t]].name in COPYABLE:
                        self.held[s] = self.char[t]
                        break
        self._begin_turn(self.first)

    # ------------------------------------------------------------------ turn flow -----------
    def _begin_turn(self, seat: int) -> None:
        self.cur = self.turn_seat = seat
        self.turn_count += 1
        self.banners = [b for b in self.banners if not (b[2] == seat and b[3] <= self.round)]
        if self.cooldown[seat] > 0:
            self.cooldown[seat] -= 1
        if self.held_cd[seat] > 0:
            self.held_cd[seat] -= 1
        self.__dict__.update(_TURN_FLAGS)
        self.cross = set()
        self.loot = []
        self.phase = "start"
        if self.game.rules["react_window"]:
            n = self.game.num_seats
            self.react_queue = tuple((seat + k) % n for k in range(1, n))
            self._next_reactor()
        elif self._only_roll():
            self._roll()

    def _next_reactor(self) -> None:
        """The reaction window ('special abilities can be used anytime during the game'): before
        a turn starts, each other living player whose ability has a use now decides in turn;
        then the turn player starts (or, fallen in the window, the turn passes)."""
        seat = self.turn_seat
        while self.react_queue and self.alive[seat]:
            r = self.react_queue[0]
            self.react_queue = self.react_queue[1:]
            if self.alive[r] and (self.ability_targets(r) or self.may_open_extra_chest(r)):
                self.cur = r
                self.phase = "react"
                return
        self.react_queue = ()
        self.cur = seat
        self.phase = "start"
        self.swap_back = None   # a reaction's swap is not Kruber's own (no return)
        if not self.alive[seat]:
            self._end_turn()
        elif self._only_roll():
            self._roll()

    def _roll(self) -> None:
        if self.frozen[self.cur]:  # Tsiva: a frozen player does not move this turn
            self.phase = "act"
            return
        self.dice = (int(self.rng.integers(1, 7)), int(self.rng.integers(1, 7)))
        self.move_points = self.dice[0] + self.dice[1]
        self.phase = "move"
        self._start_walk()

    def _end_turn(self) -> None:
        s = self.cur = self.turn_seat
        n = self.game.num_seats
        if self.alive[s]:
            self._refill_from_backpack(s)
            if self.burned[s] > 0:
                self.burned[s] -= 1
            self.frozen[s] = False
            # Tharsis: ending a turn next to enemies burns them; so does ending next to Tharsis
            # (an Octor holding a copy of it burns once: the copy is spent at that trigger)
            chars = self.game.chars
            burners = set()
            for t in range(n):
                if not (self.alive[t] and self.alive[s] and self.enemies(s, t)
                        and distance(self.pos[s], self.pos[t]) <= 1):
                    continue
                if self.has_passive(s, THARSIS) and not self.immune(t):
                    burners.add(s)
                    self.burned[t] = self.game.rules["burn_turns"]
                    self._damage(t, chars[THARSIS].damage, s, "ability")
                if self.has_passive(t, THARSIS) and not self.immune(s) and self.alive[s]:
                    burners.add(t)
                    self.burned[s] = self.game.rules["burn_turns"]
                    self._damage(s, chars[THARSIS].damage, t, "ability")
            for u in burners:
                self._spend_copy(u)
            # Ball Lightning: an enemy ending its turn within range 3 takes 35
            for b in list(self.banners):
                if b[0] == "ball" and self.alive[s] and self.enemies(b[2], s) \
                        and distance(b[1][0], self.pos[s]) <= self.game.ball[1]:
                    self._damage(s, self.game.ball[0], b[2], "ball")
        if self.phase == "over":
            return
        if self.loot:   # spoils of an end-of-turn elimination: placed before the turn passes
            self.phase = "pass"
            self._after_action()
            return
        self._pass_turn()

    def _pass_turn(self) -> None:
        s = self.turn_seat
        n = self.game.num_seats
        # next living seat clockwise; a new round when play passes the first player again
        nxt = s
        skipped = []
        for k in range(1, n + 1):
            t = (s + k) % n
            if self.alive[t]:
                nxt = t
                break
            skipped.append(t)
        if self.banners and skipped:
            self._expire_fallen_banners(s, skipped)
        if (nxt - self.first) % n <= (s - self.first) % n:
            self.round += 1
            done = self.round - 1
            if done % self.game.rules["zone_interval"] == 0 and self.zones_out < 4:
                self.zones_out += 1   # the zones go inactive one by one
            if self.round > self.game.rules["max_rounds"]:
                self.capped = True
                self.phase = "over"
                self.cur = -1
                return
        self._begin_turn(nxt)

    def _expire_fallen_banners(self, s: int, skipped: list[int]) -> None:
        """'The defensive card banner remains on the map for 2 rounds after which it must be
        removed': a fallen player's banners stay, and go at the turn it would have had in the
        round they expire (a living owner's go at the start of its turn, ``_begin_turn``)."""
        n = self.game.num_seats
        after = (s - self.first) % n
        due = {t: self.round + (1 if (t - self.first) % n <= after else 0) for t in skipped}
        self.banners = [b for b in self.banners if not (b[2] in due and b[3] <= due[b[2]])]

    def _check_over(self) -> None:
        teams = {self.game.team[t] for t in range(self.game.num_seats) if self.alive[t]}
        if len(teams) <= 1:
            self.phase = "over"
            self.cur = -1

    def _after_action(self) -> None:
        """Cards waiting for a slot first (their owner acts); then the continuation of the
        phase: the next reactor, the passing turn, the end of the turn when due."""
        if self.phase == "over":
            return
        if self.loot:
            if self.phase != "loot":
                self.return_phase = self.phase
                self.phase = "loot"
            self.cur = self.loot[0][0]
            return
        if self.phase == "loot":
            self.phase = self.return_phase
        ph = self.phase
        if ph == "react_next":
            self._next_reactor()
            return
        if ph == "pass":
            self._pass_turn()
            return
        if ph in ("pull", "steal"):   # a reactor's target sub-step: the reactor acts
            return
        self.cur = self.turn_seat
        if not self.alive[self.cur]:
            self._end_turn()
        elif ph == "act" and self.main_done and not self.bonus_move:
            self._end_turn()
        elif ph == "start" and self._only_roll():
            self._roll()

    def _only_roll(self) -> bool:
        m = self._compute_mask()
        if m[A.ROLL] == 1 and m.sum() == 1:
            return True
        self._mask = m   # nothing changes before the next action: keep it for legal_actions_mask
        return False

    # ------------------------------------------------------------------ apply ---------------
    def illegal_reason(self, action: int) -> str:
        kind = A.decode(action)[0]
        return f"a {kind!r} action is not available in phase {self.phase!r} for this player now"

    def phase_name(self) -> str:
        return self.phase

    def _apply(self, action: int) -> None:
        self._mask = None
        self.last_event = ""
        kind, *args = A.decode(action)
        s = self.cur
        ph = self.phase
        if kind == "choose":
            self.char[s] = args[0]
            nxt = (s + 1) % self.game.num_seats
            if nxt == self.first:
                self._place_start()
            else:
                self.cur = nxt
            return
        if ph == "react":
            if kind == "end_turn":   # pass
                self._next_reactor()
                return
            self.return_phase_after_target = "react_next"
            self.phase = "react_next"
            if kind == "extra_chest":
                # an extra chest opened outside one's turn; the reactor is asked again if its
                # ability also has a use (the chest is not offered twice in one turn)
                self._open_extra_chest(s)
                self.react_queue = (s,) + self.react_queue
            else:
                self._use_ability(args[0])
        elif ph == "loot":
            s, cid = self.loot.pop(0)
            if kind == "loot":
                self._put(s, args[0], cid)
            else:
                self._discard(cid)
        elif ph == "pull":
            self._pull(args[0])
            self.phase = self.return_phase_after_target
        elif ph == "steal":
            t = self.pending_target
            cid = self.mat[t][args[0]]
            self.mat[t][args[0]] = -1
            self.phase = self.return_phase_after_target
            self._receive(cid)
            self.last_event = f"{self.name(s)} stole {self.game.cards[cid].name}"
        elif ph == "teleport":
            self._teleport(args[0])
        elif ph == "bonus":
            if args[0] != self.pos[s]:
                self._remove_smoke(s)
                self.swap_back = None
            self.pos[s] = args[0]
            self.bonus_move = False
            self.phase = "act"
        elif ph == "trade":
            self._trade(kind, args)
            if kind == "end_trade":
                self._end_turn()
                return
        elif kind == "roll":
            self._roll()
        elif kind == "skip":
            self.skipped_last[s] = True
            self.phase = "act"
        elif kind == "square":
            self._step(args[0])
        elif kind == "consume":
            self._consume(A.CONSUMABLE_POS[args[0]])
        elif kind == "extra_chest":
            self.used_extra_chest = True
            self._open_extra_chest(s)
        elif kind in ("ability", "copy"):
            self.return_phase_after_target = ph
            if kind == "copy":
                self._copy(args[0])
            else:
                self._use_ability(args[0])
        elif kind == "throw":
            self.used_throwable = True
            self._throw(A.THROWABLE_POS[args[0]], (s + args[1]) % self.game.num_seats)
        elif kind == "defend":
            self.used_defensive = True
            self._defend(A.DEFENSIVE_POS[args[0]], args[1])
        elif kind == "shoot":
            self.main_done = True
            self._shoot(args[0], (s + args[1]) % self.game.num_seats)
            if self.bonus_move and self.phase == "act":
                self.phase = "bonus"
        elif kind == "reload":
            self.main_done = True
            self.loaded[s] = [self.mat[s][w] >= 0 for w in A.WEAPON_POS]
        elif kind == "backpack":
            self.main_done = True
            b, p = A.BACKPACK_POS[args[0]], args[1]
            self.mat[s][b], self.mat[s][p] = self.mat[s][p], self.mat[s][b]
            if p in A.WEAPON_POS:
                self.loaded[s][p] = self.mat[s][p] >= 0
        elif kind == "revive":
            self._revive(A.CONSUMABLE_POS[args[0]])
        elif kind == "trade":
            self.phase = "trade"
        elif kind == "return":
            self._kruber_return()
        elif kind == "end_turn":
            self._end_turn()
            return
        self._after_action()

    def may_open_extra_chest(self, s: int) -> bool:
        """Extra chest: ``s`` holds one and has not opened one in this turn; outside its own turn
        only with ``extra_chest_any_time`` (the reaction window)."""
        if self.extra_chests[s] <= 0 or self.chest_turn[s] == self.turn_count:
            return False
        return s == self.turn_seat or self.game.rules["extra_chest_any_time"]

    def _open_extra_chest(self, s: int) -> None:
        """'You can use your extra chest any time during the game' (one per turn)."""
        self.extra_chests[s] -= 1
        self.chest_turn[s] = self.turn_count
        self._open_chest(extra=True)

    def _consume(self, p: int) -> None:
        s = self.cur
        card = self.card_on(s, p)
        self.used_consumable = True
        self._put(s, p, -1)
        if card.kind == "heal":
            self._heal(s, card.value)
        elif card.kind == "ammo":
            self.loaded[s] = [self.mat[s][w] >= 0 for w in A.WEAPON_POS]
        elif card.kind == "extension":
            self.extension = card
        elif card.kind == "adrenaline":
            self.move_points *= card.value
            self._start_walk()
        elif card.kind == "teleport":
            self.teleport_range = card.range_max
            self.phase = "teleport"
        else:   # a crossing card: masks._mask_move offers CONSUME for no other kind here
            kind = card.kind
            assert kind in CROSS_KINDS, kind
            self.cross.add(kind)
            self._walk_cache = self._walk_ctx = None

    # ------------------------------------------------------------------ results -------------
    def action_to_str(self, action: int) -> str:
        if self.phase == "react" and action == A.END_TURN:
            return "pass (do not use the ability now)"
        if self.phase == "move" and 0 <= action < A.SQUARES:
            if action == self.pos[self.cur]:
                return f"stop on {A.square_name(action)}"
            return f"step to {A.square_name(action)}"
        n = self.game.num_seats
        return A.action_to_str(action, lambda k: self.name((self.cur + k) % n))

    @property
    def current_player(self) -> int:
        return -1 if self.phase == "over" else self.cur

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def team_scores(self) -> list[float]:
        """Higher is better: survivors first (by total health at a round cap), then teams by
        how late their last member fell."""
        g = self.game
        scores = []
        for team in range(g.num_teams):
            members = [s for s in range(g.num_seats) if g.team[s] == team]
            if any(self.alive[s] for s in members):
                scores.append(10_000.0 + sum(self.health[s] for s in members if self.alive[s]))
            else:
                scores.append(float(max(self.out_time[s] for s in members)))
        return scores

    def scores(self) -> list[float]:
        """The running score per seat: health left, 0 once out (designed, RULES.md). Read only by
        score shaping in training (``score_reward``); the ranking is ``team_scores``."""
        return [float(self.health[s]) if self.alive[s] else 0.0 for s in range(self.game.num_seats)]

    def returns(self) -> np.ndarray:
        if self.phase != "over":
            return np.zeros(self.game.num_seats)
        team = rank_returns(self.team_scores())
        return np.array([team[self.game.team[s]] for s in range(self.game.num_seats)])

    def final_info(self) -> dict:
        """``ended_by``: ``"rules"`` when one player (duo: one team) is left standing, the
        rulebook's only ending; ``"cap"`` at the round cap (``max_rounds``, a safety backstop the
        rulebook does not have: survivors rank by health); None while the game goes on."""
        ended = None if self.phase != "over" else ("cap" if self.capped else "rules")
        return {"ended_by": ended,
                "rounds": self.round if not self.capped else self.game.rules["max_rounds"],
                "round_cap": self.capped,
                "survivors": [s for s in range(self.game.num_seats) if self.alive[s]]}

    def name(self, seat: int) -> str:
        c = self.char[seat]
        return f"player_{seat}" + (f" ({A.CHARACTER_NAMES[c]})" if c >= 0 else "")

    def _observation(self, seat: int) -> np.ndarray:
        return build_observation(self, seat)

    def render_text(self, observer: int | None = None, color: bool = False) -> str:
        return render_text(self, observer, color)

    def render_rgb(self, observer: int | None = None) -> np.ndarray:
        return render_rgb(self, observer)


__all__ = ["GorgasaliState", "PHASES", "AROUND"]
