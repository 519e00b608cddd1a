"""``python -m tests.golden [--update] [env id ...]``: check (default) or rewrite the golden
playthroughs (see tests/golden/__init__.py)."""
from __future__ import annotations

import argparse
import sys

from . import GAMES, compare, write


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    ap.add_argument("--update", action="store_true", help="rewrite the golden files")
    ap.add_argument("games", nargs="*", help=f"env ids (default: all of {sorted(GAMES)})")
    args = ap.parse_args(argv)
    bad = [g for g in args.games if g not in GAMES]
    if bad:
        ap.error(f"unknown golden game(s) {bad}; known: {sorted(GAMES)}")
    failed = 0
    for name in args.games or sorted(GAMES):
        if args.update:
            print(f"wrote {write(name)}")
            continue
        msg = compare(name)
        print(f"{name}: " + ("ok" if msg is None else msg))
        failed += msg is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
