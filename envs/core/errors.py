"""The one base of the errors that mean "bad input", not "bug" (issue 44).

``ArenaError`` is a ``ValueError``: a rules option or file out of its schema (``ConfigError``,
the one class the engines and the training configs share), a saved game that is not one
(``RestoreError``), an agent spec, a checkpoint, a shipped name, a ladder, a recording, a command
line. ``arena`` prints any of them as one line and exits 2 (app/cli_common.py); anything else
that escapes a command is a bug and keeps its traceback. A library user catches ``ArenaError``
to tell a user's mistake from a failure of the code.

``IllegalActionError`` (envs/core/game.py) is not one: an illegal move in a game loop is the
move's author's mistake (an agent's, or a caller's), which the loop reports in its own way.
"""
from __future__ import annotations


class ArenaError(ValueError):
    """Bad input from a user: a message of one line that says what and where, nothing changed."""


class ConfigError(ArenaError):
    """A rules option, rules file or training config that is unknown, malformed or out of range
    (the one config error: the engines' option checks, envs/core/yamlio.py's file reader and
    train/config.py raise it; ``envs.ConfigError``)."""
