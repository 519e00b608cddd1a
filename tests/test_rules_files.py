"""Malformed rules files and ``rules=`` overrides: a typed one-line error, never a crash, a hang or
a silent acceptance (issue 41 item 6).

Each game's ``configs/<game>.yaml`` has one schema (``SCHEMA`` in ``envs/<game>/config.py``):
every section and field with its type and range, listed in docs/games.md. This file mutates the
shipped files (deleted keys, renamed keys, wrong types, empty and shortened lists, huge counts,
negative values, empty strings, deep nesting) and writes broken files (binary garbage, text that
is not UTF-8, YAML that is not a mapping or not YAML, a key twice, a folder, a missing file, an
oversized file). Warbah takes no file: its mutations go through ``rules=``, which overrides any
part of its file. Every case is seeded and deterministic.

A case ends in one of four ways: ``ConfigError`` (one line), accepted (then the game plays a few
random moves under a time guard), a crash (any other exception) or a hang. The test wants no
crash, no hang, and no acceptance of a case that breaks the documented schema (the schema's own
rows decide: a value out of a row's range or of another type, a required key deleted, an
unknown key, a list shorter than its row allows).

    python -m tests.test_rules_files            # the counts per game (and the failures)

The case runner uses only ``envs.make_game``, so the same cases can be run on other code.
"""
from __future__ import annotations

import copy
import importlib
import os
import pickle
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from tabletop_arena import envs
from tabletop_arena.envs.core.resources import config_path

GAMES = ("gorgasali_v0", "peacekeepers_v0", "warbah_v0", "zaberias_v0", "zaka_v0")
#: games whose rules file is replaced with ``config_path``; Warbah's ``rules=`` overrides any part
FILE_GAMES = ("gorgasali_v0", "peacekeepers_v0", "zaberias_v0", "zaka_v0")
#: mutated paths drawn per game and kind of mutation
PER_KIND = 3
SEED = 4101
#: random moves played on an accepted case, and the guard on building and playing it
MOVES = 6
GUARD_SECONDS = 20

HUGE = 1_000_000_000
NEGATIVE = -1
#: the last two set a number to its row's documented bounds: no error is required there, but
#: an accepted value must play
KINDS = ("delete", "rename", "wrong_type", "empty_list", "shorten_list", "huge", "negative",
         "empty_string", "deep", "at_low", "at_high")


@dataclass
class Case:
    game: str
    kind: str
    where: str                      # the mutated path, or what the whole-file case is
    must_refuse: bool
    file: bytes | None = None       # the rules file's bytes (config_path)
    file_kind: str = ""             # "", "folder" or "missing": what config_path names
    rules: Any = None               # the rules= override
    has_rules: bool = False
    options: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------
# cases
# ------------------------------------------------------------------------------------------------
def _shipped(game: str) -> dict:
    return yaml.safe_load(config_path(game.rsplit("_v", 1)[0] + ".yaml").read_text(encoding="utf-8"))


def _schema(game: str):
    return importlib.import_module(envs.spec(game).module + ".tables").SCHEMA


def _paths(data, prefix=()):
    """Every path of a nested structure, parents before children."""
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


def _get(data, path):
    for step in path:
        data = data[step]
    return data


def _with(data, path, change):
    """A deep copy of ``data`` with ``change(parent, last key)`` applied at ``path``."""
    out = copy.deepcopy(data)
    parent = _get(out, path[:-1])
    change(parent, path[-1])
    return out


def _set(data, path, value):
    return _with(data, path, lambda p, k: p.__setitem__(k, value))


def _show(path) -> str:
    return ".".join(str(p) for p in path) or "<file>"


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _accepts(row, value) -> bool:
    """Whether ``row`` itself (not the rows below it) takes ``value``: its kind, range, choices
    and size. The schema documents exactly this; the loader may refuse more (what ties fields
    together), never less."""
    if row is None:
        return False
    try:
        row._check(value, "", "x") if not isinstance(value, (dict, list)) or value in ([], {}) \
            else _shallow(row, value)
        return True
    except envs.ConfigError:
        return False


def _shallow(row, value) -> None:
    """``row``'s checks of a collection without looking at its items' rows."""
    from dataclasses import replace
    row_ = replace(row, fields=None, each=None, keys=None)
    row_._check(value, "", "x")
    if row.fields is not None and isinstance(value, list) and len(value) != len(row.fields):
        raise envs.ConfigError("positional")


def _wrong_value(row, rng):
    options = ["not-a-number", 7, [1], {"a": 1}, 2.5, True, None]
    order = rng.permutation(len(options))
    for i in order:
        value = options[int(i)]
        if not _accepts(row, value):
            return value
    return object()


def _deep(levels: int = 60):
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def _mutations(game: str, data: dict, schema, rng, via_rules: bool) -> list[Case]:
    """PER_KIND mutated paths of each kind, drawn with ``rng``, as cases."""
    paths = [p for p in _paths(data) if p]
    out: list[Case] = []
    for kind in KINDS:
        fits = []
        for p in paths:
            v = _get(data, p)
            parent = _get(data, p[:-1])
            keyed = isinstance(parent, dict)
            if kind in ("delete", "rename") and not keyed:
                continue
            if kind in ("delete", "rename") and via_rules and not _in_list(data, p):
                if kind == "delete":
                    continue   # a rules= override cannot delete a key of a mapping
            if kind in ("empty_list", "shorten_list") and not (isinstance(v, list) and v):
                continue
            if kind in ("huge", "negative") and not (_is_int(v) or isinstance(v, float)):
                continue
            if kind == "empty_string" and not isinstance(v, str):
                continue
            if kind in ("at_low", "at_high") and (not (_is_int(v) or isinstance(v, float))
                                                  or schema.at(p) is None):
                continue
            fits.append(p)
        for i in rng.permutation(len(fits))[:PER_KIND]:
            p = fits[int(i)]
            out.append(_case(game, kind, data, p, schema, rng, via_rules))
    return out


def _in_list(data, path) -> bool:
    return any(isinstance(_get(data, path[:i]), list) for i in range(len(path)))


def _case(game, kind, data, p, schema, rng, via_rules) -> Case:
    row, parent_row = schema.at(p), schema.at(p[:-1])
    v = _get(data, p)
    if kind == "delete":
        new = _with(data, p, lambda d, k: d.pop(k))
        if parent_row is not None and parent_row.fields is None:   # an entry of a free mapping
            size = parent_row.size
            refuse = size is not None and len(_get(data, p[:-1])) - 1 < size[0]
        elif via_rules:
            refuse = row is None or row.required
        else:  # a file may leave out a section or a rules key: they come from the shipped file
            refuse = (row is None or row.required) and len(p) > 1 and p[0] != "rules" \
                or (len(p) > 2 and p[0] == "rules")
    elif kind == "rename":
        key = f"{p[-1]}_renamed"

        def rename(d, k):
            items = list(d.items())
            d.clear()
            d.update((key if kk == k else kk, vv) for kk, vv in items)
        new = _with(data, p, rename)
        if via_rules and not _in_list(data, p):
            refuse = True   # an override names keys of the shipped file only
        elif parent_row is None or parent_row.fields is not None:
            refuse = True   # fixed keys
        else:               # free keys (card names, ...): the new one may be fine
            refuse = parent_row.keys is not None and not _accepts(parent_row.keys, key)
    elif kind == "wrong_type":
        bad = _wrong_value(row, rng)
        new, refuse = _set(data, p, bad), True
    elif kind == "empty_list":
        new, refuse = _set(data, p, []), not _accepts(row, [])
    elif kind == "shorten_list":
        new = _set(data, p, v[:-1])
        refuse = row is None or row.fields is not None or (
            row.size is not None and len(v) - 1 < row.size[0])
    elif kind == "huge":
        new, refuse = _set(data, p, HUGE), not _accepts(row, HUGE)
    elif kind == "negative":
        new, refuse = _set(data, p, NEGATIVE), not _accepts(row, NEGATIVE)
    elif kind == "empty_string":
        new, refuse = _set(data, p, ""), not _accepts(row, "")
    elif kind in ("at_low", "at_high"):
        bound = row.low if kind == "at_low" else row.high
        new, refuse = _set(data, p, v if bound is None else bound), False
    else:  # deep
        new, refuse = _set(data, p, _deep()), True
    where = _show(p)
    if via_rules:
        return Case(game, kind, where, refuse, rules=_override(data, new, p), has_rules=True)
    return Case(game, kind, where, refuse,
                file=yaml.safe_dump(new, sort_keys=False, allow_unicode=True).encode())


def _override(data, new, path):
    """The smallest nested override of ``data`` that gives ``new``: mappings merge key by key, so
    it holds the mutated key (or, for a renamed one, its mapping); the first list on the path is
    replaced whole."""
    lists = [i for i in range(len(path)) if isinstance(_get(data, path[:i]), list)]
    if lists:
        cut = path[:lists[0]]
    else:
        cut = path if _has(new, path) else path[:-1]
    out: Any = _get(new, cut)
    for step in reversed(cut):
        out = {step: out}
    return out


def _has(data, path) -> bool:
    try:
        _get(data, path)
        return True
    except (KeyError, IndexError, TypeError):
        return False


def _file_cases(game: str, text: str, rng) -> list[Case]:
    """Whole files that are not a rules file at all."""
    raw = {
        "binary garbage": bytes(rng.integers(0, 256, 3000, dtype=np.uint8)),
        "not UTF-8": text.encode("utf-8") + "\n# caf\u00e9\n".encode("latin-1"),
        "UTF-16": text.encode("utf-16"),
        "a list": b"- 1\n- 2\n",
        "a scalar": b"42\n",
        "empty": b"",
        "not YAML": b"rules: [1, 2\n",
        "a tab": b"rules:\n\thand_size: 3\n",
        "a key twice": (text + "\nrules: {}\n").encode(),
        "deep nesting": b"rules: " + b"[" * 5000 + b"]" * 5000 + b"\n",
        "a huge int": b"rules:\n  x: " + b"9" * 6000 + b"\n",
        "rules not a mapping": (text + "\n").replace("\nrules:", "\nrules_old:").encode()
        + b"\nrules: 5\n",
        "too large": b"# " + b"x" * (2 << 20) + b"\n",
        "unknown section": (text + "\nno_such_section: 1\n").encode(),
        "a NaN": b"rules: {}\n" + b"weapons: .nan\n",
    }
    out = [Case(game, "file", what, True, file=data) for what, data in raw.items()]
    out.append(Case(game, "file", "a folder", True, file_kind="folder"))
    out.append(Case(game, "file", "a missing file", True, file_kind="missing"))
    return out


def _rules_cases(game: str, data: dict, rng) -> list[Case]:
    """``rules=`` values that are not an override of the rules table."""
    table = data if game == "warbah_v0" else data["rules"]
    first = next(iter(table))
    out = [Case(game, "rules", what, True, rules=value, has_rules=True) for what, value in {
        "a string": "x", "a list": [1, 2], "an int": 3, "unknown key": {"no_such_key": 1},
        "deep": {first: _deep()}, "a NaN": {first: float("nan")},
        "a set": {first: {1, 2}}}.items()]
    return out


def cases(games=GAMES) -> list[Case]:
    """Every case, the same on every run."""
    out: list[Case] = []
    for n, game in enumerate(games):
        rng = np.random.default_rng(SEED + n)
        data = _shipped(game)
        schema = _schema(game)
        text = config_path(game.rsplit("_v", 1)[0] + ".yaml").read_text(encoding="utf-8")
        if game in FILE_GAMES:
            out += _mutations(game, data, schema, rng, via_rules=False)
            out += _file_cases(game, text, rng)
            rules_rows = schema.at(("rules",))
            out += [_as_rules(c) for c in _mutations(
                game, {"rules": data["rules"]}, _only(schema, rules_rows), rng, via_rules=True)
                if isinstance(c.rules, dict) and c.rules.get("rules") is not None]
        else:
            out += _mutations(game, data, schema, rng, via_rules=True)
        out += _rules_cases(game, data, rng)
    return out


def _only(schema, rules_row):
    from dataclasses import replace
    return replace(schema, fields=(rules_row,))


def _as_rules(case: Case) -> Case:
    """A mutation of ``{"rules": ...}`` as a ``rules=`` override of the rules section."""
    return Case(case.game, "rules." + case.kind, case.where, case.must_refuse,
                rules=case.rules["rules"], has_rules=True)


# ------------------------------------------------------------------------------------------------
# running a case (envs.make_game only: the same runner works on any version of the code)
# ------------------------------------------------------------------------------------------------
class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def run(case: Case, folder: str) -> tuple[str, str]:
    """``(outcome, detail)``: outcome "refused" (a ConfigError), "accepted", "crash" or "hang"."""
    options = dict(case.options)
    if case.has_rules:
        options["rules"] = case.rules
    path = None
    if case.file is not None:
        path = os.path.join(folder, f"case_{abs(hash((case.game, case.kind, case.where))) % 10**9}.yaml")
        with open(path, "wb") as fh:
            fh.write(case.file)
    elif case.file_kind == "folder":
        path = folder
    elif case.file_kind == "missing":
        path = os.path.join(folder, "no_such_rules_file.yaml")
    if path is not None:
        options["config_path"] = path
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(GUARD_SECONDS)
    try:
        game = envs.make_game(case.game, **options)
        st = game.new_initial_state(7)
        rng = np.random.default_rng(7)
        for _ in range(MOVES):
            if st.is_terminal():
                break
            legal = np.flatnonzero(st.legal_actions_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
        return "accepted", ""
    except envs.ConfigError as exc:
        return "refused", str(exc)
    except _Hang:
        return "hang", f"no answer in {GUARD_SECONDS} s"
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - what the fuzz looks for
        return "crash", f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        if path is not None and case.file is not None and os.path.exists(path):
            os.remove(path)


def verdicts(todo: list[Case]) -> list[tuple[Case, str, str, str]]:
    """``(case, outcome, detail, problem)``; problem is "" when the case ended well."""
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for case in todo:
            outcome, detail = run(case, folder)
            problem = ""
            if outcome in ("crash", "hang"):
                problem = outcome
            elif outcome == "accepted" and case.must_refuse:
                problem = "silent"
            elif outcome == "refused" and "\n" in detail:
                problem = "not one line"
            elif outcome == "refused" and case.file is not None and case.kind != "file" \
                    and (Path(folder).name not in detail or case.where.split(".")[0] not in detail):
                problem = "does not name the file and section"
            out.append((case, outcome, detail, problem))
    return out


def summary(results) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for case, outcome, _detail, problem in results:
        row = table.setdefault(case.game, {"cases": 0, "typed errors": 0, "accepted": 0,
                                           "silent": 0, "crashes": 0, "hangs": 0})
        row["cases"] += 1
        row["typed errors"] += outcome == "refused"
        row["accepted"] += outcome == "accepted"
        row["silent"] += problem == "silent"
        row["crashes"] += outcome == "crash"
        row["hangs"] += outcome == "hang"
    return table


# ------------------------------------------------------------------------------------------------
# tests
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_malformed_rules_are_refused_in_one_line(game):
    results = verdicts([c for c in cases((game,))])
    bad = [f"{c.kind} {c.where}: {problem} ({outcome}: {detail})"
           for c, outcome, detail, problem in results if problem]
    assert len(results) >= 40
    assert not bad, f"{len(bad)} of {len(results)} cases:\n" + "\n".join(bad[:40])


def test_cases_are_deterministic():
    a, b = cases(("zaka_v0",)), cases(("zaka_v0",))
    assert [(c.kind, c.where, c.file, repr(c.rules)) for c in a] == \
        [(c.kind, c.where, c.file, repr(c.rules)) for c in b]


@pytest.mark.parametrize("game", GAMES)
def test_every_field_of_the_shipped_file_has_a_schema_row_with_a_range(game):
    """A key added to configs/<game>.yaml needs a row in envs/<game>/config.py SCHEMA (a number
    with its range, a list or mapping with its size, a string with its choices or length)."""
    from tabletop_arena.envs.core.options import schema_gaps
    gaps = schema_gaps(_schema(game), _shipped(game))
    assert not gaps, f"{game}: fields without a schema row or a range: {gaps}"


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_file_satisfies_its_schema(game):
    schema = _schema(game)
    data = _shipped(game)
    assert schema.validate(data, "shipped", "") == data


@pytest.mark.parametrize("game", FILE_GAMES)
def test_a_faithful_copy_of_the_shipped_file_plays_the_same_game(game, tmp_path):
    path = tmp_path / "copy.yaml"
    path.write_text(yaml.safe_dump(_shipped(game), sort_keys=False))   # card order is layout
    a, b = envs.make_game(game).new_initial_state(3), \
        envs.make_game(game, config_path=str(path)).new_initial_state(3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        if a.is_terminal():
            break
        mask = a.legal_actions_mask()
        assert np.array_equal(mask, b.legal_actions_mask())
        action = int(rng.choice(np.flatnonzero(mask)))
        a.apply(action)
        b.apply(action)
    assert np.array_equal(a.observation(0), b.observation(0))


def _report(games=GAMES, dump: str | None = None) -> int:
    todo = cases(games)
    if dump:
        with open(dump, "wb") as fh:
            pickle.dump(todo, fh)
    results = verdicts(todo)
    table = summary(results)
    total = {k: sum(r[k] for r in table.values()) for k in next(iter(table.values()))}
    for name, row in [*table.items(), ("all", total)]:
        print(f"{name:16} " + "  ".join(f"{k} {v}" for k, v in row.items()))
    for c, outcome, detail, problem in results:
        if problem:
            print(f"  {c.game} {c.kind} {c.where}: {problem} ({outcome}: {detail[:160]})")
    return int(any(p for *_, p in results))


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Run the rules-file fuzz and print the counts.")
    ap.add_argument("--per-kind", type=int, default=PER_KIND, help="paths drawn per kind and game")
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--dump", help="also write the cases (pickle) to this file")
    args = ap.parse_args()
    PER_KIND = args.per_kind
    sys.exit(_report(tuple(args.games), dump=args.dump))
