"""Speed benchmark: steps/s of random legal play through each env's ``env()`` with observations,
against PettingZoo's ``connect_four_v3`` measured in the same run.

Every env is driven by the same loop (``train.play.play_env``: ``agent_iter`` / ``last`` /
``step`` with a uniformly random legal action), so the ratio compares like with like. Numbers are
printed, never asserted.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .. import envs
from ..agents.base import RandomAgent
from ..train.play import play_env


@dataclass
class BenchResult:
    name: str
    variant: str
    steps: int
    games: int
    seconds: float
    #: steps/s of each round (the reference is measured right before the envs in every round)
    round_rates: list = field(default_factory=list)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def random_players(env, seed: int) -> dict:
    """One uniformly random agent (seeded with ``seed``) moving for every agent name of ``env``."""
    return dict.fromkeys(env.possible_agents, RandomAgent(seed))


def drive(env, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Play random legal games on ``env`` (``train.play.play_env``) for about ``seconds``; return
    (steps, games, elapsed)."""
    players = random_players(env, seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_env(env, players, seed + games)
        games += 1
    return steps, games, time.perf_counter() - start


def warm_up(env, seed: int = 10**6) -> None:
    """Play one random game untimed, so a round does not time modules imported on first use."""
    play_env(env, random_players(env, seed), seed)


class ReferenceUnavailable(RuntimeError):
    """PettingZoo's connect_four_v3 cannot be built here (it imports pygame)."""


def reference_env():
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:  # pygame missing (the train extra installs it)
        raise ReferenceUnavailable(f"the reference connect_four_v3 is unavailable ({exc}); measuring "
                                   f"without it (pip install pygame, or the train extra, adds it)") from None
    return connect_four_v3.env()


def run(names: list[str] | None = None, seconds: float = 3.0, all_variants: bool = False,
        rounds: int = 2, options: dict | None = None, reference: bool = True) -> list[BenchResult]:
    """Measure each env (alternating with the reference over ``rounds`` to share machine noise).

    ``options``: measure each named game with these env options (variant "custom") instead of its
    registered variants. ``reference=False`` leaves connect_four_v3 out.
    """
    targets = []
    for name in names or envs.names():
        name = envs.resolve(name)
        if options is not None:
            targets.append((name, "custom", dict(options)))
            continue
        variants = envs.variants(name)
        chosen = variants.items() if all_variants else list(variants.items())[:1]
        targets.extend((name, vname, opts) for vname, opts in chosen)
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive int, got {rounds!r}")
    if not seconds > 0:
        raise ValueError(f"seconds must be positive, got {seconds!r}")
    totals: dict[tuple[str, str], BenchResult] = {}
    jobs = [("connect_four_v3", "default", reference_env())] if reference else []
    made = {(n, v): envs.make(n, **o) for n, v, o in targets}
    jobs += [(n, v, made[(n, v)]) for n, v, _ in targets]
    for _, _, env in jobs:   # warm-up, untimed: first-use imports and caches (all envs alike)
        warm_up(env)
    for r in range(rounds):
        for name, vname, env in jobs:
            steps, games, dt = drive(env, seconds / rounds, seed=1000 * r)
            acc = totals.setdefault((name, vname), BenchResult(name, vname, 0, 0, 0.0))
            acc.steps += steps
            acc.games += games
            acc.seconds += dt
            acc.round_rates.append(steps / dt if dt else 0.0)
    return list(totals.values())


def round_ratios(result: BenchResult, ref: BenchResult) -> list[float]:
    """The ratio to the reference in each round (both measured back to back in that round)."""
    return [x / y for x, y in zip(result.round_rates, ref.round_rates) if y]


def format_table(results: list[BenchResult]) -> str:
    """Markdown table: steps/s over all rounds, the ratio to connect_four_v3, and (with two or
    more rounds) the lowest and highest per-round ratio, which shows how noisy the machine was."""
    ref = next((r for r in results if r.name == "connect_four_v3"), None)
    if ref is None:  # measured without the reference: no ratios
        lines = ["| env | variant | steps/s | steps/game |", "|---|---|---:|---:|"]
        lines += [f"| {r.name} | {r.variant} | {r.steps_per_s:,.0f} | {r.steps / max(1, r.games):.0f} |"
                  for r in results]
        return "\n".join(lines)
    spread = len(ref.round_rates) > 1
    lines = ["| env | variant | steps/s | steps/game | x connect_four_v3 |"
             + (" per-round range |" if spread else ""),
             "|---|---|---:|---:|---:|" + ("---:|" if spread else "")]
    for r in results:
        per_game = r.steps / max(1, r.games)
        row = (f"| {r.name} | {r.variant} | {r.steps_per_s:,.0f} | {per_game:.0f} | "
               f"{r.steps_per_s / ref.steps_per_s:.2f} |")
        if spread:
            rr = round_ratios(r, ref)
            row += f" {min(rr):.2f}-{max(rr):.2f} |" if rr else " - |"
        lines.append(row)
    return "\n".join(lines)
