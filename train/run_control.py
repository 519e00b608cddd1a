"""Run-folder safety for ``arena train``: one run per folder, a clean stop on a signal, logs that
never run past the checkpoint a resume starts from.

- ``RunLock``: a run folder is locked while a run uses it (``<out>/.lock``, holding the pid). A
  second run on the same folder (``--resume`` twice) refuses with one line naming the pid. The
  lock is an OS advisory lock (``fcntl.flock``) where there is one, so it ends with its process;
  a lock file left by a dead process (its pid no longer runs) is taken over. Without ``fcntl``
  the pid in the file decides alone.
- ``SignalStop``: while PPO learns, SIGINT (Ctrl-C) and SIGTERM ask the run to stop: at the next
  step during a rollout, after the update (seconds) during one, at once during an evaluation (cut
  short); the first signal says so on stderr at once. The caller saves ``checkpoint.zip``
  (atomically) and raises ``TrainingInterrupted``; ``arena`` prints one line and exits with 130
  (SIGINT) or 143 (SIGTERM), the shell's 128 + signal number. A second signal aborts without
  saving (the handlers of ``train/stops.py`` take it). Outside ``learn`` a stop raises
  ``Stopped`` (``train/stops.py``), which the trainer words as what was saved.
- ``truncate_progress``: on ``--resume``, ``progress.csv`` keeps only the rows up to the
  checkpoint's timestep, so the curve never goes back in time.
"""
from __future__ import annotations

import contextlib
import copy
import csv
import os
import signal
import socket
import tempfile
import threading
from pathlib import Path
from typing import Iterator

from stable_baselines3.common.callbacks import BaseCallback

from .config import ConfigError
from .stops import SignalCut, Stopped, TrainingInterrupted, clear_again, notice, quiet_worker, raise_again_at_check

__all__ = ["RunLock", "RunFolderBusy", "SignalStop", "EvaluationCut", "UpdateCut", "Stopped",
           "TrainingInterrupted", "ignore_sigint_in_worker", "truncate_progress"]

try:
    import fcntl
except ImportError:  # not POSIX: the pid in the lock file decides alone
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".lock"


class RunFolderBusy(ConfigError):
    """Another live process is using the run folder."""


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # exists, owned by someone else
        return True
    return True


def _read_owner(path: Path) -> tuple[int, str]:
    """(pid, host) written in a lock file; (0, "") when unreadable."""
    try:
        pid, _, host = path.read_text().strip().partition("@")
        return int(pid), host
    except (OSError, ValueError):
        return 0, ""


class RunLock:
    """The lock of one run folder (see the module docstring). Use as a context manager."""

    def __init__(self, out: str | os.PathLike):
        self.path = Path(out) / LOCK_NAME
        self._fd: int | None = None
        #: the pid of a dead run whose lock file this run took over (None: none)
        self.took_over: int | None = None

    def acquire(self) -> "RunLock":
        me = f"{os.getpid()}@{socket.gethostname()}"
        pid, host = _read_owner(self.path)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        locked = False
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
            except BlockingIOError:
                os.close(fd)
                pid, host = _read_owner(self.path)
                raise RunFolderBusy(self._busy(pid, host)) from None
            except OSError:   # a file system without flock: the pid decides
                pass
        if not locked and pid and pid != os.getpid() and host in ("", socket.gethostname()) \
                and _pid_alive(pid):
            os.close(fd)
            raise RunFolderBusy(self._busy(pid, host))
        if pid and pid != os.getpid():
            self.took_over = pid   # a lock file left by a run that is gone
        os.ftruncate(fd, 0)
        os.write(fd, me.encode())
        os.fsync(fd)
        self._fd = fd
        return self

    def _busy(self, pid: int, host: str) -> str:
        return (f"{self.path.parent} is in use by another run (pid {pid}"
                f"{' on ' + host if host else ''}); wait for it to end or stop it, or choose "
                f"another --out")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)   # an empty file: nobody holds the folder
        finally:
            os.close(self._fd)          # closing drops the flock
            self._fd = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


class EvaluationCut(SignalCut):
    """A stop arrived during an evaluation inside ``learn``: the evaluation is dropped."""


class UpdateCut(SignalCut):
    """A stop arrived during a PPO update: the update is dropped (``SignalStop.restore`` puts the
    model back as it was before the rollout the update learned from)."""


class SignalStop(BaseCallback):
    """An SB3 callback that ends ``learn`` once SIGINT or SIGTERM arrived (installed as a context
    manager around ``learn``; only the main thread can catch signals): at the next step of a
    rollout; at once during an update (``UpdateCut``: the update, seconds to a minute of a big
    network on a busy machine, is dropped and ``restore`` gives back the weights, optimizer state
    and step count from before its rollout, copied at each rollout's end); at once inside
    ``cut_short()`` (an evaluation). The first signal says on stderr at once what happens."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, prog: str = "arena train"):
        super().__init__()
        self.prog = prog
        self.signum: int | None = None
        self.phase = "rollout"   # rollout / update: where learn is (on_rollout_start / _end)
        self._cut = False
        self._previous: dict = {}
        self._rollout_start = 0
        self._before: tuple | None = None   # (policy state, optimizer state, steps) before the update

    def _handle(self, signum, frame) -> None:
        self.signum = signum
        for sig, old in self._previous.items():   # a second signal acts at once
            signal.signal(sig, old)
        self._previous = {}
        update = self.phase == "update" and self._before is not None
        if self._cut:
            what = "cutting the evaluation short"
        elif update:
            what = "dropping the update in progress (its rollout is played again after --resume)"
        else:
            what = "stopping at the next step"
        again = "Ctrl-C" if signum == signal.SIGINT else "another SIGINT or SIGTERM"
        notice(f"{self.prog}: stopping ({signal.Signals(signum).name}): {what} to save a checkpoint "
               f"({again} aborts without saving)")
        if self._cut:
            raise_again_at_check(lambda: EvaluationCut(signum))   # were this raise lost (train/stops.py)
            raise EvaluationCut(signum)
        if update:
            raise UpdateCut(signum)

    @contextlib.contextmanager
    def cut_short(self) -> Iterator[None]:
        """Inside the block a stop raises ``EvaluationCut`` at once (the work there is not needed
        for the checkpoint); a stop that came before the block skips it."""
        if self.signum is not None:
            raise EvaluationCut(self.signum)
        self._cut = True
        try:
            yield
        finally:
            self._cut = False
            clear_again()

    def _on_rollout_start(self) -> None:
        self.phase = "rollout"
        self._before = None
        self._rollout_start = int(self.model.num_timesteps)

    def _on_rollout_end(self) -> None:
        policy = self.model.policy
        self._before = ({k: v.detach().clone() for k, v in policy.state_dict().items()},
                        copy.deepcopy(policy.optimizer.state_dict()), self._rollout_start)
        self.phase = "update"
        if self.signum is not None:   # the stop came while the rollout was closing: no update
            raise UpdateCut(self.signum)

    def restore(self, model) -> None:
        """``model`` as it was before the dropped update's rollout: weights, optimizer state, steps."""
        assert self._before is not None, "restore follows an UpdateCut"
        policy_state, optimizer_state, steps = self._before
        model.policy.load_state_dict(policy_state)
        model.policy.optimizer.load_state_dict(optimizer_state)
        model.num_timesteps = steps

    def __enter__(self) -> "SignalStop":
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._previous.items():
            signal.signal(sig, old)
        self._previous = {}

    def _on_step(self) -> bool:
        return self.signum is None


def ignore_sigint_in_worker() -> None:
    """In a SubprocVecEnv worker: leave Ctrl-C to the main process (it stops and saves; the
    workers end when it closes them), instead of dying with a traceback each; a worker dies with
    its parent (``train/stops.py``, ``quiet_worker``)."""
    import multiprocessing
    if multiprocessing.parent_process() is not None:
        quiet_worker()


def truncate_progress(csv_path: str | os.PathLike, timesteps: int) -> int:
    """Drop the rows of ``progress.csv`` past ``timesteps`` (atomically); returns how many."""
    path = Path(csv_path)
    if not path.exists():
        return 0
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or "timesteps" not in rows[0]:
        return 0
    col = rows[0].index("timesteps")
    keep = [rows[0]]
    for row in rows[1:]:
        try:
            if int(float(row[col])) <= timesteps:
                keep.append(row)
        except (IndexError, ValueError):
            continue   # a row cut short by a crash
    dropped = len(rows) - len(keep)
    if dropped:
        fd, tmp = tempfile.mkstemp(prefix=".progress.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", newline="") as fh:
            csv.writer(fh).writerows(keep)
        os.replace(tmp, path)
    return dropped
