"""The progress bar of every long run (training, self-play, evaluation, ladders), made in one place.

On a terminal the bar redraws twice a second. Written to a file (a log, ``nohup``, CI) an update
writes a line when 30 s have passed since the last one, and no line repeats the count of the line
before it. A plain tqdm bar did: tqdm's monitor thread re-draws a bar 10-20 s after its last line
whenever its automatic ``miniters`` is above one (after any update of more than one step, such as
the evaluator's chunks of 16 games), so a run whose updates come minutes apart logged each count
twice. The monitor's re-draw still writes a line when the count has moved since the last line (an
update that came within 30 s of it, which the interval hid).

tqdm comes with the ``train`` extra; ``progress_bar`` raises ModuleNotFoundError without it.
"""
from __future__ import annotations

import functools
import sys
from typing import IO, Any

#: seconds between two lines of a bar written to a file
FILE_INTERVAL = 30.0
#: seconds between two redraws on a terminal
TTY_INTERVAL = 0.5


@functools.lru_cache(maxsize=None)
def _file_bar_class() -> type:
    from tqdm import tqdm

    class FileBar(tqdm):
        """A bar written to a file: no line that repeats the previous line's count."""

        _shown: float | None = None

        def refresh(self, nolock=False, lock_args=None):
            if self.n == self._shown:   # the monitor's re-draw of a line already written
                return False
            self._shown = self.n
            return super().refresh(nolock=nolock, lock_args=lock_args)

    return FileBar


def progress_bar(total: int, desc: str, unit: str, *, initial: int = 0, file: IO[str] | None = None,
                 **kwargs: Any):
    """A tqdm bar to ``file`` (standard error by default), paced for a terminal or a file as the
    module docstring says; ``kwargs`` go to tqdm (``leave``, ``smoothing``)."""
    from tqdm import tqdm

    out = sys.stderr if file is None else file
    tty = bool(getattr(out, "isatty", lambda: False)())
    cls = tqdm if tty else _file_bar_class()
    return cls(total=total, initial=initial, desc=desc, unit=unit, file=out, dynamic_ncols=True,
               mininterval=TTY_INTERVAL if tty else FILE_INTERVAL, **kwargs)
