"""The Warbah state (``WarbahState``): one position of the game and the engine contract
(envs.core.game.State): legal actions, apply, returns, observation, clone, determinize.

The state holds the map (land, rivers, explored hexes, terrain, settlements, encounters,
owners, terrain variants, garrisons, wall damage), the Heroes (heroes.Hero), the turn (phase,
initiative order, the queue of the phase's decisions), a battle in progress (battle.Battle) and
the records of the other rules: magic (magic.MagicState), fleets (fleets.Fleets), espionage
(espionage.Espionage), diplomacy (diplomacy.Diplomacy), a pending Luck decision
(luck.LuckDecision), troops to lose at sea (fleets.TroopLoss), a declared combined attack
(battle_flow.DeclaredAttack). Each record owns its creation and its clone. The turn's flow and
the dispatch of every phase's actions are in turn.py.
"""
from __future__ import annotations

import numpy as np

from ..core.game import State, copy_generator, rank_returns
from . import hexes, magic, observe, render, turn
from .actions import describe
from .battle import Battle
from .board import generate_map
from .config import NUM_SPECIALS
from .diplomacy import Diplomacy
from .espionage import Espionage
from .fleets import Fleets
from .heroes import Hero
from .magic import MagicState

#: final_info ``ended_by`` of each ending (turn.ENDINGS)
ENDED_BY = {"last_standing": "designed", "domination": "designed", "cap": "cap"}


class WarbahState(State):
    # Keep the mask computed while advancing (it is exactly the next legal_actions_mask as long
    # as nothing changes the state in between). The cached mask is tied to its decision point
    # (phase, player, queue position): code that moves the game on outside apply() (scenario
    # tests calling the engine's functions) gets a fresh one; a test that edits arrays by hand
    # at the same decision point clears ``_mask`` itself. test_speed.py turns the reuse off.
    reuse_advance_mask = True

    def __init__(self, game, rng):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        g, n = game, game.n_cells
        d = g.cfg["designed"]
        self.land, self.rivers, cand, nb = generate_map(
            rng, g.h, g.w, d["capitol_candidates"], g.cfg["sea"]["island_min_size"])  # islands
        # the grid's neighbours and the capitol candidates never change: tuples, shared by clones
        self.capitol_candidates = tuple(cand)
        self.neighbours = tuple(map(tuple, nb.tolist()))  # [cell][direction]: -1 off the map
        self.explored = np.zeros(n, bool)
        self.terrain = -np.ones(n, np.int64)      # index into TERRAINS, -1 unknown / water
        self.settle = -np.ones(n, np.int64)       # index into SETTLEMENTS
        self.encounter = np.zeros(n, np.int64)    # 0 none, -1 unknown type, k>0 known type k
        self.owner = -np.ones(n, np.int64)
        self.variant = [""] * n                   # terrain variant name ("" none)
        self.garrison = np.zeros((n, 4), np.int64)
        self.garrison_specials = np.zeros((n, NUM_SPECIALS), np.int64)  # (Knights castles)
        self.wall_damage = np.zeros(n, np.int64)
        self.recruited = np.zeros(n, np.int64)    # recruits at each hex this turn
        self.heroes: list[Hero] = []
        N = g.num_seats
        self.gold = np.full(N, d["start_gold"], np.int64)
        self.alive = np.ones(N, bool)
        self.out_turn = np.zeros(N, np.int64)     # the turn a player was eliminated
        self.capitol = -np.ones(N, np.int64)
        self.turn, self.phase, self.order = 0, "capitol", list(range(N))
        self.queue: list[tuple[int, int]] = []  # the phase's decisions: (seat, hex or Hero)
        self.queue_pos = 0
        self.battle: Battle | None = None
        self.pending_treasure: list[tuple[int, int]] = []  # (Hero, treasure rolls) to make
        self.capped = False                       # ended by the turn / action cap
        self.winner = -1                          # the winner by the victory condition
        self.ending = ""                          # how the game ended (turn.ENDINGS)
        self.declared_attack = None  # a declared combined attack (battle_flow.declare)
        self.recovery_tasks = ()  # recovery tasks still to do (a tuple; turn.recovery)
        self.luck = None  # a pending Luck decision (luck.LuckDecision)
        self.troop_loss = None  # troops over a fleet's capacity to pick (fleets.TroopLoss)
        self._mask = None
        self._mask_at = None  # (phase, player, queue position) the cached mask belongs to
        self.to_act = 0
        self.espionage = Espionage.new(N)
        self.fleets = Fleets.new(n)
        self.diplomacy = Diplomacy.new(N)
        self.magic = MagicState.new(g, rng)  # draws the deck order from rng

    def clone(self):
        """A copy that shares no writable container with this state (only the game's tables and
        the immutable neighbour and capitol-candidate tuples); observation caches are not
        carried over."""
        s = object.__new__(type(self))
        s.game, s.seed, s.history = self.game, self.seed, list(self.history)
        s.rng = copy_generator(self.rng)
        s.land, s.rivers = self.land.copy(), set(self.rivers)  # scenario tests edit them
        s.capitol_candidates, s.neighbours = self.capitol_candidates, self.neighbours
        for k in ("explored", "terrain", "settle", "encounter", "owner", "garrison",
                  "garrison_specials", "wall_damage", "recruited", "gold", "alive", "out_turn",
                  "capitol"):
            setattr(s, k, getattr(self, k).copy())
        s.variant = list(self.variant)
        s.heroes = [h.clone() for h in self.heroes]
        s.turn, s.phase, s.order = self.turn, self.phase, list(self.order)
        s.queue, s.queue_pos = list(self.queue), self.queue_pos
        s.battle = None if self.battle is None else self.battle.clone()
        s.pending_treasure, s.capped = list(self.pending_treasure), self.capped
        s.winner, s.ending = self.winner, self.ending
        s.declared_attack = None if self.declared_attack is None else self.declared_attack.clone()
        s.recovery_tasks = self.recovery_tasks  # a tuple
        s.luck = None if self.luck is None else self.luck.clone()
        s.troop_loss = None if self.troop_loss is None else self.troop_loss.clone()
        s._mask = self._mask   # read-only (legal_actions_mask caches it so): safe to share
        if "_nbr_kind" in self.__dict__:  # hexes.neighbours_by_kind: tuples keyed by land's bytes
            s._nbr_kind = self._nbr_kind
        s._mask_at, s.to_act = self._mask_at, self.to_act
        s.espionage, s.fleets = self.espionage.clone(), self.fleets.clone()
        s.diplomacy, s.magic = self.diplomacy.clone(), self.magic.clone()
        return s

    # -- the engine contract ------------------------------------------------------------------
    def legal_actions_mask(self) -> np.ndarray:
        if self._mask is not None and self._mask_at == (self.phase, self.to_act, self.queue_pos):
            return self._mask
        step = turn.SUBSTEPS.get(self.phase)
        if step is not None:
            mask = step[0](self)
        elif self.phase == "over":
            mask = np.zeros(self.game.num_actions, np.int8)
        else:
            seat, x = self.queue[self.queue_pos]
            mask = turn.QUEUE_STEPS[self.phase][0](self, seat, x)
        mask.setflags(write=False)   # cached: callers read it, a write would corrupt the cache
        self._mask, self._mask_at = mask, (self.phase, self.to_act, self.queue_pos)
        return mask

    def _apply(self, a: int) -> None:
        step = turn.SUBSTEPS.get(self.phase)
        if step is not None:
            step[1](self, a)
        else:
            seat, x = self.queue[self.queue_pos]
            turn.QUEUE_STEPS[self.phase][1](self, seat, x, a)
        self._mask = None
        turn.advance(self)

    @property
    def current_player(self) -> int:
        return self.to_act

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def phase_name(self) -> str:
        return self.phase

    def scores(self) -> list[float]:
        """The winner by the victory condition first; then survivors (eliminated players: later
        elimination ranks higher), then settlements, then gold."""
        out = []
        for s in range(self.game.num_seats):
            live = 1 if self.alive[s] else 0
            out.append(2e6 * (s == self.winner) + live * 1e6
                       + self.out_turn[s] * 1e4 * (1 - live)
                       + 100 * len(hexes.settlements_of(self, s)) + min(int(self.gold[s]), 99))
        return out

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.game.num_seats)
        return rank_returns(self.scores())

    def final_info(self) -> dict:
        """``ended_by``: "designed" for the designed victory conditions (last player standing,
        domination: the rulebook names no ending; RULES.md "Win condition"), "cap" for the turn
        and action backstops."""
        return {"turn": min(self.turn, self.game.turn_cap),
                "capped": bool(self.capped),
                "ending": self.ending, "winner": int(self.winner),
                "ended_by": ENDED_BY.get(self.ending, ""),
                "settlements": [len(hexes.settlements_of(self, s))
                                for s in range(self.game.num_seats)],
                "alive": self.alive.tolist()}

    def action_to_str(self, a: int) -> str:
        return describe(self, a)

    def _determinize(self, observer: int, rng: np.random.Generator):
        """A clone with what ``observer`` cannot see resampled: enemy index cards (the troop
        split and the special troops shuffled, totals kept; unless seen this turn, in battle, or
        scried), hidden hands, deck order and the cards behind enemy items (magic.py)."""
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        s._mask = None   # the cached mask belongs to the real hands and items, not the sample's
        busy = set()
        if s.battle is not None:
            busy = {s.battle.sides[k].hero for k in (0, 1)}
            busy |= {m.hero for m in s.battle.members}  # a combined attack
        scried = magic.scried(s, observer)
        for i, h in enumerate(s.heroes):
            if (h.seat != observer and i not in busy and not s.espionage.revealed.get(
                    (observer, i), -1) == s.turn and not scried):
                h.troops = h.troops[rng.permutation(4)]
        magic.determinize(s, observer, rng)  # hidden hands, deck order, items
        if not scried:  # enemy special troops (index cards)
            for i, h in enumerate(s.heroes):
                sp = h.specials
                if (sp.any() and h.seat != observer and i not in busy
                        and not s.espionage.revealed.get((observer, i), -1) == s.turn):
                    h.specials = sp[rng.permutation(len(sp))]
        return s

    def _observation(self, seat: int) -> np.ndarray:
        return observe.observe(self, seat)

    def render_text(self, observer=None, color=False) -> str:
        return render.render_text(self, observer, color)

    def render_rgb(self, observer=None):
        return render.render_rgb(self, observer)
