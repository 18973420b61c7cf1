# The median time of a launch, by CuPy's events: what order.py and stream.py time with.
import cupy as cp
import numpy as np


def run(fn, reps=10, warm=3):
    """fn() `warm` times, then the median ms of `reps` timed calls."""
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
