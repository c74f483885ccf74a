"""lsa, the EP exchange from inside kernels on NCCL's device API (src/ep/impls/lsa.cpp, the
kernels in kernels/ep_lsa.cu): nccl backend only. Every row is checked element by element
against the host reference and beside the alltoallv rows by tests/mpi/ep_check.py."""

# Where its test runs: "mpi" as mpi.ep.impl.NAME.np{2,3} (every build, CI), "nccl" as
# gpu.ep.impl.NAME (the GPU batch, ctest -L gpu); beside alltoallv, the reference.
BACKENDS = ["nccl"]
# Its cases (commsweep ep flags; -w, -n, -c and --backend are the test's): a rank with no
# tokens, one block per warp and many, both dispatch types.
ARGS = "--tokens 0,128,1024 --hidden 256,7168 --topk 8 --experts 32 --dtype bf16,fp8 --routing randn,skewed"
