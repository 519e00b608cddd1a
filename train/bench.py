"""Speed benchmark: steps/s of random legal play through each env's ``env()`` with observations,
against PettingZoo's ``connect_four_v3`` measured in the same run.

Every env is driven by the same loop (``agent_iter`` / ``last`` / ``step`` with a uniformly random
legal action), so the ratio compares like with like. Numbers are printed, never asserted.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import envs


@dataclass
class BenchResult:
    name: str
    variant: str
    steps: int
    games: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def drive(env, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Play random legal games on ``env`` for about ``seconds``; return (steps, games, elapsed)."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def reference_env():
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:  # pygame missing
        raise SystemExit(f"connect_four_v3 unavailable ({exc}); pip install pygame") from exc
    return connect_four_v3.env()


def run(names: list[str] | None = None, seconds: float = 3.0, all_variants: bool = False,
        rounds: int = 2) -> list[BenchResult]:
    """Measure each env (alternating with the reference over ``rounds`` to share machine noise)."""
    targets = []
    for name in names or envs.names():
        name = envs.resolve(name)
        variants = envs.variants(name)
        chosen = variants.items() if all_variants else list(variants.items())[:1]
        targets.extend((name, vname, opts) for vname, opts in chosen)
    totals: dict[tuple[str, str], list[float]] = {}
    ref = reference_env()
    made = {(n, v): envs.make(n, **o) for n, v, o in targets}
    for r in range(rounds):
        jobs = [("connect_four_v3", "default", ref)] + [(n, v, made[(n, v)]) for n, v, _ in targets]
        for name, vname, env in jobs:
            steps, games, dt = drive(env, seconds / rounds, seed=1000 * r)
            acc = totals.setdefault((name, vname), [0, 0, 0.0])
            acc[0] += steps
            acc[1] += games
            acc[2] += dt
    return [BenchResult(n, v, int(s), int(g), t) for (n, v), (s, g, t) in totals.items()]


def format_table(results: list[BenchResult]) -> str:
    ref = next(r for r in results if r.name == "connect_four_v3")
    lines = ["| env | variant | steps/s | steps/game | x connect_four_v3 |",
             "|---|---|---:|---:|---:|"]
    for r in results:
        per_game = r.steps / max(1, r.games)
        lines.append(f"| {r.name} | {r.variant} | {r.steps_per_s:,.0f} | {per_game:.0f} | "
                     f"{r.steps_per_s / ref.steps_per_s:.2f} |")
    return "\n".join(lines)
