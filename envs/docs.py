"""The reference page of every game's options and rewards (``docs/games.md``), generated from the
code so that it cannot drift from it.

    python -m tabletop_arena.envs.docs            # rewrite docs/games.md (run in the repository)
    python -m tabletop_arena.envs.docs --check    # exit 1 and print a diff when it is out of date
    python -m tabletop_arena.envs.docs --out -    # print the page

Sources, per registered game: the ``OPTIONS`` table of its Game class (name, type, allowed values,
default, description), the ``rules:`` table of ``configs/<game>.yaml`` (defaults, the comment on
each line, and each field's type and range from the game's ``SCHEMA``, with every other field
of the file in a second table), the registered variants, the
env's ``max_steps`` default, the default variant's action and observation sizes, and two
paragraphs of the ``aec_env.py`` module docstring: the one after the title (the rules in brief) and the
one starting with "Rewards", and the measured game lengths of ``configs/game_lengths.yaml`` (written
by ``scripts/game_lengths.py --write``). ``tests/test_docs.py`` fails when the committed page differs.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from . import make_game, names, spec
from .core import yamlio
from .core.aec import ILLEGAL_ACTION_MODES, RENDER_MODES
from .core.options import Option
from .core.resources import config_path
from .single_agent import gymnasium_id

DEFAULT_OUT = Path("docs") / "games.md"
#: the measured game lengths (scripts/game_lengths.py --write), under configs/
GAME_LENGTHS = "game_lengths.yaml"
LENGTHS_COMMAND = "python scripts/game_lengths.py"
COMMAND = "python -m tabletop_arena.envs.docs"
#: a rules value whose one-line JSON is longer than this is listed by name only (or, when it is a
#: mapping of plain values, one row per entry)
_SHORT = 48

_TYPE_NAMES = {int: "int", bool: "bool", float: "float", str: "str", dict: "dict", list: "list",
               os.PathLike: "path"}

#: the options every env takes besides its game's own (envs.core.options.ENV_OPTIONS): what they
#: do, in words; their allowed values and defaults are read from the code below
_ENV_OPTION_DOCS = {
    "render_mode": "`ansi`: `render()` returns text; `rgb_array`: an `(H, W, 3)` picture; "
                   "`human`: prints the text",
    "illegal_action": "`lose`: a masked-out action ends the game, the offender gets -1 "
                      "(PettingZoo classic; `info[\"ended_by\"] == \"illegal\"`); `raise`: "
                      "`IllegalActionError`, nothing changes",
    "max_steps": "move cap of the env: the game is truncated there "
                 "(`info[\"truncated_by_cap\"]`, `info[\"ended_by\"] == \"cap\"`); default: the "
                 "game's `max_game_length()`, an upper bound on its length from its own caps, so the "
                 "env never cuts a game before its own ending (per variant, see below; 1000 where a "
                 "game has none)",
    "ansi_color": "colour codes in text renders; `None`: plain in `ansi` mode, coloured in "
                  "`human` mode only on a terminal without `NO_COLOR`",
}


# ------------------------------------------------------------------------------------------------
# small renderers
# ------------------------------------------------------------------------------------------------
def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(value: Any) -> str:
    return f"`{value}`"


def _py(value: Any) -> str:
    """A default or a choice as Python source (what ``envs.make`` takes)."""
    return _code(repr(value))


def _flow(value: Any) -> str:
    """A rules value as one line of JSON (what ``--opt rules.KEY=VALUE`` takes)."""
    return json.dumps(value, ensure_ascii=False)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _option_type(opt: Option) -> str:
    return " or ".join(_TYPE_NAMES[k] for k in opt.kinds())


def _option_allowed(opt: Option) -> str:
    parts = []
    if opt.choices is not None:
        choices = ", ".join(_py(c) for c in opt.choices)
        parts.append(f"list of distinct {choices}" if opt.kinds() == (list,) else choices)
    if opt.low is not None or opt.high is not None:
        lo = "" if opt.low is None else opt.low
        hi = "" if opt.high is None else opt.high
        parts.append(f"{lo}..{hi}")
    if not parts:
        parts.append("any " + _option_type(opt))
    if opt.default is None:
        parts.append("`None`")
    return "; ".join(parts)


# ------------------------------------------------------------------------------------------------
# sources
# ------------------------------------------------------------------------------------------------
def _paragraphs(doc: str) -> list[str]:
    return [" ".join(line.strip() for line in p.splitlines()) for p in re.split(r"\n\s*\n", doc)]


def _rst_to_md(text: str) -> str:
    return text.replace("``", "`")


def _raw_env(name: str):
    """The game's AEC class, through its package (which loads its adapter module lazily)."""
    return importlib.import_module(spec(name).module).raw_env


def env_docstring(name: str) -> str:
    """The module docstring of the game's adapter module (``aec_env.py``)."""
    return inspect.getdoc(sys.modules[_raw_env(name).__module__]) or ""


def _title(name: str, doc: str) -> str:
    first = doc.splitlines()[0] if doc else ""
    match = re.match(r"(.+?) as a PettingZoo", first)
    return match.group(1) if match else name


def _summary(doc: str) -> str:
    paras = _paragraphs(doc)
    return _rst_to_md(paras[1]) if len(paras) > 1 else ""


def _rewards(name: str, doc: str) -> str:
    found = [p for p in _paragraphs(doc) if p.startswith("Rewards")]
    if not found:
        raise ValueError(f"the aec_env.py docstring of {name} has no paragraph starting with 'Rewards'")
    return _rst_to_md(found[0])


def yaml_comments(text: str) -> dict[str, str]:
    """``{"a.b": comment}`` for every ``key: value  # comment`` line of a YAML text (nested keys
    joined with dots), with the comment lines that continue it (indented further, right below) and
    the comment lines right above a key at its own indentation."""
    comments: dict[str, str] = {}
    stack: list[tuple[int, str]] = []   # (indent, key) of the enclosing mappings
    above: list[str] = []               # comment lines waiting for the next key
    last: tuple[str, int] | None = None  # the key whose comment a further-indented line continues
    for raw in text.splitlines():
        stripped = raw.strip()
        indent = len(raw) - len(raw.lstrip(" "))
        if not stripped:
            above, last = [], None
            continue
        if stripped.startswith("#"):
            words = stripped.lstrip("#").strip()
            if last is not None and indent > last[1]:
                comments[last[0]] = f"{comments[last[0]]} {words}".strip()
            else:
                above.append(words)
                last = None
            continue
        match = re.match(r"([A-Za-z0-9_]+):(.*)$", stripped)
        if match is None or stripped.startswith("-"):
            above, last = [], None
            continue
        key, rest = match.groups()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = ".".join([k for _, k in stack] + [key])
        inline = rest.split(" #", 1)[1].strip() if " #" in rest else ""
        text_ = " ".join(above + ([inline] if inline else [])).strip()
        if text_:
            comments[path] = text_
            last = (path, indent + 1 if not inline else raw.index("#") - 1)
        else:
            last = None
        above = []
        stack.append((indent, key))
    return comments


def _row_type(row: Option | None, value: Any = None) -> str:
    """A schema row's type in words (``list of int``, ``mapping``); the value's without a row."""
    if row is None:
        kinds: tuple = (type(value),) if value is not None else ()
    else:
        kinds = row.kinds()
    words = []
    for kind in kinds:
        word = {bool: "bool", int: "int", float: "float", str: "str", dict: "mapping",
                list: "list"}.get(kind, getattr(kind, "__name__", str(kind)))
        if kind is list and row is not None and row.each is not None and row.fields is None:
            word = f"list of {_row_type(row.each)}"
        words.append(word)
    return " or ".join(words)


def _row_allowed(row: Option | None) -> str:
    """What a schema row accepts beyond its type: choices, range, size, keys; null; optional."""
    if row is None:
        return ""
    parts = []
    if row.choices is not None:
        parts.append(", ".join(_code(_flow(c)) for c in row.choices))
    elif row.kinds() == (bool,):
        parts.append("`true`, `false`")
    if row.low is not None or row.high is not None:
        parts.append(f"{'' if row.low is None else row.low}..{'' if row.high is None else row.high}")
    if row.size is not None:
        lo, hi = row.size
        unit = ("characters" if row.kinds() == (str,) else "entries" if dict in row.kinds()
                else "items")
        parts.append((f"{lo} {unit}" if lo != 1 else f"1 {unit[:-1]}".replace("entrie", "entry"))
                     if lo == hi else f"{lo}..{hi} {unit}")
    if row.fields is not None and list in row.kinds():
        parts.append(f"[{', '.join(f.name for f in row.fields)}]")
    elif row.fields is not None:
        parts.append("keys " + ", ".join(f.name for f in row.fields))
    if row.keys is not None and row.keys.choices is None and row.keys.low is not None:
        parts.append(f"keys {row.keys.low}..{row.keys.high}")
    elif row.keys is not None and row.keys.choices is not None:
        parts.append("keys " + ", ".join(_code(_flow(c)) for c in row.keys.choices))
    if row.default is None:
        parts.append("`null`")
    if not row.required and row.default is not None:
        parts.append(f"optional (default {_code(_flow(row.default))})")
    return "; ".join(parts)


def _schema(name: str) -> Option | None:
    return getattr(_config_module(name), "SCHEMA", None)


def _same_rows(rows: tuple) -> bool:
    """Whether the rows differ in their names only (one record repeated under fixed keys)."""
    from dataclasses import replace
    first = replace(rows[0], name="")
    return len(rows) >= 3 and all(replace(r, name="") == first for r in rows[1:])


def schema_rows(schema: Option, path: str = "") -> list[tuple[str, Option, str]]:
    """``(path, row, note)`` for every row below ``schema``: fixed keys that share one record are
    written ``<name>`` once (the note lists the names), free keys ``<key>``, list items ``[]``
    (positional items ``[i]``)."""
    out: list[tuple[str, Option, str]] = []
    at = f"{path}." if path else ""
    if schema.fields is not None and list in schema.kinds():
        for i, f in enumerate(schema.fields):
            out.append((f"{path}[{i}]", f, f"`{f.name}`"))
            out += schema_rows(f, f"{path}[{i}]")
    elif schema.fields is not None and _same_rows(schema.fields):
        sub = f"{at}<name>"
        out.append((sub, schema.fields[0], "one of " + ", ".join(f"`{f.name}`" for f in schema.fields)))
        out += schema_rows(schema.fields[0], sub)
    elif schema.fields is not None:
        for f in schema.fields:
            out.append((f"{at}{f.name}", f, ""))
            out += schema_rows(f, f"{at}{f.name}")
    elif schema.each is not None:
        sub = f"{path}[]" if list in schema.kinds() and dict not in schema.kinds() else \
            f"{at}<{schema.keys.name if schema.keys is not None else 'key'}>"
        if list in schema.kinds() and str in schema.kinds():
            return out   # a string or a list of choices: the row says it all
        out.append((sub, schema.each, ""))
        out += schema_rows(schema.each, sub)
    return out


def _config_module(name: str):
    """The game's ``tables`` module (its rules-file ``SCHEMA``), or None for a game without one; an
    error while importing it propagates (a renamed module once emptied these tables silently)."""
    module = f"{spec(name).module}.tables"
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


def _rule_rows(name: str) -> tuple[list[list[str]], list[str], str]:
    """The rows of the rules table, the names of the larger tables and the file's name."""
    file_name = name.rsplit("_v", 1)[0] + ".yaml"
    path = config_path(file_name)
    text = path.read_text(encoding="utf-8")
    data = yamlio.load(text)
    comments = yaml_comments(text)
    schema = _schema(name)
    if "rules" in data:
        table, prefix = data["rules"], "rules."
    else:                                 # the rules option overrides any table of the file
        table, prefix = data, ""
    rows: list[list[str]] = []
    larger: list[str] = []

    def row(key: str, value: Any, note: str) -> None:
        at = schema.at(tuple((prefix + key).split("."))) if schema is not None else None
        rows.append([_code(key), _code(_flow(value)), _row_type(at, value), _row_allowed(at),
                     _rst_to_md(note or (at.doc if at is not None else ""))])

    def scalar_tree(value: Any) -> bool:
        """A mapping whose leaves are scalars (no lists), at any depth."""
        return isinstance(value, dict) and all(
            isinstance(k, str) and not isinstance(v, list) and (not isinstance(v, dict) or scalar_tree(v))
            for k, v in value.items())

    def rows_of(key: str, value: Any) -> None:
        # a short value is one row; a mapping of scalars and sub-mappings (e.g. Warbah's designed
        # numbers) a row per short entry, descending into the longer ones
        if len(_flow(value)) <= _SHORT or not isinstance(value, dict):
            row(key, value, comments.get(prefix + key, ""))
            return
        for sub, subvalue in value.items():
            rows_of(f"{key}.{sub}", subvalue)

    for key, value in table.items():
        if len(_flow(value)) <= _SHORT or scalar_tree(value):
            rows_of(key, value)
        else:
            larger.append(key)
    return rows, larger, file_name


# ------------------------------------------------------------------------------------------------
# the page
# ------------------------------------------------------------------------------------------------
def _env_options_section() -> list[str]:
    sample = _raw_env(names()[0])
    params = inspect.signature(sample.__init__).parameters
    allowed = {
        "render_mode": ", ".join(_py(m) for m in RENDER_MODES) + "; `None`",
        "illegal_action": ", ".join(_py(m) for m in ILLEGAL_ACTION_MODES),
        "max_steps": "1..",
        "ansi_color": "`True`, `False`; `None`",
    }
    types = {"render_mode": "str", "illegal_action": "str", "max_steps": "int", "ansi_color": "bool"}
    rows = []
    for key, words in _ENV_OPTION_DOCS.items():
        default = "`max_game_length()`" if key == "max_steps" else _py(params[key].default)
        rows.append([_code(key), types[key], allowed[key], default, words])
    return _table(["option", "type", "allowed", "default", "description"], rows)


def _game_section(name: str) -> list[str]:
    sp = spec(name)
    doc = env_docstring(name)
    title = _title(name, doc)
    game_cls = type(make_game(name))
    game = make_game(name)
    raw_env = _raw_env(name)
    max_steps = raw_env().max_steps   # the default variant's (its max_game_length())
    package = sp.module.rsplit(".", 1)[1]
    layout = ", ".join(f"`{piece}` {tuple(shape)}" for piece, shape in game.observation_layout)
    lines = [f"## {title} (`{name}`)", "",
             _summary(doc), "",
             f"- Players: {sp.players}. Rules in full: [envs/{package}/RULES.md]"
             f"(../envs/{package}/RULES.md); rules data: `configs/{package}.yaml`.",
             f"- Make it: `envs.make(\"{name}\", **options)` (PettingZoo AEC), "
             f"`envs.make_game(\"{name}\", **options)` (engine), "
             f"`gymnasium.make(\"{gymnasium_id(name)}\", opponent=\"heuristic\", **options)`, "
             f"`arena play {package} --opt KEY=VALUE`.",
             f"- Default variant (no options): `Discrete({game.num_actions})` actions, observation "
             f"`float32[{game.observation_size}]` ({layout}); `max_steps` default {max_steps}.",
             "", "### Options", ""]
    if game_cls.OPTIONS is None:
        raise TypeError(f"{game_cls.__name__} declares no OPTIONS table: the page lists a game's options from it")
    rows = [[_code(o.name), _option_type(o), _option_allowed(o), _py(o.default), o.doc]
            for o in game_cls.OPTIONS]
    lines += _table(["option", "type", "allowed", "default", "description"], rows)
    rule_rows, larger, file_name = _rule_rows(name)
    lines += ["", "### Rules table", "",
              f"Entries of `configs/{file_name}` that the `rules` option overrides (values as "
              f"in the file, YAML / JSON), e.g. {_rules_example(name, rule_rows)}; a dotted key "
              "sets one entry of a nested table.", ""]
    lines += _table(["key", "default", "type", "allowed", "note (from the file)"], rule_rows)
    if larger:
        lines += ["", "Larger tables of the file (overridable the same way, nested): "
                  + ", ".join(_code(k) for k in larger) + "."]
    lines += _schema_section(name, file_name, rule_rows)
    lines += ["", "### Variants", "",
              "The named option sets that the conformance suite plays (`arena list`):", ""]
    lines += _table(["variant", "options"],
                    [[_code(v), _code(json.dumps(o))] for v, o in sp.variants.items()])
    lines += _lengths_section(name, package)
    lines += ["", "### Rewards", "", _rewards(name, doc), ""]
    return lines


def game_lengths() -> dict[str, Any]:
    """``configs/game_lengths.yaml``: per game, ``rounds_are`` and its ``variants`` rows."""
    path = config_path(GAME_LENGTHS)
    data = yamlio.load(path.read_text(encoding="utf-8")) if path.exists() else None
    return data if isinstance(data, dict) else {}


def _share(x: float) -> str:
    return f"{round(100 * x, 1):g}%"


def _lengths_section(name: str, package: str) -> list[str]:
    """What an episode costs: each measured variant's mean moves and rounds and how it ended."""
    entry = game_lengths().get(name)
    lines = ["", "### Game length", ""]
    if not entry or not entry.get("variants"):
        command = f"{LENGTHS_COMMAND} {package} --games 200 --write configs/{GAME_LENGTHS}"
        return lines + [f"Not measured yet: `{command}`, then `{COMMAND}`."]
    rows_in = entry["variants"]
    for label, r in rows_in.items():
        missing = {"options", "games", "seed", "date", "rules", "designed", "cap", "moves", "rounds"} - set(r)
        if missing:
            raise ValueError(f"configs/{GAME_LENGTHS}: {name} {label!r} lacks {sorted(missing)}")
    games = sorted({r["games"] for r in rows_in.values()})
    dates = sorted({str(r["date"]) for r in rows_in.values()})
    command = (f"{LENGTHS_COMMAND} {package} --games {games[0] if len(games) == 1 else 'N'} "
               f"--write configs/{GAME_LENGTHS}")
    lines.append(
        "What an episode costs, with the rule-based `heuristic` in every seat: the mean number of "
        "moves (engine actions, every player's, sub-steps included) and of rounds a game, and how "
        "the games ended (`final_info()[\"ended_by\"]`: by the rulebook's ending, by a designed "
        "ending RULES.md documents, or at a safety cap). "
        f"Rounds here: {_rst_to_md(entry['rounds_are'])}. "
        f"{' or '.join(str(g) for g in games)} games a variant, measured on {', '.join(dates)} with "
        f"`{command}` (the data: `configs/{GAME_LENGTHS}`); the game's RULES.md \"Game length\" "
        "says more.")
    lines.append("")
    rows = []
    for label, r in rows_in.items():
        seeds = f"{r['seed']}-{r['seed'] + r['games'] - 1}"
        rounds = "" if r["rounds"] is None else f"{r['rounds']:.1f}"
        rows.append([label, _code(json.dumps(r["options"])), f"{r['games']} (seeds {seeds})", str(r["date"]),
                     _share(r["rules"]), _share(r["designed"]), _share(r["cap"]), f"{r['moves']:,.0f}", rounds])
    return lines + _table(["variant", "options", "games", "measured", "by the rules", "designed ending",
                           "cap", "mean moves", "mean rounds"], rows)


def _schema_section(name: str, file_name: str, rule_rows: list[list[str]]) -> list[str]:
    """The rules file's schema: every field the rules table above does not list, with its type
    and range (the game's ``SCHEMA``; a file or override that breaks it is a ConfigError)."""
    schema = _schema(name)
    if schema is None:
        return []
    listed = {r[0].strip("`") for r in rule_rows}
    rules_game = schema.field("rules") is not None
    rows = []
    for path, row, note in schema_rows(schema):
        key = path[len("rules."):] if rules_game and path.startswith("rules.") else path
        if (rules_game and path == "rules") or key in listed:
            continue
        text = "; ".join(t for t in (note, _rst_to_md(row.doc)) if t)
        rows.append([_code(path), _row_type(row), _row_allowed(row), text])
    where = ("a `config_path` file has the same sections; a section it leaves out comes from "
             f"`configs/{file_name}`" if rules_game else
             "the `rules` option overrides any part of it, nested")
    lines = ["", "### Rules file", "",
             f"The other fields of `configs/{file_name}` ({where}). Every field is checked when the "
             "game is built: a value of another type, out of its range or of another size, an "
             "unknown or a missing key is an `envs.ConfigError` naming the file, the section and "
             "the field. `<name>`: any key (or one of those listed); `[]`: every item of a list; "
             "`[i]`: item i of a fixed-length row.", ""]
    return lines + _table(["field", "type", "allowed", "description"], rows)


def _rules_example(name: str, rows: list[list[str]]) -> str:
    key, value = rows[0][0].strip("`"), rows[0][1].strip("`")
    package = name.rsplit("_v", 1)[0]
    head, _, tail = key.partition(".")
    nested = f'{{"{head}": {{"{tail}": {value}}}}}' if tail else f'{{"{key}": {value}}}'
    return f"`rules={nested}` or `arena play {package} --opt rules.{key}={value}`"


def games_markdown() -> str:
    """The text of ``docs/games.md``."""
    game_names = names()
    titles = {n: _title(n, env_docstring(n)) for n in game_names}
    lines = ["# Games: options, rules tables and rewards", "",
             f"<!-- Generated by `{COMMAND}` from the code (each game's OPTIONS table, "
             "configs/<game>.yaml, the aec_env.py docstring). Do not edit by hand: "
             "tests/test_docs.py fails when this file differs from what the command writes. -->",
             "",
             "Every option below goes to `envs.make(id, **options)`, `envs.make_game(id, **options)`, "
             "`envs.make_single_agent(id, **options)` and `gymnasium.make(...)`, and on the command "
             "line to every command as `--opt KEY=VALUE` (the value is read as JSON when it parses). "
             "A wrong name, type or value raises `envs.ConfigError` naming the option and what it "
             "allows. Each game's \"Game length\" says what an episode costs (mean moves and rounds "
             "a variant).", "",
             "Games: " + ", ".join(f"[{titles[n]}](#{_anchor(titles[n], n)})" for n in game_names)
             + ".", "",
             "## Options of every env", "",
             "The PettingZoo env (`envs.make`) takes these besides its game's own options:", ""]
    lines += _env_options_section()
    lines.append("")
    for name in game_names:
        lines += _game_section(name)
    return "\n".join(lines).rstrip("\n") + "\n"


def _anchor(title: str, name: str) -> str:
    """GitHub's anchor of the heading ``## {title} (`{name}`)``."""
    heading = f"{title} ({name})".lower()
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def diff(path: str | os.PathLike) -> str:
    """A unified diff from the file at ``path`` to the generated page ('' when they agree)."""
    p = Path(path)
    old = p.read_text(encoding="utf-8") if p.exists() else ""
    new = games_markdown()
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        str(p), "generated"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=COMMAND, description="Write docs/games.md (every game's "
                                 "options, rules table and rewards) from the code.")
    ap.add_argument("--out", default=str(DEFAULT_OUT),
                    help=f"file to write, '-' for stdout (default: {DEFAULT_OUT}, relative to the "
                         "current folder: run it in the repository)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 and print a diff when --out is out of date")
    args = ap.parse_args(argv)
    if args.out == "-":
        sys.stdout.write(games_markdown())
        return 0
    if args.check:
        delta = diff(args.out)
        if delta:
            sys.stdout.write(delta)
            print(f"\n{args.out} is out of date: run {COMMAND}", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    out = Path(args.out)
    if not out.parent.is_dir():
        ap.error(f"no folder {out.parent} here: run it in the repository root or pass --out")
    out.write_text(games_markdown(), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
