"""The engine contract, checked the way it breaks, over every registered game and variant.

- Clone isolation: ``clone()`` and ``determinize()`` share no writable container with the state
  they copy (a structural walk of both), and probing a copy never changes the original: the
  original is checked against a twin built from the same seed and fed the same actions (every
  seat's observation, the mask, the player to move, the returns), and at the end against a fresh
  replay of its seed and history.
- Search never touches the state it is given (the MCTS agent, ``mcts:N``).
- Replayable states: a state built straight from the engine records its seed, so
  ``serialize``/``restore`` rebuilds the same game; a determinized sample refuses to serialize;
  ``restore`` of anything else raises RestoreError.
- Arrays handed out (masks, observations, returns) by the original, a clone, a determinize()
  sample or a restored state are read-only or the caller's own.
- ``determinize`` takes a Generator, a seed or None; views check their ``observer``.
- Options and rules files: unknown names, wrong types and out-of-range values raise ConfigError
  naming the option (and the file, for a rules file).
- Actions are integers: anything else raises and changes nothing, in the engine and the env.
- Seats are checked: a bad seat is an error with the compiled kernels and in pure Python alike.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import types

import numpy as np
import pytest
import yaml

from tabletop_arena import envs
from tabletop_arena.envs.core.game import ConfigError, Game, IllegalActionError, RestoreError, restore

CASES = [(name, vname, opts) for name in envs.names() for vname, opts in envs.variants(name).items()]
IDS = [f"{name}-{vname}" for name, vname, _ in CASES]


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
_ATOM_TYPES = frozenset({int, float, complex, str, bytes, bool, type(None), range})


def _path(where) -> str:
    """A readable path from the nested (parent, key) pairs the walk records."""
    parts = []
    while isinstance(where, tuple):
        where, key = where
        parts.append(key)
    return where + "".join(reversed(parts))


def _writable_objects(obj, where, out: dict, seen: set, skip: set) -> None:
    """Every writable object reachable from ``obj`` (lists, dicts, sets, writable arrays and
    their bases, mutable records), as id -> (where, object). Objects in ``skip`` (the Game's own
    tables) and generators (checked on their own) are not followed."""
    stack = [(obj, where)]
    while stack:
        obj, where = stack.pop()
        t = type(obj)
        if t in _ATOM_TYPES or isinstance(obj, (np.generic, np.dtype, Game, type)):
            continue
        if isinstance(obj, types.FunctionType) and obj.__closure__ is None:
            continue   # a plain function (Warbah's Luck continuations): code, shared like a class
        i = id(obj)
        if i in seen or i in skip:
            continue
        seen.add(i)
        if isinstance(obj, (np.random.Generator, np.random.BitGenerator)):
            continue
        if isinstance(obj, np.ndarray):
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            if obj.flags.writeable:
                out[i] = (where, obj)
                out.setdefault(id(base), ((where, " (its base array)"), base))
            if obj.dtype == object:
                stack.extend((v, (where, f"[{k}]")) for k, v in enumerate(obj.flat))
            continue
        if isinstance(obj, (list, set, bytearray, tuple, frozenset)):
            if not isinstance(obj, (tuple, frozenset)):
                out[i] = (where, obj)
            stack.extend((v, (where, f"[{k}]")) for k, v in enumerate(obj)
                         if type(v) not in _ATOM_TYPES)
            continue
        if isinstance(obj, dict):
            out[i] = (where, obj)
            for k, v in obj.items():
                if type(k) not in _ATOM_TYPES:
                    stack.append((k, (where, " key")))
                if type(v) not in _ATOM_TYPES:
                    stack.append((v, (where, f"[{k!r}]")))
            continue
        if callable(obj) and not hasattr(obj, "__dict__"):
            continue
        if not (dataclasses.is_dataclass(obj) and obj.__dataclass_params__.frozen):
            out[i] = (where, obj)
        stack.extend((v, (where, f".{k}")) for k, v in getattr(obj, "__dict__", {}).items())
        for cls in t.__mro__:
            for k in getattr(cls, "__slots__", ()):
                if hasattr(obj, k):
                    stack.append((getattr(obj, k), (where, f".{k}")))


def _reachable_ids(obj) -> set:
    found: dict = {}
    seen: set = set()
    for key, value in obj.__dict__.items():
        _writable_objects(value, key, found, seen, set())
    return set(found) | seen


_GAME_TABLES: dict = {}


def shared_writables(a, b, fresh: bool = False) -> list[str]:
    """Paths of the writable objects that two states share (the Game's tables excepted: they are
    walked once per game, and again before anything is reported, as games fill caches lazily)."""
    key = id(a.game)
    if fresh or _GAME_TABLES.get(key, (None,))[0] is not a.game:
        _GAME_TABLES[key] = (a.game, _reachable_ids(a.game))
    skip = _GAME_TABLES[key][1]
    wa: dict = {}
    wb: dict = {}
    _writable_objects(a, "state", wa, set(), skip)
    _writable_objects(b, "copy", wb, set(), skip)
    out = [f"{_path(wa[i][0])} ({type(wa[i][1]).__name__})" for i in wa.keys() & wb.keys()
           if wa[i][1] is not a]
    if getattr(a, "__dict__", {}).get("rng") is not None and a.rng is b.rng:
        out.append("state.rng (the generator)")
    if out and not fresh:
        return shared_writables(a, b, fresh=True)
    return sorted(out)


def _random_move(st, rng) -> int:
    legal = np.flatnonzero(st.legal_actions_mask())
    return int(legal[rng.integers(len(legal))])


def _probe(copy, rng, moves: int) -> None:
    """Use a copy the way search does: masks, observations, a few random moves."""
    for _ in range(moves):
        if copy.is_terminal():
            return
        copy.observation(copy.current_player)
        copy.apply(_random_move(copy, rng))
    copy.legal_actions_mask() if not copy.is_terminal() else copy.returns()


def _views(st) -> list:
    """Everything a player or an agent reads from a position."""
    out = [st.current_player, st.is_terminal(), list(st.history), st.returns().tolist()]
    if not st.is_terminal():
        out.append(st.legal_actions_mask().tobytes())
    out += [st.observation(seat).tobytes() for seat in range(st.game.num_seats)]
    return out


def _assert_same(st, twin, where: str) -> None:
    got, want = _views(st), _views(twin)
    names = ["current player", "terminal", "history", "returns", "mask"][:len(got) - st.game.num_seats]
    names += [f"observation of seat {s}" for s in range(st.game.num_seats)]
    bad = [n for n, x, y in zip(names, got, want) if x != y]
    assert not bad, f"{where}: the original differs from its replay in: {', '.join(bad)}"


# ------------------------------------------------------------------------------------------------
# clone() and determinize() never leak
# ------------------------------------------------------------------------------------------------
def test_the_leak_check_shares_plain_functions_and_flags_closures_and_bound_methods():
    """A state may hold a plain function (Warbah's Luck continuations: code, shared by every copy
    like a class), but a closure over a container or a bound method reaches writable data."""
    class Holder:
        def method(self) -> None:
            pass

    def shared(value) -> bool:
        a, b, wa, wb = Holder(), Holder(), {}, {}
        a.f = b.f = value
        _writable_objects(a, "a", wa, set(), set())
        _writable_objects(b, "b", wb, set(), set())
        return bool((wa.keys() & wb.keys()) - {id(a), id(b)})

    box: list = []
    assert not shared(_path)
    assert shared(lambda: box)
    assert shared(Holder().method)


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_clone_and_determinize_never_leak(name, vname, opts):
    """Probe a clone and a determinize() copy at several points of seeded games (masks,
    observations, random moves on the copies); the original must stay exactly what a twin fed
    the same actions is, at every later step, and what a fresh replay of its seed and history
    gives at the end. The copies must share no writable container with the original."""
    game = envs.make_game(name, **opts)
    twin_game = envs.make_game(name, **opts)   # its own tables: nothing shared with the original
    for seed in (0, 1, 2):
        st = game.new_initial_state(np.random.default_rng(seed))
        twin = twin_game.new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(100 + seed)
        probe_rng = np.random.default_rng(200 + seed)
        step = 0
        while not st.is_terminal() and step < 240:
            if step % 7 == 0:
                _views(st)   # fill every memo the original keeps before it is copied
                seat = st.current_player
                for kind, copy in (("clone", st.clone()),
                                   ("determinize", st.determinize(seat, probe_rng))):
                    shared = shared_writables(st, copy)
                    assert not shared, (f"seed {seed} step {step}: {kind}() shares writable "
                                        f"containers with the original: {shared[:8]}")
                    again = copy.clone()   # a copy of a copy owns its fields too
                    shared = shared_writables(copy, again)
                    assert not shared, f"seed {seed} step {step}: {kind}().clone() shares {shared[:8]}"
                    _probe(copy, probe_rng, 6)
                    _probe(again, probe_rng, 3)
                _assert_same(st, twin, f"seed {seed} step {step} after probing copies")
            a = _random_move(st, rng)
            st.apply(a)
            twin.apply(a)
            step += 1
            _assert_same(st, twin, f"seed {seed} step {step}")
        fresh = envs.make_game(name, **opts).replay(seed, st.history)
        _assert_same(st, fresh, f"seed {seed}: fresh replay of seed and history")


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_mcts_never_changes_the_state_it_is_given(name, vname, opts, monkeypatch):
    """``mcts:N`` searches on determinize() copies of the state it is handed: no copy may share
    a writable container with that state, and the state (and the game that follows) must be
    exactly what it would be without the search."""
    from tabletop_arena.agents.registry import make_agent
    game = envs.make_game(name, **opts)
    twin_game = envs.make_game(name, **opts)
    agent = make_agent("mcts:6", game, seed=0)
    agent.rollout_cap = 15
    st = game.new_initial_state(np.random.default_rng(4))
    twin = twin_game.new_initial_state(np.random.default_rng(4))
    real_determinize = type(st).determinize
    leaks: list = []

    def watched_determinize(self, seat, rng):
        sample = real_determinize(self, seat, rng)
        if self is st:
            leaks.extend(shared_writables(st, sample))
        return sample

    monkeypatch.setattr(type(st), "determinize", watched_determinize)
    rng = np.random.default_rng(5)
    step = 0
    while not st.is_terminal() and step < 60:
        if step % 6 == 0:
            seat = st.current_player
            obs = {"observation": st.observation(seat), "action_mask": st.legal_actions_mask()}
            a = agent.act(obs, state=st)
            assert st.legal_actions_mask()[a]
            assert not leaks, f"step {step}: the search's samples share {sorted(set(leaks))[:8]}"
            _assert_same(st, twin, f"step {step} after a search")
        a = _random_move(st, rng)
        st.apply(a)
        twin.apply(a)
        step += 1
        _assert_same(st, twin, f"step {step}")


def _scribble(array: np.ndarray) -> bool:
    """Write into an array a caller was handed, as careless user code might (in place); True if
    the write went through, False if the array refused it (read-only)."""
    try:
        array[...] = 1 - array if array.dtype.kind in "iub" else -array - 7.0
    except ValueError:   # "assignment destination is read-only": refused, nothing changed
        return False
    return True


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_arrays_handed_out_are_the_callers_own(name, vname, opts):
    """Writing into a mask or an observation the engine or the env handed out changes nothing in
    the game: the engine either hands out its own copy or refuses the write (a read-only cache),
    and the env hands out copies (a user may edit them). Checked against a twin fed the same
    actions."""
    game, twin_game = envs.make_game(name, **opts), envs.make_game(name, **opts)
    st = game.new_initial_state(np.random.default_rng(5))
    twin = twin_game.new_initial_state(np.random.default_rng(5))
    rng = np.random.default_rng(6)
    step = 0
    while not st.is_terminal() and step < 120:
        a = _random_move(st, rng)
        _scribble(st.legal_actions_mask())
        for seat in range(game.num_seats):
            _scribble(st.observation(seat))
        _assert_same(st, twin, f"engine, step {step}, after writing into handed-out arrays")
        st.apply(a)
        twin.apply(a)
        step += 1
    env, twin_env = envs.make(name, **opts), envs.make(name, **opts)
    env.reset(seed=5)
    twin_env.reset(seed=5)
    for step, agent in enumerate(env.agent_iter(max_iter=120)):
        obs, *_ = env.last()
        want = twin_env.observe(agent)
        done = env.terminations[agent] or env.truncations[agent]
        action = None if done else int(rng.choice(np.flatnonzero(want["action_mask"])))
        assert _scribble(obs["action_mask"]), f"step {step}: the env handed out a read-only mask"
        _scribble(obs["observation"])
        again = env.observe(agent)
        for key in ("observation", "action_mask"):
            assert np.array_equal(again[key], want[key]), \
                f"env, step {step}: writing into a handed-out {key} changed the env's next one"
        env.step(action)
        twin_env.step(action)


def _scribble_everything(st) -> None:
    """Write into every array ``st`` hands out: its mask, each seat's observation, its returns."""
    if not st.is_terminal():
        _scribble(st.legal_actions_mask())
    for seat in range(st.game.num_seats):
        _scribble(st.observation(seat))
    _scribble(st.returns())


def _copies(st, game, rng) -> list:
    """The states a caller gets from ``st`` other than itself: a clone, a determinize() sample for
    the seat to move and for the next seat (whose sample resamples the mover's hidden cards),
    and the state restored from its blob."""
    out = [("clone", st.clone())]
    seats = sorted({st.current_player, (st.current_player + 1) % game.num_seats})
    out += [(f"determinize({seat})", st.determinize(seat, rng)) for seat in seats]
    out.append(("restore", restore(game, st.serialize())))
    return out


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_copies_hand_out_arrays_that_cannot_change_them(name, vname, opts):
    """Every state a caller can get (the original, a clone, a determinize() sample, a restored
    state) hands out masks, observations and returns that are read-only or the caller's own:
    after writing into all of them (every illegal action now looks legal in a writable mask),
    the state must be exactly what a twin copied before the writes is, refuse every action its
    true mask forbids, and play on like the twin (issue 41: Peacekeepers and Zaka clones copied
    their read-only cached mask into a writable one, and then accepted illegal moves)."""
    game = envs.make_game(name, **opts)
    rng = np.random.default_rng(7)
    positions = 0
    for seed in (5, 6):
        st = game.new_initial_state(np.random.default_rng(seed))
        while not st.is_terminal() and len(st.history) < 200:
            if len(st.history) < 6 or len(st.history) % 9 == 0:   # puzzles end early
                positions += 1
                _views(st)   # fill every memo first: a copy carries its memos over
                for kind, copy in [("original", st)] + _copies(st, game, rng):
                    twin = copy.clone() if kind != "original" else restore(game, st.serialize())
                    _views(copy)
                    _scribble_everything(copy)
                    where = f"seed {seed} step {len(st.history)}, {kind}"
                    _assert_same(copy, twin, f"{where}, after writing into its arrays")
                    mask = twin.legal_actions_mask()
                    illegal = np.flatnonzero(mask == 0)
                    for a in illegal[rng.permutation(len(illegal))[:12]]:
                        with pytest.raises(IllegalActionError):
                            copy.apply(int(a))
                    _assert_same(copy, twin, f"{where}, after refusing illegal actions")
                    if kind != "original":
                        a = _random_move(twin, rng)
                        copy.apply(a)
                        twin.apply(a)
                        _assert_same(copy, twin, f"{where}, after a legal move")
            st.apply(_random_move(st, rng))
        if st.is_terminal():   # and at the end: the returns
            for kind, copy in [("original", st), ("clone", st.clone()),
                               ("restore", restore(game, st.serialize()))]:
                want = copy.returns().copy()
                _scribble_everything(copy)
                assert np.array_equal(copy.returns(), want), f"seed {seed}: {kind}'s returns changed"
    assert positions >= 2


# ------------------------------------------------------------------------------------------------
# replayable states
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_determinized_samples_are_positions_the_game_can_reach(name, vname, opts):
    """A determinize() sample must respect what is public (e.g. Zaka's set-up rule: a hand that has
    not played yet holds at least min_monsters monsters), so it is a position with a legal move
    for whoever is to act, now and after a few random moves (search plays it). Zaka once dealt an
    army five weapons before its first turn: no legal move, not over, and MCTS crashed."""
    game = envs.make_game(name, **opts)
    for seed in range(3):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal() and len(state.history) < 60:
            if len(state.history) % 3 == 0:
                for k in range(4):
                    sample = state.determinize(state.current_player, np.random.default_rng(k))
                    probe = np.random.default_rng(k)
                    for _ in range(6):
                        if sample.is_terminal():
                            break
                        legal = sample.legal_actions()
                        assert legal, (f"{name} {vname} seed {seed} after {state.history}: a "
                                       f"determinized sample (rng {k}) has no legal move in phase "
                                       f"{sample.phase_name()!r} and is not over")
                        sample.apply(int(probe.choice(legal)))
            state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_every_phase_a_state_reports_is_one_the_game_declares(name, vname, opts):
    """``game.phase_names`` (what a search setting naming a phase is checked against: vroll's
    ``phases=``) holds every ``phase_name()`` a random game passes through, "over" included."""
    game = envs.make_game(name, **opts)
    assert game.phase_names and len(set(game.phase_names)) == len(game.phase_names)
    seen = set()
    for seed in range(3):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while True:
            seen.add(state.phase_name())
            if state.is_terminal() or len(state.history) >= 3000:
                break
            state.apply(int(rng.choice(state.legal_actions())))
    assert seen <= set(game.phase_names), f"{name} {vname}: undeclared phases {sorted(seen - set(game.phase_names))}"
    decisions = [p for p in game.phase_names if p != "over"]
    assert game.unknown_phases(decisions) is None
    assert "'over' is not a phase" in game.unknown_phases(["over"])
    assert f"did you mean {decisions[0]!r}" in game.unknown_phases([decisions[0] + "x"])


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_engine_built_states_serialize_and_restore(name, vname, opts):
    """A state from ``game.new_initial_state`` (a fresh generator, a used one, an int seed) is
    replayable: restore(serialize()) gives the same game."""
    game = envs.make_game(name, **opts)
    used = np.random.default_rng(99)
    used.integers(10)      # a generator whose seed no longer describes it
    for source in (np.random.default_rng(7), used, 12):
        st = game.new_initial_state(source)
        rng = np.random.default_rng(3)
        for _ in range(25):
            if st.is_terminal():
                break
            st.apply(_random_move(st, rng))
        back = restore(envs.make_game(name, **opts), st.serialize())
        _assert_same(back, st, f"restore of a state built from {source!r}")
        assert back.serialize() == st.serialize()


@pytest.mark.parametrize("name", envs.names())
def test_seed_conventions(name):
    """An int seed, a fresh generator of that seed and ``env.reset(seed=...)`` give one game; the
    caller's generator is not the state's (the state owns its randomness)."""
    opts = next(iter(envs.variants(name).values()))
    game = envs.make_game(name, **opts)
    gen = np.random.default_rng(21)
    a, b = game.new_initial_state(21), game.new_initial_state(gen)
    assert a.seed == b.seed == 21 and a.rng is not gen and b.rng is not gen
    env = envs.make(name, **opts)
    env.reset(seed=21)
    for st in (a, b):
        _assert_same(st, env.unwrapped.state_, "int seed vs generator vs env.reset")
    with pytest.raises(ConfigError, match="seed"):
        game.new_initial_state(1.5)


@pytest.mark.parametrize("name", envs.names())
def test_a_determinized_sample_refuses_to_serialize(name):
    opts = next(iter(envs.variants(name).values()))
    st = envs.make_game(name, **opts).new_initial_state(3)
    sample = st.determinize(st.current_player, np.random.default_rng(0))
    with pytest.raises(ValueError, match="replay"):
        sample.serialize()
    st.clone().serialize()   # a clone is the same game: it serializes


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_determinize_takes_a_generator_a_seed_or_none(name, vname, opts):
    """``determinize(seat, rng)``: a Generator (drawn from), an int seed (the same sample each
    time), or None / no argument (a seed from OS entropy, as new_initial_state(None)); anything
    else is a ConfigError naming the seed (it raised AttributeError on None, issue 41)."""
    st = envs.make_game(name, **opts).new_initial_state(3)
    seat = st.current_player
    for rng in (None, 5, np.int64(5), np.random.default_rng(5)):
        sample = st.determinize(seat, rng)
        assert np.array_equal(sample.observation(seat), st.observation(seat))
        assert sample.seed is None
    assert np.array_equal(st.determinize(seat).legal_actions_mask(), st.legal_actions_mask())
    a, b = st.determinize(seat, 11), st.determinize(seat, 11)
    assert _views(a) == _views(b)
    for bad in ("5", 1.5, -1, True, [5], object()):
        with pytest.raises(ConfigError, match="seed"):
            st.determinize(seat, bad)


def _malformed_blobs(game, blob: str, rng) -> list:
    """Mutations of a real saved game ``blob`` that are not one: not JSON (text, truncations,
    bytes, binary garbage), other types, missing / unknown / repeated fields, nesting thousands
    deep, wrong types of each field, another game or options, actions out of range, illegal
    at some step of the replay or after the end."""
    data = json.loads(blob)
    n_act = game.num_actions
    out: list = ["", "x", "null", "[]", "42", '"a string"', "{", blob[:-1], blob + "}", blob[: len(blob) // 2],
                 blob.encode("utf-16"), b"\xff\xfe\x00garbage\x80", bytes(rng.integers(0, 256, 64).tolist()),
                 None, 42, [blob], {"blob": blob},
                 "[" * 100_000 + "]" * 100_000, '{"game": ' + "[" * 50_000 + "]" * 50_000 + "}",
                 blob.replace('"seed"', '"seed": 1, "seed"', 1), "NaN", "{} " + blob]
    out += [json.dumps(blob), "   ", blob.replace(":", "=", 1), blob.replace('"', "'")]
    for cut in rng.integers(1, len(blob) - 1, 8):   # truncated anywhere
        out.append(blob[:int(cut)])

    def edit(**change):
        d = dict(data)
        for k, v in change.items():
            if v is _DROP:
                d.pop(k)
            else:
                d[k] = v
        return json.dumps(d)

    for key in data:
        out.append(edit(**{key: _DROP}))
        out += [edit(**{key: v}) for v in (None, [], {}, "x", 1.5, True)
                if not (key == "options" and v == data["options"]) and not (key == "actions" and v == [])]
    out.append(edit(extra=1))
    out += [edit(game=g) for g in [n for n in envs.names() if n != game.name] + ["", game.name.upper()]]
    out += [edit(options=o) for o in ({"num_players": 99}, dict(data["options"], bogus=1),
                                      [data["options"]])]
    out += [edit(seed=s) for s in (-1, "7", 7.0, 2**64 + 0.5, [7], {"seed": 7})]
    out.append('{"game": %s, "options": %s, "seed": %s, "actions": []}' % (
        json.dumps(data["game"]), json.dumps(data["options"]), "9" * 6000))   # an int too long
    acts = data["actions"]
    out += [edit(actions=acts + [a]) for a in (-1, n_act, n_act + 10**6, 10**30, 1.0, "0", None, True, [0])]
    for i in rng.integers(0, len(acts), 6):   # an action illegal at its step of the replay
        st = game.new_initial_state(data["seed"])
        for a in acts[:int(i)]:
            st.apply(a)
        illegal = np.flatnonzero(st.legal_actions_mask() == 0)
        out.append(edit(actions=acts[:int(i)] + [int(rng.choice(illegal))] + acts[int(i) + 1:]))
    return out


_DROP = object()


@pytest.mark.parametrize("name", envs.names())
def test_restore_refuses_every_malformed_blob_with_one_error(name):
    """``restore`` of anything but a saved game of this variant raises RestoreError (a
    ValueError), one line, for ~100 mutations of a real blob per game; a random byte flipped
    either breaks the blob (RestoreError) or makes another valid save of the same variant
    (issue 41: raw JSONDecodeError, KeyError, TypeError and RecursionError got out)."""
    opts = next(iter(envs.variants(name).values()))
    game = envs.make_game(name, **opts)
    rng = np.random.default_rng(41)
    st = game.new_initial_state(8)
    while not st.is_terminal() and len(st.history) < 30:
        st.apply(_random_move(st, rng))
    blob = st.serialize()
    cases = _malformed_blobs(game, blob, rng)
    assert len(cases) >= 90
    for k, bad in enumerate(cases):
        with pytest.raises(RestoreError) as err:
            restore(game, bad)
        assert "\n" not in str(err.value), f"case {k}: not one line: {str(err.value)[:300]}"
    for _ in range(40):   # a byte flipped anywhere: an error, or a save this variant replays
        i = int(rng.integers(len(blob)))
        flipped = blob[:i] + chr(int(rng.integers(32, 127))) + blob[i + 1:]
        try:
            back = restore(game, flipped)
        except RestoreError:
            continue
        assert back.serialize() == json.dumps(json.loads(flipped))
    assert restore(game, blob).serialize() == blob


@pytest.mark.parametrize("name", envs.names())
def test_views_check_their_observer(name):
    """``render_text`` / ``render_rgb(observer=...)``: None or a seat, checked in one place for
    every game (envs.core.game.check_observer): -1, a bool, a seat too large, a float or a name
    raise ValueError (Zaka drew a player's private view for -1, True, 4 or 9; issue 41)."""
    for opts in envs.variants(name).values():
        st = envs.make_game(name, **opts).new_initial_state(2)
        n = st.game.num_seats
        for bad in (-1, -n, n, n + 5, True, False, np.bool_(True), 1.0, "0", [0], np.int64(-1)):
            with pytest.raises(ValueError, match="observer"):
                st.render_text(observer=bad)
            with pytest.raises(ValueError, match="observer"):
                st.render_rgb(observer=bad)
            with pytest.raises(ValueError, match="observer"):
                st.render_text(bad)   # passed by position too
        assert st.render_text(observer=np.int64(n - 1)) == st.render_text(observer=n - 1)
        for observer in (None, 0, n - 1):
            assert st.render_text(observer=observer)
        assert st.render_rgb(observer=None).ndim == 3


# ------------------------------------------------------------------------------------------------
# options and rules files
# ------------------------------------------------------------------------------------------------
def _takes_config_path(name) -> bool:
    import inspect
    return "config_path" in inspect.signature(type(envs.make_game(name)).__init__).parameters


@pytest.mark.parametrize("name", envs.names())
def test_unknown_and_malformed_options_raise_config_error(name):
    with pytest.raises(ConfigError, match="bogus_option") as err:
        envs.make_game(name, bogus_option=1)
    assert "num_players" in str(err.value)   # names what is allowed
    with pytest.raises(ConfigError, match="bogus_option"):
        envs.make(name, bogus_option=1)
    for bad in ("x", [], 3, ["hidden_hands"]):
        with pytest.raises(ConfigError, match="rules"):
            envs.make_game(name, rules=bad)
    with pytest.raises(ConfigError, match="no_such_rule"):
        envs.make_game(name, rules={"no_such_rule": 1})
    for bad in ("2", 2.0, True, None if name == "peacekeepers_v0" else [2]):
        if bad is None:
            continue
        with pytest.raises(ConfigError, match="num_players"):
            envs.make_game(name, num_players=bad)
    with pytest.raises(ConfigError, match="num_players"):
        envs.make_game(name, num_players=99)


@pytest.mark.parametrize("name", envs.names())
def test_every_declared_option_is_checked(name):
    """The game's option table (one place): the table matches the constructor; each option
    rejects a value of the wrong type, outside its choices and outside its range."""
    import inspect
    cls = type(envs.make_game(name))
    table = cls.OPTIONS
    params = inspect.signature(cls.__init__).parameters
    assert set(table.names()) == set(params) - {"self"}
    for opt in table:
        assert params[opt.name].default == opt.default, f"{opt.name}: default differs from the table"
        bad = [object()]
        if opt.choices is not None:
            bad.append("no-such-choice" if all(isinstance(c, str) for c in opt.choices) else -12345)
        if opt.low is not None:
            bad.append(opt.low - 1)
        if opt.high is not None:
            bad.append(opt.high + 1)
        for value in bad:
            with pytest.raises(ConfigError, match=opt.name):
                cls(**{opt.name: value})


@pytest.mark.parametrize("name", envs.names())
def test_rules_overrides_are_type_checked(name):
    """A rules override of a known key with a value of another type raises (no deep TypeError
    later, no silent play with it)."""
    from tabletop_arena.envs.core.game import read_yaml
    config = importlib.import_module(envs.spec(name).module + ".tables")   # the game's tables
    data = read_yaml(str(config.DEFAULT_CONFIG))
    defaults = data if name == "warbah_v0" else data["rules"]   # Warbah: any table of the file
    for key, value in list(defaults.items())[:6]:
        wrong = "not-a-number" if not isinstance(value, str) else 7
        with pytest.raises(ConfigError, match=key):
            envs.make_game(name, rules={key: wrong})


@pytest.mark.parametrize("name", [n for n in envs.names() if _takes_config_path(n)])
def test_rules_files_are_validated(name, tmp_path):
    """A rules file (config_path) is checked against the default file's schema: unknown keys
    under ``rules:`` or at the top, and values of the wrong type, raise naming key and file."""
    from tabletop_arena.envs.core.resources import config_path as data_file
    base = yaml.safe_load(data_file(name.split("_v")[0] + ".yaml").read_text())
    ok = tmp_path / "ok.yaml"
    ok.write_text(yaml.safe_dump(base))
    envs.make_game(name, config_path=str(ok))   # a faithful copy loads
    key, value = next(iter(base["rules"].items()))
    cases = {
        "unknown_rule": dict(base, rules=dict(base["rules"], unknown_rule=1)),
        "unknown_section": dict(base, unknown_section={"a": 1}),
        key: dict(base, rules=dict(base["rules"], **{key: "not-a-number" if not isinstance(value, str) else 7})),
    }
    for word, data in cases.items():
        path = tmp_path / f"{word}.yaml"
        path.write_text(yaml.safe_dump(data))
        with pytest.raises(ConfigError, match=word) as err:
            envs.make_game(name, config_path=str(path))
        assert str(path) in str(err.value)
    twice = tmp_path / "twice.yaml"  # a key written twice: an error, not the last one winning
    twice.write_text(ok.read_text() + "rules: {}\n")
    with pytest.raises(ConfigError, match="'rules' twice") as err:
        envs.make_game(name, config_path=str(twice))
    assert str(twice) in str(err.value)


# ------------------------------------------------------------------------------------------------
# actions are integers; agents and seats are checked
# ------------------------------------------------------------------------------------------------
def _non_integers(legal: int) -> list:
    return [float(legal), np.float64(legal), str(legal), True, np.bool_(True), None, [legal],
            np.array([legal]), float("nan"), legal + 0.5, np.array(float(legal)), complex(legal)]


@pytest.mark.parametrize("name,vname,opts", CASES, ids=IDS)
def test_non_integer_actions_raise_and_change_nothing(name, vname, opts):
    game = envs.make_game(name, **opts)
    st = game.new_initial_state(5)
    rng = np.random.default_rng(0)
    for _ in range(3):
        nxt = st.clone()
        nxt.apply(_random_move(st, rng))
        if not nxt.is_terminal():
            st = nxt
    legal = int(np.flatnonzero(st.legal_actions_mask())[0])
    before, mask = st.serialize(), st.legal_actions_mask().copy()
    for bad in _non_integers(legal):
        with pytest.raises(IllegalActionError, match="integer"):
            st.apply(bad)
        assert st.serialize() == before and np.array_equal(st.legal_actions_mask(), mask)
    for good in (np.int64(legal), np.int32(legal), np.array(legal)):   # integers all
        c = st.clone()
        c.apply(good)
        assert c.history[-1] == legal and type(c.history[-1]) is int


@pytest.mark.parametrize("name", envs.names())
def test_env_checks_actions_agents_and_reset(name):
    opts = next(iter(envs.variants(name).values()))
    env = envs.make_raw(name, **opts)
    with pytest.raises(RuntimeError, match="reset"):
        env.action_masks()
    env.reset(seed=0)
    obs, *_ = env.last()
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    before = env.state_.serialize()
    agent = env.agent_selection
    for bad in _non_integers(legal):
        with pytest.raises(IllegalActionError, match="integer"):
            env.step(bad)
        assert env.state_.serialize() == before and env.agent_selection == agent
    with pytest.raises(ValueError, match="nobody"):
        env.observe("nobody")
    env.step(np.array(legal))
    assert env.state_.history == [legal]


@pytest.mark.parametrize("name", envs.names())
def test_bad_seats_raise_with_kernels_and_in_python(name, monkeypatch):
    """observation(seat) rejects a negative, too large or non-integer seat, with the compiled
    kernels and with the pure-Python code alike (no wrap-around to another seat's view)."""
    opts = next(iter(envs.variants(name).values()))
    st = envs.make_game(name, **opts).new_initial_state(2)
    n = st.game.num_seats
    bad = [-1, -n, n, n + 3, 1.0, True, "0", None]
    for backend in ("as built", "pure python"):
        if backend == "pure python":
            for mod in list(sys.modules.values()):
                if getattr(mod, "__name__", "").startswith("tabletop_arena.envs.") \
                        and getattr(mod, "KERNELS", None) is not None:
                    monkeypatch.setattr(mod, "KERNELS", None)
        for seat in bad:
            with pytest.raises(ValueError, match="seat"):
                st.observation(seat)
        for seat in range(n):
            assert st.observation(seat).shape == (st.game.observation_size,)
        with pytest.raises(ValueError, match="seat"):
            st.determinize(n, np.random.default_rng(0))


# ------------------------------------------------------------------------------------------------
# rank returns: the results every 3-4 player game hands out
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_rank_returns_are_exact(n):
    """Every pattern of ties among n players: each tie group gets the exact mean of its places'
    values (a middle tie of four is 0.0, not a rounding residue), mirrored results are exact
    opposites, and the sum is zero."""
    from itertools import product

    from tabletop_arena.envs.core.game import rank_returns
    places = [(n - 1 - 2 * p) / (n - 1) for p in range(n)]
    for scores in product(range(n), repeat=n):
        out = rank_returns(list(scores))
        for s in set(scores):
            above = sum(x > s for x in scores)
            group = [i for i, x in enumerate(scores) if x == s]
            want = (n - 1 - 2 * above - (len(group) - 1)) / (n - 1)
            assert all(out[i] == want for i in group), (scores, out)
            assert abs(want - sum(places[above:above + len(group)]) / len(group)) < 1e-12
        mirrored = rank_returns([-x for x in scores])
        assert (mirrored == -out).all(), (scores, out, mirrored)
        assert abs(out.sum()) < 1e-12
    assert rank_returns([5, 3, 3, 1]).tolist() == [1.0, 0.0, 0.0, -1.0]
