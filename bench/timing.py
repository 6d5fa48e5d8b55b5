#===- bench/timing.py - timing sides that take turns ----------------------===#
#
# The timing of bench/run.py and bench/peers.py: each side warmed up, then
# timed in blocks that take turns, each block after a pause.
#
#===----------------------------------------------------------------------===#
"""Times callables in alternating blocks; medians in milliseconds."""

import statistics
import time

WARMUP = 2


def median_ms(times):
    return 1e3 * statistics.median(times) if times else None


def choose_steps(pair_seconds, budget, cap):
    """Timed iterations so that a phase takes about `budget` seconds."""
    if pair_seconds <= 0:
        return cap
    return max(3, min(cap, int(budget / pair_seconds)))


# Seconds of idling before each block of alternate(): longer than libomp's
# spin after a parallel region (KMP_BLOCKTIME, 200 ms by default), OpenBLAS's
# (2^28 cycles) and libgomp's, so the side about to run has the cores.
SETTLE_S = 0.3
# Blocks per side; the blocks of the sides take turns.
ROUNDS = 3


def settle():
    time.sleep(SETTLE_S)


def alternate(fns, steps, budget):
    """Warms each of `fns` ({name: callable}) up, then times `steps` rounds
    (fewer when the warm-up says a round takes longer than budget/steps; at
    least 3) in ROUNDS blocks per side, the sides' blocks taking turns. Each
    block starts with a pause (settle()) and one untimed iteration, so no
    side's threads are still spinning when the other's run, and a drift of
    the machine's speed reaches both sides alike. Returns
    ({name: [seconds]}, n)."""
    last = {}
    for name, fn in fns.items():
        settle()
        for _ in range(WARMUP):
            t0 = time.perf_counter()
            fn()
            last[name] = time.perf_counter() - t0
    n = choose_steps(sum(last.values()), budget, steps)
    blocks = [n // ROUNDS + (1 if r < n % ROUNDS else 0)
              for r in range(ROUNDS)]
    times = {name: [] for name in fns}
    for size in blocks:
        if size == 0:
            continue
        for name, fn in fns.items():
            settle()
            fn()
            for _ in range(size):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return times, n

