"""Learning curves: win rate against each evaluation opponent vs wall-clock minutes and env steps.

Every training run keeps ``curve.csv`` (one row per evaluation: ``timesteps``, ``minutes`` of wall
clock since the run started, imitation included, ``games`` per opponent, and per opponent
``<opp>_win_rate``, ``<opp>_ci_low``, ``<opp>_ci_high``: the Wilson 95% interval) and ``curve.png``
(two panels: against minutes and against learner steps, the interval shaded). The first row is the
policy before PPO (after imitation, when the config clones the heuristic).

    python -m tabletop_arena.train.curves runs/zaka/ppo_seed0/curve.csv   # re-draw curve.png
"""
from __future__ import annotations

import csv
import sys
import textwrap
from pathlib import Path
from typing import Any


def read_curve(path: str | Path) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        return []
    rows = []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            out: dict[str, Any] = {}
            for k, v in row.items():
                try:
                    out[k] = int(v) if k in ("timesteps", "games") else float(v)
                except (TypeError, ValueError):
                    out[k] = v
            rows.append(out)
    return rows


def opponents(rows: list[dict]) -> list[str]:
    seen = []
    for r in rows:
        for k in r:
            if k.endswith("_win_rate") and k[:-9] not in seen:
                seen.append(k[:-9])
    return seen


def curve_title(game_id: str, options: dict | None = None) -> str:
    """``peacekeepers_v0 (mode=competitive, num_players=2, ...)``: the game and the options that
    say something (empty rules and unset files left out)."""
    shown = [f"{k}={v}" for k, v in (options or {}).items() if v not in (None, {}, [], "")]
    return f"{game_id} ({', '.join(shown)})" if shown else game_id


def wrap_title(text: str, width: int = 95, lines: int = 2) -> str:
    """``text`` on at most ``lines`` lines of ``width`` characters (the last cut with '...'), so a
    long title fits the figure instead of running off its edges."""
    return "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" ...")) or text


def write_curve(rows: list[dict], csv_path: str | Path, png_path: str | Path | None = None,
                title: str = "", steps_label: str = "learner steps", players: int = 2) -> None:
    """Write the rows as CSV and (matplotlib permitting) draw the PNG (``players``: plot_curve)."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(csv_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    if png_path is not None:
        plot_curve(rows, png_path, title, steps_label, players)


def _short_count(x: float, _pos=None) -> str:
    """An axis count in few characters: 2500 -> 2.5k, 1200000 -> 1.2M."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(x) >= size:
            return f"{x / size:g}{suffix}"
    return f"{x:g}"


def plot_curve(rows: list[dict], png_path: str | Path, title: str = "", steps_label: str = "learner steps",
               players: int = 2) -> None:
    """Win rate by wall-clock minutes and by ``timesteps`` (``steps_label`` on that axis), with a
    dashed line at even strength: one game in ``players`` (50% at 2 players, 25% at 4, where a win
    is first place)."""
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise ValueError(f"players must be an integer >= 1, got {players!r}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the curve stays in the CSV
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, xkey, xlabel in ((axes[0], "minutes", "wall-clock minutes"), (axes[1], "timesteps", steps_label)):
        for opp in opponents(rows):
            pts = [r for r in rows if isinstance(r.get(f"{opp}_win_rate"), float)]
            if not pts:
                continue
            x = [r[xkey] for r in pts]
            y = [100 * r[f"{opp}_win_rate"] for r in pts]
            lo = [100 * r[f"{opp}_ci_low"] for r in pts]
            hi = [100 * r[f"{opp}_ci_high"] for r in pts]
            line, = ax.plot(x, y, marker="o", ms=4, label=f"vs {opp}")
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15)
            ax.errorbar(x, y, yerr=[[a - b for a, b in zip(y, lo)], [b - a for a, b in zip(y, hi)]], fmt="none",
                        ecolor=line.get_color(), alpha=0.6, capsize=3)   # the interval, even of a lone point
        if len(rows) == 1:
            ax.text(0.03, 0.95, "one evaluation so far (the run evaluates every\neval_interval steps and at the end)",
                    transform=ax.transAxes, ha="left", va="top", fontsize=7, color="grey")
        ax.set_xlim(left=0)   # both axes count from the start of the run
        ax.axhline(100 / players, color="grey", lw=0.8, ls="--", label=f"even (1 game in {players})")
        ax.set_xlabel(xlabel)
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
    from matplotlib.ticker import FuncFormatter
    # 400000 steps in full run into each other on the axis: 400k
    axes[1].xaxis.set_major_formatter(FuncFormatter(_short_count))
    axes[0].set_ylabel("win rate % (Wilson 95%)")
    axes[1].legend(loc="lower right", fontsize=8)
    counts = sorted({int(r["games"]) for r in rows if isinstance(r.get("games"), int)})
    games = (f" ({counts[0]} games per point)" if len(counts) == 1
             else f" ({'-'.join(str(c) for c in (counts[0], counts[-1]))} games per point)" if counts else "")
    fig.suptitle(wrap_title(f"{title} learning curve{games}".strip()), fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=90)
    plt.close(fig)


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = ("usage: python -m tabletop_arena.train.curves RUN/curve.csv [PLAYERS]  (PLAYERS: the game's "
             "player count, 2 unless given, where the even-strength line goes)")
    if len(args) not in (1, 2) or (len(args) == 2 and not (args[1].isdigit() and int(args[1]) >= 1)):
        print(usage, file=sys.stderr)
        return 2
    path = Path(args[0])
    plot_curve(read_curve(path), path.with_suffix(".png"), path.parent.name,
               players=int(args[1]) if len(args) == 2 else 2)
    print(path.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
