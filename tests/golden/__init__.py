"""Golden playthroughs: one seeded game per registered env, recorded step by step, so that a
silent change of rules behaviour (or of an observation, a mask, a reward) fails a test.

Each ``tests/golden/<env id>.golden`` holds the env id, its options, the reset seed, the seed of
the random legal-action policy and, for every step of the first ``STEPS`` steps through the
PettingZoo AEC env: the step number, the agent to act, the action taken, and short hashes of
every living agent's observation, the acting agent's action mask and the rewards of the step;
then the end of the recording (steps taken, terminal or not, final returns).

After a deliberate rules change, regenerate and review the diff before committing::

    python -m tests.golden --update            # every game
    python -m tests.golden --update zaka_v0    # one game
    REGENERATE_GOLDEN=1 python -m pytest tests/golden   # the same from pytest
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from tabletop_arena import envs

HERE = Path(__file__).parent
#: env id -> env options of its golden game (the default variant of each game)
GAMES: dict[str, dict] = {
    "gorgasali_v0": {},
    "peacekeepers_v0": {},
    "warbah_v0": {},
    "zaberias_v0": {},
    "zaka_v0": {},
}
SEED = 0          # env.reset(seed=SEED)
POLICY_SEED = 1   # np.random.default_rng(POLICY_SEED) picks uniformly among the legal actions
STEPS = 1000      # AEC steps recorded at most (dead steps included); shorter games are recorded whole
REGENERATE = ("python -m tests.golden --update {name}   "
              "(or REGENERATE_GOLDEN=1 python -m pytest tests/golden)")


def path(name: str) -> Path:
    return HERE / f"{name}.golden"


def _h(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]


def record(name: str) -> list[str]:
    """Play the golden game of ``name`` and return its lines (header included)."""
    options = GAMES[name]
    env = envs.make(name, **options)
    env.reset(seed=SEED)
    rng = np.random.default_rng(POLICY_SEED)
    lines = [f"# Golden playthrough of {name}; regenerate after a deliberate rules change with",
             f"#   {REGENERATE.format(name=name)}",
             "# step agent action obs=<all living agents' observations> mask=<the actor's mask> "
             "rew=<the step's rewards>",
             f"env={name}", f"options={json.dumps(options, sort_keys=True)}",
             f"seed={SEED}", f"policy_seed={POLICY_SEED}", f"steps={STEPS}"]
    for i, agent in enumerate(env.agent_iter(STEPS)):
        obs, _, term, trunc, _ = env.last()
        mask = np.asarray(obs["action_mask"], np.int8)
        seen = b"".join(np.asarray(env.observe(a)["observation"], np.float32).tobytes()
                        for a in env.agents)
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(len(legal))])
        rewards = ",".join(repr(float(env.rewards.get(a, 0.0))) for a in env.possible_agents)
        lines.append(f"{i} {agent} {action} obs={_h(seen)} mask={_h(mask.tobytes())} "
                     f"rew={_h(rewards.encode())}")
        env.step(action)
    state = env.unwrapped.state_
    returns = ",".join(repr(float(x)) for x in state.returns())
    lines.append(f"end actions={len(state.history)} terminal={state.is_terminal()} "
                 f"returns={returns}")
    return lines


def write(name: str) -> Path:
    p = path(name)
    p.write_text("\n".join(record(name)) + "\n")
    return p


def compare(name: str) -> str | None:
    """None when the recording matches the golden file, else a message naming the first
    difference and how to regenerate."""
    p = path(name)
    got = record(name)
    if not p.exists():
        return f"no golden file {p}; create it with {REGENERATE.format(name=name)}"
    want = p.read_text().splitlines()
    for k, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return (f"golden playthrough of {name} differs at line {k + 1} of {p.name}:\n"
                    f"  expected: {a}\n  got:      {b}\n"
                    "If the rules changed on purpose, regenerate and review the diff:\n"
                    f"  {REGENERATE.format(name=name)}")
    if len(want) != len(got):
        return (f"golden playthrough of {name}: {len(want)} lines expected, {len(got)} recorded; "
                f"regenerate after a deliberate change: {REGENERATE.format(name=name)}")
    return None
