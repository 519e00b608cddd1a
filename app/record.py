"""Recordings of played games: an animated GIF (or an MP4) per game, to watch agents play.

    arena eval peacekeepers --agents heuristic random --games 20 --record 3

    from tabletop_arena.app.record import record_game
    record_game(game, seed, actions, "game.gif", players=["heuristic", "random"])

A frame is the game's ``rgb_array`` picture (``State.render_rgb``, the spectator's view) with the
move that led to it written underneath: the start position first, then one frame per move. Long
games are thinned to at most ``max_frames`` frames (the caption then names the moves in between
by count); the last position always closes the recording and stays up longer.

GIF needs only Pillow. MP4 needs the ``imageio-ffmpeg`` package (``pip install imageio-ffmpeg``,
which brings its own ffmpeg); without it asking for MP4 raises a clear error.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from ..envs.core import draw as D
from ..envs.core.errors import ArenaError

FORMATS = ("gif", "mp4")
CAPTION_BG = (40, 44, 56)


class RecordingError(ArenaError):
    """A recording that cannot be written as asked (unknown format, missing encoder)."""


def _caption(picture: np.ndarray, lines: Sequence[str]):
    """The picture with a dark strip of caption text underneath (a PIL image)."""
    h, w = picture.shape[:2]
    wrapped = [part for line in lines for part in (D.wrap(line, 15, w - 24) or [""])][:3]
    strip = 16 + 20 * max(1, len(wrapped))
    img, draw = D.canvas(w, h + strip, CAPTION_BG)
    from PIL import Image
    img.paste(Image.fromarray(picture), (0, 0))
    for k, line in enumerate(wrapped):
        D.text(draw, (12, h + 8 + 20 * k), line, size=15, fill=(255, 255, 255) if k == 0 else (210, 210, 210))
    return img


def _player_label(game, seat: int, players: Sequence[str] | None) -> str:
    agent = game.seat_owner(seat)
    label = f"player_{agent}"
    if players is not None and agent < len(players):
        label += f" ({players[agent]})"
    return label


def record_frames(game, seed: int | None, actions: Sequence[int], *,
                  players: Sequence[str] | None = None, max_frames: int = 150,
                  opening_moves: int = 0):
    """Yield ``(PIL image, seconds to show)`` for the replay of ``actions`` from ``seed``.

    ``players``: a label per agent index (shown with each move); ``opening_moves``: how many
    first moves were random openings (marked as such)."""
    if max_frames < 2:
        raise RecordingError(f"max_frames must be at least 2, got {max_frames}")
    state = game.new_initial_state(np.random.default_rng(seed))
    state.seed = seed
    n = len(actions)
    stride = max(1, math.ceil(n / (max_frames - 1)))
    yield _caption(state.render_rgb(), [f"start (seed {seed})", f"{n} moves follow"]), 1.2
    pending: list[str] = []
    for k, action in enumerate(actions):
        seat = state.current_player
        text = state.action_to_str(int(action))
        who = "random opening" if k < opening_moves else _player_label(game, seat, players)
        pending.append(f"move {k + 1}/{n}: {who}: {text}")
        state.apply(int(action))
        last = k == n - 1
        if (k + 1) % stride and not last:
            continue
        lines = [pending[-1]]
        if len(pending) > 1:
            lines.append(f"({len(pending) - 1} earlier move{'s' if len(pending) > 2 else ''} "
                         "not shown)")
        if last:
            lines.append(_result(state, players))
        pending = []
        yield _caption(state.render_rgb(), lines), (4.0 if last else 0.8)


def _result(state, players) -> str:
    if not state.is_terminal():
        return "stopped at the move cap (truncated)"
    g = state.game
    ret = np.asarray(state.returns(), float)
    per = np.zeros(g.num_agents)
    cnt = np.zeros(g.num_agents)
    for s in range(g.num_seats):
        per[g.seat_owner(s)] += ret[s]
        cnt[g.seat_owner(s)] += 1
    per /= np.maximum(cnt, 1)
    best = per.max()
    top = [a for a in range(g.num_agents) if per[a] == best]
    name = (lambda a: f"player_{a}" + (f" ({players[a]})" if players and a < len(players) else ""))
    if len(top) == 1 and g.num_agents > 1:
        return f"game over: {name(top[0])} wins; returns {[round(float(x), 3) for x in per]}"
    return f"game over: shared first place; returns {[round(float(x), 3) for x in per]}"


def _palette(pictures):
    """One palette (255 colours) for every frame, taken from ``pictures`` stacked: the start and
    the end of the game. The start alone (the old palette) holds the legend but not what the game
    colours later, e.g. Peacekeepers' zones once a player owns them, which then came out grey."""
    from PIL import Image
    w = max(p.width for p in pictures)
    sheet = Image.new("RGB", (w, sum(p.height for p in pictures)), CAPTION_BG)
    y = 0
    for p in pictures:
        sheet.paste(p.convert("RGB"), (0, y))
        y += p.height
    return sheet.quantize(colors=255, method=Image.Quantize.MEDIANCUT)


def _frames(pairs, palette=None):
    """Quantize the frames as they come (one byte a pixel) to one palette (``palette``, or one
    taken from the first frame): the same colour keeps its index from frame to frame, so the GIF
    writer stores only what a move changed (and 255 colours leave it a free slot for
    transparency). Returns (frames padded to one even size, seconds per frame)."""
    from PIL import Image
    frames, seconds = [], []
    for img, s in pairs:
        if palette is None:
            palette = img.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
        frames.append(img.quantize(palette=palette, dither=Image.Dither.NONE))
        seconds.append(s)
    w = max(f.width for f in frames)
    h = max(f.height for f in frames)
    w, h = w + w % 2, h + h % 2   # even sizes (MP4 encoders need them)
    out = []
    for f in frames:
        if f.size != (w, h):   # pad right / bottom in the caption's colour
            pad = Image.new("P", (w, h), f.getpixel((0, f.height - 1)))
            pad.putpalette(f.getpalette())
            pad.paste(f, (0, 0))
            f = pad
        out.append(f)
    return out, seconds


def record_game(game, seed: int | None, actions: Sequence[int], path: str | os.PathLike, *,
                players: Sequence[str] | None = None, max_frames: int = 150,
                opening_moves: int = 0) -> Path:
    """Write the replay of ``actions`` from ``seed`` to ``path`` (.gif, or .mp4 with
    imageio-ffmpeg); returns the path."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise RecordingError(f"recordings are .gif or .mp4, got {path.name!r}")
    if fmt == "mp4":
        try:
            import imageio_ffmpeg
        except ImportError:
            raise RecordingError("MP4 recordings need imageio-ffmpeg (pip install imageio-ffmpeg); "
                                 "GIF needs only Pillow") from None
    start = game.new_initial_state(np.random.default_rng(seed))
    end = start.clone()
    for action in actions:
        end.apply(int(action))
    palette = _palette([_caption(start.render_rgb(), [""]), _caption(end.render_rgb(), [""])])
    frames, seconds = _frames(record_frames(game, seed, actions, players=players, max_frames=max_frames,
                                            opening_moves=opening_moves), palette)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "gif":
        frames[0].save(path, save_all=True, append_images=frames[1:], loop=0, optimize=True,
                       duration=[int(1000 * s) for s in seconds], disposal=1)
        return path
    fps = 5   # MP4: a fixed rate; each frame repeats for its time on screen
    writer = imageio_ffmpeg.write_frames(str(path), frames[0].size, fps=fps, macro_block_size=2,
                                         quality=7)
    writer.send(None)
    for frame, s in zip(frames, seconds):
        data = np.asarray(frame.convert("RGB"), dtype=np.uint8).tobytes()
        for _ in range(max(1, round(s * fps))):
            writer.send(data)
    writer.close()
    return path


def pick_records(records, n: int) -> list:
    """``n`` games spread over the groups of agents that met (round robin over the groups, in
    the order they were played)."""
    groups: dict[tuple, list] = {}
    for r in records:
        groups.setdefault(tuple(sorted(r.arrangement)), []).append(r)
    lists = list(groups.values())
    out: list = []
    k = 0
    while len(out) < n and any(k < len(lst) for lst in lists):
        for lst in lists:
            if k < len(lst) and len(out) < n:
                out.append(lst[k])
        k += 1
    return out


def record_report(report, game, out_dir: str | os.PathLike, n: int, fmt: str = "gif",
                  max_frames: int = 150) -> list[Path]:
    """Write ``n`` of an evaluation's games (``EvalReport.records``) as
    ``<out_dir>/game_<k>_<agents>.<fmt>``; ``game``: the evaluated ``Game``. Returns the paths."""
    if fmt not in FORMATS:
        raise RecordingError(f"recording format must be one of {FORMATS}, got {fmt!r}")
    labels = report.names
    opening = int(report.data.get("settings", {}).get("opening_moves", 0))
    paths = []
    for k, rec in enumerate(pick_records(report.records, n)):
        players = [labels[e] for e in rec.arrangement]
        safe = "_vs_".join("".join(ch if ch.isalnum() or ch in "-." else "-" for ch in p)[:24]
                           for p in players)
        path = Path(out_dir) / f"game_{k + 1:02d}_{safe}.{fmt}"
        paths.append(record_game(game, rec.engine_seed, rec.history, path, players=players,
                                 max_frames=max_frames, opening_moves=opening))
    return paths
