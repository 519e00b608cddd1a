"""Invariant fuzzing over fresh seeds, for a time budget (a developer tool, not part of pytest).

The whole-game invariants of ``tests/<game>/test_invariants.py`` run in CI on a few fixed seeds.
This plays new seeded random games of every registered variant (plus Warbah's mass-formula
rules) until the budget is spent and prints each game that breaks one, with the seed to replay
(where the compiled kernels are built, Peacekeepers positions are also checked
kernel == Python, tests/accel_checks.py):

    python -m tests.fuzz --minutes 10 [--seed 5000] [--games warbah zaka]

Exit status 1 if any game broke an invariant.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time

import numpy as np

from tabletop_arena import envs
from tabletop_arena.envs.core.accel import KERNELS
from tests.accel_checks import MISMATCHES
from tests.random_play import play_checking

#: game -> the module whose ``violations(state)`` lists what is wrong with a position
CHECKS = {"peacekeepers_v0": "tests.peacekeepers.test_engine_invariants",
          "warbah_v0": "tests.warbah.test_invariants", "zaka_v0": "tests.zaka.test_invariants",
          "zaberias_v0": "tests.zaberias.test_invariants",
          "gorgasali_v0": "tests.gorgasali.test_invariants"}
#: extra option sets beyond the registered variants (rules that only tests exercise otherwise)
EXTRA = {"warbah_v0": {"2p_mass": dict(num_players=2, rules={"mass_formula": True}),
                       "3p_mass": dict(num_players=3, rules={"mass_formula": True}),
                       "4p_allies_mass": dict(num_players=4, allies=True,
                                              rules={"mass_formula": True})}}


def _with_kernels(violations, mismatches):
    return lambda st: violations(st) + [f"kernel != Python: {m}" for m in mismatches(st)]


def cases(names: list[str]) -> list[tuple[str, str, dict, object]]:
    out = []
    for name in names:
        violations = importlib.import_module(CHECKS[name]).violations
        if KERNELS is not None and name in MISMATCHES:   # and kernel == Python at each state
            violations = _with_kernels(violations, MISMATCHES[name])
        for vname, opts in {**envs.variants(name), **EXTRA.get(name, {})}.items():
            out.append((name, vname, opts, violations))
    return out


def fuzz(minutes: float, seed: int, names: list[str]) -> tuple[int, list[str]]:
    """Play one game per case and seed, seed after seed, for ``minutes``; (games, failures)."""
    deadline = time.monotonic() + 60 * minutes
    games, failures = 0, []
    todo = [(n, v, envs.make_game(n, **o), viol) for n, v, o, viol in cases(names)]
    while time.monotonic() < deadline:
        for name, vname, game, violations in todo:
            st = game.new_initial_state(np.random.default_rng(seed))
            st.seed = seed
            try:
                play_checking(st, np.random.default_rng(seed), violations, f"{name} {vname} seed {seed}")
            except AssertionError as exc:
                failures.append(str(exc))
                print("FAIL", exc, flush=True)
            games += 1
        seed += 1
    return games, failures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=5000, help="first seed (games use seed, seed+1, ...)")
    ap.add_argument("--games", nargs="*", default=list(CHECKS),
                    help=f"games to fuzz (default all: {', '.join(CHECKS)})")
    args = ap.parse_args(argv)
    names = [envs.resolve(g) for g in args.games]
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        ap.error(f"no invariants for {unknown}; choose from {list(CHECKS)}")
    games, failures = fuzz(args.minutes, args.seed, names)
    print(f"{games} games, {len(failures)} broke an invariant")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
