"""How many threads the agents' small networks run on: one per process by default, set here only.

An agent's forward pass (one observation, or the 64 rollouts of a ``rollout:16`` decision) is a few
small matrix products: more threads make it no faster, and on a busy machine the extra threads of
a pool spin-wait for work and take the CPU from everything else. Two pools were doing it:

- **numpy's BLAS** (OpenBLAS in numpy's wheels): it starts one thread per core when numpy is
  imported, and the agents' networks run their forward passes in numpy (``agents/nets.py``,
  ``agents/ppo.py``). ``torch.set_num_threads`` does not reach it, which is why the evaluator's
  workers, which set torch's threads only, still ran at 3-4x the CPU (issue 43: ``arena eval zaka
  --agents rollout:16:zaka heuristic --games 4 --workers 2``, 71 s CPU against 16 s with
  ``OMP_NUM_THREADS=1`` set outside; the same games).
- **torch's intra-op pool** (OpenMP, and MKL inside torch): the search agents' and training's
  forward passes; torch starts it with one thread per core unless ``OMP_NUM_THREADS`` says
  otherwise when torch loads.

``limit_threads()`` sets both, in the running process and for what starts later:

- torch, if loaded: ``torch.set_num_threads(n)``, and its inter-op pool to ``n`` while that is
  still possible (torch creates that pool's threads on first use only, so it costs nothing idle);
- the BLAS libraries loaded so far (numpy's OpenBLAS; MKL, BLIS): ``threadpoolctl``'s limits;
- ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` and ``OPENBLAS_NUM_THREADS`` to ``n`` in ``os.environ``:
  a torch imported later starts with ``n`` threads, and child processes (the evaluator's workers,
  Gymnasium's async vector envs, SubprocVecEnv) start every pool at ``n``, with no idle threads.

It runs when ``tabletop_arena.agents`` is imported, which every agent goes through (``make_agent``,
an ``opponent=`` spec inside the single-agent env, the evaluator's workers, ``arena serve``, the
search agents, ``load_maskable_ppo``), and in each evaluation worker. Importing the environments
alone (``tabletop_arena.envs``, the engines, ``gymnasium.make`` with a callable opponent) sets
nothing. Training sets its own threads afterwards (``torch_threads`` and ``update_threads`` in the
training config), and so can a training loop of yours: ``torch.set_num_threads(N)`` after the
agents are built (docs/integrations.md).

``TABLETOP_ARENA_TORCH_THREADS``: the number of threads (default 1); ``0`` leaves every setting
as it is (nothing above is set). Anything else is refused with a one-line ``ValueError``.

This module imports nothing of the project (a leaf: agents/ imports it before numpy loads) and
never imports torch itself.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator

ENV = "TABLETOP_ARENA_TORCH_THREADS"
#: the variables a library reads when it loads (OpenMP, MKL, OpenBLAS), set for later loads and
#: child processes
LIBRARY_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: most threads TABLETOP_ARENA_TORCH_THREADS may ask for
MAX_THREADS = 1024


def configured_threads() -> int | None:
    """The threads ``TABLETOP_ARENA_TORCH_THREADS`` asks for (default 1), or None for ``0`` (leave
    them as they are)."""
    raw = os.environ.get(ENV)
    if raw is None or not raw.strip():
        return 1
    text = raw.strip()
    if not text.isdigit() or int(text) > MAX_THREADS:
        raise ValueError(f"{ENV}={raw!r}: give a whole number of threads from 1 to {MAX_THREADS} "
                         f"for the agents' networks, or 0 to leave torch's and BLAS's threads as they are")
    return int(text) or None


def _set_torch(torch, n: int) -> None:
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    if torch.get_num_interop_threads() != n:
        try:
            torch.set_num_interop_threads(n)
        except RuntimeError:
            # torch allows it once, before any inter-op work; after that the pool stays as it is
            # (its threads start on first use: torch.jit.fork, a few ops the agents do not call)
            pass


def limit_threads() -> int | None:
    """Run torch and the BLAS libraries on ``configured_threads()`` threads in this process and
    in the processes it starts (see the module docstring). Returns that number, or None when
    ``TABLETOP_ARENA_TORCH_THREADS=0`` left everything as it was."""
    n = configured_threads()
    if n is None:
        return None
    for key in LIBRARY_ENV:
        os.environ[key] = str(n)
    torch = sys.modules.get("torch")
    if torch is not None:
        _set_torch(torch, n)
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=n, user_api="blas")
    return n


@contextlib.contextmanager
def limited_threads() -> Iterator[int | None]:
    """``limit_threads()`` for a block, then torch's threads and the BLAS limits as they were (the
    evaluator's games played in the caller's process; a training run's update threads come back).
    The library variables stay set (they matter to libraries loaded and processes started later)."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    from threadpoolctl import threadpool_limits
    blas = threadpool_limits(limits=None, user_api="blas")   # records the limits, changes nothing
    try:
        yield limit_threads()
    finally:
        blas.restore_original_limits()
        if torch is not None and before is not None:
            torch.set_num_threads(before)
