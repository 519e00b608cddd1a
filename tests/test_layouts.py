"""Observation and action layouts are versioned: a change needs a new env id (issue 19).

A trained policy is tied to the layout it was trained on, and the env id is how a user tells
layouts apart (PettingZoo's ``_vN`` convention). ``tests/layouts.json`` records, per registered env
id and variant, the number of actions, the observation's named pieces, the observation space's
shape and the board-aligned action ranges. The test fails when any of them changes under the same
id. Then bump the version: a new id ``<game>_v<N+1>`` (``envs/__init__.py`` and the Game's
``name``), a line in the version table of ``envs/<game>/aec_env.py``'s docstring, and record it::

    python -m tests.test_layouts --update

``--update`` adds ids and variants not yet recorded and never rewrites a recorded one (the record
of an id that was released is history); ``--force`` rewrites, for a layout never released.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tabletop_arena import envs
from tabletop_arena.envs.docs import env_docstring

RECORD = Path(__file__).with_name("layouts.json")
UPDATE = "python -m tests.test_layouts --update"
CASES = [(name, vname) for name in envs.names() for vname in envs.variants(name)]


def layout(name: str, vname: str) -> dict:
    """What a policy trained on ``name`` / ``vname`` depends on."""
    options = envs.variants(name)[vname]
    env = envs.make_raw(name, **options)
    game = env.game
    agent = env.possible_agents[0]
    return {"options": options,
            "num_actions": int(env.action_space(agent).n),
            "observation_shape": list(env.observation_space(agent)["observation"].shape),
            "observation_layout": [[piece, [int(x) for x in shape]] for piece, shape in game.observation_layout],
            "spatial_actions": [[int(x) for x in r] for r in game.spatial_actions]}


def recorded() -> dict:
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


@pytest.mark.parametrize("name,vname", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_layout_matches_the_record_of_its_env_id(name, vname):
    record = recorded().get(name, {}).get(vname)
    assert record is not None, f"no recorded layout for {name} variant {vname!r}: record it with {UPDATE}"
    now = layout(name, vname)
    changed = [key for key in now if now[key] != record.get(key)]
    assert not changed, (
        f"{name} ({vname}): {', '.join(changed)} changed under the same env id "
        f"(recorded {[record.get(k) for k in changed]}, now {[now[k] for k in changed]}). "
        f"Bump the env id version ({name.split('_v')[0]}_v{int(name.split('_v')[1]) + 1}), add a line to "
        f"envs/{name.split('_v')[0]}/aec_env.py's version table, then regenerate with {UPDATE}")


@pytest.mark.parametrize("name", envs.names())
def test_version_table_names_the_current_version(name):
    """The env docstring's version history has an entry for the registered version."""
    game = name.split("_v")[0]
    doc = env_docstring(name)
    history = doc.split("Version history", 1)
    assert len(history) == 2, f"the adapter docstring of envs/{game} has no 'Version history'"
    version = "v" + name.split("_v")[1]
    assert re.search(rf"\b{version}\b", history[1]), \
        f"the adapter docstring of envs/{game} has no version history entry for {version}"


def update(force: bool = False) -> int:
    data = recorded()
    added, refused = [], []
    for name, vname in CASES:
        now = layout(name, vname)
        old = data.setdefault(name, {}).get(vname)
        if old is None or force:
            data[name][vname] = now
            added.append(f"{name} {vname}")
        elif old != now:
            refused.append(f"{name} {vname}")
    lines = []
    for name in sorted(data):   # one line per variant: a layout change reads as a one-line diff
        rows = [f"  {json.dumps(v)}: {json.dumps(data[name][v], sort_keys=True)}" for v in sorted(data[name])]
        lines.append(f" {json.dumps(name)}: {{\n" + ",\n".join(rows) + "\n }")
    RECORD.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"recorded: {', '.join(added) or 'nothing new'}")
    if refused:
        print(f"NOT rewritten (changed under a released id; bump its version): {', '.join(refused)}")
        return 1
    return 0


if __name__ == "__main__":
    if "--update" not in sys.argv[1:]:
        print(__doc__)
        sys.exit(2)
    sys.exit(update(force="--force" in sys.argv[1:]))
