"""How ``arena`` stops on SIGINT (Ctrl-C) and SIGTERM: at once where a stop loses nothing, at the
next safe point where a checkpoint can be saved, never with a traceback, and never leaving a child
process behind.

- ``stop_raises``: around a command, SIGINT and SIGTERM both raise ``Stopped`` (a
  ``KeyboardInterrupt`` carrying the signal), so ``with Pool(...)`` and ``finally`` blocks end
  their worker processes on SIGTERM as they do on Ctrl-C (SIGTERM's default action kills the
  process at once, leaving its workers running). A signal that arrives while a stop is already
  under way says so and does not interrupt the clean-up.
- A trainer turns ``Stopped`` into one of its own with the words that matter to the person:
  what was saved, or that nothing was and why (``Stopped.with_detail``); ``arena`` prints that one
  line and exits with 128 + the signal number (130 for SIGINT, 143 for SIGTERM), as a shell does.
- ``quiet_worker``: in a worker process, Ctrl-C (which a terminal sends to the whole process
  group) is ignored: the main process stops and ends its workers, instead of every worker printing
  a traceback. SIGTERM keeps its default (``Pool.terminate`` ends workers with it), and on Linux a
  worker is killed when its parent dies (``PR_SET_PDEATHSIG``), so no worker outlives a main
  process killed with SIGKILL either.
- ``notice``: a line on stderr written with one ``os.write``, safe inside a signal handler (a
  ``print`` there can collide with the one the handler interrupted).
- ``check``: long loops (a move of an in-process game, a batch of a fit, a wait for a worker
  pool) call it; it raises a stop again whose exception Python lost (see ``check``).

No import beyond the standard library: ``arena list`` stays light.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: ``pool_paced``: about how long a chunk of tasks should take, in seconds
PACED_CHUNK_SECONDS = 5.0


class Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived. ``exit_code`` is 128 + the signal number; ``detail`` says what
    the stop saved (or that nothing was saved, and why)."""

    def __init__(self, signum: int = signal.SIGINT, detail: str = ""):
        self.signum, self.detail = int(signum), detail
        self.exit_code = 128 + self.signum
        super().__init__(self.text())

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    def text(self) -> str:
        detail = self.detail and (" " if self.detail.startswith("during ") else "; ") + self.detail
        return f"stopped by {self.signal_name}{detail}"

    def with_detail(self, detail: str) -> "Stopped":
        return Stopped(self.signum, detail)


class TrainingInterrupted(Stopped):
    """Training stopped on a signal after saving its checkpoint."""

    def __init__(self, signum: int, checkpoint: Path, timesteps: int):
        self.checkpoint, self.timesteps = Path(checkpoint), int(timesteps)
        super().__init__(signum, f"checkpoint saved to {checkpoint} at {timesteps} steps "
                                 f"(continue with --resume)")

    def text(self) -> str:
        return (f"stopped by {self.signal_name} at {self.timesteps} steps; checkpoint saved to "
                f"{self.checkpoint} (continue with --resume)")


class SignalCut(BaseException):
    """What a stop handler of another kind raises (PPO's ``SignalStop``: ``EvaluationCut``,
    ``UpdateCut``). A BaseException, as a signal's exceptions must be: it is raised wherever the
    main thread is, also inside a library's ``except Exception`` (torch's profiler import caught an
    UpdateCut so, printed its traceback as a warning, and the update ran on)."""


def signum_of(exc: BaseException) -> int:
    """The signal of a stop (a plain KeyboardInterrupt is Ctrl-C)."""
    return int(getattr(exc, "signum", signal.SIGINT))


def as_stopped(exc: BaseException) -> Stopped:
    return exc if isinstance(exc, Stopped) else Stopped(signum_of(exc))


def notice(text: str) -> None:
    """``text`` as one line on stderr, in one system call (safe in a signal handler)."""
    try:
        os.write(2, (text.rstrip("\n") + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


#: ``stop_raises``'s state: whether a stop was raised, how many ``deferred`` blocks are open, the
#: signal one of them holds back, and ``again``: what ``check`` raises (the exception of a stop
#: raised in a signal handler, as a function that makes it; None when no stop is under way)
_STATE: dict = {"raised": False, "defer": 0, "pending": None, "again": None}


def check() -> None:
    """A safe point of a long loop: a stop raised since the command began and still not out of it
    is raised again here.

    A signal handler's exception can be lost: the handler runs wherever the main thread is, and
    when that is a finaliser (a ``__del__`` or weakref callback, which the garbage collector runs
    at any allocation: multiprocessing's Pool has one) Python prints "Exception ignored in ..."
    and the interrupted code goes on. A command stopped at such a moment played on (in CI: an
    evaluation of 100,000 games to its end, and a warm start until the machine ran out of memory),
    and a second signal only said "already stopping". A stop that did propagate never meets a
    ``check`` again (it unwinds the loops; clean-up code calls none), so raising here is safe.
    Only in the main thread, where the signal handlers run."""
    again = _STATE["again"]
    if again is not None and threading.current_thread() is threading.main_thread():
        raise again()   # (another thread, e.g. one of arena serve's requests, is not the stop's)


def raise_again_at_check(make) -> None:
    """``make()`` (an exception) is what ``check`` raises until ``clear_again``: for a stop handler
    of another kind (PPO's ``SignalStop``) whose raise may be lost the same way."""
    _STATE["again"] = make


def clear_again() -> None:
    _STATE["again"] = None


@contextlib.contextmanager
def stop_raises(prog: str = "arena") -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Stopped`` inside the block (the main thread only; elsewhere the
    block runs unchanged). After the first, a signal says that the stop is under way and lets the
    clean-up (ending worker processes) finish."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _STATE.update(raised=False, defer=0, pending=None, again=None)

    def handler(signum, frame):
        if _STATE["raised"] or _STATE["pending"] is not None:
            notice(f"{prog}: already stopping (ending child processes); kill -9 {os.getpid()} ends it at once")
            return
        if _STATE["defer"]:
            _STATE["pending"] = signum
            return
        _raise_stop(signum)

    unraisable = sys.unraisablehook

    def quiet_lost_stop(args) -> None:   # a stop lost in a finaliser: no "Exception ignored"
        if not (args.exc_type is not None and issubclass(args.exc_type, (Stopped, SignalCut))):   # traceback;
            unraisable(args)                                                          # check() raises it

    previous = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    sys.unraisablehook = quiet_lost_stop
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        sys.unraisablehook = unraisable
        _STATE.update(raised=False, pending=None, again=None)   # the command is over: nothing to raise


def _raise_stop(signum: int) -> None:
    _STATE["raised"] = True
    _STATE["again"] = lambda: Stopped(signum)
    raise Stopped(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Inside the block a stop waits, and is raised as the block ends: for work that must not be
    cut in the middle (starting worker processes: a spawned worker whose start-up data was cut
    short dies with a traceback of its own)."""
    _STATE["defer"] += 1
    try:
        yield
    finally:
        _STATE["defer"] -= 1
    signum = _STATE["pending"]
    if signum is not None and _STATE["defer"] == 0:
        _STATE["pending"] = None
        _raise_stop(signum)


def results(iterator, poll: float = 0.5) -> Iterator:
    """The items of a ``Pool.imap`` / ``imap_unordered`` iterator, waiting at most ``poll`` seconds
    at a time: a signal delivered to one of the pool's helper threads (the kernel picks any thread)
    does not wake the main thread from an endless wait, so its handler would wait for the next
    result (minutes, with long tasks); a bounded wait lets it run within ``poll``."""
    import multiprocessing

    while True:
        check()
        try:
            yield iterator.next(timeout=poll)
        except multiprocessing.TimeoutError:
            continue
        except StopIteration:
            return


def pool_map(pool, fn, tasks: list, chunksize: int = 1, ordered: bool = True) -> Iterator:
    """``pool.imap`` (``ordered``) or ``imap_unordered`` of ``fn`` over ``tasks`` in chunks of
    ``chunksize``, read through ``results`` (``Pool.imap`` with a chunksize above 1 returns a plain
    generator, whose waits cannot be bounded)."""
    for part in pool_chunks(pool, fn, tasks, chunksize, ordered):
        yield from part


def pool_chunks(pool, fn, tasks: list, chunksize: int = 1, ordered: bool = True) -> Iterator[list]:
    """``pool_map``, one list of results a chunk as each chunk comes back (a progress bar then
    counts a chunk's results at once, instead of showing the first of a burst)."""
    chunks = [(fn, tasks[i:i + chunksize]) for i in range(0, len(tasks), max(1, chunksize))]
    mapper = pool.imap if ordered else pool.imap_unordered
    yield from results(mapper(_call_chunk, chunks))


def _call_chunk(job) -> list:
    fn, items = job
    return [fn(x) for x in items]


def _timed_chunk(job) -> tuple[float, list]:
    start = time.perf_counter()
    out = _call_chunk(job)
    return time.perf_counter() - start, out


def pool_paced(pool, fn, tasks: list, workers: int, max_chunk: int, seconds: float = PACED_CHUNK_SECONDS,
               poll: float = 0.5) -> Iterator[list]:
    """``fn`` over ``tasks`` on ``pool``, one list of results a chunk as each chunk comes back (in
    the order they finish), with chunks sized by the tasks' measured time: as many tasks as take
    about ``seconds`` (at most ``max_chunk``). The first chunks are one task each; then the mean
    time of a task so far sets the size. Cheap tasks still travel in large chunks (the cost of
    passing a chunk is ~a millisecond), while slow ones (a Zaberias game against ``mcts:200``, a
    minute or more) come back one at a time: a progress bar moves with each, and a stop loses only
    the tasks being played, not up to ``max_chunk`` finished ones a worker. At most two chunks a
    worker are in flight, so a worker always has the next one queued; waits are bounded by
    ``poll`` (see ``results``). A task's error is raised here, as ``Pool.imap`` raises it."""
    import queue

    done: queue.SimpleQueue = queue.SimpleQueue()
    spent, finished, start, in_flight = 0.0, 0, 0, 0

    def submit() -> None:
        nonlocal start, in_flight
        size = 1 if finished == 0 else max(1, min(max_chunk, int(seconds * finished / max(spent, 1e-9))))
        part, start = tasks[start:start + size], start + size
        # a chunk's result is a (seconds, list) pair; a task's error arrives as the exception
        pool.apply_async(_timed_chunk, ((fn, part),), callback=done.put, error_callback=done.put)
        in_flight += 1

    while start < len(tasks) and in_flight < 2 * workers:
        submit()
    while in_flight:
        check()
        try:
            item = done.get(timeout=poll)
        except queue.Empty:
            continue
        in_flight -= 1
        if isinstance(item, BaseException):
            raise item
        took, out = item
        spent, finished = spent + took, finished + len(out)
        while start < len(tasks) and in_flight < 2 * workers:
            submit()
        yield out


def end_pool(pool, wait: float = 1.0) -> None:
    """End a ``multiprocessing`` pool's workers now (``Pool.terminate``, as ``with Pool()`` does).
    A worker killed by a signal sent to the whole process group (``kill -TERM -PGID``, systemd) can
    die holding the pool's task-queue lock, and ``terminate`` then waits for it forever: after
    ``wait`` seconds the workers are killed and the stuck clean-up is left to its daemon thread."""
    workers = list(getattr(pool, "_pool", None) or [])   # the pool's own processes
    done = threading.Thread(target=pool.terminate, name="end-pool", daemon=True)
    done.start()
    done.join(0.0 if any(w.exitcode is not None for w in workers) else wait)
    if done.is_alive():   # stuck on what a dead worker holds (or slow): end the others directly
        for worker in workers:
            if worker.exitcode is None:
                worker.kill()
                worker.join(wait)


def quiet_worker() -> None:
    """In a worker process: ignore Ctrl-C (the main process stops and ends the workers), keep
    SIGTERM's default, and die with the parent (Linux)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


def die_with_parent() -> None:
    """Ask the kernel to send this process SIGTERM when its parent ends (``PR_SET_PDEATHSIG``; Linux
    only, a no-op elsewhere); a parent already gone ends this process now."""
    parent = os.getppid()
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)   # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:   # the parent ended before the request took hold
        os._exit(1)

