"""Files that grow a line a finished game, so a stopped run keeps its games and the next one goes on.

Two writers use it: the ladder's games CSV (``train/ladder.py``) and ``arena eval``'s games
journal (``train/eval_journal.py``, ``--resume``). What they share:

- **One writer at a time.** ``Appender`` holds the file locked (``flock``) from its opening until
  ``close``: a second run on the same file fails at once (the ``busy`` error its caller gives)
  instead of playing the same games and writing them twice. Where the system has no ``flock``
  (not POSIX) nothing is locked.
- **A killed writer's last line.** A process killed in the middle of a write leaves a last line
  without its newline: ``Appender`` cuts it (after taking the lock, so it is not a live writer's
  line), and ``complete_text`` reads a file without it. Every other line is whole, because each
  line goes out in one write, flushed, to a file opened for appending.
- **The file stays the file.** A line goes only to the file the path still names: one replaced or
  deleted under a running writer stops it with an error (its lines would go to a file nobody sees).
- **Taking lines out** (``Appender.rewrite``: the ladder's ``--redo``): the kept lines go to a new
  file, locked, then moved over the old one, so a kill leaves one or the other whole.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from ..envs.core.errors import ArenaError


def complete_text(path: Path) -> str:
    """The text of ``path`` up to its last newline (an unfinished last line left out); "" for a
    missing file; an ArenaError naming the file for one that is not UTF-8 text."""
    if not path.exists():
        return ""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ArenaError(f"{path}: not UTF-8 text (byte {exc.start}): not a file this run wrote") from None
    return text[:text.rfind("\n") + 1]


def _lock(fh, path: Path, busy: Callable[[Path], Exception]) -> None:
    try:
        import fcntl
    except ImportError:   # pragma: no cover (Windows)
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise busy(path) from None


class Appender:
    """Appends lines to ``path`` (its ``header`` line first, in an empty file), each flushed as it
    comes, after cutting an unfinished last line left by a killed process; ``fresh`` empties the
    file first instead (a run that starts over). The file is locked (``busy(path)`` is raised when
    another writer holds it) from before the cut until ``close``."""

    def __init__(self, path: Path, header: str, busy: Callable[[Path], Exception], fresh: bool = False):
        self.path, self.header, self.busy = path, header, busy
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "a", encoding="utf-8", newline="")   # O_APPEND: every write goes to the end
        try:
            _lock(self.fh, path, busy)
            if fresh:
                self.fh.truncate(0)
            else:
                data = path.read_bytes()
                if data and not data.endswith(b"\n"):
                    with open(path, "r+b") as cut:
                        cut.truncate(data.rfind(b"\n") + 1)
            if path.stat().st_size == 0:
                self.add(header)
        except BaseException:
            self.fh.close()
            raise

    def add(self, line: str) -> None:
        """Append ``line`` (without its newline) in one flushed write, to the file ``path`` still
        names: one replaced or deleted under the run (a ``git stash`` or checkout, an editor's
        save) would take every later line into a file nobody can see, so that is an error."""
        if "\n" in line:
            raise ValueError("a journal line holds no newline")
        self._check_still_there()
        self.fh.write(line + "\n")
        self.fh.flush()

    def _check_still_there(self) -> None:
        mine = os.fstat(self.fh.fileno())
        try:
            here = os.stat(self.path)
        except FileNotFoundError:
            here = None
        if here is None or (mine.st_ino and (here.st_ino, here.st_dev) != (mine.st_ino, mine.st_dev)):
            raise ArenaError(f"{self.path} was {'deleted' if here is None else 'replaced'} while this run was "
                             f"writing it (a git stash or checkout, an editor): the game that just ended is not "
                             f"in it, and nothing more is written; the same command plays the games it lacks")

    def rewrite(self, lines: Sequence[str]) -> None:
        """Replace what follows the header with ``lines`` (a run that plays some games again): the
        new text goes to a file beside this one, which is locked and then moved over it in one
        step, so a kill leaves the old file or the new one (never part of each) and no other
        writer can get in between."""
        if any("\n" in line for line in lines):
            raise ValueError("a journal line holds no newline")
        tmp = self.path.with_name(self.path.name + ".rewrite")
        new = open(tmp, "w", encoding="utf-8", newline="")
        try:
            _lock(new, tmp, self.busy)
            new.write("".join(line + "\n" for line in [self.header, *lines]))
            new.flush()
            os.fsync(new.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            new.close()
            raise
        self.fh.close()
        self.fh = new   # its end is the file's end: later lines are appended after the new text

    def close(self) -> None:
        self.fh.close()

    def __enter__(self) -> "Appender":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
