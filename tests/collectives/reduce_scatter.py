"""reduce_scatter, as nccl-tests accounts for it (reduce_scatter_perf, PERFORMANCE.md): rank r gets
block r of the reduction.
Written from nccl-tests' definitions, not from commsweep's code (tests/mpi/expected_sweep.py
loads every file here: the rows, counts and busbw each run must print)."""

ORDER = 30  # its place in `commsweep list` and in `all`
BLOCKS = True  # the size is n blocks of `count` elements (rounded to 16 bytes per block)
REDUCES = True  # takes -o
ROOTED = False  # takes -r
IN_PLACE_CHECKED = True  # in place, every element is verified (else #wrong N/A)


def bus_factor(n):
    """busbw = algbw * factor: each rank sends (n-1)/n of its buffer."""
    return (n - 1) / n
