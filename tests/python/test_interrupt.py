"""Long solves release the GIL, report progress and honour Ctrl+C: the search
stops and pto_mem.Interrupted (a KeyboardInterrupt) carries the best result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

np = pytest.importorskip("numpy")

import pto_mem  # noqa: E402
from conftest import SANITIZED  # noqa: E402

# Seconds a stop may take to land (an instrumented build is far slower).
STOP_WITHIN = 10.0 if SANITIZED else 2.0


def hard_arrays(n: int = 400, seed: int = 7):
    """A random instance whose greedy peak is above the max-load bound, so
    that goal='minimise' with no node limit keeps the exact stage searching
    until its time budget."""
    rng = np.random.default_rng(seed)
    begins = rng.integers(0, n, n)
    ends = begins + rng.integers(1, n // 4, n)
    sizes = rng.integers(1, 1000, n)
    return sizes, begins, ends


def endless(**kwargs):
    """plan_arrays on the hard instance with a budget far beyond the test."""
    sizes, begins, ends = hard_arrays()
    return pto_mem.plan_arrays(sizes, begins, ends, strategy="portfolio", goal="minimise", node_limit=0,
                               time_limit=120, threads=1, **kwargs)


def test_time_limit_is_honoured():
    sizes, begins, ends = hard_arrays()
    start = time.monotonic()
    r = pto_mem.plan_arrays(sizes, begins, ends, strategy="portfolio", goal="minimise", node_limit=0,
                            time_limit=0.5, threads=1)
    assert time.monotonic() - start < 10
    assert r.fits and r.status == "feasible"  # the best found, not proved optimal
    assert r.stopped_by == "deadline"


def check_interrupted_result(r, n: int):
    assert r.fits and r.status == "feasible"
    assert r.stopped_by == "interrupted"
    assert len(r) == n and None not in r.placement


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_stops_the_search_and_keeps_the_result():
    sent = []

    def ctrl_c():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, ctrl_c)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:  # a script without a handler stops, as usual
            endless()
    finally:
        timer.cancel()
    assert sent and time.monotonic() - sent[0] < STOP_WITHIN  # far below the 120 s budget
    assert isinstance(e.value, pto_mem.Interrupted) and not isinstance(e.value, Exception)
    check_interrupted_result(e.value.result, len(hard_arrays()[0]))
    # The result is a real placement of the problem.
    sizes, begins, ends = hard_arrays()
    problem = pto_mem.Problem.from_arrays(sizes, begins, ends)
    assert pto_mem.validate(problem, e.value.result) == []
    # The module is still usable afterwards.
    assert pto_mem.plan_arrays([8], [0], [1], strategy="greedy").fits


CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import pto_mem

    rng = np.random.default_rng(7)
    n = 400
    begins = rng.integers(0, n, n)
    ends = begins + rng.integers(1, n // 4, n)
    sizes = rng.integers(1, 1000, n)
    told = []

    def progress(p):
        if not told:  # the search runs: tell the parent once
            told.append(p)
            print("searching", flush=True)

    try:
        pto_mem.plan_arrays(sizes, begins, ends, goal="minimise", node_limit=0, time_limit=120, threads=1,
                            progress=progress)
        print(json.dumps({"interrupted": False}))
    except pto_mem.Interrupted as e:
        problem = pto_mem.Problem.from_arrays(sizes, begins, ends)
        r = e.result
        print(json.dumps({"interrupted": True, "status": r.status, "stopped_by": r.stopped_by,
                          "valid": pto_mem.validate(problem, r) == [], "peak": r.objective.total_peak}))
    """
)


def run_child(script: str):
    env = dict(os.environ)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def test_sigint_from_outside_returns_the_best_placement():
    child = run_child(CHILD)
    try:
        assert child.stdout.readline().strip() == "searching"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert time.monotonic() - sent < STOP_WITHIN + 1, err
    assert child.returncode == 0, err
    report = json.loads(out)
    assert report == {**report, "interrupted": True, "status": "feasible", "stopped_by": "interrupted", "valid": True}
    assert report["peak"] > 0


def test_sigint_without_a_handler_ends_the_script():
    script = CHILD.replace("except pto_mem.Interrupted as e:", "except ZeroDivisionError as e:")
    child = run_child(script)
    try:
        assert child.stdout.readline().strip() == "searching"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode != 0 and out == ""
    assert "pto_mem.errors.Interrupted" in err and "planning was interrupted" in err


def test_progress_reports_the_search():
    reports = []
    sizes, begins, ends = hard_arrays()
    r = pto_mem.plan_arrays(sizes, begins, ends, goal="minimise", node_limit=0, time_limit=1.0, threads=1,
                            progress=reports.append)
    assert reports and all(isinstance(p, pto_mem.Progress) for p in reports)
    elapsed = [p.elapsed_s for p in reports]
    assert elapsed == sorted(elapsed)
    placed = [p for p in reports if p.best_peak is not None]
    assert placed
    for p in placed:
        assert p.best_peak >= p.proved_bound > 0 and p.penalty == 0
        assert p.gap == pytest.approx((p.best_peak - p.proved_bound) / p.proved_bound)
    assert all(p.gap is None and p.penalty is None for p in reports if p.best_peak is None)
    # The last report is the answer's peak (the search reports every improvement).
    assert placed[-1].best_peak == r.objective.total_peak


def test_an_exception_in_progress_stops_the_search_and_propagates():
    class Enough(Exception):
        pass

    def progress(p):
        raise Enough(p)

    start = time.monotonic()
    with pytest.raises(Enough) as e:
        endless(progress=progress)
    assert time.monotonic() - start < STOP_WITHIN + 5
    assert isinstance(e.value.args[0], pto_mem.Progress)
    with pytest.raises(TypeError, match="progress must be a callable"):
        pto_mem.plan_arrays([8], [0], [1], progress=3)


def test_the_gil_is_released_while_planning():
    sizes, begins, ends = hard_arrays()
    ticks = 0
    done = threading.Event()

    def solve():
        pto_mem.plan_arrays(sizes, begins, ends, strategy="portfolio", goal="minimise", node_limit=0, time_limit=0.5,
                            threads=1)
        done.set()

    t = threading.Thread(target=solve)
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert ticks > 50  # the main thread ran Python code all along
