#!/usr/bin/env python3
"""A reference for `commsweep nvlink`'s copy-engine write, independent of it (not part of the
product; docs/nvlink.md): PyTorch's device-to-device copy_ between every ordered pair of this
machine's GPUs, one pair at a time. PyTorch copies between two GPUs with peer access on the
source GPU's current stream (cudaMemcpyAsync: the source's copy engine pushes into the
destination), which is what commsweep's ce_write measures. Prints JSON:

  {"tool": "torch copy_", "torch": VERSION, "bytes": B, "iters": N, "warmup": W,
   "gpus": [{"index": i, "name": ..., "pci_bus_id": "0000:18:00.0"}],
   "pairs": [{"src": i, "dst": j, "gbps": G}]}          GB/s = 1e9 bytes per second

    python3 scripts/nvlink-reference.py [--bytes 256M] [--iters 20] [--warmup 5]
"""
import argparse
import json
import sys

import torch


def size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def bus_id(index):
    p = torch.cuda.get_device_properties(index)
    return "%04x:%02x:%02x.0" % (getattr(p, "pci_domain_id", 0), p.pci_bus_id, p.pci_device_id)


def copy_gbps(src, dst, nbytes, iters, warmup):
    a = torch.empty(nbytes, dtype=torch.uint8, device="cuda:%d" % src)
    b = torch.empty(nbytes, dtype=torch.uint8, device="cuda:%d" % dst)
    a.fill_(src + 1)
    with torch.cuda.device(src):
        for _ in range(warmup):
            b.copy_(a, non_blocking=True)
        torch.cuda.synchronize(src)
        torch.cuda.synchronize(dst)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            b.copy_(a, non_blocking=True)
        stop.record()
        stop.synchronize()
        ms = start.elapsed_time(stop)
    torch.cuda.synchronize(dst)
    if not torch.equal(b[:1 << 20].cpu(), a[:1 << 20].cpu()):
        raise SystemExit("nvlink-reference: the copy %d -> %d arrived wrong" % (src, dst))
    return nbytes * iters / (ms * 1e-3) / 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bytes", default="256M", help="bytes per copy (K, M, G: powers of 1024)")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    o = p.parse_args()
    n = torch.cuda.device_count()
    if n < 2:
        print("nvlink-reference: %d GPU(s) visible; at least 2 needed" % n, file=sys.stderr)
        return 2
    nbytes = size(o.bytes)
    gpus = [{"index": i, "name": torch.cuda.get_device_name(i), "pci_bus_id": bus_id(i)} for i in range(n)]
    pairs = [{"src": s, "dst": d, "gbps": copy_gbps(s, d, nbytes, o.iters, o.warmup)}
             for s in range(n) for d in range(n) if s != d]
    json.dump({"tool": "torch copy_", "torch": torch.__version__, "bytes": nbytes, "iters": o.iters,
               "warmup": o.warmup, "gpus": gpus, "pairs": pairs}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
