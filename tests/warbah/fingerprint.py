"""Behaviour fingerprints of Warbah: seeded games of every variant hashed step by step.

A developer tool (and the helper behind tests/warbah/test_golden.py): it plays seeded games with
uniformly random legal moves and with the heuristic agent (agents/warbah.py, which reads a clone
of the state), and hashes, at every step, every seat's observation, the legal-action mask, the
action and its ``action_to_str``; every 25 steps a determinized view (its observations and
mask); at the end the history and the returns. Two code versions that print the same hashes
play every one of these games identically. The renders are presentation, not rules, and are not
hashed (tests/warbah/test_render.py and tests/test_render.py cover them).

    python -m tests.warbah.fingerprint                      # print the hashes
    python -m tests.warbah.fingerprint --save base.json     # keep per-step hashes
    python -m tests.warbah.fingerprint --compare base.json  # first differing step per game
    python -m tests.warbah.fingerprint --write-golden       # rewrite golden_traces.json

``golden_traces.json`` holds the hashes of a few random games per variant (``GOLDEN``); the test
tests/warbah/test_golden.py replays them, so any change of behaviour fails it. After a deliberate
rules change, regenerate the file with ``--write-golden`` and say why in the commit.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from tabletop_arena import envs

#: the registered variants plus the designer's mass-formula rules (tests/fuzz.py EXTRA)
MASS = {"2p_mass": dict(num_players=2, rules={"mass_formula": True}),
        "3p_mass": dict(num_players=3, rules={"mass_formula": True}),
        "4p_allies_mass": dict(num_players=4, allies=True, rules={"mass_formula": True})}


def variants() -> dict:
    return {**envs.variants("warbah_v0"), **MASS}


def play(options: dict, seed: int, agent: str = "random", steps: bool = False):
    """One seeded game; returns (game hash, number of actions, [per-step hash] if ``steps``)."""
    game = envs.make_game("warbah_v0", **options)
    st = game.new_initial_state(np.random.default_rng(seed))
    st.seed = seed
    rng = np.random.default_rng(seed + 100)
    agents = None
    if agent == "heuristic":
        from tabletop_arena.agents.warbah import HeuristicAgent
        agents = [HeuristicAgent(game, seed + s) for s in range(game.num_seats)]
    total = hashlib.blake2b(digest_size=16)
    per_step = []
    n = 0
    while not st.is_terminal():
        h = hashlib.blake2b(digest_size=8)
        for seat in range(game.num_seats):
            h.update(st.observation(seat).tobytes())
        mask = st.legal_actions_mask()
        h.update(mask.tobytes())
        h.update(st.phase.encode())
        h.update(str(st.current_player).encode())
        p = st.current_player
        if n % 25 == 0:
            view = st.determinize(p, np.random.default_rng(n))
            for seat in range(game.num_seats):
                h.update(view.observation(seat).tobytes())
            h.update(view.legal_actions_mask().tobytes())
        if agents is None:
            legal = np.flatnonzero(mask)
            a = int(legal[rng.integers(len(legal))])
        else:
            obs = {"observation": st.observation(p), "action_mask": mask}
            a = int(agents[p].act(obs, st.clone()))
        h.update(f"{a}:{st.action_to_str(a)}".encode())
        st.apply(a)
        n += 1
        d = h.digest()
        total.update(d)
        if steps:
            per_step.append(d.hex())
    h = hashlib.blake2b(digest_size=8)
    for seat in range(game.num_seats):
        h.update(st.observation(seat).tobytes())
    h.update(repr(list(st.history)).encode())
    h.update(np.asarray(st.returns(), np.float64).tobytes())
    total.update(h.digest())
    if steps:
        per_step.append(h.digest().hex())
    return total.hexdigest(), n, per_step


#: the games of a full fingerprint: (agent, seeds) per variant
PLAN = (("random", range(16)), ("heuristic", range(6)))


#: the games of the golden traces (tests/warbah/test_golden.py): random agents only, so that a
#: change of the heuristic agent does not read as a change of the rules
GOLDEN = (("random", range(3)),)
GOLDEN_FILE = Path(__file__).with_name("golden_traces.json")


def golden() -> dict:
    """{"variant/agent/seed": [game hash, actions]} of the golden games."""
    return {k: [v[0], v[1]] for k, v in fingerprint(plan=GOLDEN).items()}


def fingerprint(steps: bool = False, plan=PLAN) -> dict:
    out = {}
    for vname, opts in variants().items():
        for agent, seeds in plan:
            for seed in seeds:
                out[f"{vname}/{agent}/{seed}"] = play(opts, seed, agent, steps)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--save", help="write the per-step hashes to this JSON file")
    ap.add_argument("--compare", help="compare with a file written by --save")
    ap.add_argument("--write-golden", action="store_true",
                    help=f"rewrite {GOLDEN_FILE.name} (after a deliberate rules change)")
    args = ap.parse_args(argv)
    if args.write_golden:
        with open(GOLDEN_FILE, "w") as fh:
            json.dump(golden(), fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"wrote {GOLDEN_FILE}")
        return 0
    t0 = time.perf_counter()
    res = fingerprint(steps=bool(args.save or args.compare))
    total = hashlib.blake2b(digest_size=16)
    for key, (digest, n, _) in res.items():
        print(f"{key:32s} {n:5d} actions  {digest}")
        total.update(digest.encode())
    print(f"ALL {total.hexdigest()}  ({time.perf_counter() - t0:.1f} s)")
    if args.save:
        with open(args.save, "w") as fh:
            json.dump({k: v[2] for k, v in res.items()}, fh)
    if args.compare:
        with open(args.compare) as fh:
            base = json.load(fh)
        bad = 0
        for key, (_, _, per_step) in res.items():
            old = base.get(key)
            if old != per_step:
                bad += 1
                first = next((i for i, (x, y) in enumerate(zip(old or [], per_step)) if x != y),
                             min(len(old or []), len(per_step)))
                print(f"DIFFERS {key}: first at step {first} "
                      f"({len(old or [])} vs {len(per_step)} steps)")
        print("identical" if not bad else f"{bad} games differ")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
