"""Game options and rules files, checked in one place for every game (numpy + stdlib only).

One declarative mechanism, the ``Option`` row, describes both:

- **Game options.** Each game declares its constructor options as an ``OptionTable``
  (``Game.OPTIONS``): name, type, default, allowed values or range. ``Game`` checks every call
  against it before the game's own ``__init__`` runs, so an unknown name (``UnknownOptionError``,
  a ``ConfigError`` that is also a ``TypeError``, as Python's own "unexpected keyword argument"
  is), a value of the wrong type or out of range raises naming the option and what is allowed
  (never a raw ``TypeError`` or a silent coercion). What depends on several options at once
  (solo mode needs one player) stays in the game's ``__init__`` and raises ``ConfigError`` too.

- **Rules files.** Each game declares the schema of its ``configs/<game>.yaml`` next to its
  ``config.py`` (``SCHEMA``): one ``Option`` per section, nested ``Option`` rows for every field
  (``fields`` for a record or section with named keys, ``each`` for the items of a list or the
  values of a mapping with free keys, ``keys`` for those keys, ``size`` for a number of items or
  characters). Every number has a range, every count a sane maximum. ``read_config`` reads a
  custom rules file (``config_path``) against it and ``merge_rules`` the ``rules=`` overrides;
  a value that breaks the schema raises one line naming the file, the section and the field
  (``/tmp/my.yaml: weapons.Colt.count must be an int in 0..20, got 1000000000``). What ties
  several fields together (a roster's units, a deck big enough to deal) stays in the game's
  ``load_tables`` and raises ``ConfigError`` too. docs/games.md lists every field's type and
  range (envs/docs.py reads the same rows).

Adding a rules key: add it to ``configs/<game>.yaml`` and an ``Option`` row to the game's
``SCHEMA`` (``Option("my_flag", bool, doc=...)``; a number needs ``low`` and ``high``). A key of
the shipped file without a row is still type-checked like its default, and
tests/test_rules_files.py fails until the row exists.
"""
from __future__ import annotations

import functools
import math
import numbers
import os
import reprlib
from dataclasses import dataclass, replace
from typing import Any, Iterator, Mapping

import numpy as np

from .game import ConfigError, read_yaml
from .yamlio import read_mapping

#: options the AEC adapter takes besides the game's own (envs.make passes them through)
ENV_OPTIONS = ("render_mode", "illegal_action", "max_steps", "ansi_color")


class UnknownOptionError(ConfigError, TypeError):
    """An option name the game does not take. A ``TypeError`` too, with Python's words
    ("unexpected keyword argument 'NAME'"), so that callers that probe keyword arguments (TorchRL's
    ``GymEnv`` passes ``frameskip`` and drops it on such a TypeError) work as with any function."""


class _Required:
    """The default of an ``Option`` that has none: the value must be given, ``None`` is refused."""

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


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

# values in error messages: short whatever their size or depth (one line)
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 40
_REPR.maxlevel = 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4


def short(value: Any) -> str:
    """``repr(value)`` cut to a short single line (for error messages)."""
    return _REPR.repr(value)


def _names(keys, limit: int = 60) -> str:
    """``a, b, c`` cut after about ``limit`` characters (error messages stay one short line)."""
    keys = [str(k) for k in keys]
    shown: list[str] = []
    for k in keys:
        if shown and len(", ".join(shown + [k])) > limit:
            return ", ".join(shown) + f", ... ({len(keys)} in all)"
        shown.append(k)
    return ", ".join(shown)


@dataclass(frozen=True)
class Option:
    """One option, or one field of a rules file: its accepted types, default and limits.

    ``default`` is what an option takes when it is not given; a field without one
    (``REQUIRED``) must be present. ``None`` is accepted exactly when the default is ``None``
    (it then means "decided by the other options" or "none").

    Structure (rules files): ``fields`` are the named keys of a mapping (a section or a record:
    unknown keys are refused, required ones must be there); ``each`` is the row every item of a
    list, or every value of a mapping with free keys, must satisfy, and ``keys`` the row of those
    keys; ``size`` is the allowed number of items, entries or characters (inclusive).
    """

    name: str
    kind: Any                       # a type of _KIND_CHECK, or a tuple of them
    default: Any = REQUIRED
    doc: str = ""
    choices: tuple | None = None    # allowed values (for a list option: allowed items)
    low: int | float | None = None  # inclusive range of a number
    high: int | float | None = None
    fields: tuple[Option, ...] | None = None
    each: Option | None = None
    keys: Option | None = None
    size: tuple[int, int] | None = None

    def kinds(self) -> tuple:
        return self._kinds

    @functools.cached_property
    def _kinds(self) -> tuple:
        return self.kind if isinstance(self.kind, tuple) else (self.kind,)

    @functools.cached_property
    def _rows(self) -> dict[str, Option]:
        return {f.name: f for f in self.fields or ()}

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def range_words(self) -> str:
        """The choices, range and size in words ('' when there are none)."""
        words = []
        if self.choices is not None:
            listed = str(list(self.choices))
            if len(listed) > 70:
                listed = f"[{_names(map(repr, self.choices))}]"
            words.append(f"{'items ' if self.kinds() == (list,) else ''}from {listed}")
        if self.low is not None or self.high is not None:
            lo = "" if self.low is None else self.low
            hi = "" if self.high is None else self.high
            words.append(f"in {lo}..{hi}")
        if self.size is not None:
            lo, hi = self.size
            what = "characters" if self.kinds() == (str,) else "items" if self.kinds() == (list,) \
                else "entries"
            words.append(f"of {lo} {what}" if lo == hi else f"of {lo}..{hi} {what}")
        return " ".join(words)

    def allowed(self) -> str:
        """What the option accepts, in words (for error messages)."""
        words = " or ".join(_KIND_NAME[k] for k in self.kinds())
        extra = self.range_words()
        if extra:
            words += f" ({extra})" if self.choices is not None and self.low is None \
                and self.size is None else f" {extra}"
        if self.fields is not None:
            words += (f" [{', '.join(f.name for f in self.fields)}]" if list in self.kinds()
                      else f" with keys {_names(f.name for f in self.fields)}")
        if self.default is None:
            words += " or None"
        return words

    # -- checking ----------------------------------------------------------------------------
    def check(self, value, where: str = "") -> Any:
        """``value`` if the option accepts it (numpy integers become ints), else ConfigError
        ``"{where}: option 'name' must be ..."``."""
        return self._check(value, f"{where}: " if where else "", f"option {self.name!r}")

    def validate(self, value, where: str = "", path: str | None = None) -> Any:
        """``value`` checked against this row and every row below it, as a fresh copy (numpy
        integers become ints, tuples lists). ConfigError ``"{where}: {path} must be ..."``
        naming the first field that breaks the schema; ``path`` defaults to the row's name."""
        return self._check(value, f"{where}: " if where else "", self.name if path is None else path)

    def _fail(self, prefix: str, label: str, value: Any) -> ConfigError:
        return ConfigError(f"{prefix}{label} must be {self.allowed()}, got {short(value)}")

    def _check(self, value, prefix: str, label: str) -> Any:
        if value is None:
            if self.default is None:
                return None
            raise self._fail(prefix, label, value)
        kind = next((k for k in self.kinds() if _KIND_CHECK[k](value)), None)
        if kind is None:
            raise self._fail(prefix, label, value)
        if kind is int:
            value = int(value)
        elif kind is bool:
            value = bool(value)
        elif kind is float:
            value = float(value) if isinstance(value, np.floating) else value
            if not math.isfinite(value):
                raise self._fail(prefix, label, value)
        if self.size is not None and kind in (str, list, dict) \
                and not self.size[0] <= len(value) <= self.size[1]:
            raise self._fail(prefix, label, value)
        if self.choices is not None:
            items = list(value) if kind is list else [value]
            for item in items:
                if not isinstance(item, (str, numbers.Number)) or item not in self.choices:
                    raise self._fail(prefix, label, value)
        if kind in (int, float) and ((self.low is not None and value < self.low)
                                     or (self.high is not None and value > self.high)):
            raise self._fail(prefix, label, value)
        if kind is list:
            if self.fields is not None:  # a fixed-length row: item i is field i
                if len(value) != len(self.fields):
                    raise self._fail(prefix, label, value)
                return [f._check(item, prefix, f"{label}[{i}] ({f.name})")
                        for i, (f, item) in enumerate(zip(self.fields, value))]
            if self.each is None:
                return list(value)
            return [self.each._check(item, prefix, f"{label}[{i}]") for i, item in enumerate(value)]
        if kind is dict:
            return self._check_mapping(value, prefix, label)
        return value

    def _check_mapping(self, value: Mapping, prefix: str, label: str) -> dict:
        at = f"{label}." if label else ""
        if self.fields is not None:
            rows = self._rows
            for key in value:
                if key not in rows:
                    if not label:
                        raise ConfigError(f"{prefix}unknown section {short(key)}; sections: "
                                          f"{_names(rows)}")
                    raise ConfigError(f"{prefix}unknown key {at}{key}; known: {_names(rows)}")
            missing = [f for f in self.fields if f.required and f.name not in value]
            if missing:
                raise ConfigError(f"{prefix}{at}{missing[0].name} is missing ({missing[0].allowed()})")
            return {key: rows[key]._check(item, prefix, f"{at}{key}") for key, item in value.items()}
        out = {}
        for key, item in value.items():
            if self.keys is not None:
                self.keys._check(key, prefix, f"a key of {label or 'the file'}")
            out[key] = item if self.each is None else self.each._check(item, prefix, f"{at}{key}")
        return out

    # -- reading the tree (docs, tests) ------------------------------------------------------
    def field(self, name: Any) -> Option | None:
        """The row of key ``name`` of this mapping (its ``each`` row for free keys), or of item
        ``name`` of a list."""
        if self.fields is not None:
            if isinstance(name, int) and not isinstance(name, bool) and list in self.kinds():
                return self.fields[name] if 0 <= name < len(self.fields) else None
            return self._rows.get(name) if isinstance(name, str) else None
        return self.each

    def at(self, path) -> Option | None:
        """The row of the value at ``path`` (a sequence of keys and list indices), or None."""
        row: Option | None = self
        for step in path:
            if row is None:
                return None
            row = row.field(step)
        return row

    def walk(self, prefix: str = "") -> Iterator[tuple[str, Option]]:
        """``(path, row)`` for this row and every row below it; free keys are written ``<name>``
        after the keys' row, list items ``[]``."""
        yield prefix or self.name, self
        base = prefix or self.name
        at = f"{base}." if base else ""
        if self.fields is not None and list in self.kinds():
            for i, f in enumerate(self.fields):
                yield from f.walk(f"{base}[{i}]")
        elif self.fields is not None:
            for f in self.fields:
                yield from f.walk(f"{at}{f.name}")
        elif self.each is not None:
            if list in self.kinds() and not (dict in self.kinds()):
                yield from self.each.walk(f"{base}[]")
            else:
                yield from self.each.walk(f"{at}<{self.keys.name if self.keys else 'key'}>")

    def completed(self, data: Any) -> Option:
        """This schema with a row for every key of the records of ``data`` (the shipped file)
        that has none yet, typed like its value there: a key added to the file before its row
        is still type-checked (tests/test_rules_files.py asks for the row)."""
        if self.fields is None or not isinstance(data, Mapping):
            return self
        rows = {f.name: f for f in self.fields}
        fields = [f.completed(data[f.name]) if f.name in data else f for f in self.fields]
        for key, value in data.items():
            if key not in rows and isinstance(key, str):
                fields.append(Option(key, _kind_of(value), doc="(no schema row yet)"))
        return replace(self, fields=tuple(fields))


def _kind_of(value) -> Any:
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    for kind in (str, dict, list):
        if isinstance(value, kind):
            return kind
    return (str, int, float, bool, dict, list)


def schema_gaps(schema: Option, data: Any, path: str = "") -> list[str]:
    """The keys of the shipped file ``data`` that have no row of their own in ``schema`` (with a
    free-keys row, every key has one), and the numbers without a range: what a new key needs."""
    gaps: list[str] = []
    if isinstance(data, Mapping) and dict in schema.kinds():
        for key, value in data.items():
            row = schema.field(key)
            where = f"{path}.{key}" if path else str(key)
            if row is None:
                gaps.append(f"{where} (no row)")
            else:
                gaps += schema_gaps(row, value, where)
    elif isinstance(data, (list, tuple)) and schema.each is not None:
        for i, item in enumerate(data):
            gaps += schema_gaps(schema.each, item, f"{path}[{i}]")
    if schema.kinds() in ((int,), (float,)) and (schema.low is None or schema.high is None):
        gaps.append(f"{path} (a number without a range)")
    if (list in schema.kinds() or dict in schema.kinds()) and schema.fields is None \
            and schema.size is None:
        gaps.append(f"{path} (a collection without a size)")
    if schema.kinds() == (str,) and schema.choices is None and schema.size is None:
        gaps.append(f"{path} (a string without a size)")
    return list(dict.fromkeys(gaps))


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
            raise UnknownOptionError(
                f"{self.game}: unknown option {unknown[0]!r} (unexpected keyword argument "
                f"{unknown[0]!r}); options: {self.names()} (the env also takes "
                f"{', '.join(ENV_OPTIONS)})")
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


def _merge(defaults: dict, overrides: Mapping, where: str, row: Option | None) -> dict:
    """``defaults`` with ``overrides`` applied key by key (nested mappings merged, anything else
    replaced). Unknown keys are refused; so is a value of another kind than a mapping default
    (the schema checks the rest once the table is whole)."""
    merged = dict(defaults)
    for key, value in overrides.items():
        path = f"{where}.{key}"
        if key not in defaults:
            raise ConfigError(f"unknown key {path}; known: {_names(defaults)}")
        default = defaults[key]
        sub = row.field(key) if row is not None else None
        if not _same_kind(default, value) and (sub is None or isinstance(default, dict)):
            if sub is not None:
                raise sub._fail("", path, value)
            raise ConfigError(f"{path} must be {_kind_word(default)} (like the default "
                              f"{short(default)}), got {short(value)}")
        if isinstance(default, dict) and default and isinstance(value, Mapping):
            value = _merge(default, value, path, sub)
        merged[key] = value
    return merged


def _kind_word(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    for kind in (int, float, str, dict, list):
        if isinstance(value, kind):
            return _KIND_NAME[kind]
    return type(value).__name__


def merge_rules(defaults: Mapping | None, overrides: Any, where: str = "rules",
                schema: Option | None = None) -> dict:
    """The rules table ``defaults`` with ``overrides`` (the ``rules=`` option) applied and
    checked: ``overrides`` is a mapping whose keys all exist in ``defaults`` (nested tables are
    merged key by key); then the whole table is checked against ``schema`` (every field's type,
    range and size), errors naming ``where.key.subkey``."""
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"option 'rules' must be a mapping of rules keys to values, "
                          f"got {short(overrides)}")
    schema = schema.completed(defaults) if schema is not None else None
    merged = _merge(dict(defaults or {}), overrides, where, schema)
    if schema is None:
        return merged
    return schema.validate(merged, "", where)


#: a rules file larger than this is refused before it is parsed (the shipped ones are < 20 kB)
MAX_RULES_FILE_BYTES = 1 << 20


def read_config(path: str | os.PathLike | None, default_path: str | os.PathLike,
                schema: Option | None = None) -> dict:
    """A game's rules file: the default file, or ``path`` checked against ``schema`` (every
    section and field; errors name the file). Sections ``path`` leaves out, and keys its
    ``rules:`` leaves out, come from the default file."""

    default = read_yaml(str(default_path))
    if schema is not None:
        schema = schema.completed(default)
    if path is None or os.path.abspath(os.fspath(path)) == os.path.abspath(os.fspath(default_path)):
        return default if schema is None else schema.validate(default, str(default_path), "")
    data = read_mapping(path, "config_path", max_bytes=MAX_RULES_FILE_BYTES)
    where = os.fspath(path)
    sections = schema.fields if schema is not None and schema.fields is not None else ()
    known = [f.name for f in sections] or list(default)
    unknown = [k for k in data if k not in known]
    if unknown:
        raise ConfigError(f"{where}: unknown section {short(unknown[0])}; sections: {_names(known)}")
    rules = data.get("rules")
    if "rules" in default and rules is not None:
        rules_row = schema.field("rules") if schema is not None else None
        if not isinstance(rules, Mapping):
            raise (rules_row._fail(f"{where}: ", "rules", rules) if rules_row is not None else
                   ConfigError(f"{where}: rules must be a mapping, got {short(rules)}"))
        try:
            rules = _merge(dict(default["rules"]), rules, "rules", rules_row)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    merged = {**default, **data}
    if "rules" in default:
        merged["rules"] = default["rules"] if rules is None else rules
    return merged if schema is None else schema.validate(merged, where, "")
