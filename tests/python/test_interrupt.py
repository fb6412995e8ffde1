"""Long solves release the GIL and honour Ctrl+C (KeyboardInterrupt)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

np = pytest.importorskip("numpy")

import pto_mem  # noqa: E402


def hard_arrays(n: int = 400, seed: int = 7):
    """A random instance whose greedy peak is above the max-load bound, so
    that goal='minimise' keeps the exact stage searching until its budget."""
    rng = np.random.default_rng(seed)
    begins = rng.integers(0, n, n)
    ends = begins + rng.integers(1, n // 4, n)
    sizes = rng.integers(1, 1000, n)
    return sizes, begins, ends


def test_time_limit_is_honoured():
    sizes, begins, ends = hard_arrays()
    start = time.monotonic()
    r = pto_mem.plan_arrays(sizes, begins, ends, strategy="portfolio", time_limit=0.5, threads=1)
    assert time.monotonic() - start < 10
    assert r.fits and r.status == "feasible"  # the best found, not proved optimal


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_keyboard_interrupt_stops_the_search():
    sizes, begins, ends = hard_arrays()
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            pto_mem.plan_arrays(sizes, begins, ends, strategy="portfolio", time_limit=120, threads=1)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30  # far below the 120 s budget
    # The module is still usable afterwards.
    assert pto_mem.plan_arrays([8], [0], [1], strategy="greedy").fits


def test_the_gil_is_released_while_planning():
    sizes, begins, ends = hard_arrays()
    ticks = 0
    done = threading.Event()

    def solve():
        pto_mem.plan_arrays(sizes, begins, ends, strategy="portfolio", time_limit=0.5, threads=1)
        done.set()

    t = threading.Thread(target=solve)
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert ticks > 50  # the main thread ran Python code all along
