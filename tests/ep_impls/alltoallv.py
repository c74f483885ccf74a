"""alltoallv, the reference EP exchange (src/ep/impls/alltoallv.cpp): the host drives grouped
send/recv (ncclSend/Recv, or MPI_Alltoallv on the mpi backend). Every row is checked element by
element against the host reference by tests/mpi/ep_check.py."""

# Where its test runs: "mpi" as mpi.ep.impl.NAME.np{2,3} (every build, CI), "nccl" as
# gpu.ep.impl.NAME (the GPU batch, ctest -L gpu); beside alltoallv, the reference.
BACKENDS = ["mpi", "nccl"]
# Its cases (commsweep ep flags; -w, -n, -c and --backend are the test's).
ARGS = "--tokens 0,1,16,64 --hidden 256 --topk 2,4 --experts 12 --dtype bf16,fp8 --routing randn,balanced"
