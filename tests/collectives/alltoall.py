"""alltoall, as nccl-tests accounts for it (alltoall_perf, PERFORMANCE.md): every rank sends a
distinct block to every rank; in place, peers write into blocks still being sent (no ordering):
timed, #wrong N/A.
Written from nccl-tests' definitions, not from commsweep's code (tests/mpi/expected_sweep.py
loads every file here: the rows, counts and busbw each run must print)."""

ORDER = 40  # its place in `commsweep list` and in `all`
BLOCKS = True  # the size is n blocks of `count` elements (rounded to 16 bytes per block)
REDUCES = False  # takes -o
ROOTED = False  # takes -r
IN_PLACE_CHECKED = False  # in place, every element is verified (else #wrong N/A)


def bus_factor(n):
    """busbw = algbw * factor: each rank sends (n-1)/n of its buffer to the others."""
    return (n - 1) / n
