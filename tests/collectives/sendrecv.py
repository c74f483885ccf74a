"""sendrecv, as nccl-tests accounts for it (sendrecv_perf, PERFORMANCE.md): each rank sends to
rank+1 and receives from rank-1; in place, the receive overwrites what is being sent (no ordering):
timed, #wrong N/A.
Written from nccl-tests' definitions, not from commsweep's code (tests/mpi/expected_sweep.py
loads every file here: the rows, counts and busbw each run must print)."""

ORDER = 70  # its place in `commsweep list` and in `all`
BLOCKS = False  # the size is n blocks of `count` elements (rounded to 16 bytes per block)
REDUCES = False  # takes -o
ROOTED = False  # takes -r
IN_PLACE_CHECKED = False  # in place, every element is verified (else #wrong N/A)


def bus_factor(n):
    """busbw = algbw * factor: the whole buffer crosses one link."""
    return 1.0
