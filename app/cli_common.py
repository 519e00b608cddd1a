"""Plumbing shared by every ``arena`` sub-command: one option syntax, one-line errors.

**Env options** (the game's variant: ``mode``, ``num_players``, ``rules`` ...) are given the same
way to ``play``, ``serve``, ``eval``, ``train``, ``quickstart`` and ``bench``::

    --opt num_players=4 --opt mode=duo           KEY=VALUE, repeatable
    --opt tribes='["orcs", "guardians"]'         VALUE is JSON when it parses, else a string
    --opt rules.hidden_hands=true                a dotted KEY sets one entry of a nested table
    --opt '{"mode": "competitive", "num_players": 2}'   a whole JSON object

``--set KEY=VALUE`` is something else: a key of the *training config* (``train/config.py``), only
for ``train`` and ``quickstart``.

**Errors** a person can make on the command line (an unknown game, a bad option, an agent spec
that names nothing, a missing checkpoint) raise ``CLIError``; ``arena`` prints it as one line with
a hint and exits with code 2, never with a traceback.
"""
from __future__ import annotations

import argparse
import difflib
import functools
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from .. import envs
from ..agents.registry import (
    AgentSpecError,
    checkpoint_for,
    checkpoint_ref,  # (kind, REF) of a checkpoint-backed spec, from AGENT_KINDS
    shipped_for,
    spec_kind,
)
from ..agents.registry import make_agent as build
from ..agents.shipped import agent_kind, resolve_checkpoint
from ..envs.core.errors import ArenaError

OPT_HELP = ("env option KEY=VALUE, repeatable; VALUE is JSON when it parses (4, true, "
            "'[\"orcs\", \"humans\"]') else a string; rules.KEY=VALUE sets one rules entry; a JSON "
            "object sets several (see 'arena list' for each game's variants)")


class CLIError(ArenaError):
    """A mistake on the command line: shown as ``arena CMD: error: MESSAGE (HINT)``, exit code 2."""

    def __init__(self, message: str, hint: str | None = None, prog: str | None = None):
        super().__init__(message)
        self.message, self.hint, self.prog = message, hint, prog

    def line(self, prog: str = "arena") -> str:
        text = one_line(self.message)
        if self.hint:
            text += f" ({one_line(self.hint)})"
        return f"{self.prog or prog}: error: {text}"


def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines included) as one space."""
    return " ".join(str(text).split())


def user_error_types() -> tuple[type[BaseException], ...]:
    """The exception classes that mean "bad input", not "bug": shown as one line, exit code 2.
    One base, ``ArenaError`` (envs/core/errors.py): every user-facing error of the package
    derives from it (the engines' and the training configs' ``ConfigError``, checkpoints, agent
    specs, shipped names, ladders, recordings, the command line)."""
    return (ArenaError,)


#: the packages an extra brings (top-level module -> the extra): a command that imports one of
#: them on an install without it says which extra to install, in one line
EXTRA_MODULES = {"torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "tqdm": "train",
                 "matplotlib": "train", "tensorboard": "train", "pygame": "train", "ray": "train,rllib"}
DISTRIBUTION = "tabletop-arena"


def missing_extra(exc: BaseException) -> str | None:
    """The one-line message for an ImportError of a module that an extra brings, else None."""
    if not isinstance(exc, ImportError) or not exc.name:
        return None
    module = exc.name.split(".")[0]
    extra = EXTRA_MODULES.get(module)
    if extra is None:
        return None
    line = f"needs {module} (the {extra} extra): pip install '{DISTRIBUTION}[{extra}]'"
    if module == "torch":
        line += "; the small CPU torch first: pip install torch --index-url https://download.pytorch.org/whl/cpu"
    return line


def command(func):
    """Decorate a sub-command handler: user errors print one line on stderr and return 2 (a
    package of an extra that is not installed too: which extra, and the pip command)."""
    @functools.wraps(func)
    def handler(args) -> int:
        prog = f"arena {getattr(args, 'command', '') or ''}".strip()
        try:
            return func(args)
        except Exception as exc:  # noqa: BLE001 - user errors are one line; anything else is a bug
            if isinstance(exc, CLIError):
                line = exc.line(prog)
            elif missing_extra(exc):
                line = f"{prog}: error: {missing_extra(exc)}"
            elif isinstance(exc, user_error_types()):
                line = f"{prog}: error: {one_line(exc)}"
            else:
                raise
            print(line, file=sys.stderr)
            return 2
    return handler


# ---------------------------------------------------------------------------------- parser ----
class HelpFormatter(argparse.HelpFormatter):
    """Shows every option's default (except None and False, which only mean "not given"); wraps a
    one-paragraph description and keeps the line breaks of a text that has them (epilogs)."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action):
        text = action.help or ""
        if "%(default)" in text or any(action.default is x for x in (None, False, argparse.SUPPRESS)):
            return text
        if action.option_strings or action.nargs in ("?", "*"):
            return f"{text} (default: %(default)s)"
        return text


class ArenaParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one-line ``CLIError``s (exit code 2)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        # argparse quotes every choice ('list', 'play', ...): the names alone keep the line short
        message = re.sub(r"\(choose from ([^)]*)\)", lambda m: f"(choose from {m.group(1).replace(chr(39), '')})",
                         message)
        raise CLIError(message, hint=f"see '{self.prog} --help'", prog=self.prog)


def add_env_options(parser: argparse.ArgumentParser) -> None:
    """``--opt`` on ``parser``; read with ``env_options``."""
    parser.add_argument("--opt", action="append", dest="opt", metavar="KEY=VALUE", help=OPT_HELP)


def env_options(args) -> dict[str, Any]:
    """The env options of parsed ``args`` (``--opt``)."""
    return parse_env_options(getattr(args, "opt", None))


def int_at_least(low: int):
    """An argparse type: an integer >= ``low``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value
    parse.__name__ = f"integer >= {low}"
    return parse


def int_between(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low} to {high:,}, got {text!r}")
        return value
    parse.__name__ = f"integer in {low}..{high}"
    return parse


def number_between(low: float, high: float, what: str = "seconds"):
    """An argparse type: a finite number above ``low`` and at most ``high`` (nan, inf refused)."""
    import math

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low < value <= high):
            raise argparse.ArgumentTypeError(f"expected {what} above {low:g} and at most {high:g}, got {text!r}")
        return value
    parse.__name__ = f"number in ({low}, {high}]"
    return parse


TRUST_HELP = ("also load pickled checkpoints (SB3 zips written before the safe format, "
              "tabletop-arena-ppo/1): such a file runs any code it carries, so use this only for files "
              "whose source you trust; 'arena convert-checkpoint' rewrites one in the safe format once")


def add_trust_checkpoint(parser: argparse.ArgumentParser, help: str = TRUST_HELP) -> None:
    """``--trust-checkpoint`` (read as ``args.trust_checkpoint``): the explicit opt-in to unpickling."""
    parser.add_argument("--trust-checkpoint", action="store_true", help=help)


# ---------------------------------------------------------------------------- env options ----
# several pairs in one value, comma-separated: what the web page's options box sends (arena serve,
# app/serve.py); a comma starts a new pair only when a KEY= follows (so '["orcs", "humans"]' stays one value)
_PAIR_START = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_.]*\s*=")


def _split_pairs(text: str) -> list[str]:
    """``a=1,b=[1, 2]`` -> ``["a=1", "b=[1, 2]"]``: split at top-level commas that start a pair."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0 and _PAIR_START.match(text, i + 1):
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in (x.strip() for x in parts) if p]


def _set_nested(out: dict, key: str, value: Any, item: str) -> None:
    *path, last = key.split(".")
    node = out
    for part in path:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise CLIError(f"--opt {item!r}: {part!r} is already set to {child!r}, not a table")
        node = child
    if isinstance(node.get(last), dict) and isinstance(value, dict):
        node[last].update(value)
    else:
        node[last] = value


def parse_env_options(items: list[str] | None) -> dict[str, Any]:
    """``--opt`` values -> env keyword arguments (see the module docstring for the syntax)."""
    out: dict[str, Any] = {}
    example = "e.g. --opt num_players=4 or --opt '{\"num_players\": 4}'"
    for item in items or []:
        item = item.strip()
        if item.startswith("{"):
            try:
                data = json.loads(item)
            except json.JSONDecodeError as exc:
                raise CLIError(f"--opt {item!r} is not valid JSON: {exc.msg} at character {exc.pos}",
                               hint=example) from None
            if not isinstance(data, dict):
                raise CLIError(f"--opt expects a JSON object, got {item!r}", hint=example)
            for key, value in data.items():
                _set_nested(out, str(key), value, item)
            continue
        for pair in _split_pairs(item):
            key, eq, value = pair.partition("=")
            key = key.strip()
            if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", key):
                raise CLIError(f"--opt expects KEY=VALUE or a JSON object, got {pair!r}", hint=example)
            value = value.strip()
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = value
            _set_nested(out, key, parsed, pair)
    return out


# ------------------------------------------------------------------------ games and agents ----
def resolve_game(name: str) -> str:
    """The registered id for ``name`` (a bare name like ``zaka`` works), or a CLIError with the
    closest ids."""
    try:
        return envs.resolve(name)
    except KeyError:
        pass
    ids = envs.names()
    bases = {n.split("_v")[0]: n for n in ids}
    close = difflib.get_close_matches(name.lower(), ids + list(bases), n=1, cutoff=0.6)
    guess = bases.get(close[0], close[0]) if close else None
    hint = (f"did you mean {guess!r}? " if guess else "") + f"games: {', '.join(ids)} ('arena list')"
    raise CLIError(f"unknown game {name!r}", hint=hint)


def known_options(game_id: str) -> list[str]:
    """The option names ``game_id`` takes: its Game's keyword parameters and ``options()`` keys."""
    import inspect

    try:
        game = envs.make_game(game_id)
    except Exception:  # noqa: BLE001 - only a hint; never hide the real error behind this one
        return []
    names = list(game.options())
    for p in inspect.signature(type(game).__init__).parameters.values():
        if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in names:
            names.append(p.name)
    return names


def make_game(game_id: str, options: dict[str, Any]):
    """``envs.make_game(game_id, **options)``; a bad or unknown option is a CLIError naming it."""
    try:
        return envs.make_game(game_id, **options)
    except TypeError as exc:
        match = re.search(r"unexpected keyword argument '([^']+)'", str(exc))
        if not match:
            raise
        raise _option_error(game_id, f"{game_id} has no option {match.group(1)!r}", match.group(1)) from None
    except ValueError as exc:  # envs.ConfigError and its kin
        text = str(exc)
        match = re.search(r"(?<!rules )unknown (?:env |game )?options? \[?'([^']+)'", text)
        if match:  # the same words as a keyword the game's constructor does not take
            raise _option_error(game_id, f"{game_id} has no option {match.group(1)!r}", match.group(1)) from None
        text = text.removeprefix(f"{game_id}: ")   # the game is named once, here
        raise CLIError(f"bad option for {game_id}: {text}", hint="see 'arena list'") from None
    except OSError as exc:   # a rules file (config_path) that cannot be read: a folder, no permission
        raise CLIError(f"bad option for {game_id}: cannot read {exc.filename or 'a file'}: "
                       f"{exc.strerror or exc}", hint="config_path names a YAML rules file") from None


def check_out_folder(path: str | os.PathLike, flag: str = "--out") -> Path:
    """``path`` as the folder a command will write into: an existing folder, or one that can be
    made there. Checked before any work and without leaving anything behind (a folder is made and
    removed in the nearest existing part of the path); a file in the way, a path through a file,
    ``/proc`` or a read-only folder is a CLIError naming ``flag``."""
    import tempfile

    out = Path(path)
    if out.exists() and not out.is_dir():
        raise CLIError(f"{flag} {out} is a file, not a folder", hint="give a folder (it is made if missing)")
    near = out
    while not near.exists() and near != near.parent:   # the nearest part of the path that exists
        near = near.parent
    if not near.is_dir():
        raise CLIError(f"{flag} {out}: {near} is a file, not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".arena-write-check-", dir=near))
    except OSError as exc:
        raise CLIError(f"{flag} {out}: cannot write in {near} ({exc.strerror or exc})",
                       hint="choose a folder you can write to") from None
    return out


def _option_error(game_id: str, message: str, unknown: str | None) -> CLIError:
    known = known_options(game_id)
    close = difflib.get_close_matches(unknown, known, n=1) if unknown else []
    hint = (f"did you mean {close[0]!r}? " if close else "")
    hint += f"options: {', '.join(known)}" if known else "see 'arena list'"
    return CLIError(message, hint=hint)


def shipped_agent_label(name: str, entry: dict) -> str:
    """``ppo:NAME (variant): --opt k=v ...`` (``vlook:NAME`` for a value-lookahead entry) for a
    shipped agent (``agents.shipped``): its spec, the variant it plays and the options that select
    that variant."""

    flags = " ".join(f"--opt {k}={v}" for k, v in (entry.get("options") or {}).items())
    strongest = f"; strongest as {entry['strongest']}" if entry.get("strongest") else ""
    return f"{agent_kind(entry)}:{name} ({entry.get('variant') or 'default variant'}{strongest})" + \
        (f": {flags}" if flags else "")


def make_agent(spec: str, game, seed: int | None = None, trust: bool = False):
    """``agents.make_agent`` with every "no such agent / checkpoint" failure as a CLIError;
    ``trust``: a pickled (legacy) checkpoint may load (``--trust-checkpoint``)."""

    check_checkpoint_exists(spec, game)
    try:
        return build(spec, game, seed=seed, trust=trust)
    except ImportError as exc:
        words = missing_extra(exc) or f"needs {exc.name or 'a package'}, which is not installed"
        raise CLIError(f"agent {spec!r} {words}") from None
    except user_error_types() as exc:
        raise agent_error(spec, exc, game) from None


def agent_error(spec: str, exc: BaseException, game) -> CLIError:
    """One short line for an agent ``spec`` that ``game`` cannot use: the error's own words (with the
    spec named once), a checkpoint of another variant said as the options it was trained with."""
    text = one_line(exc)
    if "does not fit this game variant" in text:   # agents.ppo.check_compatible lists every field
        text = _misfit(spec, game) or text
    ref = checkpoint_ref(spec)
    if spec not in text and not (ref and ref[1] in text):   # the spec (or its file) named once
        text = f"agent {spec!r}: {text}"
    return CLIError(text, hint=shipped_hint(game.name, spec) if "trained for" in text or "shipped" in text else None)


def shipped_hint(game_id: str, spec: str | None = None) -> str | None:
    """``trained for GAME: ppo:a, ppo:b`` (None when the game has no shipped agent). With ``spec``,
    only the shipped agents its kind can play (``ppo:`` / ``rollout:`` / ``puct:`` the PPO ones,
    ``vlook:`` the value ones), where there are any: the hint stays one short line."""
    try:
        shipped = shipped_for(game_id)
    except Exception:  # noqa: BLE001 - only a hint
        return None
    kind = spec_kind(spec)[0] if spec else None
    if kind is not None and kind.checkpoint:
        shipped = [s for s in shipped if s.startswith(f"{kind.checkpoint}:")] or shipped
    return f"trained for {game_id}: {', '.join(shipped)}" if shipped else None


def _misfit(spec: str, game) -> str | None:
    """``SPEC was trained for GAME with k=v (here w)``: the options where a PPO checkpoint differs
    from ``game`` (None when they agree: the layout differs, and the long message says how)."""
    ref = checkpoint_ref(spec)
    if ref is None or ref[0] != "ppo":
        return None
    try:
        from ..agents.checkpoint import game_metadata, read_metadata
        meta, want = read_metadata(resolve_checkpoint(ref[1])), game_metadata(game)
    except Exception:  # noqa: BLE001 - only a shorter wording of an error already raised
        return None
    if meta.get("game") != want["game"]:
        return f"{spec} was trained for {meta.get('game')}, not {want['game']}"
    have, asked = dict(meta.get("options") or {}), dict(want.get("options") or {})
    diffs = [f"{k}={json.dumps(have.get(k))} (here {json.dumps(asked.get(k))})"
             for k in sorted(set(have) | set(asked)) if have.get(k) != asked.get(k)]
    if not diffs:
        return None
    return f"{spec} was trained for {want['game']} with {', '.join(diffs[:3])}" + \
        (f" and {len(diffs) - 3} more options" if len(diffs) > 3 else "")


def check_checkpoint_exists(spec: str, game) -> None:
    """For a checkpoint-backed spec (``ppo:``, ``puct:N:``, ``rollout:N:``, ``vlook:``): the shipped
    name or the file exists and (a shipped name) was trained for ``game``, checked before torch is
    imported to read it."""
    ref = checkpoint_ref(spec) if isinstance(spec, str) else None
    if ref is None:
        return

    try:
        path = checkpoint_for(ref[1], ref[0], game=game, spec=spec.strip())
    except AgentSpecError as exc:
        raise agent_error(spec.strip(), exc, game) from None
    if os.path.isdir(path):
        raise CLIError(f"agent {spec!r} names a folder, not a checkpoint file",
                       hint="e.g. ppo:runs/x/policy.zip or vlook:runs/x/value.pt")
    if not os.path.isfile(path):
        raise CLIError(f"agent {spec!r}: checkpoint not found",
                       hint="a file written by arena train, or a shipped agent's name ('arena list')")
    misfit = _misfit(spec.strip(), game)   # its metadata only (JSON): nothing of the file runs
    if misfit:
        raise CLIError(misfit, hint=shipped_hint(game.name, spec))
