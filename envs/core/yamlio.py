"""YAML reading for the project's files (rules tables, training configs, the shipped-agent index).

PyYAML's ``safe_load`` keeps the last of two equal keys in a mapping without a word, so a config
with ``eval_games`` written twice silently uses the second. ``load`` refuses that: a duplicate key
is a ``yaml.YAMLError`` naming the key and both lines, which the callers turn into their own
ConfigError. Everything else is ``safe_load``'s (``<<`` merge keys may still be overridden).
"""
from __future__ import annotations

import functools
from typing import Any


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
