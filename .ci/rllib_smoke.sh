#!/usr/bin/env bash
# The Ray RLlib backend (issue 22) in its own virtual environment: ray[rllib]==2.60.0 pins
# gymnasium==1.2.2, while the main CI environment keeps the newer gymnasium for everything else.
# The venv sees the main environment's packages (--system-site-packages: CPU torch, SB3, ...), so
# installing the [train,rllib,test] extras into it adds only Ray, its dependencies and gymnasium
# 1.2.2, all inside the venv; the script checks that torch was not replaced. Then the rllib tests:
# the multi-agent env over every game, the masking module, and one-iteration training runs on two
# games on a local Ray whose policies `arena eval` loads (tests/test_rllib.py).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
python -m venv --system-site-packages "$work/rllib-venv"
py="$work/rllib-venv/bin/python"
torch_before="$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
"$py" -m pip install --quiet -e "$repo[train,rllib,test]"
torch_after="$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
if [ "$torch_before" != "$torch_after" ]; then
    echo "the [rllib] extra replaced torch $torch_before with $torch_after" >&2
    exit 1
fi
t1=$(date +%s)
echo "rllib venv: $("$py" -c 'import ray, gymnasium; print(f"ray {ray.__version__}, gymnasium {gymnasium.__version__}")'), torch $torch_after; install $((t1 - t0)) s"
cd "$repo"
"$py" -m pytest -p no:cacheprovider -q -m "rllib and not slow" tests/test_rllib.py \
    -W ignore::UserWarning -W ignore::DeprecationWarning
echo "rllib tests: $(( $(date +%s) - t1 )) s"
