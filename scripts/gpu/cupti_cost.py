# What kernel tracing through CUPTI (PyTorch's profiler, CUDA activities only) costs an NCCL
# all_reduce on every GPU of this machine: 200 iterations, 3 rounds alternating, the time per
# iteration from CUDA events around the loop (inside the profiler's span). A reference for
# docs/iterations.md, run by scripts/gpu/verify-iterations.sh where PyTorch is installed.
import contextlib, statistics, sys
import torch, torch.distributed as dist, torch.multiprocessing as mp

def run(rank, world, port):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    res = {}
    for size in (1 << 20, 1 << 21, 1 << 22, 1 << 24):
        x = torch.ones(size // 4, device="cuda")
        for _ in range(20): dist.all_reduce(x)
        torch.cuda.synchronize()
        for mode in ("off", "cupti") * 3:
            dist.barrier(); torch.cuda.synchronize()
            s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
            ctx = (torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
                   if mode == "cupti" else contextlib.nullcontext())
            with ctx:
                s.record()
                for _ in range(200): dist.all_reduce(x)
                e.record(); torch.cuda.synchronize()
            res.setdefault((size, mode), []).append(s.elapsed_time(e) * 1000 / 200)
    if rank == 0:
        for size in sorted({k[0] for k in res}):
            off = statistics.median(res[(size, "off")]); on = statistics.median(res[(size, "cupti")])
            print(f"cupti: all_reduce {size:>9} B: off {off:7.2f} us, traced {on:7.2f} us, cost {100 * (on / off - 1):+.1f}%", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(run, args=(n, 29577), nprocs=n)
