"""gather, as nccl-tests accounts for it (gather_perf): the root receives every rank's block.
The size is the gathered buffer, n blocks of `count` elements (count = size / n, rounded to whole
16-byte blocks); only the root's output is verified; in place, each rank's block sits at its
offset of the receive buffer, and is verified.
Written from nccl-tests' definitions, not from commsweep's code (tests/mpi/expected_sweep.py
loads every file here: the rows, counts and busbw each run must print)."""

ORDER = 80  # its place in `commsweep list` and in `all`
BLOCKS = True  # the size is n blocks of `count` elements (rounded to 16 bytes per block)
REDUCES = False  # takes -o
ROOTED = True  # takes -r
IN_PLACE_CHECKED = True  # in place, every element is verified (else #wrong N/A)


def bus_factor(n):
    """busbw = algbw * factor: the root receives the n-1 other blocks, (n-1)/n of the buffer."""
    return (n - 1) / n
