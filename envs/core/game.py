"""The engine contract every game implements (numpy + stdlib only).

A *Game* holds the immutable rules configuration; a *State* is one position, mutable, with a cheap
``clone()`` (OpenSpiel style). Engines speak in seats ``0..num_seats-1``; the AEC adapter maps seats
to agent names (several seats may belong to one agent, e.g. Zaka's two armies per player).

Randomness: ``Game.new_initial_state(seed)`` builds a State that owns its ``np.random.Generator``
and records the seed that rebuilds it; every draw, roll and shuffle comes from that generator, so
the seed plus the action history replays a game exactly (``serialize`` / ``restore``).

The public methods here check their input and call the game's hooks (``_new_state``, ``_apply``,
``_observation``, ``_determinize``): a game implements the hooks, the checks live in one place.
"""
from __future__ import annotations

import copy
import difflib
import functools
import json
import numbers
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .errors import ArenaError, ConfigError
from .textimage import text_to_rgb
from .yamlio import load

if TYPE_CHECKING:   # for the type checker only: options.py imports this module
    from .options import OptionTable


#: How a finished game ended, ``final_info()["ended_by"]`` (the engine's) and the AEC env's
#: ``infos[agent]["ended_by"]``: ``rules`` by the rulebook's own ending; ``designed`` by a
#: designed ending the game's RULES.md documents (a victory condition or a stalemate the rulebook
#: does not name); ``cap`` by a safety backstop (an engine cap, or the env's ``max_steps``);
#: ``illegal`` by an illegal move under ``illegal_action="lose"`` (the env's only).
ENDED_BY = ("rules", "designed", "cap", "illegal")
#: the values an engine's ``final_info()`` gives at the end (``illegal`` is the env's)
ENGINE_ENDED_BY = ("rules", "designed", "cap")


#: the default move cap (env, evaluator) of a game whose ``max_game_length()`` is None (unknown)
FALLBACK_MAX_STEPS = 1000


def default_max_steps(game: "Game", fallback: int = FALLBACK_MAX_STEPS) -> int:
    """The default move cap of ``game`` (the AEC env's ``max_steps``, ``arena eval --max-steps``):
    its ``max_game_length()``, an upper bound on its actions, so the cap never ends a game before
    its own ending or backstop; ``fallback`` where the game has none."""
    bound = game.max_game_length()
    return fallback if bound is None else int(bound)


class IllegalActionError(ValueError):
    """Raised by ``State.apply`` for an action the current position does not allow.

    The state is left exactly as it was before the call.
    """

    def __init__(self, action: int, phase: str, reason: str):
        self.action, self.phase, self.reason = action, phase, reason
        super().__init__(f"illegal action {action} in phase {phase!r}: {reason}")


class IllegalMoveWarning(UserWarning):
    """An agent played an action its mask forbids and, under ``illegal_action="lose"`` (the AEC
    default, PettingZoo classic), lost the game by it."""


class ActionTypeError(IllegalActionError, TypeError):
    """An action that is not an integer (a float, a string, a bool, None, a list...)."""

    def __init__(self, action: Any, phase: str):
        super().__init__(action, phase, "an action must be an integer (int, numpy integer or 0-d "
                                        f"integer array), got {type(action).__name__} {action!r}")


def action_index(action: Any, phase: str = "play") -> int:
    """``action`` as a Python int, if it is an integer: an int, a numpy integer or a 0-d integer
    array. Anything else (floats that look integral, strings, bools, None, lists, NaN) raises
    ActionTypeError: nothing is truncated or parsed."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        raise ActionTypeError(action, phase)
    if isinstance(action, (numbers.Integral, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    raise ActionTypeError(action, phase)


def checked_choice(action: Any, mask, phase: str, who: str, error: type = IllegalActionError,
                   why: Any = None) -> int:
    """``action``, a policy's choice on its ``mask``, as an int once it is an integer action the
    mask allows; otherwise ``error`` (IllegalActionError or a subclass) saying ``who`` chose it
    and why (``why(a)`` explains a masked-out action; default "not in the mask"). The one check of
    every loop that plays agents' moves: the evaluator's (``train.play.agent_action``) and the
    envs that step opponents inside their own ``step`` (``envs.single_agent``, RLlib's env)."""
    try:
        a = action_index(action, phase)
    except IllegalActionError as exc:  # not an integer: nothing is truncated or parsed
        raise error(action, phase, f"{who}: {exc.reason}") from None
    if not 0 <= a < len(mask):
        raise error(a, phase, f"{who}: out of range (actions are 0..{len(mask) - 1})")
    if not mask[a]:
        raise error(a, phase, f"{who}: {why(a) if why is not None else 'not in the mask'}")
    return a


def check_seat(seat: Any, num_seats: int) -> int:
    """``seat`` as an int in ``0..num_seats-1``, else ValueError (no wrap-around of -1)."""
    if type(seat) is int and 0 <= seat < num_seats:
        return seat
    if isinstance(seat, (numbers.Integral, np.integer)) and not isinstance(seat, (bool, np.bool_)) \
            and 0 <= int(seat) < num_seats:
        return int(seat)
    raise ValueError(f"seat must be an int in 0..{num_seats - 1}, got {seat!r}")


class NotReplayableError(ArenaError):
    """``serialize()`` of a state whose randomness no seed reproduces (a determinize() sample)."""


class RestoreError(ArenaError):
    """``restore()`` of a blob that is not a saved game of this variant: not JSON, missing or
    unknown fields, wrong types, another game or options, actions out of range or illegal in
    the replay. Nothing is built."""


def check_observer(observer: Any, num_seats: int) -> int | None:
    """``observer`` of a view (``render_text``, ``render_rgb``): None (the spectator's view) or
    a seat as an int in ``0..num_seats-1``; anything else (a bool, -1, a seat too large, a
    float, a name) raises ValueError: a view never falls back to another seat's."""
    if observer is None or (type(observer) is int and 0 <= observer < num_seats):
        return observer
    if isinstance(observer, (numbers.Integral, np.integer)) and not isinstance(observer, (bool, np.bool_)) \
            and 0 <= int(observer) < num_seats:
        return int(observer)
    raise ValueError(f"observer must be None (the spectator's view) or a seat in "
                     f"0..{num_seats - 1}, got {observer!r}")


def _checks_observer(render):
    """A game's ``render_text`` / ``render_rgb``, with its ``observer`` checked first."""
    @functools.wraps(render)
    def checked(self, observer=None, *args, **kwargs):
        return render(self, check_observer(observer, self.game.num_seats), *args, **kwargs)

    checked.checks_observer = True  # type: ignore[attr-defined]
    return checked


def _recovered_seed(gen: np.random.Generator) -> int | None:
    """The seed of a generator exactly as ``np.random.default_rng(seed)`` built it (not drawn
    from since), else None."""
    bg = gen.bit_generator
    ss = getattr(bg, "seed_seq", None)
    if type(bg) is not np.random.PCG64 or not isinstance(ss, np.random.SeedSequence) \
            or ss.spawn_key or ss.n_children_spawned or ss.pool_size != 4:
        return None
    entropy = ss.entropy
    if type(entropy) is not int or entropy < 0 or np.random.PCG64(entropy).state != bg.state:
        return None
    return entropy


def seed_of(source: Any = None) -> int:
    """The seed a new state records, from ``source``: an int seed; ``None`` (a seed drawn from
    OS entropy); or a Generator. A fresh ``np.random.default_rng(seed)`` gives that seed back;
    any other generator (already drawn from, another bit generator) gives one draw, which becomes
    the seed. The state builds its own generator from the seed: it never shares the caller's."""
    if source is None:
        entropy = np.random.SeedSequence().entropy   # an int when drawn from OS entropy
        assert isinstance(entropy, int)
        seed = entropy % (2**63)
    elif isinstance(source, np.random.Generator):
        recovered = _recovered_seed(source)
        seed = int(source.integers(2**63)) if recovered is None else recovered
    elif isinstance(source, (numbers.Integral, np.integer)) and not isinstance(source, (bool, np.bool_)) \
            and int(source) >= 0:
        seed = int(source)
    else:
        raise ConfigError(f"a seed must be an int >= 0, a numpy Generator or None, got {source!r}")
    return seed


@functools.lru_cache(maxsize=16)
def read_yaml(path: str) -> dict:
    """Load a rules table (cached per path); a missing or malformed file raises ConfigError."""
    import yaml  # local import: only needed when a game is built

    try:
        with open(path) as fh:
            data = load(fh)  # a key given twice is an error, not the last one winning
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping")
    return data


class Game:
    """Rules configuration of one game variant; a factory for states.

    A game declares its constructor options in ``OPTIONS`` (``envs.core.options.OptionTable``):
    every call is checked against it before the game's ``__init__`` runs (unknown names, types,
    ranges raise ConfigError) and the ``__init__`` receives every option, defaults filled in.
    """

    #: the constructor's options (an envs.core.options.OptionTable); None: not checked here
    OPTIONS: OptionTable | None = None

    name: str = "game"
    num_seats: int = 2
    num_actions: int = 0
    #: named pieces of the flat observation vector: [(name, shape), ...] in order
    observation_layout: list[tuple[str, tuple[int, ...]]] = []
    #: True where a player may hold information the others cannot see (hands, unexplored map)
    hidden_information: bool = False
    #: board-aligned action ranges ``[[first, planes], ...]``: action ``first + p * H * W + cell``
    #: acts on ``cell`` (row-major) of the observation's (C, H, W) board piece, for p < planes.
    #: Read by the training pipeline's spatial policy head (``spatial_actions: auto``).
    spatial_actions: list[list[int]] = []
    #: every name ``state.phase_name()`` can return (the engine's ``Phase`` literal): what a search
    #: setting naming a phase is checked against (``vroll``'s ``phases=``)
    phase_names: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init, table = cls.__dict__.get("__init__"), cls.__dict__.get("OPTIONS")
        if init is None or table is None:
            return

        @functools.wraps(init)
        def checked_init(self, *args, **options):
            if args:
                raise ConfigError(f"{table.game}: options are keyword arguments; got positional "
                                  f"{args!r} (options: {table.names()})")
            init(self, **table.resolve(options))

        cls.__init__ = checked_init  # type: ignore[method-assign]  # each game's __init__, checked

    def new_initial_state(self, rng: Any = None) -> "State":
        """A new game. ``rng``: an int seed, a numpy Generator or None (see ``seed_of``); the
        state owns its own generator and records the seed, so it always serializes."""
        seed = seed_of(rng)
        state = self._new_state(np.random.default_rng(seed))
        state.seed = seed
        return state

    def _new_state(self, rng: np.random.Generator) -> "State":
        """The game's hook: the initial state drawing from ``rng`` (its own generator)."""
        raise NotImplementedError

    @property
    def observation_size(self) -> int:
        return int(sum(int(np.prod(shape)) for _, shape in self.observation_layout))

    def seat_owner(self, seat: int) -> int:
        """Agent index controlling ``seat`` (identity unless a player runs several seats)."""
        return seat

    @property
    def num_agents(self) -> int:
        return self.num_seats

    def unknown_phases(self, names) -> str | None:
        """None if every name in ``names`` is a phase a decision can be in (``phase_names`` but
        "over"), else one line naming the first stranger, with the nearest phase if one is close."""
        known = [p for p in self.phase_names if p != "over"]
        for name in names:
            if name not in known:
                near = difflib.get_close_matches(str(name), known, n=1)
                hint = f"did you mean {near[0]!r}?" if near else f"{len(known)} phases, e.g. {', '.join(known[:4])}"
                return f"{name!r} is not a phase of {self.name} ({hint})"
        return None

    def options(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this variant (for checkpoints and replays)."""
        return {}

    def options_json(self) -> dict[str, Any]:
        """``options()`` as JSON gives them back (a tuple as a list): what saved games, reports,
        journals and the ladder record, and compare with what they read."""
        return json.loads(json.dumps(self.options()))

    def max_game_length(self) -> int | None:
        """An upper bound on the engine actions (``len(state.history)``) a game of this variant
        can take, from the game's own caps and rules (OpenSpiel's ``GameInfo.max_game_length``);
        None: unknown. The AEC env's and the evaluator's default move cap: a cap there never cuts a
        game before its own ending or backstop. tests/test_conformance.py checks it is an int and
        that random games (also with the game's caps set low) stay within it."""
        return None

    def agent_returns(self, per_seat: Sequence[float] | np.ndarray) -> np.ndarray:
        """float[num_agents]: per-seat values (``State.returns()``, ``State.scores()``) per agent.

        An agent running several seats (Zaka's two armies per player) gets the mean of its seats'
        values; with one seat per agent this is the values themselves. The one place that maps
        seats to agents for the AEC adapter, search, self-play, the evaluator and ``arena play``.
        """
        values = np.asarray(per_seat, dtype=float)
        if len(values) != self.num_seats:
            raise ValueError(f"{self.name}: expected {self.num_seats} per-seat values, got {len(values)}")
        owners = [self.seat_owner(s) for s in range(self.num_seats)]
        total = np.bincount(owners, weights=values, minlength=self.num_agents)
        return total / np.maximum(np.bincount(owners, minlength=self.num_agents), 1)

    # -- replay -------------------------------------------------------------------------------
    def replay(self, seed: int, actions: Sequence[int]) -> "State":
        """Rebuild a state from its seed and action history."""
        if seed is None:
            raise NotReplayableError("no seed to replay from (a state serialized before seeds were "
                                     "recorded, or edited by hand)")
        state = self.new_initial_state(seed)
        for a in actions:
            state.apply(a)
        return state


class State:
    """One position. Subclasses implement the abstract methods below."""

    game: Game
    history: list[int]
    seed: int | None
    #: the state's own generator: every draw, roll and shuffle of the game
    rng: np.random.Generator

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # every game's views check their observer in one place (``check_observer``), as
        # ``observation`` checks its seat: a game draws only for None or a real seat
        for name in ("render_text", "render_rgb"):
            render = cls.__dict__.get(name)
            if render is not None and not getattr(render, "checks_observer", False):
                setattr(cls, name, _checks_observer(render))

    # -- abstract -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """Seat to act, or -1 once the game is over."""
        raise NotImplementedError

    def legal_actions_mask(self) -> np.ndarray:
        """int8[num_actions]: 1 where the current player may take the action."""
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        """Apply a legal action (already validated)."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def returns(self) -> np.ndarray:
        """float[num_seats]: final rewards (0 while the game runs); ``Game.agent_returns`` maps
        them to agents."""
        raise NotImplementedError

    def _observation(self, seat: int) -> np.ndarray:
        """The game's hook for ``observation`` (``seat`` already checked)."""
        raise NotImplementedError

    def action_to_str(self, action: int) -> str:
        raise NotImplementedError

    def phase_name(self) -> str:
        return "play"

    def clone(self) -> "State":
        raise NotImplementedError

    def render_text(self, observer: int | None = None, color: bool = False) -> str:
        """The position as text. ``observer`` None: the spectator's view (public information
        only where the game hides some); a seat: what that seat's player may see (anything else
        raises ValueError, checked here for every game: ``check_observer``). ``color``: ANSI
        colour codes (off by default, see ``envs.core.terminal``)."""
        raise NotImplementedError

    def render_rgb(self, observer: int | None = None) -> np.ndarray:
        """The position as an ``(H, W, 3) uint8`` picture, with the same ``observer`` rule as
        ``render_text``. Games draw their own (``envs/<game>/render.py``); this fallback is a
        picture of the coloured text."""
        observer = check_observer(observer, self.game.num_seats)
        return text_to_rgb(self.render_text(observer=observer, color=True))

    # -- optional hooks (documented defaults) --------------------------------------------------
    def scores(self) -> list[float] | None:
        """The running score of each seat (higher is better), where the game keeps one; None
        (the default) where it has none. Read live by self-play's score-shaped reward
        (``score_reward``); per agent through ``Game.agent_returns``."""
        return None

    def final_info(self) -> dict[str, Any]:
        """Facts about how the game ended (turns, eliminations, ...) for the AEC adapter's
        ``infos`` (at the end, and when its move cap truncates a game), the evaluator and
        ``arena play``; empty by default.
        A ``"scores"`` entry, where present, is the per-seat final score those reports show.
        A finished game's must carry ``"ended_by"``: one of ``ENGINE_ENDED_BY`` (the
        conformance suite checks every registered variant)."""
        return {}

    # -- shared -------------------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """float32[observation_size] as seen by ``seat`` (an int in 0..num_seats-1)."""
        if type(seat) is not int or not 0 <= seat < self.game.num_seats:
            seat = check_seat(seat, self.game.num_seats)
        return self._observation(seat)

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_actions_mask()).tolist()

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal here (games may override with a sharper message)."""
        return "not allowed in this position (see legal_actions())"

    def apply(self, action: int) -> None:
        """Validate and apply ``action``; raise IllegalActionError and change nothing if illegal
        (ActionTypeError, a subclass, when ``action`` is not an integer)."""
        a = action if type(action) is int else action_index(action, self.phase_name())
        if self.is_terminal():
            raise IllegalActionError(a, self.phase_name(), "the game is over")
        if not 0 <= a < self.game.num_actions:
            raise IllegalActionError(a, self.phase_name(),
                                     f"out of range: actions are 0..{self.game.num_actions - 1}")
        if not self.legal_actions_mask()[a]:
            raise IllegalActionError(a, self.phase_name(),
                                     f"{self.action_to_str(a)}: {self.illegal_reason(a)}")
        self.apply_legal(a)

    def apply_legal(self, action: int) -> None:
        """``apply`` for an action the caller has just found set in ``legal_actions_mask()`` of
        this very position (the AEC adapter checks its mask first): skips the second check."""
        self._apply(action)
        self.history.append(action)

    def determinize(self, observer: int, rng: Any = None) -> "State":
        """A clone in which everything ``observer`` cannot see is resampled from ``rng``: a
        numpy Generator (drawn from), an int seed, or None (a seed drawn from OS entropy, as
        ``new_initial_state(None)`` does); anything else raises ConfigError.

        A sample is not the real game: it has no seed and refuses to serialize.
        """
        seat = check_seat(observer, self.game.num_seats)
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(seed_of(rng))
        s = self._determinize(seat, rng)
        s.seed = None
        return s

    def _determinize(self, observer: int, rng: np.random.Generator) -> "State":
        """The game's hook for ``determinize``. The default fits games whose only hidden
        information is future chance (bag draws, dice): the clone gets a fresh generator. Games
        with hidden hands override it (starting from this one)."""
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        return s

    def serialize(self) -> str:
        """JSON with the variant options, the seed and the action history."""
        if self.seed is None:
            raise NotReplayableError("this state cannot be replayed from a seed (a determinize() "
                                     "sample, or a state whose seed was removed): no serialize()")
        return json.dumps({"game": self.game.name, "options": self.game.options(),
                           "seed": self.seed, "actions": list(self.history)})


#: the fields of a saved game (``State.serialize``)
SAVE_FIELDS = ("game", "options", "seed", "actions")


def _unique_keys(pairs: list) -> dict:
    """json object hook: a key given twice is an error (not the last one silently winning)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise RestoreError(f"not a saved game: the field {key[:80]!r} is given twice")
        out[key] = value
    return out


def restore(game: Game, blob: str) -> State:
    """Inverse of ``State.serialize`` for a game built with the same options. Anything else
    (not JSON, missing or unknown fields, wrong types, another game or options, actions out of
    range or illegal in the replay) raises RestoreError, one line saying what is wrong."""
    try:
        return _restore(game, blob)
    except RecursionError:   # JSON nested thousands deep
        raise RestoreError("not a saved game: nested too deeply") from None


def _restore(game: Game, blob: str) -> State:
    if not isinstance(blob, str):
        raise RestoreError(f"a saved game is JSON text (a str, as serialize() returns), got "
                           f"{type(blob).__name__}")
    try:
        data = json.loads(blob, object_pairs_hook=_unique_keys)
    except ValueError as exc:   # JSONDecodeError, a number too long
        if isinstance(exc, RestoreError):
            raise
        first = (str(exc).splitlines() or ["?"])[0]
        raise RestoreError(f"not a saved game: not JSON ({first[:200]})") from None
    if type(data) is not dict:
        raise RestoreError(f"not a saved game: a JSON object with fields {list(SAVE_FIELDS)} "
                           f"is expected, got a {type(data).__name__}")
    if set(data) != set(SAVE_FIELDS):
        missing = [k for k in SAVE_FIELDS if k not in data]
        unknown = sorted(str(k) for k in data if k not in SAVE_FIELDS)
        raise RestoreError(f"not a saved game: missing fields {missing}, unknown fields {unknown} "
                           f"(a saved game has exactly {list(SAVE_FIELDS)})")
    if data["game"] != game.name:
        raise RestoreError(f"saved game is {str(data['game'])[:80]!r}, not {game.name!r}")
    options = game.options_json()
    if data["options"] != options:
        raise RestoreError(f"saved options {str(data['options'])[:200]} differ from this "
                           f"variant's {options}")
    seed = data["seed"]
    if type(seed) is not int or seed < 0:
        raise RestoreError(f"saved seed must be an int >= 0, got {str(seed)[:80]}")
    actions = data["actions"]
    if type(actions) is not list:
        raise RestoreError(f"saved actions must be a list of ints, got {type(actions).__name__}")
    bad = next((i for i, a in enumerate(actions) if type(a) is not int), None)
    if bad is not None:
        raise RestoreError(f"saved action {bad} must be an int, got {str(actions[bad])[:80]}")
    state = game.new_initial_state(seed)
    for i, a in enumerate(actions):
        try:
            state.apply(a)
        except IllegalActionError as exc:
            raise RestoreError(f"saved action {i} ({a}) cannot be replayed: {exc}") from None
    return state


def new_rng(seed: Any = None) -> tuple[np.random.Generator, int]:
    """``(np.random.default_rng(s), s)`` for the seed ``s = seed_of(seed)`` (drawn from OS entropy
    when ``seed`` is None)."""
    s = seed_of(seed)
    return np.random.default_rng(s), s


def copy_generator(rng: Any) -> Any:
    """An independent generator in the same state as ``rng`` (what a clone draws from). A
    scripted stand-in (tests replace a state's generator to force dice) is deep-copied."""
    if isinstance(rng, np.random.Generator):
        bg = rng.bit_generator
        out = np.random.Generator(type(bg)(0))   # a fixed seed: cheaper than OS entropy
        out.bit_generator.state = bg.state
        return out
    return copy.deepcopy(rng)


_ATOMIC = frozenset({int, float, bool, str, bytes, complex, type(None), range})
_FLAT = _ATOMIC | {tuple}


def owned_copy(value: Any) -> Any:
    """A copy of ``value`` that shares no writable container with it: lists, dicts, sets and
    writable numpy arrays are copied all the way down; immutable values (numbers, strings, tuples
    and frozensets of them, read-only arrays, numpy scalars, frozen records) are shared. Objects
    with a ``clone()`` method clone themselves. What a State's ``clone()`` uses for its fields, so
    a field added later is owned by each state without anyone remembering to copy it."""
    t = type(value)
    if t in _ATOMIC:
        return value
    if t is list:
        if _ATOMIC.issuperset(map(type, value)):   # the common case: numbers, names
            return value.copy()
        if _FLAT.issuperset(map(type, value)) and \
                all(_ATOMIC.issuperset(map(type, x)) for x in value if type(x) is tuple):
            return value.copy()         # numbers and flat tuples of numbers
        return [x if type(x) in _ATOMIC else owned_copy(x) for x in value]
    if t is tuple:
        if _ATOMIC.issuperset(map(type, value)):
            return value
        copied = tuple(owned_copy(x) for x in value)
        return value if all(a is b for a, b in zip(copied, value)) else copied
    if t is dict:
        return {k: v if type(v) in _ATOMIC else owned_copy(v) for k, v in value.items()}
    if t is set:
        return set(value)
    if t is np.ndarray:
        if value.dtype == object:
            out = np.empty_like(value)
            for i, x in enumerate(value.flat):
                out.flat[i] = owned_copy(x)
            return out
        return value.copy() if value.flags.writeable else value
    if t is frozenset or isinstance(value, (type, np.generic, np.dtype, Game)):
        return value
    if isinstance(value, np.random.Generator):
        return copy_generator(value)
    clone = getattr(value, "clone", None)
    if callable(clone):
        return clone()
    params = getattr(value, "__dataclass_params__", None)
    if params is not None and params.frozen:
        return value
    if isinstance(value, tuple):   # a NamedTuple
        return t(*(owned_copy(x) for x in value)) if any(type(x) not in _ATOMIC for x in value) \
            else value
    raise TypeError(f"owned_copy: no rule to copy a {t.__name__} (give it a clone() method)")


def seats_after(k: int) -> str:
    """Words for the player ``k`` seats after the one to act, where a move's words have no position
    to name him from (a game's ``action_to_str`` without a state; a state names ``player_<seat>``)."""
    return "the next player" if k == 1 else f"the player {k} seats after you"


def rank_returns(scores: Sequence[float]) -> np.ndarray:
    """Zero-sum rank rewards: +1 best .. -1 worst, ties share the mean of their ranks.

    For two players this is +1/-1/0. Scores compare higher-is-better. Place p (0 = best) of n is
    worth (n - 1 - 2p) / (n - 1); a tie over places i..j gets their mean, (n - 1 - i - j) / (n - 1),
    computed from integers, so a tie in the middle of four is exactly 0 and mirrored places get
    exactly opposite values.
    """
    n = len(scores)
    if n == 1:
        return np.zeros(1)
    order = sorted(range(n), key=lambda i: -scores[i])
    out = np.zeros(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        v = (n - 1 - i - j) / (n - 1)
        for k in range(i, j + 1):
            out[order[k]] = v
        i = j + 1
    return out
