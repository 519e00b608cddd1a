"""The progress bar of long runs (train/progress.py): written to a file, a line only when its count
has moved; every bar of the package is made there."""
from __future__ import annotations

import io
import pathlib

import pytest

pytest.importorskip("tqdm")

from tabletop_arena.train.progress import progress_bar  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_a_bar_written_to_a_file_repeats_no_line_at_the_monitors_redraw():
    out = io.StringIO()
    bar = progress_bar(200, "eval x", "game", file=out)
    assert out.getvalue().count("0/200") == 1            # the opening line
    bar.update(16)                                       # within 30 s of the opening line: hidden
    assert "16/200" not in out.getvalue()
    bar.refresh(nolock=True)                             # what tqdm's monitor thread calls ~10 s later
    assert out.getvalue().count("16/200") == 1           # the hidden count shows
    bar.refresh(nolock=True)                             # and again: nothing new, no line
    bar.refresh(nolock=True)
    assert out.getvalue().count("16/200") == 1
    bar.update(16)
    bar.refresh(nolock=True)
    bar.refresh(nolock=True)
    assert out.getvalue().count("32/200") == 1
    bar.close()                                          # the closing line is written
    assert out.getvalue().count("32/200") == 2


def test_every_progress_bar_of_the_package_is_made_by_progress_bar():
    makers = []
    for folder in ("train", "app", "agents", "envs", "tabletop_arena"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name != "progress.py" and "tqdm(" in path.read_text():
                makers.append(str(path.relative_to(ROOT)))
    assert makers == [], f"tqdm bars made outside train/progress.py: {makers}"
