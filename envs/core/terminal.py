"""When text renders carry ANSI colour codes (one convention for every game).

- ``State.render_text(observer, color=False)``: plain text unless ``color=True`` is passed.
- ``render_mode="ansi"``: ``env.render()`` returns plain text; ``ansi_color=True`` (an env option
  of every game) asks for the coloured text.
- ``render_mode="human"``: the env prints the board; with ``ansi_color=None`` (the default) it
  colours only when standard output is a terminal and ``NO_COLOR`` is unset (https://no-color.org);
  ``ansi_color=True`` / ``False`` force it on / off.
- ``arena play`` follows the same terminal test (and ``--no-color``).
"""
from __future__ import annotations

import os
import sys


def supports_color(stream=None) -> bool:
    """Whether text written to ``stream`` (default ``sys.stdout``) should carry colour codes:
    a terminal, ``NO_COLOR`` unset or empty, and ``TERM`` not ``dumb``."""
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed stream
        return False
