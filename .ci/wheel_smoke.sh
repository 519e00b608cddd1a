#!/usr/bin/env bash
# Wheel smoke test (issue 17): build a wheel, install it without -e into a fresh virtual
# environment, and use it from a folder outside the repository that has its own envs/ package
# and train.py (the names a research repo typically has), so nothing may resolve to them.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$repo"
wheel="$(ls "$work"/dist/tabletop_arena-*.whl)"
echo "wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
# the base install alone (no extra, no torch): every game renders each mode it advertises
# (rgb_array needs Pillow, a base dependency), and gymnasium.make works on every id
"$work/venv/bin/python" -m pip install --quiet "${wheel}"
(cd "$work" && "$work/venv/bin/python" - <<'PY'
import contextlib
import io
import sys
import warnings

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from tabletop_arena import envs

# check_env steps unmasked samples: an illegal move ends the game with a warning, as documented
warnings.simplefilter("ignore", envs.IllegalMoveWarning)
for name in envs.names():
    env = envs.make(name)
    with contextlib.redirect_stdout(io.StringIO()):   # "human" prints the board
        for mode in env.metadata["render_modes"]:
            env = envs.make(name, render_mode=mode)
            env.reset(seed=0)
            out = env.render()
            assert mode != "rgb_array" or (isinstance(out, np.ndarray) and out.ndim == 3), (name, mode)
        check_env(gymnasium.make(envs.gymnasium_id(name), render_mode="rgb_array").unwrapped)
    print(f"base install: {name} renders {env.metadata['render_modes']}, check_env passes")
assert "torch" not in sys.modules
PY
)
# the commands on the base install (issue 47 item 2): what needs an extra says which, in one line
# with the distribution's name (exit 2, no traceback); an evaluation of the built-in agents runs
needs_extra() {
    local code=0
    (cd "$work" && "$work/venv/bin/arena" "$@" </dev/null >"$work/out.txt" 2>"$work/err.txt") || code=$?
    if [ "$code" -ne 2 ] || [ "$(grep -c . "$work/err.txt")" -ne 1 ] || grep -q Traceback "$work/err.txt" \
            || ! grep -qF "pip install 'tabletop-arena[train]'" "$work/err.txt"; then
        echo "base install: arena $* exited $code; expected 2 and one line naming pip install 'tabletop-arena[train]':"
        cat "$work/err.txt"
        exit 1
    fi
    echo "base install: arena $* -> $(cat "$work/err.txt")"
}
needs_extra train zaka --timesteps 64 --out "$work/base_train" --no-progress
needs_extra quickstart --timesteps 64 --out "$work/base_quickstart" --no-progress
needs_extra eval zaka --agents ppo:zaka random --games 2 --out "$work/base_eval_ppo"
needs_extra play zaka --opponents ppo:zaka
(cd "$work" && "$work/venv/bin/arena" eval zaka --agents heuristic random --games 2 --workers 1 \
    --out "$work/base_eval" >"$work/out.txt")
grep -qF "report.png needs matplotlib: pip install 'tabletop-arena[train]'" "$work/out.txt"
echo "base install: arena eval zaka --agents heuristic random runs (report.md, report.json; no picture)"
"$work/venv/bin/python" -m pip install --quiet torch==2.13.0
"$work/venv/bin/python" -m pip install --quiet "${wheel}[train]"
mkdir -p "$work/research/envs"
echo 'raise ImportError("the research repo own envs package was imported")' > "$work/research/envs/__init__.py"
echo 'raise ImportError("the research repo own train.py was imported")' > "$work/research/train.py"
cd "$work/research"
"$work/venv/bin/python" - <<'PY'
import numpy as np
import tabletop_arena
from tabletop_arena import envs
from tabletop_arena.agents import make_agent
from tabletop_arena.envs.core.accel import backend

assert "site-packages" in tabletop_arena.envs.__file__, tabletop_arena.envs.__file__
for name in envs.names():
    env = envs.make(name)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    print(f"played {name}: {steps} steps, returns {env.unwrapped.state_.returns().tolist()}")
game = envs.make_game("peacekeepers_v0")
agent = make_agent("ppo:peacekeepers", game, seed=0)
print(f"shipped agent ppo:peacekeepers -> {agent.path}")
agent = make_agent("vlook:gorgasali", envs.make_game("gorgasali_v0", num_players=2), seed=0)
print(f"shipped agent vlook:gorgasali -> {agent.path} (searches {sorted(agent.phases)})")
from tabletop_arena.envs.core.resources import data_path
assert data_path("app", "static", "play.html").is_file(), "arena serve's page is not in the wheel"
print(f"tabletop_arena {tabletop_arena.__version__} from {tabletop_arena.__file__}; {backend()}")
PY
"$work/venv/bin/arena" list | head -3
"$work/venv/bin/arena" bench zaka --seconds 0.4 --rounds 1   # the train extra brings pygame
echo "wheel smoke test passed"
