"""all_reduce, as nccl-tests accounts for it (all_reduce_perf, PERFORMANCE.md): every rank gets the
reduction of all inputs.
Written from nccl-tests' definitions, not from commsweep's code (tests/mpi/expected_sweep.py
loads every file here: the rows, counts and busbw each run must print)."""

ORDER = 10  # its place in `commsweep list` and in `all`
BLOCKS = False  # the size is n blocks of `count` elements (rounded to 16 bytes per block)
REDUCES = True  # takes -o
ROOTED = False  # takes -r
IN_PLACE_CHECKED = True  # in place, every element is verified (else #wrong N/A)


def bus_factor(n):
    """busbw = algbw * factor: a ring all-reduce moves 2(n-1)/n of the buffer over each rank's link."""
    return 2.0 * (n - 1) / n
