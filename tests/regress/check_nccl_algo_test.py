#!/usr/bin/env python3
"""scripts/check-nccl-algo.py on NCCL 2.28's TUNING lines in their exact format (src/enqueue.cc:
"%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}" after NCCL's INFO prefix) and on
results rows as commsweep writes them: equal, a mismatch, a row NCCL printed no line for, send/
receive rows and mpi rows not checked, the exit codes."""
import importlib.util
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check-nccl-algo.py")
spec = importlib.util.spec_from_file_location("check_nccl_algo", SCRIPT)
algo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(algo)

# Rank 0's log of NCCL 2.28.9 with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING: the INFO prefix is
# "<host>:<pid>:<tid> [<cuda device>] NCCL INFO ", then the line.
LOG = """\
gpu-node-1:40211:40211 [0] NCCL INFO Comm config Blocking set to 1
gpu-node-1:40211:40211 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
gpu-node-1:40211:40211 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
gpu-node-1:40211:40211 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..15}
gpu-node-1:40211:40211 [0] NCCL INFO AllReduce: 1073741824 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..31}
gpu-node-1:40211:40211 [0] NCCL INFO AllGather: 262144 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={2..9}
"""


def timing(algorithm, protocol, channels, source="profiler"):
    return {"time_us": 1.0, "nccl": {"algorithm": algorithm, "protocol": protocol, "channels": channels,
                                     "source": source}}


def row(test, size, count, type_name, oop, ip=None):
    return {"test": test, "size_bytes": size, "count": count, "type": type_name,
            "out_of_place": oop, "in_place": ip if ip is not None else oop}


class ParseLine(unittest.TestCase):
    def test_tuning_line_of_nccl_2_28(self):
        line = "gpu-node-1:40211:40211 [0] NCCL INFO AllGather: 262144 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={2..9}"
        self.assertEqual(algo.parse_tuning_line(line), ("AllGather", 262144, ("RING", "SIMPLE", 8)))

    def test_other_info_lines_are_not_tuning_lines(self):
        self.assertIsNone(algo.parse_tuning_line("gpu-node-1:40211:40211 [0] NCCL INFO Comm config Blocking set to 1"))
        self.assertIsNone(algo.parse_tuning_line(
            "gpu-node-1:1:1 [0] NCCL INFO AllReduce [Symmetric]: 8 Bytes -> Kernel AllReduce_AGxLL_R nchannels 1"))


class Check(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "nccl.gpu-node-1.40211.log")
        with open(self.log, "w", encoding="utf-8") as f:
            f.write(LOG)

    def tearDown(self):
        self.tmp.cleanup()

    def run_on(self, rows):
        path = os.path.join(self.tmp.name, "results.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"schema": "commsweep.results/2", "rows": rows}, f)
        return algo.main([path, self.tmp.name])

    def test_rows_equal_to_the_lines_pass(self):
        rows = [row("all_reduce", 8, 2, "float", timing("RING", "LL", 1)),
                row("all_reduce", 1048576, 262144, "float", timing("RING", "LL128", 16)),
                row("all_reduce", 1073741824, 268435456, "float", timing("NVLS", "SIMPLE", 32)),
                # all_gather: the line's bytes are the call's count (per rank) x 4, not the size column
                row("all_gather", 1048576, 65536, "float", timing("RING", "SIMPLE", 8))]
        self.assertEqual(self.run_on(rows), 0)

    def test_another_protocol_is_a_mismatch(self):
        self.assertEqual(self.run_on([row("all_reduce", 1048576, 262144, "float", timing("RING", "LL", 16))]), 1)

    def test_other_channels_are_a_mismatch(self):
        self.assertEqual(self.run_on([row("all_reduce", 1048576, 262144, "float", timing("RING", "LL128", 8))]), 1)

    def test_a_row_without_a_line_fails(self):
        self.assertEqual(self.run_on([row("all_reduce", 2048, 512, "float", timing("RING", "LL", 1))]), 1)

    def test_send_receive_and_mpi_rows_are_not_checked(self):
        rows = [row("sendrecv", 1024, 256, "float", timing("P2P", "-", 4)),
                row("all_reduce", 8, 2, "float", timing("RING", "LL", 1)),
                row("all_reduce", 16, 4, "float", timing("n/a (mpi backend)", "n/a (mpi backend)", None, "mpi backend"))]
        self.assertEqual(self.run_on(rows), 0)

    def test_only_unchecked_rows_is_bad_input(self):
        self.assertEqual(self.run_on([row("sendrecv", 1024, 256, "float", timing("P2P", "-", 4))]), 2)

    def test_logs_without_tuning_lines_are_bad_input(self):
        with open(self.log, "w", encoding="utf-8") as f:
            f.write("gpu-node-1:40211:40211 [0] NCCL INFO Comm config Blocking set to 1\n")
        self.assertEqual(self.run_on([row("all_reduce", 8, 2, "float", timing("RING", "LL", 1))]), 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
