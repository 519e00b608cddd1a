"""Golden traces: seeded random games of every Warbah variant (and the designer's mass-formula
rules) hashed step by step (every seat's observation, the mask, the action and its text,
determinized views, history, returns; tests/warbah/fingerprint.py). Any change of
behaviour fails here; after a deliberate rules change regenerate the hashes with

    python -m tests.warbah.fingerprint --write-golden

and name the rules change in the commit message."""
from __future__ import annotations

import json

import pytest

from tests.warbah import fingerprint as F

GOLDEN = json.loads(F.GOLDEN_FILE.read_text())
CASES = [(v, a, s) for v in F.variants() for a, seeds in F.GOLDEN for s in seeds]


def test_golden_file_covers_every_variant():
    assert sorted(GOLDEN) == sorted(f"{v}/{a}/{s}" for v, a, s in CASES)


@pytest.mark.parametrize("variant,agent,seed", CASES)
def test_golden_trace(variant, agent, seed):
    digest, n, _ = F.play(F.variants()[variant], seed, agent)
    want = GOLDEN[f"{variant}/{agent}/{seed}"]
    assert [digest, n] == want, (
        f"{variant} seed {seed} ({agent} agent) no longer plays as recorded: "
        f"{n} actions, hash {digest}, recorded {want[1]} actions, {want[0]}. If the rules "
        "changed on purpose, run `python -m tests.warbah.fingerprint --write-golden` and "
        "name the change in the commit; otherwise find the first differing step with "
        "`python -m tests.warbah.fingerprint --save before.json` on the old code and "
        "`--compare before.json` on the new.")
