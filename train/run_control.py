"""Run-folder safety for ``arena train``: one run per folder, a clean stop on a signal, logs that
never run past the checkpoint a resume starts from.

- ``RunLock``: a run folder is locked while a run uses it (``<out>/.lock``, holding the pid). A
  second run on the same folder (``--resume`` twice) refuses with one line naming the pid. The
  lock is an OS advisory lock (``fcntl.flock``) where there is one, so it ends with its process;
  a lock file left by a dead process (its pid no longer runs) is taken over. Without ``fcntl``
  the pid in the file decides alone.
- ``SignalStop``: while training, SIGINT (Ctrl-C) and SIGTERM ask the run to stop at the next
  step; the caller saves ``checkpoint.zip`` (atomically) and raises ``TrainingInterrupted``; the
  ``arena train`` command prints one line and exits with 130 (SIGINT) or 143 (SIGTERM), the shell's
  128 + signal number. A second signal is not caught (a second Ctrl-C stops at once).
- ``truncate_progress``: on ``--resume``, ``progress.csv`` keeps only the rows up to the
  checkpoint's timestep, so the curve never goes back in time.
"""
from __future__ import annotations

import csv
import os
import signal
import socket
import tempfile
import threading
from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

from .config import ConfigError

try:
    import fcntl
except ImportError:  # not POSIX: the pid in the lock file decides alone
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".lock"


class RunFolderBusy(ConfigError):
    """Another live process is using the run folder."""


class TrainingInterrupted(Exception):
    """Training stopped on a signal after saving its checkpoint."""

    def __init__(self, signum: int, checkpoint: Path, timesteps: int):
        self.signum, self.checkpoint, self.timesteps = signum, Path(checkpoint), int(timesteps)
        self.exit_code = 128 + signum
        super().__init__(f"stopped by {signal.Signals(signum).name} at {timesteps} steps; "
                         f"checkpoint saved to {checkpoint} (continue with --resume)")


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


class SignalStop(BaseCallback):
    """An SB3 callback that ends ``learn`` at the next step once SIGINT or SIGTERM arrived
    (installed as a context manager around ``learn``; only the main thread can catch signals)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        super().__init__()
        self.signum: int | None = None
        self._previous: dict = {}

    def _handle(self, signum, frame) -> None:
        self.signum = signum
        for sig, old in self._previous.items():   # a second signal acts at once
            signal.signal(sig, old)
        self._previous = {}

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
    workers end when it closes them), instead of dying with a traceback each."""
    import multiprocessing
    if multiprocessing.parent_process() is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
