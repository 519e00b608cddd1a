"""YAML reading for the project's files (rules tables, training configs, the shipped-agent index).

``read_mapping`` reads a user's file (a rules file given as ``config_path``): every way it can
be unusable is a one-line ``ConfigError`` naming it.

PyYAML's ``safe_load`` keeps the last of two equal keys in a mapping without a word, so a config
with ``eval_games`` written twice silently uses the second. ``load`` refuses that: a duplicate key
is a ``yaml.YAMLError`` naming the key and both lines, which the callers turn into their own
ConfigError. Everything else is ``safe_load``'s (``<<`` merge keys may still be overridden).
"""
from __future__ import annotations

import functools
from typing import Any

from .errors import ConfigError


@functools.lru_cache(maxsize=1)
def _loader():
    import yaml  # local import: engines import this module without reading any YAML

    class UniqueKeyLoader(yaml.SafeLoader):
        """safe_load's loader, refusing a key given twice in one mapping."""

    def construct_mapping(loader, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = loader.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: safe_load's own error follows
                continue
            if first is not None:
                err = yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"found the key {key!r} twice (first on line {first + 1})", key_node.start_mark)
                err.duplicate_key = key  # callers may say which key
                raise err
            seen[key] = key_node.start_mark.line
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return UniqueKeyLoader


def load(stream) -> Any:
    """``yaml.safe_load(stream)``, but a key given twice in a mapping raises a yaml.YAMLError."""
    import yaml

    return yaml.load(stream, Loader=_loader())  # noqa: S506 - a SafeLoader subclass


def _one_line(exc: Exception) -> str:
    """A YAML error in one line: the problem and where it is."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    text = str(problem if problem else exc)
    if mark is not None:
        text += f" (line {mark.line + 1}, column {mark.column + 1})"
    return " ".join(text.split())


def read_mapping(path, what: str = "file", max_bytes: int | None = None) -> dict:
    """The mapping a YAML file holds. Anything else is a one-line ``ConfigError`` naming the
    file: a missing file, a folder or other non-regular file, one that cannot be read, one
    larger than ``max_bytes``, bytes that are not UTF-8 text, malformed or too deeply nested
    YAML, a key given twice, or a document that is not a mapping (a list, a scalar, nothing)."""
    import os

    import yaml

    try:
        name = os.fspath(path)
    except TypeError:
        raise ConfigError(f"{what} must be a file path, got {type(path).__name__}") from None
    try:
        if os.path.isdir(name):
            raise IsADirectoryError
        if os.path.exists(name) and not os.path.isfile(name):
            raise ConfigError(f"{what} {name} is not a regular file")
        with open(name, "rb") as fh:
            raw = fh.read(-1 if max_bytes is None else max_bytes + 1)
    except FileNotFoundError:
        raise ConfigError(f"{what} not found: {name}") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {name} is a folder, not a file") from None
    except ConfigError:
        raise
    except OSError as exc:
        raise ConfigError(f"{what} {name} cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:  # e.g. a NUL byte in the path
        raise ConfigError(f"{what} {name!r} is not a usable path: {exc}") from None
    if max_bytes is not None and len(raw) > max_bytes:
        raise ConfigError(f"{what} {name} is larger than {max_bytes} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what} {name} is not UTF-8 text (a bad byte at offset {exc.start})"
                          ) from None
    try:
        data = load(text)  # a key given twice is an error, not the last one winning
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {name} is not valid YAML: {_one_line(exc)}") from None
    except RecursionError:
        raise ConfigError(f"{what} {name} is nested too deeply to be a rules file") from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. an int of 5000 digits
        raise ConfigError(f"{what} {name} is not valid YAML: {_one_line(exc)}") from None
    if not isinstance(data, dict):
        got = "nothing" if data is None else f"a {type(data).__name__}"
        raise ConfigError(f"{what} {name} must hold a mapping (KEY: VALUE lines), got {got}")
    return data
