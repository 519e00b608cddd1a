"""What a Warbah position holds, typed and in one place: ``WarbahState`` (every field of the state,
its creation and its clone) and the records its fields hold: Heroes and their items
(``Hero``, ``Item``), a battle (``Battle``, ``Army`` and their spell state), a declared combined
attack (``DeclaredAttack``), diplomacy (``Diplomacy``, ``AllianceTurn``), espionage
(``Espionage``, ``SpyMission``), fleets (``Fleets``, ``TroopLoss``), a pending Luck decision
(``LuckDecision``) and magic (``MagicState``). Each record owns its creation and its clone.

A leaf of the package: it imports the tables (tables.py, board.py) and nothing of the rules, so
that every rules module names these types without an import cycle (tests/test_layering.py).
The rules work on it: position.py (``WarbahPosition``, the engine contract) and the modules it
dispatches to (turn.py's tables). Caches a rules module keeps on the state (``_obs_*``,
``_owned_cells``, ...) are declared here too; a clone starts without them unless ``clone``
says otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, NamedTuple

import numpy as np

from ..core.game import State, copy_generator
from .board import generate_map
from .tables import GROUP_NAMES, NUM_SPECIALS, Ability, Phase, Timing, WarbahTables

#: battle-spell target groups: 0-3 the basic troop types, 4 the Hero, 5 a monster, 6 + u the
#: special unit group u (an army's counts[battle.FIRST_SPECIAL + u]); ``ArmyMagic``'s per-group lists
SPECIAL_GROUP0 = len(GROUP_NAMES)
NUM_GROUPS = SPECIAL_GROUP0 + NUM_SPECIALS


def _no_specials() -> np.ndarray:
    return np.zeros(NUM_SPECIALS, np.int64)


def _no_troops() -> np.ndarray:
    return np.zeros(4, np.int64)


def _zeros5() -> list:
    return [0] * 5


# -- kinds named in the fields below (Literals: a misspelt name is a type error) ---------------
#: a magic item: a realm- or battle-spell item, or an ability item
ItemKind = Literal["realm", "battle", "ability"]
#: what a battle is fought against: a Hero, a garrison (or an unmanned fleet), an encounter, or
#: an encounter at sea
BattleKind = Literal["hero", "garrison", "encounter", "sea"]
#: what the spy decides now (espionage.STAGES, in the observation's order)
SpyStage = Literal["hire", "look", "kill_hero", "garrison", "item", "steal_gold", "damage",
                   "delay", "wizard", "disband", "false_orders", "sink", "give_item", "move"]
#: a mission's stage: the spy's, or a victim deciding on Fortell, or an agent's result done
Stage = SpyStage | Literal["fortell", "done"]
#: how a game ended (turn.ENDINGS, final_info "ending"); "" while it runs
Ending = Literal["last_standing", "domination", "cap"]
#: why a player went out (``out_by``, final_info ``out_by``; RULES.md "Win condition"): his capitol
#: taken, or no Hero left at the end of the Recruit Troops phase (index 0: still in)
OUT_BY = (None, "capitol_taken", "no_hero")


# -- Heroes (heroes.py) -------------------------------------------------------------------------
@dataclass(slots=True)
class Item:
    """A magic item: a realm- or battle-spell item (``spell``: the card id that defines it) or
    a magic ability item (``ability``: the (name, troop type) it grants while held)."""
    kind: ItemKind
    spell: int = -1
    ability: tuple[Ability, int] | None = None
    used_turn: int = -1             # a spell item is usable once per turn
    moved_turn: int = -1            # an item changes hands once per turn

    def clone(self) -> "Item":
        return Item(self.kind, self.spell, self.ability, self.used_turn, self.moved_turn)


@dataclass(slots=True, eq=False)
class Hero:
    seat: int
    cell: int
    troops: np.ndarray              # int64[4]: warriors, archers, cavalry, catapults
    id: int                         # 1, 2, ... among the Heroes of its player
    abilities: list[tuple[Ability, int]] = field(default_factory=list)  # (name, troop type) pairs
    xp: int = 0
    alive: bool = True
    mp: int = 0                     # movement points left this turn
    scout_moves: int = 0            # Scouting: explore-only moves left this turn
    attacks_left: int = 0
    troops_lost: int = 0            # this turn (Healing, Heal)
    specials: np.ndarray = field(default_factory=_no_specials)  # int64[13] special units
    items: list[Item] = field(default_factory=list)
    wizard: int = 0                 # 0 none, tower cell + 1, -1 a wandering wizard
    wizard_cast_turn: int = -1      # the wizard casts one realm spell per turn
    received_troops: np.ndarray = field(default_factory=_no_troops)  # handed over (GIVE0, EXCHANGE0) ...
    received_troops_turn: int = -1  # ... in this turn
    received_specials: np.ndarray = field(default_factory=_no_specials)
    received_specials_turn: int = -1
    moved_turn: int = -1            # the turn he last moved or explored (exchanges only instead)
    garrison_lock: tuple[int, int, bool] | None = None  # (turn, cell, taking): one direction per turn and hex
    delayed_turn: int = -1          # Agent Success 6: cannot move or attack
    luck_used_turn: int = -1        # RARE ABILITY Luck: one reroll per turn
    sea_moves: int = 0              # sea moves left ...
    sea_moves_turn: int = -1        # ... in this turn (set when first needed)
    granted_types: dict[Ability, int] = field(default_factory=dict)  # typed ability from units -> troop type

    def clone(self) -> "Hero":
        """A copy that shares no mutable container with this Hero."""
        return Hero(self.seat, self.cell, self.troops.copy(), self.id, list(self.abilities),
                    self.xp, self.alive, self.mp, self.scout_moves, self.attacks_left,
                    self.troops_lost, self.specials.copy(), [it.clone() for it in self.items],
                    self.wizard, self.wizard_cast_turn,
                    self.received_troops.copy(), self.received_troops_turn,
                    self.received_specials.copy(), self.received_specials_turn,
                    self.moved_turn, self.garrison_lock, self.delayed_turn,
                    self.luck_used_turn, self.sea_moves, self.sea_moves_turn,
                    dict(self.granted_types))


# -- battles (battle.py, battle_spells.py, battle_flow.py) ------------------------------------
@dataclass(slots=True)
class ArmyMagic:
    """One army's battle-spell state (battle_spells.py): its Wizard's hand, the Hero's battle
    items (indices into his ``items``), and the effects on it this round / battle."""
    wizard: bool
    hand: list[int]                 # battle spell ids
    items: list[int]
    resist: int = 0                 # Resist Spells: hostile spells it still negates
    neutral: list[int] = field(default_factory=lambda: [0] * NUM_GROUPS)     # units neutralized
    blocked: list[bool] = field(default_factory=lambda: [False] * NUM_GROUPS)  # may not attack
    auto_hit: list[bool] = field(default_factory=lambda: [False] * NUM_GROUPS)  # Precision: all hit
    special_init: list[int] = field(default_factory=lambda: [0] * NUM_SPECIALS)
    special_kill: list[int] = field(default_factory=lambda: [0] * NUM_SPECIALS)
    blessed: bool = False           # Blessing: misses rolled again this round
    ranged_shield: int = 0          # Shield: kills by archers / catapults stopped this round
    armor: int = 0                  # Armor: kills negated this round
    smite_rounds: int = 0
    spellbound: set[int] = field(default_factory=set)  # rounds in which its Wizard cannot cast
    cast: bool = False              # its Wizard cast this round
    round_mods: list[tuple[int, int, int]] = field(default_factory=list)  # (group, init, kill) undone at round end
    scheduled: list[tuple] = field(default_factory=list)  # delayed effects (battle_spells.py)

    def clone(self) -> "ArmyMagic":
        return ArmyMagic(self.wizard, list(self.hand), list(self.items), self.resist,
                         list(self.neutral), list(self.blocked), list(self.auto_hit),
                         list(self.special_init), list(self.special_kill), self.blessed,
                         self.ranged_shield, self.armor, self.smite_rounds, set(self.spellbound),
                         self.cast, list(self.round_mods), list(self.scheduled))


@dataclass(slots=True)
class Army:
    """One army in a battle (a Hero's, a garrison, an encounter, pirates or a sea monster)."""
    counts: np.ndarray              # int64: 4 troop types, the Hero, then the special groups
    seat: int = -1                  # -1: neutral
    hero: int = -1                  # Hero index, -1: no Hero
    monster: list[int] | None = None  # [init, kill, hits left]
    init_mod: list[int] = field(default_factory=_zeros5)   # per group 0-4 (Tactics, spells)
    kill_mod: list[int] = field(default_factory=_zeros5)   # (Leadership, spells)
    extra_attacks: list[int] = field(default_factory=_zeros5)  # Prowess, Smite
    defense: int = 0                # kills negated per segment (Defense)
    siege: int = 0                  # wall ranks destroyed in the Initiative 1 segment
    walls_base: int = 0
    walls_left: int = 0
    wall_damage: int = 0
    ships: int | None = None        # ships fighting with it (None: not counted yet)
    hits_ships: bool = False        # a sea monster that attacks ships
    ship_kills: int = 0             # ships it sank this segment (sea monster)
    ship_spare: int = 0             # hits on ships that sank nothing (Luck)
    specials_added: bool = False    # counts extended by the special groups
    magic: ArmyMagic | None = None
    dice: list[list[int]] | None = None  # the segment's attack dice (battle.record), while a Luck window may open
    wall_rolls: list[bool] | None = None  # the segment's wall-break dice, likewise

    def clone(self) -> "Army":
        return Army(self.counts.copy(), self.seat, self.hero,
                    None if self.monster is None else list(self.monster), list(self.init_mod),
                    list(self.kill_mod), list(self.extra_attacks), self.defense, self.siege,
                    self.walls_base, self.walls_left, self.wall_damage, self.ships,
                    self.hits_ships, self.ship_kills, self.ship_spare, self.specials_added,
                    None if self.magic is None else self.magic.clone(),
                    None if self.dice is None else [list(r) for r in self.dice],
                    None if self.wall_rolls is None else list(self.wall_rolls))

    def restore(self, other: "Army") -> None:
        """Become ``other`` in place (Dispell; callers hold this object)."""
        for name in Army.__slots__:
            setattr(self, name, getattr(other, name))


@dataclass(slots=True)
class BattleMagic:
    """The spell segment's progress (battle_spells.py)."""
    step: int = 0                   # index into battle_spells.sequence
    done: bool = False
    last_cast: tuple | None = None  # (army, snapshot, round, spell) for Dispell
    limbo: list[int] = field(default_factory=list)  # cards spent this battle
    caster: int = -1                # the army whose player picks a spell now
    pending: int | None = None      # a spell awaiting its target
    target_army: int | None = None  # its target army (None: still to pick)

    def clone(self) -> "BattleMagic":
        last = self.last_cast
        if last is not None:
            armies, limbo, held = last[1]
            snap = ([a.clone() for a in armies], list(limbo),
                    {hi: ([i.clone() for i in items], list(abil))
                     for hi, (items, abil) in held.items()})
            last = (last[0], snap, last[2], last[3])
        return BattleMagic(self.step, self.done, last, list(self.limbo), self.caster,
                           self.pending, self.target_army)


@dataclass(slots=True)
class Battle:
    """A battle in progress: the lead attacker and the defender, the armies joining the
    attack (combined attacks), the round and segment, the kills still to assign."""
    sides: list[Army]               # [attacking (lead) Army, defending Army]
    kind: BattleKind
    cell: int                       # the target hex
    treasure: int = 0               # treasure rolls for beating an encounter
    round: int = 0
    segment: int = 0
    kills: list[int] = field(default_factory=lambda: [0, 0])  # still to assign, per side
    chooser: int = -1               # the side picking a casualty now
    members: list[Army] = field(default_factory=list)   # joining Armies (combined attack)
    member_kills: list[int] = field(default_factory=list)  # kills still to assign to each
    member_choosing: int = -1       # the joining army picking a casualty now
    next_share: int = 0             # whose turn the next shared kill is (battle_flow._share)
    magic: BattleMagic | None = None
    raw_kills: list[int] | None = None  # this segment's kills before walls (Luck window)
    return_phase: Phase = "battle"  # a sea battle returns to the move phase

    def clone(self) -> "Battle":
        return Battle([a.clone() for a in self.sides], self.kind, self.cell, self.treasure,
                      self.round, self.segment, list(self.kills), self.chooser,
                      [a.clone() for a in self.members], list(self.member_kills),
                      self.member_choosing, self.next_share,
                      None if self.magic is None else self.magic.clone(),
                      None if self.raw_kills is None else list(self.raw_kills),
                      self.return_phase)


@dataclass(slots=True)
class DeclaredAttack:
    """An attack declared by Hero ``lead`` on ``cell`` while other Heroes may still join."""
    lead: int
    cell: int
    members: list[int] = field(default_factory=list)  # Heroes that joined
    declined: list[int] = field(default_factory=list)  # allied Heroes whose players declined
    asking: int = -1                # the allied Hero whose player answers now

    def clone(self) -> "DeclaredAttack":
        return DeclaredAttack(self.lead, self.cell, list(self.members), list(self.declined),
                              self.asking)


# -- diplomacy (diplomacy.py) ------------------------------------------------------------------
@dataclass(slots=True)
class AllianceTurn:
    """The player now conducting diplomacy and the player its offer waits on."""
    seat: int
    offered_to: int = -1

    def clone(self) -> "AllianceTurn":
        return AllianceTurn(self.seat, self.offered_to)


@dataclass(slots=True)
class Diplomacy:
    """Alliances (option allies=True) and the diplomacy step in progress."""
    allied: np.ndarray              # bool[N, N], symmetric
    current: AllianceTurn | None = None
    queue: list[int] = field(default_factory=list)  # players still to act this turn
    proposed: list[tuple[int, int]] = field(default_factory=list)  # (seat, other) offers made this turn
    turn: int = 0                   # the turn the step last ran

    @staticmethod
    def new(num_seats: int) -> "Diplomacy":
        return Diplomacy(np.zeros((num_seats, num_seats), bool))

    def clone(self) -> "Diplomacy":
        return Diplomacy(self.allied.copy(),
                         None if self.current is None else self.current.clone(),
                         list(self.queue), list(self.proposed), self.turn)


# -- espionage (espionage.py) ------------------------------------------------------------------
@dataclass(slots=True)
class SpyMission:
    """The espionage of the player now spying (one per player and turn)."""
    seat: int
    roll: int                       # the espionage roll: agents it may hire
    hired: int = 0
    agents: int = 0                 # hired agents still to resolve
    stage: Stage = "hire"           # what the spy decides now
    targets: list[int] = field(default_factory=list)  # target slots of the stage
    victim: int = -1                # the Hero losing troops / moved by False Orders
    left: int = 0                   # troops still to lose (stage disband)
    item: Item | None = None        # a stolen magic item to hand over
    fortell: tuple[SpyStage, int] | None = None  # (stage, target) a victim may negate with Fortell
    fortell_seat: int = -1          # that victim

    def clone(self) -> "SpyMission":
        return SpyMission(self.seat, self.roll, self.hired, self.agents, self.stage,
                          list(self.targets), self.victim, self.left,
                          None if self.item is None else self.item.clone(), self.fortell,
                          self.fortell_seat)


@dataclass(slots=True)
class Espionage:
    """Contacts between empires, enemy cards seen, and the espionage phase in progress."""
    contact: np.ndarray             # bool[N, N], permanent once made
    revealed: dict[tuple[int, int], int] = field(default_factory=dict)  # {(seat, hero): turn seen}
    mission: SpyMission | None = None
    queue: list[int] = field(default_factory=list)  # players still to spy this turn
    turn: int = 0                   # the turn the phase last ran
    log: list[tuple] = field(default_factory=list)  # (turn, seat, result, roll)

    @staticmethod
    def new(num_seats: int) -> "Espionage":
        return Espionage(np.zeros((num_seats, num_seats), bool))

    def clone(self) -> "Espionage":
        return Espionage(self.contact.copy(), dict(self.revealed),
                         None if self.mission is None else self.mission.clone(),
                         list(self.queue), self.turn, list(self.log))


# -- fleets (fleets.py) ------------------------------------------------------------------------
@dataclass(slots=True)
class Fleets:
    """Ships on the water hexes: a fleet is the stack of ships in one hex."""
    ships: np.ndarray               # int[cells]
    owner: np.ndarray               # int[cells], -1 none
    moves: dict[int, tuple[int, int]] = field(default_factory=dict)  # cell -> (turn, moves left) unmanned
    captures: list[tuple] = field(default_factory=list)  # (turn, taker, old owner, cell, ships)
    encounter_log: list[tuple] = field(default_factory=list)  # (turn, hero, roll, kind) at sea

    @staticmethod
    def new(n_cells: int) -> "Fleets":
        return Fleets(np.zeros(n_cells, np.int64), -np.ones(n_cells, np.int64))

    def clone(self) -> "Fleets":
        return Fleets(self.ships.copy(), self.owner.copy(), dict(self.moves),
                      list(self.captures), list(self.encounter_log))


@dataclass(slots=True)
class TroopLoss:
    """Troops over the ships' capacity (phase ``sea_loss``): the owner picks ``left`` more."""
    hero: int
    left: int
    return_phase: Phase

    def clone(self) -> "TroopLoss":
        return TroopLoss(self.hero, self.left, self.return_phase)


# -- Luck (luck.py) ----------------------------------------------------------------------------
#: what a roll open to Luck is about (``LuckDecision.what``; the magic observation shows its
#: index in ``luck.KINDS``: new kinds are appended)
RollKind = Literal["realm", "bspell", "agent_success", "agent_amount", "initiative", "explore",
                   "encounter", "treasure", "heal", "undead", "storm", "battle_dice", "wall_dice",
                   "ability", "caravan", "esp_roll", "esp_table", "granted", "sea"]
#: resolves a roll offered to Luck (``luck.offer``) once every player asked has decided:
#: (state, the roll's value, the context given with the offer)
Resolve = Callable[["WarbahState", int, tuple], None]
#: goes on with what a Luck decision interrupted: after a battle window, or once a roll chain
#: paused by Luck has made its last roll: (state, the context given with it)
Resume = Callable[["WarbahState", tuple], None]
#: the next roll of a chain: (the players asked, in order), (n, faces) dice
NextRoll = tuple[tuple[int, ...], tuple[int, int]]
#: one step of a roll chain: (state, context, the rolls made so far) -> the next roll, or None
#: once every roll is known and applied
ChainStep = Callable[["WarbahState", tuple, tuple], "NextRoll | None"]


class Chain(NamedTuple):
    """Rolls made one after the other, each open to Luck (``luck.chain``): the kind of roll,
    the step that names the next roll and applies them all, and what goes on after a Luck
    pause once the chain is done (the procedure that started it: ``luck.chain``'s ``after``)."""
    kind: RollKind
    step: ChainStep
    after: Resume | None = None


class Window(NamedTuple):
    """A battle segment's Luck window (``luck.window``, battle_luck.py): the kind, the reroll
    actions that can matter to a player (state, seat, context) -> actions besides KEEP_ROLL,
    the reroll (state, seat, action, context), and what goes on once every player is asked."""
    kind: RollKind
    can: Callable[["WarbahState", int, tuple], list[int]]
    act: Callable[["WarbahState", int, int, tuple], None]
    done: Resume


@dataclass(slots=True)
class LuckDecision:
    """A pending Luck decision (phase ``luck``) of the player owning Hero ``hero``.

    ``roll``: the value scaled to 1-10 (shown in the observation); ``what``: the kind of roll.
    A roll offered through ``offer`` / ``chain`` carries the function resolving it
    (``resume``, with ``ctx``), the real ``value`` and ``dice`` (n, faces), the players still to
    ask (``seats``) and the roller; a battle segment's window carries its ``window`` instead."""
    hero: int
    roll: int
    return_phase: Phase
    what: RollKind
    value: int = 0
    dice: tuple[int, int] = (1, 10)
    resume: Resolve | None = None
    ctx: tuple = ()
    seats: tuple[int, ...] = ()
    roller: int = -1
    window: Window | None = None

    def clone(self) -> "LuckDecision":
        return LuckDecision(self.hero, self.roll, self.return_phase, self.what, self.value,
                            self.dice, self.resume, self.ctx, self.seats, self.roller,
                            self.window)


# -- magic (magic.py, realm_spells.py) ---------------------------------------------------------
@dataclass(slots=True)
class MagicState:
    """Spell decks and hands, the open realm-spell window and the realm spells' lasting
    effects. Decks: the top card is the end of the list."""
    realm_deck: list[int]
    battle_deck: list[int]
    hands: list[list[int]]          # realm spell ids held, per seat
    realm_discard: list[int] = field(default_factory=list)
    battle_discard: list[int] = field(default_factory=list)
    window: Timing | Literal[""] = ""  # the open realm-spell window, "" none
    saved: tuple[Phase, list[tuple[int, int]], int] | None = None  # (phase, queue, queue position) the window interrupted
    opened: set[str] = field(default_factory=set)  # windows opened this turn
    pending: tuple[int, int] | None = None  # (spell, hero) awaiting its target
    sanctuary: set[int] = field(default_factory=set)  # cells no one may attack this turn
    bonus_walls: dict[int, int] = field(default_factory=dict)  # {cell: extra wall ranks} this turn
    #: int[cells]: the turn whose income a hex loses
    blight: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    curse: list[int] = field(default_factory=list)  # gold each seat loses this turn
    scry_turn: list[int] = field(default_factory=list)  # the turn each seat last cast Scry
    hand_limit: list[int] = field(default_factory=list)  # each seat's limit at the Realm phase

    @staticmethod
    def new(game: WarbahTables, rng: np.random.Generator) -> "MagicState":
        """Shuffled decks (two draws from ``rng``: realm, then battle), empty hands."""
        T, N = game.spells, game.num_seats
        return MagicState([int(x) for x in rng.permutation(T.NR)],
                          [int(x) for x in rng.permutation(T.NB)], [[] for _ in range(N)],
                          blight=np.zeros(game.n_cells, np.int64), curse=[0] * N,
                          scry_turn=[-1] * N, hand_limit=[0] * N)

    def clone(self) -> "MagicState":
        saved = self.saved
        return MagicState(list(self.realm_deck), list(self.battle_deck),
                          [list(x) for x in self.hands], list(self.realm_discard),
                          list(self.battle_discard), self.window,
                          None if saved is None else (saved[0], list(saved[1]), saved[2]),
                          set(self.opened), self.pending, set(self.sanctuary),
                          dict(self.bonus_walls), self.blight.copy(), list(self.curse),
                          list(self.scry_turn), list(self.hand_limit))


# -- the state ----------------------------------------------------------------------------------
class WarbahState(State):
    """One position of a Warbah game: the map (land, rivers, explored hexes, terrain,
    settlements, encounters, owners, terrain variants, garrisons, wall damage), the Heroes, the
    turn (phase, initiative order, the queue of the phase's decisions), a battle in progress and
    the records of the other rules. The engine contract (legal actions, apply, observation,
    determinize) is rules.WarbahPosition's, the class the game builds; the rules modules take
    this type (``st: WarbahState``)."""

    game: WarbahTables
    # the map; the grid's neighbours and the capitol candidates never change: tuples, shared by
    # clones
    land: np.ndarray                # bool[cells]
    rivers: set[tuple[int, int]]    # river edges (board.edge pairs)
    capitol_candidates: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]  # [cell][direction]: -1 off the map
    explored: np.ndarray            # bool[cells]
    terrain: np.ndarray             # int64[cells]: index into TERRAINS, -1 unknown / water
    settle: np.ndarray              # int64[cells]: index into SETTLEMENTS, -1 none
    encounter: np.ndarray           # int64[cells]: 0 none, -1 unknown type, k>0 known type k
    owner: np.ndarray               # int64[cells]: -1 none
    variant: list[str]              # terrain variant name of each hex ("" none)
    garrison: np.ndarray            # int64[cells, 4]
    garrison_specials: np.ndarray   # int64[cells, NUM_SPECIALS] (Knights castles)
    wall_damage: np.ndarray         # int64[cells]
    recruited: np.ndarray           # int64[cells]: recruits at each hex this turn
    heroes: list[Hero]
    # the players
    gold: np.ndarray                # int64[seats]
    alive: np.ndarray               # bool[seats]
    out_turn: np.ndarray            # int64[seats]: the turn a player was eliminated
    out_by: np.ndarray              # int8[seats]: why (OUT_BY's index: 0 still in)
    capitol: np.ndarray             # int64[seats]: -1 none yet
    # the turn
    turn: int
    phase: Phase
    order: list[int]                # initiative order of the turn
    queue: list[tuple[int, int]]    # the phase's decisions: (seat, hex or Hero)
    queue_pos: int
    to_act: int
    battle: Battle | None
    pending_treasure: list[tuple[int, int]]  # (Hero, treasure rolls) to make
    capped: bool                    # ended by the turn / action cap
    winner: int                     # the winner by the victory condition, -1 none
    ending: Ending | Literal[""]     # how the game ended, "" while it runs
    declared_attack: DeclaredAttack | None  # a declared combined attack (battle_flow.declare)
    #: recovery tasks still to do (turn.recovery): (roll chain, its context); None: the end
    recovery_tasks: tuple[tuple[Chain | None, tuple], ...]
    luck: LuckDecision | None       # a pending Luck decision
    troop_loss: TroopLoss | None    # troops over a fleet's capacity to pick (phase sea_loss)
    espionage: Espionage
    fleets: Fleets
    diplomacy: Diplomacy
    magic: MagicState
    # the mask computed while advancing (turn.advance) and the decision point it belongs to:
    # (phase, player, queue position)
    _mask: np.ndarray | None
    _mask_at: tuple[str, int, int] | None
    # caches of the rules modules (absent until first built; see each module)
    _nbr_kind: tuple[bytes, tuple[tuple[tuple[int, int], ...], ...],
                     tuple[tuple[tuple[int, int], ...], ...]]  # hexes.neighbours_by_kind
    _owned_cells: tuple[Any, dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]  # hexes.owned_cells
    _fleet_cells: tuple[bytes, list[int]]  # fleets.fleet_cells
    # the observation's caches (map_planes.py, observe.py), keyed by the bytes of what they read
    _obs_rivers: tuple[set[tuple[int, int]], np.ndarray, np.ndarray]
    _obs_map: tuple[tuple, set[tuple[int, int]], np.ndarray, dict[str, Any]]
    _obs_base: dict[int, list[Any]]
    _obs_owned: tuple[tuple, dict[int, Any]]
    _obs_gar: tuple[tuple, list[tuple[int, float]]]
    _obs_fleets: tuple[tuple[bytes, bytes], dict[int, Any]]

    # Keep the mask computed while advancing (it is exactly the next legal_actions_mask as long
    # as nothing changes the state in between). The cached mask is tied to its decision point
    # (phase, player, queue position): code that moves the game on outside apply() (scenario
    # tests calling the engine's functions) gets a fresh one; a test that edits arrays by hand
    # at the same decision point clears ``_mask`` itself. test_speed.py turns the reuse off.
    reuse_advance_mask = True

    def __init__(self, game: WarbahTables, rng: np.random.Generator):
        self.game, self.rng, self.history, self.seed = game, rng, [], None
        g, n = game, game.n_cells
        d = g.cfg["designed"]
        self.land, self.rivers, cand, nb = generate_map(
            rng, g.h, g.w, d["capitol_candidates"], g.cfg["sea"]["island_min_size"])  # islands
        self.capitol_candidates = tuple(cand)
        self.neighbours = tuple(map(tuple, nb.tolist()))
        self.explored = np.zeros(n, bool)
        self.terrain = -np.ones(n, np.int64)
        self.settle = -np.ones(n, np.int64)
        self.encounter = np.zeros(n, np.int64)
        self.owner = -np.ones(n, np.int64)
        self.variant = [""] * n
        self.garrison = np.zeros((n, 4), np.int64)
        self.garrison_specials = np.zeros((n, NUM_SPECIALS), np.int64)
        self.wall_damage = np.zeros(n, np.int64)
        self.recruited = np.zeros(n, np.int64)
        self.heroes = []
        N = g.num_seats
        self.gold = np.full(N, d["start_gold"], np.int64)
        self.alive = np.ones(N, bool)
        self.out_turn = np.zeros(N, np.int64)
        self.out_by = np.zeros(N, np.int8)
        self.capitol = -np.ones(N, np.int64)
        self.turn, self.phase, self.order = 0, "capitol", list(range(N))
        self.queue = []
        self.queue_pos = 0
        self.battle = None
        self.pending_treasure = []
        self.capped = False
        self.winner = -1
        self.ending = ""
        self.declared_attack = None
        self.recovery_tasks = ()
        self.luck = None
        self.troop_loss = None
        self._mask = None
        self._mask_at = None
        self.to_act = 0
        self.espionage = Espionage.new(N)
        self.fleets = Fleets.new(n)
        self.diplomacy = Diplomacy.new(N)
        self.magic = MagicState.new(g, rng)  # draws the deck order from rng

    def clone(self) -> WarbahState:
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
                  "out_by", "capitol"):
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
