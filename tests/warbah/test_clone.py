"""WarbahState.clone() and the records' own clone(): a copy shares no writable object with the
original (the game's tables excepted), so play on a copy (search, the heuristic agent, a
determinized sample) never changes the original. Checked by walking both object graphs at
points of seeded games of every variant, and by playing on copies."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tabletop_arena import envs

_ATOMS = (int, float, complex, str, bytes, bool, type(None), range, np.generic, np.dtype)


def _writables(root) -> dict:
    """id -> path of every writable object reachable from the state ``root`` (the game and
    generators not followed)."""
    out: dict = {}
    seen: set = set()
    stack = [(v, k) for k, v in vars(root).items() if k != "game"]
    while stack:
        obj, path = stack.pop()
        if isinstance(obj, _ATOMS) or id(obj) in seen or isinstance(obj, np.random.Generator):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            if obj.flags.writeable:
                out[id(obj)] = path
                if isinstance(obj.base, np.ndarray):
                    out[id(obj.base)] = path + " (base)"
            continue
        if isinstance(obj, (list, set, dict)):
            out[id(obj)] = path
        if isinstance(obj, dict):
            stack.extend((v, f"{path}[{k!r}]") for k, v in obj.items())
            stack.extend((k, f"{path} key") for k in obj)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(obj))
        elif dataclasses.is_dataclass(obj):
            out[id(obj)] = path
            stack.extend((getattr(obj, f.name), f"{path}.{f.name}")
                         for f in dataclasses.fields(obj))
    return out


def _shared(a, b) -> list:
    wa, wb = _writables(a), _writables(b)
    return sorted(wa[i] for i in wa.keys() & wb.keys())


def _views(st) -> bytes:
    parts = [st.legal_actions_mask().tobytes(), st.phase.encode()]
    parts += [st.observation(s).tobytes() for s in range(st.game.num_seats)]
    return b"".join(parts)


VARIANTS = {**envs.variants("warbah_v0"),
            "3p_mass": dict(num_players=3, rules={"mass_formula": True})}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_clone_shares_nothing_writable_and_play_on_it_leaves_the_original(variant):
    game = envs.make_game("warbah_v0", **VARIANTS[variant])
    for seed in (0, 1):
        st = game.new_initial_state(np.random.default_rng(seed))
        rng, probe = np.random.default_rng(100 + seed), np.random.default_rng(200 + seed)
        step = 0
        while not st.is_terminal() and step < 300:
            if step % 9 == 0:
                before = _views(st)
                for kind, c in (("clone", st.clone()),
                                ("determinize", st.determinize(st.current_player, probe))):
                    shared = _shared(st, c)
                    assert not shared, f"seed {seed} step {step}: {kind} shares {shared[:6]}"
                    assert not _shared(c, c.clone()), f"{kind}().clone() shares"
                    for _ in range(8):  # play on the copy
                        if c.is_terminal():
                            break
                        legal = np.flatnonzero(c.legal_actions_mask())
                        c.apply(int(legal[probe.integers(len(legal))]))
                assert _views(st) == before, f"seed {seed} step {step}: the original changed"
            legal = np.flatnonzero(st.legal_actions_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
            step += 1
