"""``arena eval``'s games journal (``--resume``): with ``out``, each finished block of games is
appended to ``out/games.jsonl`` (one writer at a time, a killed writer's last line cut:
``train/journal.py``) under a header naming the evaluation (``run_identity``: game, options, agents,
the content of their checkpoints and of a rules file, seed, games, opening, move cap). ``read_journal``
takes back only the same evaluation's blocks, each game checked field by field against the game its
block must have played and replayed by the engine; anything else is one JournalError naming the
file and line, and the file is left as it was.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Sequence

from ..agents.registry import checkpoint_for, checkpoint_ref
from ..envs.core.errors import ArenaError
from ..envs.core.game import Game, State
from .eval_schedule import GameRecord, arrangements, block_opening, block_seeds, history_digest
from .journal import Appender, complete_text
from .play import game_result

JOURNAL = "games.jsonl"
JOURNAL_FORMAT = "arena-eval-games/1"


class JournalError(ArenaError):
    """A games journal that cannot continue this evaluation (missing, another run's, corrupt)."""


def _file_digest(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_digests(game, agents: Sequence[Any]) -> dict[str, str]:
    """The sha256 of the file behind each agent spec that names a checkpoint, and of the game's
    rules file (key ``config_path``) where it has one: what games played by these specs depend on
    beyond the code. A file replaced at the same path changes them (the eval journal's identity,
    the ladder's ``file_sha256``)."""
    files = {}
    for a in agents:
        ref = checkpoint_ref(a) if isinstance(a, str) else None
        if ref is not None:
            files[a] = _file_digest(checkpoint_for(ref[1], ref[0], game))
    config_path = game.options().get("config_path")
    if config_path:
        files["config_path"] = _file_digest(config_path)
    return files


def run_identity(game, game_id: str, agents: Sequence[Any], labels: Sequence[str], kinds: Sequence[int],
                 seed: int, games: int, opening_moves: int, max_steps: int) -> dict[str, Any]:
    """What decides an evaluation's games: a journal continues only the run with the same identity.
    Checkpoints (and a rules file) count by their content (``file_digests``), so a file replaced at
    the same path does not continue the games of the old one. The number of workers is not in it
    (it changes no game)."""
    files = file_digests(game, agents)
    options = game.options_json()
    return {"game": game_id, "options": options,
            "agents": [a if isinstance(a, str) else repr(a) for a in agents], "names": list(labels),
            "seat_kinds": list(kinds), "seed": seed, "games_per_group": games,
            "opening_moves": opening_moves, "max_steps": max_steps, "file_sha256": files}


def _journal_busy(path: Path) -> JournalError:
    return JournalError(f"{path} is being written by another evaluation right now; a second one "
                        f"into the same folder would mix their games: wait for it, or use another --out")


def _header(identity: dict[str, Any]) -> str:
    return json.dumps({"format": JOURNAL_FORMAT, "run": identity}, sort_keys=True)


def journal_line(recs: Sequence[GameRecord]) -> str:
    """The journal's line of one finished block (its games, in the order they were played)."""
    return json.dumps({"block": recs[0].block, "games": [dataclasses.asdict(r) for r in recs]})


def _ints(x: Any, what: str) -> tuple[int, ...]:
    if not isinstance(x, list) or not all(type(v) is int for v in x):
        raise ValueError(f"{what} is not a list of integers")
    return tuple(x)


def _floats(x: Any, what: str) -> tuple[float, ...]:
    if not isinstance(x, list) or not all(type(v) in (int, float) for v in x):
        raise ValueError(f"{what} is not a list of numbers")
    return tuple(float(v) for v in x)


def parse_game(d: Any) -> GameRecord:
    """One journal game checked on its own: every field there with its type, and the history
    matching its digest (an edited or damaged line is refused). What ties it to an evaluation's
    schedule (block, seats, seeds) is ``_record_from_json``'s; what its moves give, ``replay_game``'s."""
    names = [f.name for f in dataclasses.fields(GameRecord)]
    if not isinstance(d, dict) or sorted(d) != sorted(names):
        raise ValueError(f"a game is not an object with the fields {names}")
    if type(d["block"]) is not int or d["block"] < 0:
        raise ValueError(f"block {d['block']!r} is not a block number")
    arr = _ints(d["arrangement"], "arrangement")
    if type(d["engine_seed"]) is not int:
        raise ValueError("engine_seed is not an integer")
    seeds = _ints(d["agent_seeds"], "agent_seeds")
    returns = _floats(d["returns"], "returns")
    scores = None if d["scores"] is None else _floats(d["scores"], "scores")
    history = _ints(d["history"], "history")
    if len(returns) != len(arr) or len(seeds) != len(arr) or (scores is not None and len(scores) != len(arr)):
        raise ValueError("returns, scores or agent_seeds do not have one entry a seat")
    if type(d["length"]) is not int or d["length"] < 0 or type(d["truncated"]) is not bool:
        raise ValueError("length is not a count or truncated not true/false")
    digest = history_digest(arr, history)
    if d["history_hash"] != digest:
        raise ValueError("its history does not match its digest (an edited or damaged line)")
    cpu = d["cpu"]
    if not isinstance(cpu, list) or len(cpu) != len(arr) or not all(
            isinstance(c, list) and len(c) == 3 and all(type(v) in (int, float) and v >= 0 for v in c)
            and type(c[2]) is int for c in cpu):
        raise ValueError("cpu is not [seconds, longest, decisions] a seat")
    return GameRecord(d["block"], arr, d["engine_seed"], seeds, returns, scores, d["length"], d["truncated"],
                      digest, history, tuple((float(a), float(b), int(n)) for a, b, n in cpu))


def _record_from_json(d: Any, block: int, arr: tuple[int, ...], engine_seed: int,
                      seeds: tuple[int, ...]) -> GameRecord:
    """One journal game (``parse_game``) checked against the game its block must have played
    (arrangement, seeds): a line from other settings is refused, never counted. ``_check_replay``
    then plays its moves again."""
    rec = parse_game(d)
    if rec.block != block:
        raise ValueError(f"a game of block {rec.block!r} in block {block}'s line")
    if rec.arrangement != arr:
        raise ValueError(f"seat arrangement {list(rec.arrangement)} where the block plays {list(arr)}")
    if rec.engine_seed != engine_seed or rec.agent_seeds != seeds:
        raise ValueError("its seeds are not this evaluation's (another --seed or other settings)")
    return rec


def replay_game(game: Game, rec: GameRecord, max_steps: int) -> State:
    """The position a recorded game's moves reach from its seed, checked: every move legal (else the
    engine's IllegalActionError, a ValueError), the game over or at the move cap, and the result,
    length and truncation the record states."""
    if len(rec.history) > max_steps:
        raise ValueError(f"{len(rec.history)} moves, over the move cap {max_steps}")
    state = game.replay(rec.engine_seed, rec.history)
    res = game_result(state)
    if not state.is_terminal() and len(rec.history) < max_steps:
        raise ValueError("its game stops before its end and before the move cap")
    scores = None if res.scores is None else tuple(float(x) for x in res.scores)
    if (tuple(float(x) for x in res.returns), scores, res.truncated, len(state.history)) != \
            (rec.returns, rec.scores, rec.truncated, rec.length):
        raise ValueError("its recorded result is not what its moves give")
    return state


def _check_replay(game: Game, rec: GameRecord, opening: list[int], max_steps: int) -> None:
    """The recorded moves played again by the engine from the record's seed give its result
    (``replay_game``), and they open with the block's opening."""
    if list(rec.history[:len(opening)]) != opening:
        raise ValueError("its opening moves are not the block's")
    replay_game(game, rec, max_steps)


def read_games(path: Path) -> tuple[dict[str, Any], list[GameRecord]]:
    """Any evaluation's journal as it stands: its header's run (game, options, agents, ...) and its
    games in the order they were written, each checked on its own (``parse_game``; an unfinished
    last line left out), not against a schedule and not replayed (``arena games`` replays the ones
    it shows). A file that is not a journal, or a line that does not parse, is a JournalError
    naming the file and line."""
    lines = _journal_lines(path)
    run = _run_of(path, lines)
    games: list[GameRecord] = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict) or sorted(entry) != ["block", "games"] or \
                    not isinstance(entry["games"], list):
                raise ValueError("not an object with 'block' and a list of 'games'")
            for d in entry["games"]:
                rec = parse_game(d)
                if rec.block != entry["block"]:
                    raise ValueError(f"a game of block {rec.block!r} in block {entry['block']!r}'s line")
                if not all(0 <= e < len(run["names"]) for e in rec.arrangement):
                    raise ValueError(f"its seats name agents {list(rec.arrangement)}; the run has "
                                     f"{len(run['names'])}")
                games.append(rec)
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise JournalError(f"{path}, line {number}: {exc}") from None
    return run, games


def _journal_lines(path: Path) -> list[str]:
    """The journal's whole lines (``complete_text``); a file that is not UTF-8 text is a JournalError."""
    try:
        return complete_text(path).splitlines()
    except ArenaError:   # not UTF-8 text
        raise JournalError(f"{path}: not an evaluation's games journal (not UTF-8 text)") from None


def _run_of(path: Path, lines: list[str]) -> dict[str, Any]:
    """The header's run of a journal's ``lines`` (a JournalError if the first is not a header)."""
    try:
        head = json.loads(lines[0]) if lines else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("format") != JOURNAL_FORMAT or not isinstance(head.get("run"), dict):
        raise JournalError(f"{path}: not an evaluation's games journal (its first line is not a "
                           f"{JOURNAL_FORMAT} header)")
    run = head["run"]
    names = run.get("names")
    if not isinstance(run.get("game"), str) or not isinstance(run.get("options"), dict) or \
            not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names) or \
            type(run.get("max_steps")) is not int or type(run.get("opening_moves")) is not int:
        raise JournalError(f"{path}: its header does not name the game, its options, the agents, the move "
                           f"cap and the opening")
    return run


def read_journal(path: Path, identity: dict[str, Any], tasks: Sequence[tuple], kinds: Sequence[int],
                 game: Game, max_steps: int,
                 checked: dict[str, list[GameRecord]] | None = None) -> list[GameRecord]:
    """The finished games a journal holds for the evaluation ``identity`` with ``tasks`` (an
    unfinished last line, from a process killed while writing it, is left out), each replayed by
    the engine (``_check_replay``). Anything else that does not fit is a JournalError naming the
    file and line. ``checked``: lines already read this way for the same evaluation and their
    games (filled in as lines are read), so a second reading replays only the lines added since."""
    lines = _journal_lines(path)
    if not lines:
        raise JournalError(f"{path}: no games journal to continue (run without --resume to start)")
    was = _run_of(path, lines)
    differ = sorted(k for k in set(was) | set(identity) if was.get(k) != identity.get(k))
    if differ:
        detail = "; ".join(f"{k}: was {was.get(k)!r}, now {identity.get(k)!r}" for k in differ[:3])
        raise JournalError(f"{path} holds another evaluation's games ({detail}): --resume continues the "
                           f"same command only; run without --resume, or into another --out, to start over")
    records: list[GameRecord] = []
    seen: set[int] = set()
    memo: dict[str, list[GameRecord]] = {} if checked is None else checked
    for number, line in enumerate(lines[1:], start=2):
        try:
            if line in memo:   # the same text of this evaluation's journal: the same games
                block = memo[line][0].block
                if block in seen:
                    raise ValueError(f"block {block} is in the journal twice")
                records.extend(memo[line])
                seen.add(block)
                continue
            entry = json.loads(line)
            if not isinstance(entry, dict) or sorted(entry) != ["block", "games"]:
                raise ValueError("not an object with 'block' and 'games'")
            block = entry["block"]
            if type(block) is not int or not 0 <= block < len(tasks):
                raise ValueError(f"block {block!r} is not one of this evaluation's 0-{len(tasks) - 1}")
            if block in seen:
                raise ValueError(f"block {block} is in the journal twice")
            _, group, seed_words, opening_moves = tasks[block]
            arrs = arrangements(group, kinds, block)
            engine_seed, opening_seed, seeds = block_seeds(seed_words, arrs)
            if not isinstance(entry["games"], list) or len(entry["games"]) != len(arrs):
                raise ValueError(f"the block's {len(arrs)} games are not all there")
            opening = block_opening(game, engine_seed, opening_seed, opening_moves)
            block_records = []
            for d, arr, s in zip(entry["games"], arrs, seeds):
                rec = _record_from_json(d, block, arr, engine_seed, s)
                _check_replay(game, rec, opening, max_steps)
                block_records.append(rec)
            records.extend(block_records)
            memo[line] = block_records
            seen.add(block)
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise JournalError(f"{path}, line {number}: {exc}; the journal cannot continue this "
                               f"evaluation (run without --resume to start over)") from None
    return records


def open_journal(path: Path, identity: dict[str, Any], tasks: Sequence[tuple], kinds: Sequence[int],
                 game: Game, max_steps: int, resume: bool) -> tuple[Appender, list[GameRecord]]:
    """The journal to append to (locked) and, with ``resume``, the games it holds already."""
    checked: dict[str, list[GameRecord]] = {}
    if resume:   # checked before the file is touched (a wrong folder changes nothing) ...
        read_journal(path, identity, tasks, kinds, game, max_steps, checked)
    journal = Appender(path, _header(identity), _journal_busy, fresh=not resume)
    try:   # ... and read under the lock, replaying only lines another run has added since
        return journal, read_journal(path, identity, tasks, kinds, game, max_steps, checked) if resume else []
    except BaseException:
        journal.close()
        raise
