"""Stops (issue 41 item 8, issue 47 item 4): SIGINT and SIGTERM in every training algorithm and
phase, and in ``arena eval``, end with exit code 130 / 143 within 10 s, say what was saved (a
resumable checkpoint, or that none was written and why), leave no child process alive (checked by
pid: the process tree is read from /proc before the signal) and ``--resume`` afterwards works or
says exactly why not.

Most cases run ``cli.main`` in this process: a helper thread sends the signal to this process at
the moment the phase starts (a wrapper around the function that runs the phase says so), which
reaches every phase in a second or two instead of a process start-up each. A few cases run
``python -m tabletop_arena.app.cli`` as a process of its own, with Ctrl-C sent to its whole
process group as a terminal does, to check the exit code the shell sees.

Not covered: ``arena train --set algorithm=rllib_ppo`` (train/rllib.py; needs the [rllib] extra, ray, which
the test machines do not install).
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop_arena.agents.ppo import read_metadata  # noqa: E402
from tabletop_arena.app import cli
from tabletop_arena.train import arena_ppo as algo
from tabletop_arena.train import evaluate, imitation, ppo, stops, value_lookahead  # noqa: E402

if not sys.platform.startswith("linux"):
    pytest.skip("the process tree is read from /proc (Linux)", allow_module_level=True)

#: A signal lands anywhere, also between a library's ``open()`` and the set-up of its ``with``
#: (threadpoolctl reads /proc/self/maps as an evaluation starts): the stop is right, but the file
#: is closed by the garbage collector with a ResourceWarning, which pytest turns into a failure.
#: Python's own limit (a ``with`` is not safe against asynchronous exceptions); ``run_and_stop``
#: collects the garbage before its case ends, so such a warning stays with the case it belongs to.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <_io.FileIO:pytest.PytestUnraisableExceptionWarning")

#: the most seconds from the signal to the command's return (the issue's bound)
STOP_SECONDS = 10
#: a phase not reached within this many seconds fails the case (a guard, not a measurement)
REACH_SECONDS = 120
#: a command still running this many seconds after its signal fails the case (a guard: the cases
#: ask for 100,000 games or epochs, which a missed stop would play until the machine runs out of
#: memory, and the pytest worker would die without a word)
RUNAWAY_SECONDS = 60
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
BOTH = pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])

#: a tiny PPO run on Zaka: one env, 32-step rollouts, a small MLP, random opponents, no evaluation
PPO = ["--no-progress", "--set", "n_envs=1", "--set", "n_steps=32", "--set", "batch_size=32",
       "--set", "n_epochs=1", "--set", "net_arch=[16]", "--set", "network=mlp", "--set", "vec_env=dummy",
       "--set", "snapshot_interval=1000000000", "--set", "checkpoint_interval=64", "--set", "eval_interval=0",
       "--set", "eval_games=0", "--set", "eval_opponents=[]", "--set", "opponent_mix={random: 1.0}"]
#: a tiny value-lookahead round on Gorgasali, with two pool workers
VLOOK = ["--no-progress", "--set", "rounds=1", "--set", "games_per_round=2", "--set", "fit_steps=5",
         "--set", "fit_eval_every=5", "--set", "accept_min_per_game=0", "--set", "accept_games=2",
         "--set", "eval_games=2", "--set", "workers=2", "--set", "torch_threads=1"]


# ------------------------------------------------------------------------------ helpers ----
def process_tree(pid: int) -> list[int]:
    """The live descendants of ``pid`` (from /proc/<pid>/task/*/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as fh:
                    kids = [int(x) for x in fh.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def _workers_ignoring_sigint(kids: list[int]) -> bool:
    """Two multiprocessing workers have run ``quiet_worker`` (SIGINT in their ignored set)."""
    ready = 0
    for pid in kids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"spawn_main" not in fh.read():
                    continue
            with open(f"/proc/{pid}/status") as fh:
                ignored = next(int(line.split()[1], 16) for line in fh if line.startswith("SigIgn:"))
        except (OSError, StopIteration):
            continue
        ready += bool(ignored & (1 << (signal.SIGINT - 1)))
    return ready >= 2


def alive(pid: int) -> bool:
    """The process runs (a zombie waiting to be reaped does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def helper(pid: int) -> bool:
    """multiprocessing's resource tracker: one per process that ever spawned, alive as long as
    that process (here the test run), so not a child the command leaves behind."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"resource_tracker" in fh.read()
    except OSError:
        return False


def at_start_of(monkeypatch, owner, name: str, when=lambda *a, **k: True) -> threading.Event:
    """An event set as ``owner.name`` is entered (and ``when(args)`` holds): the phase has begun."""
    event = threading.Event()
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        if when(*args, **kwargs):
            event.set()
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, name, wrapper)
    return event


class NotCaught(Exception):
    """A signal reached the test's own handler: the command did not handle it."""


class Runaway(BaseException):
    """Raised in the main thread by ``run_and_stop``'s watchdog (``PyThreadState_SetAsyncExc``):
    the command ran on long after its signal, or never reached its phase. A BaseException, so that
    no ``except Exception`` nor the command's own ``except KeyboardInterrupt`` keeps it."""


def _raise_in_main_thread(exc_type: type) -> None:
    import ctypes
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.main_thread().ident),
                                               ctypes.py_object(exc_type))


def _where_the_main_thread_is(sig) -> str:
    """What a missed stop looks like from outside: the stop machinery's state, the handler now
    installed and the main thread's stack."""
    import traceback
    frame = sys._current_frames().get(threading.main_thread().ident)
    stack = "".join(traceback.format_stack(frame)[-12:]) if frame is not None else "(no frame)\n"
    return (f"stops._STATE={stops._STATE}, handler for {sig.name} now {signal.getsignal(sig)!r}; "
            f"the main thread was at:\n{stack}")


class Stop:
    """What a stopped command did: exit code, output, seconds from the signal to its return, the
    child processes it had when signalled."""

    def __init__(self, code, out, err, seconds, children):
        self.code, self.out, self.err, self.seconds, self.children = code, out, err, seconds, children

    def check(self, sig, *needles: str) -> str:
        """Exit 128 + signal within STOP_SECONDS, no traceback, no child left; the last line of
        stderr holds every needle; returns that line."""
        assert self.code == CODES[sig], self.err[-3000:]
        assert "Traceback" not in self.err, self.err[-3000:]
        assert self.seconds < STOP_SECONDS, f"{self.seconds:.1f} s from the signal to the end"
        assert not [p for p in self.children if alive(p)], f"children still alive: {self.children}"
        last = [line for line in self.err.splitlines() if line.strip()][-1]
        assert last.startswith("arena ") and f"stopped by {sig.name}" in last, last
        for needle in needles:
            assert needle in last, last
        return last


def run_and_stop(argv: list[str], ready: threading.Event, sig, capfd) -> Stop:
    """``cli.main(argv)`` in this process; a thread sends ``sig`` to this process once ``ready``
    is set. A signal that would come after the command returned is caught here (never the test
    run's own). A command that never reaches its phase, or runs on RUNAWAY_SECONDS after the
    signal, is ended by ``Runaway`` and the case fails with where it was."""
    before = set(process_tree(os.getpid()))
    sent: dict = {}
    done = threading.Event()

    def runaway(why: str) -> None:
        sent["runaway"] = f"{why}; {_where_the_main_thread_is(sig)}"
        _raise_in_main_thread(Runaway)

    def signaller():
        if not ready.wait(REACH_SECONDS):
            if not done.is_set():
                runaway(f"the phase was not reached in {REACH_SECONDS} s")
            return
        if done.is_set():
            return
        sent["children"] = [p for p in process_tree(os.getpid()) if p not in before and not helper(p)]
        sent["at"] = time.monotonic()
        os.kill(os.getpid(), sig)
        if not done.wait(RUNAWAY_SECONDS):
            runaway(f"still running {RUNAWAY_SECONDS} s after {sig.name}")
    late: list[int] = []

    def outside(signum, frame):   # the command had no handler of its own (or had ended)
        late.append(signum)
        raise NotCaught(f"{signal.Signals(signum).name} was not caught by the command")
    previous = {s: signal.signal(s, outside) for s in CODES}
    thread = threading.Thread(target=signaller, daemon=True)
    thread.start()
    code = None
    try:
        code = cli.main(argv)
    except Runaway:
        pass
    finally:
        ended = time.monotonic()
        done.set()
        thread.join()
        for s, handler in previous.items():
            signal.signal(s, handler)
        gc.collect()   # what the stop left open is closed within this case (see pytestmark)
    out, err = capfd.readouterr()
    assert "runaway" not in sent, f"{sent['runaway']}\nstderr: {err[-2000:]}"
    assert "at" in sent, f"the phase was not reached (exit {code}): {err[-2000:]}"
    assert not late, "the signal came after the command had ended"
    return Stop(code, out, err, ended - sent["at"], sent["children"])


def cli_line(argv: list[str], capfd) -> tuple[int, str]:
    code = cli.main(argv)
    out, err = capfd.readouterr()
    return code, err.strip().splitlines()[-1] if err.strip() else out


# ------------------------------------------------------------------------------ PPO ----
@BOTH
def test_ppo_rollout(sig, tmp_path, capfd, monkeypatch):
    """During a rollout: the notice at once, the checkpoint saved, --resume continues. The
    rollout is long (8192 steps): a 32-step one could end before the signal came on a loaded
    machine, and the stop then met the update (another case, below)."""
    ready = at_start_of(monkeypatch, algo.ArenaPPO, "_after_step")
    out = tmp_path / "run"
    stop = run_and_stop(["train", "zaka", "--out", str(out), "--timesteps", "100000000", *PPO,
                         "--set", "bc_games=0", "--set", "n_steps=8192"], ready, sig, capfd)
    stop.check(sig, "checkpoint saved to", "continue with --resume")
    assert f"stopping ({sig.name}): stopping at the next step" in stop.err
    done = read_metadata(out / "checkpoint.zip")["timesteps"]
    assert (out / ".lock").read_text() == ""
    code, line = cli_line(["train", "zaka", "--out", str(out), "--resume", "--timesteps", str(done + 64),
                           "--set", "n_steps=32", "--no-progress"], capfd)
    assert code == 0, line
    assert read_metadata(out / "final.zip")["timesteps"] >= done + 64


@BOTH
def test_ppo_update(sig, tmp_path, capfd, monkeypatch):
    """During an update (a long one: 3000 epochs): dropped at once, the model from before its
    rollout saved (0 steps: the first rollout's), --resume continues."""
    ready = at_start_of(monkeypatch, algo.ArenaPPO, "_train")
    out = tmp_path / "run"
    stop = run_and_stop(["train", "zaka", "--out", str(out), "--timesteps", "100000000", *PPO,
                         "--set", "bc_games=0", "--set", "n_epochs=3000"], ready, sig, capfd)
    stop.check(sig, "at 0 steps; checkpoint saved to")
    assert "dropping the update in progress" in stop.err
    assert read_metadata(out / "checkpoint.zip")["timesteps"] == 0
    code, line = cli_line(["train", "zaka", "--out", str(out), "--resume", "--timesteps", "64",
                           "--set", "n_epochs=1", "--no-progress"], capfd)
    assert code == 0, line


# ------------------------------------------------------------------------ warm start ----
WARM = [*PPO, "--set", "bc_games=4", "--set", "bc_epochs=1", "--set", "dagger_rounds=0"]


@pytest.mark.parametrize("phase, patch, settings, words", [
    ("expert games", lambda mp: at_start_of(mp, imitation, "collect", lambda *a, **k: k.get("student") is None),
     ["--set", "bc_games=100000"], "the warm start (100000 expert games)"),
    ("cloning", lambda mp: at_start_of(mp, imitation, "fit"),
     ["--set", "bc_epochs=100000", "--set", "bc_patience=100000"], "the warm start (behaviour cloning)"),
    ("dagger", lambda mp: at_start_of(mp, imitation, "collect", lambda *a, **k: k.get("student") is not None),
     ["--set", "dagger_rounds=1", "--set", "dagger_games=100000"], "the warm start (DAgger round 1 of 1)"),
], ids=["expert-games", "cloning", "dagger"])
@BOTH
def test_warm_start(sig, phase, patch, settings, words, tmp_path, capfd, monkeypatch):
    """During the warm start no checkpoint exists yet: the line says so and names the phase;
    --resume then says exactly why it cannot continue."""
    out = tmp_path / "run"
    stop = run_and_stop(["train", "zaka", "--out", str(out), "--timesteps", "100000000", *WARM, *settings],
                        patch(monkeypatch), sig, capfd)
    stop.check(sig, f"during {words}", "no checkpoint written", "without --resume")
    assert not (out / "checkpoint.zip").exists()
    code, line = cli_line(["train", "zaka", "--out", str(out), "--resume", "--no-progress"], capfd)
    assert code == 2 and "stopped before its first checkpoint" in line, line


@BOTH
def test_after_the_warm_start_the_clone_is_kept(sig, tmp_path, capfd, monkeypatch):
    """Stopped in the first evaluation, after the warm start: the clone's checkpoint (0 steps) is
    kept and --resume trains from it."""
    ready = at_start_of(monkeypatch, ppo.Run, "curve_point")
    out = tmp_path / "run"
    stop = run_and_stop(["train", "zaka", "--out", str(out), "--timesteps", "100000000", *WARM,
                         "--set", "eval_interval=1000000", "--set", "eval_games=100000",
                         "--set", "eval_opponents=[random]"], ready, sig, capfd)
    stop.check(sig, "during the first evaluation", "(0 steps) is kept", "continue with --resume")
    code, line = cli_line(["train", "zaka", "--out", str(out), "--resume", "--timesteps", "64",
                           "--set", "eval_games=2", "--no-progress"], capfd)
    assert code == 0, line


# ------------------------------------------------------------------ value lookahead ----
@pytest.mark.parametrize("phase, method, settings, words", [
    ("data", "collect", ["--set", "games_per_round=100000"], "during round 1 (data games); no value.pt written"),
    ("trials", "accept", ["--set", "accept_games=100000"], "during round 1 (phase trials); no value.pt written"),
], ids=["data", "trials"])
@BOTH
def test_value_lookahead(sig, phase, method, settings, words, tmp_path, capfd, monkeypatch):
    """The pool's workers end with the run (Ctrl-C left them running, SIGTERM orphaned them); the
    line says what is kept and that this algorithm does not resume, as --resume then does."""
    started = threading.Event()
    original = value_lookahead._Run.imap
    target = {"collect": value_lookahead._data_game, "accept": value_lookahead._trial_game}[method]

    def imap(self, fn, tasks):   # the pool's workers exist once the original has returned
        results = original(self, fn, tasks)
        if fn is target:
            started.set()
        return results
    monkeypatch.setattr(value_lookahead._Run, "imap", imap)
    out = tmp_path / "run"
    stop = run_and_stop(["train", "gorgasali", "--out", str(out), *VLOOK, *settings], started, sig, capfd)
    stop.check(sig, words, "cannot be resumed")
    assert len(stop.children) >= 2, stop.children   # the two pool workers were running
    code, line = cli_line(["train", "gorgasali", "--out", str(out), "--resume", "--no-progress"], capfd)
    assert code == 2 and "value_lookahead run, which cannot be resumed" in line, line


# ------------------------------------------------------------------------ arena eval ----
@BOTH
def test_eval(sig, tmp_path, capfd, monkeypatch):
    """The evaluation's worker processes end with it (SIGTERM left them running)."""
    ready = at_start_of(monkeypatch, evaluate, "pool_paced")
    stop = run_and_stop(["eval", "zaka", "--agents", "heuristic", "random", "--games", "100000",
                         "--workers", "2", "--no-progress", "--out", str(tmp_path / "e")], ready, sig, capfd)
    stop.check(sig, "no report written")
    assert len(stop.children) >= 2, stop.children
    assert not (tmp_path / "e" / "report.json").exists()


@BOTH
def test_a_stopped_eval_reports_the_games_it_finished(sig, tmp_path, capfd, monkeypatch):
    """A stop after some blocks came back from the workers: the report of those games is written
    (whole blocks, so seat-balanced, marked as stopped early) and the line says where."""
    ready = threading.Event()
    original = evaluate.pool_paced

    def counting(*args, **kwargs):
        for n, part in enumerate(original(*args, **kwargs)):
            if n >= 2:   # three chunks of at least a block (2 games) each
                ready.set()
            yield part
    monkeypatch.setattr(evaluate, "pool_paced", counting)
    stop = run_and_stop(["eval", "zaka", "--agents", "heuristic", "random", "--games", "100000",
                         "--workers", "2", "--no-progress", "--out", str(tmp_path / "e")], ready, sig, capfd)
    line = stop.check(sig, "whose report is", "report.md", "(the same command with --resume plays the rest)")
    data = json.loads((tmp_path / "e" / "report.json").read_text())
    done = data["settings"]["stopped_after"]
    assert done == data["total_games"] >= 6 and done % 2 == 0, data["settings"]
    # the journal --resume reads holds those blocks: a header, then a whole line a block
    journal = (tmp_path / "e" / "games.jsonl").read_text()
    assert journal.endswith("\n") and len(journal.splitlines()) == 1 + done // 2
    assert data["settings"]["planned_games"] == 100000 and f"after {done} of 100000 games" in line
    assert any(w.startswith("stopped early") for w in data["warnings"]), data["warnings"]
    heuristic = data["per_agent"]["heuristic"]
    assert heuristic["games"] == done and heuristic["wins"] + heuristic["draws"] + heuristic["losses"] == done
    assert "stopped early" in (tmp_path / "e" / "report.md").read_text()


# ------------------------------------------------------------------- as real processes ----
def _process(argv, tmp_path, ready, sig, group: bool):
    """``python -m tabletop_arena.app.cli ARGV`` in a session of its own; ``sig`` to it (or its
    whole process group, as Ctrl-C in a terminal) once ``ready(tree)``; (exit code, stderr,
    seconds to exit, the tree when signalled)."""
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "w") as err, open(tmp_path / "stdout.txt", "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tabletop_arena.app.cli", *argv], stdout=out,
                                stderr=err, stdin=subprocess.DEVNULL, start_new_session=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + REACH_SECONDS
        while not ready(process_tree(proc.pid)):
            assert proc.poll() is None, err_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "the phase was not reached"
            time.sleep(0.05)
        tree = process_tree(proc.pid)
        sent = time.monotonic()
        os.killpg(proc.pid, sig) if group else proc.send_signal(sig)
        try:
            proc.wait(timeout=REACH_SECONDS)   # a guard; the bound is checked below
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {REACH_SECONDS} s after {sig.name}: {err_path.read_text()[-3000:]}")
        seconds = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    time.sleep(0.2)   # the workers' own exit
    return proc.returncode, err_path.read_text(), seconds, tree


#: what a stopped ``arena eval`` says: no block back yet, or the report of the blocks that are (the
#: first chunks are one block each, so a Zaka block can be back by the time the workers run)
EVAL_STOPPED = ("no report written", "whose report is")


@pytest.mark.parametrize("argv, sig, group, needle", [
    (["eval", "zaka", "--agents", "heuristic", "random", "--games", "100000", "--workers", "2",
      "--no-progress", "--out", "e"], signal.SIGINT, True, EVAL_STOPPED),
    (["eval", "zaka", "--agents", "heuristic", "random", "--games", "100000", "--workers", "2",
      "--no-progress", "--out", "e"], signal.SIGTERM, False, EVAL_STOPPED),
    (["train", "gorgasali", "--out", "v", *VLOOK, "--set", "games_per_round=100000"], signal.SIGTERM, True,
     ("during round 1 (data games)",)),
], ids=["eval-ctrl-c-to-the-group", "eval-sigterm", "vlook-sigterm-to-the-group"])
def test_as_a_process(argv, sig, group, needle, tmp_path):
    """The exit code the shell sees, one line, no traceback (a worker's included), no worker left;
    a signal to the whole group reaches the workers too (they leave it to the main process, or die
    of SIGTERM without hanging its pool). Ctrl-C goes to the group once two workers run (they have
    set SIGINT aside): two children alone may be the resource tracker and a worker whose
    interpreter is still starting, which Python ends with a 'Fatal Python error' of its own (1 of 12
    tries; a spawned interpreter runs no code of ours before its site import, and neither a blocked
    mask nor an ignored SIGINT in the parent reached it cleanly: the mask is reset, an ignored SIGINT
    in the parent lost Ctrl-Cs)."""
    ready = _workers_ignoring_sigint if sig == signal.SIGINT else (lambda kids: len(kids) >= 2)
    code, err, seconds, tree = _process(argv, tmp_path, ready, sig, group)
    left = [p for p in tree if alive(p)]
    for pid in left:   # a failure here leaves nothing running
        os.kill(pid, signal.SIGKILL)
    assert code == CODES[sig], err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    assert [line for line in err.splitlines() if line.strip()] == [err.strip().splitlines()[-1]], err
    assert any(n in err for n in needle) and f"stopped by {sig.name}" in err, err
    assert seconds < STOP_SECONDS + 10, f"{seconds:.1f} s (interpreter exit included)"
    assert not left, f"children still alive: {left} of {tree}"
    assert len(tree) >= 2


def _busy(pid: int) -> bool:
    """The process has used more than a second of CPU (a worker past its start-up, playing)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") > 1.0


def test_a_killed_main_process_takes_its_workers_along(tmp_path):
    """SIGKILL cannot be caught: the evaluation's workers (busy with mcts:5000 games, minutes
    each) end with their parent (PR_SET_PDEATHSIG) instead of playing on."""
    code, _, _, tree = _process(["eval", "zaka", "--agents", "mcts:5000", "random", "--games", "100",
                                 "--workers", "2", "--no-progress", "--out", "e"], tmp_path,
                                lambda kids: sum(_busy(k) and not helper(k) for k in kids) >= 2, signal.SIGKILL,
                                False)
    assert code == -signal.SIGKILL
    deadline = time.monotonic() + STOP_SECONDS
    while [p for p in tree if alive(p)] and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in tree if alive(p) and not helper(p)]
    for pid in tree:   # a failure here leaves nothing running
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"workers still alive: {left} of {tree}"


def test_a_stop_while_workers_start_waits_for_them(monkeypatch):
    """stops.deferred: a stop inside the block is raised as the block ends, not in the middle (a
    spawned worker whose start-up was cut short printed a traceback of its own)."""
    order = []
    with pytest.raises(stops.Stopped) as info:
        with stops.stop_raises():
            with stops.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.2)
                order.append("block ran to its end")
    assert order == ["block ran to its end"] and info.value.exit_code == 143


def test_a_missed_stop_fails_the_case_instead_of_running_on(tmp_path, capfd, monkeypatch):
    """The guard itself: a command whose stop is lost (here: both signals ignored) is ended by
    ``Runaway`` and the case fails naming the signal and the main thread's place, instead of
    playing its 100,000 games (a missed stop did that in CI until the pytest worker died)."""
    monkeypatch.setattr(sys.modules[__name__], "RUNAWAY_SECONDS", 2)

    @contextlib.contextmanager
    def lost(prog="arena"):
        previous = {s: signal.signal(s, lambda *a: None) for s in CODES}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
    monkeypatch.setattr(cli, "stop_raises", lost)
    ready = at_start_of(monkeypatch, imitation, "collect", lambda *a, **k: k.get("student") is None)
    with pytest.raises(AssertionError) as info:
        run_and_stop(["train", "zaka", "--out", str(tmp_path / "run"), "--timesteps", "100000000", *WARM,
                      "--set", "bc_games=100000"], ready, signal.SIGINT, capfd)
    assert "still running 2 s after SIGINT" in str(info.value)
    assert "in collect" in str(info.value)


class _SignalInFinaliser:
    """Garbage (a cycle) whose finaliser sends ``sig`` to this process and runs on a little: the
    handler runs inside ``__del__``, where Python prints "Exception ignored" and drops its raise."""

    def __init__(self, sig):
        self.sig, self.me = sig, self

    def __del__(self):
        os.kill(os.getpid(), self.sig)
        sum(range(10))


def _lose_a_stop(sig) -> None:
    _SignalInFinaliser(sig)
    gc.collect()


@BOTH
def test_a_stop_lost_in_a_finaliser_is_raised_at_the_next_check(sig):
    """stops.check: the handler's Stopped raised inside a finaliser is lost (Python's rule), and
    the loop's next check raises it; after the block nothing is left to raise. The lost raise
    prints no "Exception ignored" traceback (pytest would turn one into a failing warning)."""
    with pytest.raises(stops.Stopped) as info:
        with stops.stop_raises():
            _lose_a_stop(sig)
            for _ in range(3):
                stops.check()
    assert info.value.exit_code == CODES[sig]
    stops.check()   # outside a command: nothing


@BOTH
def test_a_command_whose_stop_is_lost_still_stops(sig, tmp_path, capfd, monkeypatch):
    """The case CI met: the signal handled inside a finaliser at the start of the warm start's
    100,000 expert games. The games stop at the next move with the usual line and exit code."""
    original = imitation.collect

    def collect(*args, **kwargs):
        if kwargs.get("student") is None:
            _lose_a_stop(sig)
        return original(*args, **kwargs)
    monkeypatch.setattr(imitation, "collect", collect)
    code, line = cli_line(["train", "zaka", "--out", str(tmp_path / "run"), "--timesteps", "100000000", *WARM,
                           "--set", "bc_games=100000"], capfd)
    assert code == CODES[sig], line
    assert f"stopped by {sig.name} during the warm start (100000 expert games)" in line, line


def test_a_cut_lost_in_a_finaliser_is_raised_at_the_next_check():
    """The same for PPO's own stop: an EvaluationCut lost in a finaliser is raised by the
    evaluation's next check, silently; after the evaluation block nothing is left to raise."""
    from tabletop_arena.train.run_control import EvaluationCut, SignalStop
    with stops.stop_raises(), SignalStop() as stop:
        with pytest.raises(EvaluationCut):
            with stop.cut_short():
                _lose_a_stop(signal.SIGTERM)
                for _ in range(3):
                    stops.check()
        stops.check()
