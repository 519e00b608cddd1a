"""Game options and rules tables, checked in one place for every game (numpy + stdlib only).

Each game declares its constructor options as an ``OptionTable`` (``Game.OPTIONS``): name, type,
default, allowed values or range. ``Game`` checks every call against it before the game's own
``__init__`` runs, so an unknown name, a value of the wrong type or out of range raises
``ConfigError`` naming the option and what is allowed (never a raw ``TypeError`` or a silent
coercion). What depends on several options at once (solo mode needs one player) stays in the
game's ``__init__`` and raises ``ConfigError`` too.

Rules tables: the ``rules:`` section of ``configs/<game>.yaml`` is the schema of the ``rules=``
option and of the ``rules:`` section of a custom rules file (``config_path``): ``merge_rules``
refuses unknown keys and values of another type than the default's (recursively, for nested
tables), and checks the ranges and choices a game declares for its keys (``Option`` rows).
``read_config`` reads a custom rules file against the default file: unknown sections and every
``rules:`` entry are checked, naming the file; sections it leaves out come from the default file.
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import numpy as np

from .game import ConfigError, read_yaml

#: options the AEC adapter takes besides the game's own (envs.make passes them through)
ENV_OPTIONS = ("render_mode", "illegal_action", "max_steps", "ansi_color")


def _is_int(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


_KIND_CHECK = {
    int: _is_int,
    bool: lambda v: isinstance(v, (bool, np.bool_)),
    float: lambda v: (isinstance(v, (numbers.Real, np.floating)) and not isinstance(v, (bool, np.bool_))),
    str: lambda v: isinstance(v, str),
    dict: lambda v: isinstance(v, Mapping),
    list: lambda v: isinstance(v, (list, tuple)),
    os.PathLike: lambda v: isinstance(v, (str, os.PathLike)),
}
_KIND_NAME = {int: "an int", bool: "true or false", float: "a number", str: "a string",
              dict: "a mapping", list: "a list", os.PathLike: "a file path"}


@dataclass(frozen=True)
class Option:
    """One option: its accepted types, default and limits. ``None`` is accepted exactly when the
    default is ``None`` (it then means "decided by the other options")."""

    name: str
    kind: Any                       # a type of _KIND_CHECK, or a tuple of them
    default: Any = None
    doc: str = ""
    choices: tuple | None = None    # allowed values (for a list option: allowed items)
    low: int | float | None = None  # inclusive range of a number
    high: int | float | None = None

    def kinds(self) -> tuple:
        return self.kind if isinstance(self.kind, tuple) else (self.kind,)

    def allowed(self) -> str:
        """What the option accepts, in words (for error messages)."""
        words = " or ".join(_KIND_NAME[k] for k in self.kinds())
        if self.choices is not None:
            words += f" ({'items ' if self.kinds() == (list,) else ''}from {list(self.choices)})"
        if self.low is not None or self.high is not None:
            lo = "" if self.low is None else self.low
            hi = "" if self.high is None else self.high
            words += f" in {lo}..{hi}"
        if self.default is None:
            words += " or None"
        return words

    def check(self, value, where: str = "") -> Any:
        """``value`` if the option accepts it (numpy integers become ints), else ConfigError."""
        if value is None and self.default is None:
            return None
        prefix = f"{where}: " if where else ""
        kind = next((k for k in self.kinds() if _KIND_CHECK[k](value)), None)
        if kind is None:
            raise ConfigError(f"{prefix}option {self.name!r} must be {self.allowed()}, got {value!r}")
        if kind is int:
            value = int(value)
        elif kind is bool:
            value = bool(value)
        if self.choices is not None:
            items = list(value) if kind is list else [value]
            if kind is list and isinstance(value, (list, tuple)):
                value = list(value)
            for item in items:
                if not isinstance(item, (str, numbers.Number)) or item not in self.choices:
                    raise ConfigError(f"{prefix}option {self.name!r} must be {self.allowed()}, "
                                      f"got {value!r}")
        if kind in (int, float) and ((self.low is not None and value < self.low)
                                     or (self.high is not None and value > self.high)):
            raise ConfigError(f"{prefix}option {self.name!r} must be {self.allowed()}, got {value!r}")
        return value


class OptionTable:
    """The options of one game, in the constructor's order."""

    def __init__(self, game: str, *options: Option):
        self.game = game
        self._options = {o.name: o for o in options}

    def __iter__(self) -> Iterator[Option]:
        return iter(self._options.values())

    def __getitem__(self, name: str) -> Option:
        return self._options[name]

    def names(self) -> list[str]:
        return list(self._options)

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option's value (defaults filled in) after checking ``given``."""
        unknown = [k for k in given if k not in self._options]
        if unknown:
            raise ConfigError(f"{self.game}: unknown option {unknown[0]!r}; options: {self.names()}"
                              f" (the env also takes {', '.join(ENV_OPTIONS)})")
        return {name: opt.check(given[name], self.game) if name in given else opt.default
                for name, opt in self._options.items()}

    def describe(self) -> str:
        """One line per option (for docs and ``--help``)."""
        return "\n".join(f"{o.name}: {o.allowed()}; default {o.default!r}. {o.doc}".rstrip()
                         for o in self)


# ------------------------------------------------------------------------------------------------
# rules tables
# ------------------------------------------------------------------------------------------------
def _same_kind(default, value) -> bool:
    """Whether ``value`` may replace ``default`` in a rules table (int for a float is fine; a bool
    is never a number)."""
    if default is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return _is_int(value)
    if isinstance(default, float):
        return _KIND_CHECK[float](value)
    if isinstance(default, str):
        return isinstance(value, str)
    if isinstance(default, dict):
        return isinstance(value, Mapping)
    if isinstance(default, list):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def _kind_word(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    for kind in (int, float, str, dict, list):
        if isinstance(value, kind):
            return _KIND_NAME[kind]
    return type(value).__name__


def _merge(defaults: dict, overrides: Mapping, where: str) -> dict:
    merged = dict(defaults)
    for key, value in overrides.items():
        path = f"{where}.{key}"
        if key not in defaults:
            raise ConfigError(f"unknown rules key {path!r}; known here: {sorted(map(str, defaults))}")
        default = defaults[key]
        if not _same_kind(default, value):
            raise ConfigError(f"rules key {path!r} must be {_kind_word(default)} (like the default "
                              f"{default!r}), got {value!r}")
        if isinstance(default, dict) and default:
            value = _merge(default, value, path)
        elif isinstance(default, list) and default:
            value = list(value)
            scalars = [d for d in default if not isinstance(d, (dict, list))]
            if len(scalars) == len(default):   # a list of numbers or names: each item checked
                for i, item in enumerate(value):
                    if not any(_same_kind(d, item) for d in default):
                        raise ConfigError(f"rules key {path!r}: item {i} must be "
                                          f"{_kind_word(default[0])}, got {item!r}")
        elif _is_int(value) and not isinstance(value, bool):
            value = int(value)
        merged[key] = value
    return merged


def merge_rules(defaults: Mapping | None, overrides: Any, where: str = "rules",
                limits: tuple[Option, ...] = ()) -> dict:
    """The rules table ``defaults`` with ``overrides`` applied, checked: ``overrides`` is a mapping
    whose keys all exist in ``defaults`` and whose values have the default's type (nested tables
    are checked key by key); then every ``limits`` row (range or choices of one key) holds."""
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"option 'rules' must be a mapping of rules keys to values, got {overrides!r}")
    merged = _merge(dict(defaults or {}), overrides, where)
    for opt in limits:
        if opt.name in merged:
            merged[opt.name] = Option(f"{where}.{opt.name}", opt.kind, opt.default, opt.doc,
                                      opt.choices, opt.low, opt.high).check(merged[opt.name])
    return merged


def read_config(path: str | os.PathLike | None, default_path: str | os.PathLike,
                limits: tuple[Option, ...] = ()) -> dict:
    """A game's rules file: the default file, or ``path`` checked against it (unknown sections
    and the ``rules:`` section's keys, types and limits; errors name the file). Sections ``path``
    leaves out, and keys its ``rules:`` leaves out, come from the default file."""
    default = read_yaml(str(default_path))
    if path is None or os.path.abspath(os.fspath(path)) == os.path.abspath(os.fspath(default_path)):
        return default
    data = read_yaml(os.fspath(path))
    unknown = [k for k in data if k not in default]
    if unknown:
        raise ConfigError(f"{path}: unknown section {unknown[0]!r}; sections: {sorted(default)}")
    try:
        rules = merge_rules(default.get("rules"), data.get("rules"), "rules", limits)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return {**default, **data, "rules": rules}
