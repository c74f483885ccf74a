"""reduce, as nccl-tests accounts for it (reduce_perf, PERFORMANCE.md): the root gets the reduction
of all inputs.
Written from nccl-tests' definitions, not from commsweep's code (tests/mpi/expected_sweep.py
loads every file here: the rows, counts and busbw each run must print)."""

ORDER = 60  # its place in `commsweep list` and in `all`
BLOCKS = False  # the size is n blocks of `count` elements (rounded to 16 bytes per block)
REDUCES = True  # takes -o
ROOTED = True  # takes -r
IN_PLACE_CHECKED = True  # in place, every element is verified (else #wrong N/A)


def bus_factor(n):
    """busbw = algbw * factor: the whole buffer crosses the busiest link."""
    return 1.0
