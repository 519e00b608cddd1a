"""Zaka: the pure rules engine (numpy + stdlib only).

A mutable ``ZakaState`` with a cheap ``clone()``. Section names in comments are the rulebook's
(shared/rulebooks/zaka.txt, in capitals there); RULES.md maps each to code and tests and lists the
designed cards and values.

Representation (all plain Python lists, so cloning is a handful of list copies):
- a card is its design id (``game.cards`` index: monsters first, then weapons);
- ``deck``: design ids, the top of the deck is the *end* of the list;
- ``hands[seat]``: count per design (an army's hand; with 2 players a player holds two hands);
- ``fields[seat]``: the army's active monsters in play order, each ``[design, hearts, weapon]``
  (``weapon`` a design id or -1);
- ``discard``: design ids, face up.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Mapping, get_args

import numpy as np

from ..core.game import State, owned_copy, rank_returns
from .observe import build_observation
from .render import action_to_str, render_rgb, render_text
from .tables import DISARM, DRAIN, MEND, RAMPAGE, REAP, SNATCH

if TYPE_CHECKING:   # for the type checker only: game.py imports this module
    from .game import ZakaGame

Phase = Literal["deploy", "play", "ability", "over"]
PHASES: tuple[Phase, ...] = get_args(Phase)
#: why a game ended (``end_reason``; "" while it runs)
EndReason = Literal["last army standing", "stalemate", "turn limit"]
_SURVIVOR = 1_000_000  # ranking score of an army still standing at the end
#: how each end reason is classed (``final_info()["ended_by"]``, RULES.md "Game length"): the
#: rulebook's ENDING (one player's monsters left); a stalemate (a full round in which no army can
#: act) is a designed ending, since the game cannot go on; the turn limit is a cap (a backstop
#: the rulebook does not have). An empty deck never ends a game (``empty_deck``: kills then
#: draw nothing, or the discard pile is reshuffled).
_ENDED_BY: dict[EndReason, str] = {"last army standing": "rules", "stalemate": "designed",
                                   "turn limit": "cap"}


class ZakaState(State):
    """One position of a Zaka game."""

    game: ZakaGame
    #: the generator once built (see ``rng``); else the saved state it is built from
    _rng: np.random.Generator | None
    _rng_state: tuple[type[np.random.BitGenerator], Mapping[str, Any]] | None

    def __init__(self, game: ZakaGame, rng: np.random.Generator | None, _blank: bool = False):
        self.game = game
        self.rng = rng
        if _blank:
            return
        n, d = game.num_seats, game.num_designs
        self.history: list[int] = []
        self.seed = None
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.hands = [[0] * d for _ in range(n)]
        self.fields: list[list[list[int]]] = [[] for _ in range(n)]
        self.deployed = [False] * n    # has had its first turn (FIRST TURN)
        self.out = [False] * n
        self.elim = [-1] * n           # elimination order (equal numbers: out in the same action)
        self.n_elim = 0
        self.kills = [0] * n           # monsters defeated by each army (final blows)
        self.cur = 0
        self.phase: Phase = "deploy"
        self.played = 0                # cards played this turn
        self.turns_done = 0
        self.end_reason: EndReason | Literal[""] = ""
        self.rewards_lost = 0          # kill rewards not drawn because the deck was empty
        self.redraws = 0               # set-up redraw rounds (for tests and final_info)
        self.log: list[str] = []       # short text of the last turn's events (render)
        self._mask: np.ndarray | None = None
        self._returns: np.ndarray | None = None
        self._setup()

    # ------------------------------------------------------------------ cloning -------------
    # The generator is copied lazily: most clones (search, the heuristic's one-ply look-ahead)
    # never draw from it, and building a Generator costs more than the rest of a clone.
    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            assert self._rng_state is not None   # one of the two is always set
            kind, state = self._rng_state
            self._rng = np.random.Generator(kind(0))
            self._rng.bit_generator.state = state
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator | None) -> None:
        self._rng = value
        self._rng_state = None

    def clone(self) -> "ZakaState":
        s = ZakaState(self.game, None, _blank=True)
        if self._rng is not None:
            s._rng_state = (type(self._rng.bit_generator), self._rng.bit_generator.state)
        else:   # a clone of a clone not drawn from yet: its own copy of the saved state
            s._rng_state = owned_copy(self._rng_state)
        s.history = list(self.history)
        s.seed = self.seed
        s.deck = list(self.deck)
        s.discard = list(self.discard)
        s.hands = [list(h) for h in self.hands]
        s.fields = [[list(m) for m in f] for f in self.fields]
        s.deployed = list(self.deployed)
        s.out = list(self.out)
        s.elim = list(self.elim)
        s.n_elim = self.n_elim
        s.kills = list(self.kills)
        s.cur, s.phase, s.played, s.turns_done = self.cur, self.phase, self.played, self.turns_done
        s.end_reason, s.rewards_lost, s.redraws = self.end_reason, self.rewards_lost, self.redraws
        s.log = list(self.log)
        # read-only (a .copy() would be writable: a caller writing into the clone's mask could
        # make it accept illegal moves, issue 41): both states share them
        s._mask, s._returns = self._mask, self._returns
        return s

    def _determinize(self, observer: int, rng: np.random.Generator) -> "ZakaState":
        """A clone where the hands ``observer``'s player cannot see and the deck order are
        resampled: the unseen cards (deck + those hands) are shuffled and dealt back with the
        same hand sizes. The player's own hand(s) - both hands with 2 players - stay as they are."""
        g = self.game
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        me = g.seat_owner(observer)
        hidden = [seat for seat in range(g.num_seats) if g.seat_owner(seat) != me]
        pool = list(s.deck)
        sizes = []
        for seat in hidden:
            hand = s.hands[seat]
            sizes.append(sum(hand))
            for design, k in enumerate(hand):
                pool.extend([design] * k)
        # Public knowledge the sample must respect (STARTING): a hand that has not played yet is
        # its dealt hand, which the redraw rule left with at least min_monsters monsters. Without
        # this an army could be dealt only weapons before its first turn and have no legal move.
        fresh = [i for i, seat in enumerate(hidden) if not s.deployed[seat]]
        need = g.rules["min_monsters"]
        monster = [d < g.num_monster_designs for d in range(g.num_designs)]
        for _ in range(10_000):   # rejection sampling: exact for the uniform deal given the rule
            order = s.rng.permutation(len(pool))
            dealt = [pool[i] for i in order]
            starts = np.cumsum([0] + sizes)
            if all(sum(monster[d] for d in dealt[starts[i]:starts[i + 1]]) >= min(need, sizes[i])
                   for i in fresh):
                break
        else:  # the real deal satisfies the rule, so this is practically unreachable
            raise RuntimeError("determinize: no deal of the unseen cards meets the set-up rule")
        pool = dealt
        pos = 0
        for seat, k in zip(hidden, sizes):
            hand = [0] * g.num_designs
            for design in pool[pos:pos + k]:
                hand[design] += 1
            s.hands[seat] = hand
            pos += k
        s.deck = pool[pos:]
        s._mask = None   # computed from the sample's own hands (the same as the real one's when
        # the observer moves: the conformance suite compares them)
        return s

    # ------------------------------------------------------------------ set-up --------------
    def _setup(self) -> None:
        """STARTING: shuffle, deal, redraw short hands, reshuffle."""
        g = self.game
        deck = [d for d in range(g.num_designs) for _ in range(g.copies[d])]
        self.deal_from([deck[i] for i in self.rng.permutation(len(deck))])

    def deal_from(self, deck: list[int]) -> None:
        """Deal from a deck in the given order (top = last), redraw short hands, reshuffle.
        (Tests call it with a stacked deck.)"""
        g, r = self.game, self.game.rules
        self.deck = list(deck)
        self.hands = [[0] * g.num_designs for _ in range(g.num_seats)]
        self.redraws = 0
        for _ in range(r["hand_size"]):          # dealt one card at a time round the table
            for seat in range(g.num_seats):
                self._draw(seat)
        # A hand with fewer than min_monsters monsters puts all its weapons on the bottom of the
        # deck and draws as many from the top; repeated until every hand qualifies.
        changed = True
        guard = 0
        while changed:
            changed = False
            for seat in range(g.num_seats):
                while self.monsters_in_hand(seat) < r["min_monsters"]:
                    guard += 1
                    if guard > 10_000:
                        raise RuntimeError("set-up redraw does not converge (too few monsters)")
                    hand = self.hands[seat]
                    weapons = [w for w in g.weapon_designs for _ in range(hand[w])]
                    for w in weapons:
                        hand[w] = 0
                    self.deck[0:0] = weapons      # bottom of the deck
                    for _ in weapons:
                        self._draw(seat)
                    self.redraws += 1
                    changed = True
        if self.redraws and r["reshuffle_after_redraw"]:
            self.deck = [self.deck[i] for i in self.rng.permutation(len(self.deck))]
        self.cur, self.phase, self.played = 0, "deploy", 0

    def monsters_in_hand(self, seat: int) -> int:
        hand = self.hands[seat]
        return sum(hand[d] for d in self.game.monster_designs)

    def _draw(self, seat: int) -> bool:
        """Top card of the deck into ``seat``'s hand; an empty deck follows ``rules.empty_deck``."""
        if not self.deck and self.game.rules["empty_deck"] == "reshuffle_discard" and self.discard:
            self.deck = [self.discard[i] for i in self.rng.permutation(len(self.discard))]
            self.discard = []
            self.log.append("the discard pile is shuffled into a new deck")
        if not self.deck:
            return False
        self.hands[seat][self.deck.pop()] += 1
        return True

    # ------------------------------------------------------------------ queries -------------
    def weapon_swords(self, monster: list[int]) -> int:
        w = monster[2]
        return self.game.swords[w] if w >= 0 else 0

    def strength(self, monster: list[int]) -> int:
        """Swords of the monster's ability plus its weapon's (mend: the hearts it restores)."""
        return self.game.strength(monster[0], monster[2])

    def damage_against(self, monster: list[int], target: list[int]) -> int:
        """Damage ``monster``'s ability deals to ``target`` (weapon type bonus included)."""
        g = self.game
        dmg = g.swords[monster[0]]
        w = monster[2]
        if w >= 0:
            dmg += g.swords[w]
            if g.bonus_vs[w] >= 0 and g.card_type[target[0]] == g.bonus_vs[w]:
                dmg += g.bonus[w]
        return dmg

    def enemies(self, seat: int) -> list[int]:
        """Armies ``seat`` may damage: not friendly, not out, with monsters."""
        out, fields = self.out, self.fields
        return [t for t in self.game.foes[seat] if not out[t] and fields[t]]

    def _can_play_card(self) -> bool:
        g, s = self.game, self.cur
        hand, field = self.hands[s], self.fields[s]
        if len(field) < g.field_cap and any(hand[:g.num_monster_designs]):   # monsters come first
            return True
        if self.phase == "play":
            for w in g.weapon_designs:
                if hand[w] and any(m[2] < 0 and g.card_type[m[0]] == g.card_type[w] for m in field):
                    return True
        return False

    # ------------------------------------------------------------------ mask ----------------
    def legal_actions_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
            self._mask.flags.writeable = False   # cached: callers read it, a write would corrupt it
        return self._mask

    def _compute_mask(self) -> np.ndarray:
        # built in a bytearray (item writes on it are several times cheaper than on an ndarray)
        g, L = self.game, self.game.layout
        mask = bytearray(g.num_actions)
        if self.phase == "over":
            return np.frombuffer(mask, np.int8)
        s = self.cur
        hand, field = self.hands[s], self.fields[s]
        if self.phase in ("deploy", "play"):
            if len(field) < g.field_cap:
                for d, count in enumerate(hand[:g.num_monster_designs]):   # monster designs first
                    if count:
                        mask[L.monster(d)] = 1
            if self.phase == "play":
                dm = g.num_monster_designs
                for w in g.weapon_designs:
                    if hand[w]:
                        wt = g.card_type[w]
                        for slot, m in enumerate(field):
                            if m[2] < 0 and g.card_type[m[0]] == wt:
                                mask[L.weapon(w - dm, slot)] = 1
            if self.phase == "play" or self.played > 0:
                mask[L.end_play] = 1
            return np.frombuffer(mask, np.int8)
        # ability: one active monster's ability on one legal target (REGULAR TURNS, step 2)
        n = g.num_seats
        enemies = self.enemies(s)
        friends = [t for t in g.friends[s] if self.fields[t]]
        for u, m in enumerate(field):
            kind = g.ability[m[0]]
            if kind == RAMPAGE:
                for t in enemies:
                    mask[L.use_on_army(u, (t - s) % n)] = 1
            elif kind == MEND:
                # designed: Mend heals another friendly monster that has no Mend ability itself
                for t in friends:
                    for j, other in enumerate(self.fields[t]):
                        if g.ability[other[0]] != MEND:
                            mask[L.use_on_monster(u, (t - s) % n, j)] = 1
            else:
                for t in enemies:
                    base = L.use_on_monster(u, (t - s) % n, 0)
                    k = len(self.fields[t])
                    mask[base:base + k] = b"\x01" * k
        return np.frombuffer(mask, np.int8)

    def _can_use_ability(self) -> bool:
        """Whether some active monster of the army to move has a legal target (menders with no
        other kind of friendly monster have none: the turn then ends after the play step)."""
        g, s = self.game, self.cur
        field = self.fields[s]
        if not field:
            return False
        if any(g.ability[m[0]] != MEND for m in field):
            return bool(self.enemies(s))   # a fighter is also a Mend target for the menders
        return any(g.ability[m[0]] != MEND for t in range(g.num_seats)
                   if t != s and g.friendly(s, t) for m in self.fields[t])

    def illegal_reason(self, action: int) -> str:
        g = self.game
        kind, *args = g.layout.decode(action)
        s = self.cur
        if kind == "monster":
            if self.phase == "ability":
                return "cards are played before the ability, not after"
            if not self.hands[s][args[0]]:
                return f"no {g.names[args[0]]} in hand"
            return f"the battlefield is full ({g.field_cap} monsters)"
        if kind == "weapon":
            w, slot = g.num_monster_designs + args[0], args[1]
            if self.phase != "play":
                return "weapons are played in the play step of a regular turn"
            if not self.hands[s][w]:
                return f"no {g.names[w]} in hand"
            if slot >= len(self.fields[s]):
                return f"no own monster in slot {slot}"
            m = self.fields[s][slot]
            if m[2] >= 0:
                return f"{g.names[m[0]]} already holds a weapon (one per monster)"
            return f"{g.names[m[0]]} has the other weapon type"
        if kind == "end":
            return "the first turn must place at least one monster" if self.phase == "deploy" \
                else "the play step is over"
        if self.phase != "ability":
            return "abilities are used after the play step (and never on a first turn)"
        user = args[0]
        if user >= len(self.fields[s]):
            return f"no own monster in slot {user}"
        ability = g.ability[self.fields[s][user][0]]
        if kind == "rampage" and ability != RAMPAGE:
            return "only Rampage targets a whole army"
        if kind == "use" and ability == RAMPAGE:
            return "Rampage targets a whole army (USE_ON_ARMY)"
        t = (s + args[1]) % g.num_seats
        if ability == MEND:
            return "Mend targets a friendly monster"
        if g.friendly(s, t):
            return "a player never damages their own monsters"
        return "no such active monster"

    # ------------------------------------------------------------------ apply ---------------
    def _apply(self, action: int) -> None:
        g, L = self.game, self.game.layout
        self._mask = None
        kind, *args = L.decode(action)
        s = self.cur
        if kind == "monster":
            d = args[0]
            self.hands[s][d] -= 1
            self.fields[s].append([d, g.hearts[d], -1])   # HEARTS: enters at full hearts
            self.played += 1
            self.log.append(f"army {s} plays {g.names[d]}")
            self._after_play()
        elif kind == "weapon":
            w, slot = g.num_monster_designs + args[0], args[1]
            self.hands[s][w] -= 1
            self.fields[s][slot][2] = w
            self.played += 1
            self.log.append(f"army {s} gives {g.names[w]} to {g.names[self.fields[s][slot][0]]}")
            self._after_play()
        elif kind == "end":
            if self.phase == "deploy":
                self._end_turn()
            else:
                self._to_ability()
        elif kind == "use":
            self._use_ability(args[0], (s + args[1]) % g.num_seats, args[2])
        else:
            self._use_ability(args[0], (s + args[1]) % g.num_seats, -1)

    def _after_play(self) -> None:
        r = self.game.rules
        if self.phase == "deploy":
            if self.played >= r["first_turn_monsters"] or not self._can_play_card():
                self._end_turn()
        elif self.played >= r["plays_per_turn"] or not self._can_play_card():
            self._to_ability()

    def _to_ability(self) -> None:
        """REGULAR TURNS step 2; a turn with no usable ability (a lone mender) simply ends."""
        if self._can_use_ability():
            self.phase = "ability"
        else:
            self.log.append(f"army {self.cur} has no ability to use")
            self._end_turn()

    def _use_ability(self, user: int, t: int, target: int) -> None:
        """ATTACK ABILITIES and the designed card abilities; then HEARTS / DEFEATING A MONSTER."""
        g, r = self.game, self.game.rules
        s = self.cur
        me = self.fields[s][user]
        kind = g.ability[me[0]]
        name = g.names[me[0]]
        if kind == MEND:
            tm = self.fields[t][target]
            before = tm[1]
            tm[1] = min(g.hearts[tm[0]], tm[1] + g.swords[me[0]])
            self.log.append(f"army {s}: {name} mends {g.names[tm[0]]} (+{tm[1] - before})")
        elif kind == RAMPAGE:
            for tm in self.fields[t]:
                tm[1] -= self.damage_against(me, tm)
            self.log.append(f"army {s}: {name} rampages army {t}")
        else:
            tm = self.fields[t][target]
            if kind == SNATCH and me[2] < 0 and tm[2] >= 0 and g.card_type[tm[2]] == g.card_type[me[0]]:
                me[2], tm[2] = tm[2], -1
                self.log.append(f"army {s}: {name} snatches {g.names[me[2]]}")
            dmg = self.damage_against(me, tm)
            tm[1] -= dmg
            self.log.append(f"army {s}: {name} hits {g.names[tm[0]]} of army {t} for {dmg}")
            if kind == DISARM and tm[2] >= 0:
                self.discard.append(tm[2])
                self.log.append(f"  {g.names[tm[2]]} is discarded")
                tm[2] = -1
            elif kind == REAP and 0 < tm[1] <= r["reap_threshold"]:
                tm[1] = 0
                self.log.append("  the Reaper finishes it")
            elif kind == DRAIN:
                me[1] = min(g.hearts[me[0]], me[1] + r["drain_heal"])
        # WEAPONS: a heart weapon heals its holder when the ability is used
        if me[2] >= 0 and g.heart_weapon[me[2]]:
            me[1] = min(g.hearts[me[0]], me[1] + r["heart_weapon_heal"])
        self._defeat(s)
        self._end_turn()

    def _defeat(self, killer: int) -> None:
        """Monsters at zero hearts or below go to the discard pile with their weapons; the army
        that dealt the final blow draws a reward; armies left without monsters are out."""
        g, r = self.game, self.game.rules
        defeated = 0
        for seat in range(g.num_seats):
            field = self.fields[seat]
            if not any(m[1] <= 0 for m in field):
                continue
            keep = []
            for m in field:
                if m[1] <= 0:
                    defeated += 1
                    self.discard.append(m[0])
                    if m[2] >= 0:
                        self.discard.append(m[2])
                    self.log.append(f"  {g.names[m[0]]} of army {seat} is defeated")
                else:
                    keep.append(m)
            self.fields[seat] = keep
        self.kills[killer] += defeated
        draws = defeated if r["kill_reward"] == "per_monster" else min(defeated, 1)
        for _ in range(draws):
            if not self._draw(killer):
                self.rewards_lost += 1
        newly_out = False
        for seat in range(g.num_seats):
            if self.deployed[seat] and not self.out[seat] and not self.fields[seat]:
                # DEFEATING A MONSTER: no active monsters -> out, even with monsters in hand
                self.out[seat] = True
                self.elim[seat] = self.n_elim
                newly_out = True
                for d, k in enumerate(self.hands[seat]):
                    self.discard.extend([d] * k)
                self.hands[seat] = [0] * g.num_designs
                self.log.append(f"  army {seat} is out")
        if newly_out:
            self.n_elim += 1
        alive_owners = {g.seat_owner(t) for t in range(g.num_seats) if not self.out[t]}
        if len(alive_owners) <= 1:
            self._game_over("last army standing")

    def _end_turn(self) -> None:
        g = self.game
        n = g.num_seats
        idle = 0   # consecutive turns in which the army could do nothing at all
        del self.log[:-8]                  # the render shows the most recent events
        while self.phase != "over":
            self.deployed[self.cur] = True
            self.turns_done += 1
            if self.turns_done >= g.rules["max_turns"]:
                self._game_over("turn limit")
                return
            nxt = (self.cur + 1) % n
            while self.out[nxt]:           # play passes clockwise, skipping armies that are out
                nxt = (nxt + 1) % n
            self.cur = nxt
            self.played = 0
            self.phase = "play" if self.deployed[nxt] else "deploy"
            if self.phase == "deploy" or self._can_play_card():
                return
            if self._can_use_ability():    # nothing playable: the optional play step is skipped
                self.phase = "ability"
                return
            # nothing to play and no ability to use (a lone mender, empty hand): the turn passes
            self.log.append(f"army {nxt} can do nothing and passes")
            idle += 1
            if idle >= n:                  # a full round where nobody can act: stalemate
                self._game_over("stalemate")

    def _game_over(self, reason: EndReason) -> None:
        self.phase = "over"
        self.end_reason = reason
        self._returns = None

    # ------------------------------------------------------------------ results -------------
    @property
    def current_player(self) -> int:
        return -1 if self.phase == "over" else self.cur

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def phase_name(self) -> Phase:
        return self.phase

    def army_hearts(self, seat: int) -> int:
        return sum(m[1] for m in self.fields[seat])

    def scores(self) -> list[float]:
        """The running score per army (seat): hearts left on its monsters, 0 once it is out.
        Read only by score shaping in training (``score_reward``; a player's two armies count
        as their mean); the ranking at the end is ``owner_scores``."""
        return [0.0 if self.out[t] else float(self.army_hearts(t))
                for t in range(self.game.num_seats)]

    def owner_scores(self) -> list[float]:
        """Ranking score per player: surviving players above eliminated ones; among the eliminated,
        later is better; at the turn limit survivors are ordered by hearts left on their armies."""
        g = self.game
        scores = []
        for o in range(g.num_players):
            seats = [t for t in range(g.num_seats) if g.seat_owner(t) == o]
            alive = [t for t in seats if not self.out[t]]
            if alive:
                hearts = sum(self.army_hearts(t) for t in alive) \
                    if self.end_reason in ("turn limit", "stalemate") else 0
                scores.append(float(_SURVIVOR + hearts))
            else:
                scores.append(float(max(self.elim[t] for t in seats)))
        return scores

    def returns(self) -> np.ndarray:
        g = self.game
        if self.phase != "over":
            return np.zeros(g.num_seats)
        if self._returns is None:
            per_owner = rank_returns(self.owner_scores())
            self._returns = np.array([per_owner[g.seat_owner(t)] for t in range(g.num_seats)], float)
            self._returns.flags.writeable = False   # memoised (clones share it)
        return self._returns.copy()   # the caller's own: a write cannot change the result

    def winner(self) -> int:
        """The winning player (agent index), -1 while running or when the top rank is shared."""
        if self.phase != "over":
            return -1
        sc = self.owner_scores()
        best = max(sc)
        return sc.index(best) if sc.count(best) == 1 else -1

    def final_info(self) -> dict:
        """At the end: ``end_reason``, ``ended_by`` (``_ENDED_BY``), the winner, ``turns`` (all
        armies together), kills, rewards lost to an empty deck and the elimination order."""
        if self.phase != "over":
            return {}
        assert self.end_reason != "", "a game over has its reason (_game_over)"
        return {"end_reason": self.end_reason, "ended_by": _ENDED_BY[self.end_reason],
                "winner": self.winner(), "turns": self.turns_done,
                "kills": list(self.kills), "rewards_lost": self.rewards_lost,
                "eliminated": list(self.elim)}

    # ------------------------------------------------------------------ views ---------------
    def _observation(self, seat: int) -> np.ndarray:
        return build_observation(self, seat)

    def action_to_str(self, action: int) -> str:
        return action_to_str(self, action)

    def render_text(self, observer: int | None = None, color: bool = False) -> str:
        return render_text(self, observer, color)

    def render_rgb(self, observer: int | None = None):
        return render_rgb(self, observer)

