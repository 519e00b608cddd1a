"""Training configs checked by the one mechanism of ``envs/core/options.py`` (issue 44).

Each trainer declares its config keys as ``Option`` rows next to them (type, default, range or
choices, doc): ``train/config.py`` ``SCHEMA`` (the PPO config, ``TrainConfig``; its ``_coerce``
checks one value by its row), ``train/value_lookahead.py`` ``SCHEMA``, ``train/search_distill.py``
``SCHEMA``, and the PPO config's ``rllib`` section (``RLLIB_SCHEMA``, train/config.py).
``check_config`` reads a config (a file's keys, or them with ``--set`` on top) against the rows:
an unknown key is refused with a did-you-mean, every value by its row (``Option.validate``), so
every mistake is one line naming the source and the key
(``configs/train/gorgasali.yaml: rounds must be an int in 1.., got 0``). What ties several keys
together stays in the trainer as a small check raising ``ConfigError``.
"""
from __future__ import annotations

import copy
import difflib
from typing import Any, Mapping, Sequence

from ..envs.core.errors import ConfigError
from ..envs.core.options import Option, short

#: the kinds of a row that takes any YAML value (its own trainer checks it further)
ANY_VALUE = (int, float, bool, str, dict, list)


def count(name: str, default: int, low: int, doc: str) -> Option:
    """A row for an integer key of at least ``low`` (the trainers' configs' counts)."""
    return Option(name, int, default, doc, low=low)


def number(name: str, default: float, doc: str, low: float = 0.0, high: float | None = None) -> Option:
    """A row for a float key in [``low``, ``high``] (no upper bound when ``high`` is None)."""
    return Option(name, float, default, doc, low=low, high=high)


def _refuse_unknown(rows: Mapping[str, Option], data: Mapping, source: str, what: str) -> None:
    unknown = sorted(map(str, set(data) - set(rows)))
    if unknown:
        hints = [f"{k} (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(k, list(rows), 1)) else k
                 for k in unknown]
        raise ConfigError(f"{source}: unknown key(s) {', '.join(hints)} {what}".rstrip())
    for key, value in data.items():   # a section with named keys: its unknown keys, said the same way
        row = rows[key]
        if row.fields is not None and dict in row.kinds() and isinstance(value, Mapping):
            _refuse_unknown({f.name: f for f in row.fields}, value, source, f"in {key}")


def check_config(schema: Sequence[Option], data: Any, source: str, what: str = "") -> dict[str, Any]:
    """``data`` checked against ``schema``: every key, defaults filled in (fresh copies), an int
    given for a number made a float. ConfigError, one line naming ``source`` and the key: not a
    mapping, an unknown key (``what`` says whose keys: "for algorithm X"), a value its row refuses."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: must be a mapping of option: value, got {type(data).__name__}")
    rows = {row.name: row for row in schema}
    _refuse_unknown(rows, data, source, what)
    out: dict[str, Any] = {}
    for name, row in rows.items():
        if name not in data:
            out[name] = copy.deepcopy(row.default)
            continue
        value = row.validate(data[name], source, name)
        if row.kinds() == (float,) and value is not None:
            value = float(value)
        out[name] = value
    return out


def undocumented(schema: Sequence[Option]) -> list[str]:
    """The rows of ``schema`` without a doc (tests/test_train_keys.py wants none)."""
    return [row.name for row in schema if not row.doc.strip()]


__all__ = ["ANY_VALUE", "check_config", "short", "undocumented"]
