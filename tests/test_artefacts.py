"""What a run and an evaluation leave to look at (issue 47 items 5 and 7): the evaluation table says
what each row is (each pairing first, then each agent pooled over its opponents), report.png's
names do not overlap, curve.png's title fits, a recording keeps the colours the game takes on later
(Peacekeepers' zones), and a game's result hides details that say nothing."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.train.evaluate import evaluate

pytest.importorskip("matplotlib")


def _captured_figure(monkeypatch):
    """The figure the next ``plt.close(fig)`` closes (drawn: its texts have their sizes)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    seen = []
    real = plt.close

    def close(fig=None):
        if fig is not None:
            fig.canvas.draw()
            seen.append((fig, fig.canvas.get_renderer()))
        return real(fig)
    monkeypatch.setattr(plt, "close", close)
    return seen


def _report():
    long = "ppo (runs/quickstart-3/final.zip)"
    return evaluate("zaka", ["heuristic", "random", "random"], names=[long, "heuristic", "random"],
                    games=4, workers=1, progress=False, bootstrap=0)


def test_the_table_shows_each_pairing_first_and_says_the_agent_rows_are_pooled():
    table = _report().table()
    lines = table.splitlines()
    assert lines[0].startswith("Each pairing, from the first agent's side")
    assert lines[1].split()[0] == "pairing"
    assert lines[2].startswith("ppo (runs/quickstart-3/final.zip) vs heuristic")
    pooled = next(i for i, line in enumerate(lines) if line.startswith("Each agent against all the others"))
    assert "pooled" in lines[pooled] and pooled > 4
    assert lines[pooled + 1].split()[0] == "agent"


def test_report_png_names_do_not_overlap(monkeypatch, tmp_path):
    seen = _captured_figure(monkeypatch)
    _report().plot(tmp_path / "report.png")
    fig, renderer = seen[-1]
    ax = fig.axes[0]
    boxes = [t.get_window_extent(renderer) for t in ax.get_yticklabels() + ax.get_xticklabels()
             if t.get_text()]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert any("vs  all others (pooled)" in t for t in labels) and any("vs  heuristic" in t for t in labels)
    overlaps = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]
    assert not overlaps
    page = fig.bbox
    assert all(b.x0 >= page.x0 - 1 and b.x1 <= page.x1 + 1 for b in boxes), "a name runs off the picture"


def test_curve_title_fits_the_picture(monkeypatch, tmp_path):
    from tabletop_arena.train.curves import curve_title, plot_curve
    seen = _captured_figure(monkeypatch)
    title = curve_title("peacekeepers_v0", envs.make_game("peacekeepers_v0").options())
    assert "rules" not in title and "config_path" not in title and "mode=competitive" in title
    row = {"timesteps": 30720, "minutes": 2.5, "games": 100, "heuristic_win_rate": 0.45,
           "heuristic_ci_low": 0.36, "heuristic_ci_high": 0.55}
    plot_curve([row], tmp_path / "curve.png", title + " " + str(envs.make_game("peacekeepers_v0").options()))
    fig, renderer = seen[-1]
    box = fig._suptitle.get_window_extent(renderer)
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1, "the title is cut off"
    assert "one evaluation so far" in " ".join(t.get_text() for t in fig.axes[0].texts)


@pytest.mark.parametrize("players, even", [(2, 50.0), (4, 25.0)])
def test_a_curves_even_line_is_one_game_in_the_player_count(players, even, monkeypatch, tmp_path):
    """The dashed line of a learning curve is even strength: 50% at 2 players, 25% at 4 (a win is
    first place alone), on both panels, named in the legend; a bad count is an error."""
    from tabletop_arena.train.curves import plot_curve
    seen = _captured_figure(monkeypatch)
    row = {"timesteps": 100, "minutes": 1.0, "games": 100, "heuristic_win_rate": 0.3,
           "heuristic_ci_low": 0.2, "heuristic_ci_high": 0.4}
    plot_curve([row, dict(row, timesteps=200, minutes=2.0)], tmp_path / "curve.png", "t", players=players)
    fig, _ = seen[-1]
    for ax in fig.axes:
        dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert [list(line.get_ydata()) for line in dashed] == [[even, even]]
    assert f"even (1 game in {players})" in [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    plot_curve([dict(row, timesteps=t) for t in (0, 100_000, 250_000, 400_000)], tmp_path / "long.png", "t")
    fig, renderer = seen[-1]
    ticks = [t for t in fig.axes[1].get_xticklabels() if t.get_text()]
    assert "400k" in [t.get_text() for t in ticks]            # a long run's steps, short enough to fit
    boxes = [t.get_window_extent(renderer) for t in ticks]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    with pytest.raises(ValueError, match="players must be an integer"):
        plot_curve([row], tmp_path / "bad.png", players=0)


def test_redrawing_a_curve_from_its_csv_takes_the_player_count(monkeypatch, tmp_path, capsys):
    """``python -m tabletop_arena.train.curves RUN/curve.csv [PLAYERS]`` redraws curve.png with the
    even line at one game in PLAYERS (2 unless given); a bad count is the usage line, exit 2."""
    from tabletop_arena.train.curves import main, write_curve
    seen = _captured_figure(monkeypatch)
    row = {"timesteps": 100, "minutes": 1.0, "games": 100, "heuristic_win_rate": 0.3,
           "heuristic_ci_low": 0.2, "heuristic_ci_high": 0.4}
    write_curve([row], tmp_path / "curve.csv")
    for argv, even in (([str(tmp_path / "curve.csv")], 50.0), ([str(tmp_path / "curve.csv"), "4"], 25.0)):
        assert main(argv) == 0 and (tmp_path / "curve.png").is_file()
        fig, _ = seen[-1]
        assert [list(line.get_ydata()) for line in fig.axes[0].get_lines() if line.get_linestyle() == "--"] \
            == [[even, even]]
    for bad in ([str(tmp_path / "curve.csv"), "0"], [str(tmp_path / "curve.csv"), "four"], []):
        assert main(bad) == 2 and "usage" in capsys.readouterr().err


def test_a_recording_keeps_the_colours_of_the_end_of_the_game(tmp_path):
    """The GIF's palette covers the start and the end: Peacekeepers' zones (pale red and blue once
    owned) came out grey when the palette came from the start position alone (12.6% of the last
    picture's pixels off by more than 24 of 255; now under 1%)."""
    from PIL import Image

    from tabletop_arena.agents import make_agent
    from tabletop_arena.app.record import record_game
    from tabletop_arena.train.play import play
    game = envs.make_game("peacekeepers_v0")
    result = play(game, [make_agent("heuristic", game, seed=1), make_agent("heuristic", game, seed=2)], seed=5)
    path = record_game(game, 5, result.history, tmp_path / "g.gif")
    end = game.new_initial_state(5)
    for a in result.history:
        end.apply(a)
    truth = end.render_rgb().astype(int)
    with Image.open(path) as gif:
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB")).astype(int)[:truth.shape[0], :truth.shape[1]]
    off = (np.abs(last - truth).max(axis=2) > 24).mean()
    assert off < 0.01, f"{100 * off:.1f}% of the last picture's pixels changed colour"


def test_result_lines_hide_details_that_say_nothing():
    from tabletop_arena.train.play import Result
    details = {"solved": False, "turns": 21, "ended_by": "rules", "notes": None}
    two = Result([-1.0, 1.0], [1, 3], [1], False, 40, details)
    assert two.lines(["a", "b"])[-1] == "  details: turns=21"
    assert two.to_dict(["a", "b"])["details"] == details            # kept in the data
    solo = Result([-1.0], [1], [0], False, 40, details)
    assert solo.lines(["a"])[-1] == "  details: solved=false, turns=21"   # a puzzle not solved: said
    capped = Result([0.0, 0.0], None, [0, 1], False, 40, {"ended_by": "cap", "solved": True})
    assert capped.lines(["a", "b"])[-1] == "  details: ended_by=\"cap\", solved=true"
