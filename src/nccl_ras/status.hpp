// NCCL RAS's STATUS text (NCCL's src/ras/client_support.cc writes it; the format is NCCL's, for
// people, so this reads what it can and keeps the rest as lines): the job summary, the
// communicator groups with their status (RUNNING, INIT, FINALIZE, ABORT, NOCOMM) and errors (OK,
// INCOMPLETE, ERROR, MISMATCH), the connection lines, and the Errors and Warnings sections with
// the missing ranks (a rank whose data never came: the rank that hangs or died), the processes
// missing or dead.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace commsweep::nccl_ras {

struct CommGroup {
  int group = 0;
  int comms = 0;              // communicators in the group
  int nodes = 0;              // per communicator
  std::string ranks_per_node; // "8" or "1-8"
  int ranks_per_comm = 0;
  int ranks_in_group = 0;
  std::string status;         // RUNNING, INIT, FINALIZE, ABORT, NOCOMM
  std::string errors;         // OK, INCOMPLETE, ERROR, MISMATCH or combinations ("INCOMPLETE,ERROR")
};

struct MissingRank {
  int rank = -1;
  std::string communicator;  // "#0-0 (a4b6971a8f756037)"
  std::string detail;        // "GPU 1 managed by process 4321 on node n1", "[process information not found]"
};

// A communicator whose ranks launched different counts of one collective (the Warnings
// section's MISMATCH): each rank NCCL named, with the operations it launched, and the most any
// rank of the communicator launched. A rank below the most is behind: on a hang, the rank that
// never came to the collective the others wait in.
struct OpCount {
  int rank = -1;
  long launched = 0;         // "has launched up to operation N"; 0: "has not launched any"
  std::string detail;        // "GPU 1 managed by process 4321 on node n1"
};
struct Mismatch {
  std::string communicator;  // "#0-0 (a4b6971a8f756037)"
  std::string collective;    // "AllReduce"
  long most = 0;             // the most operations any rank launched, named or counted
  std::vector<OpCount> ranks;
  std::vector<OpCount> behind() const;
};

struct Status {
  std::string nccl_version;                  // "2.28.9"
  std::optional<int> nodes, processes, gpus;  // the job summary's totals
  std::vector<CommGroup> groups;
  std::vector<MissingRank> missing_ranks;
  std::vector<std::string> missing_processes;  // "Process 4321 on node n1 managing GPU 1"
  std::vector<std::string> dead_processes;
  std::vector<std::string> connections;  // " Collected data about 4 unidirectional connections", warnings on them
  std::vector<Mismatch> mismatches;
  std::vector<std::string> errors;       // the Errors section, line by line as written
  std::vector<std::string> warnings;     // the Warnings section
};

Status parse_status(const std::string& text);

}  // namespace commsweep::nccl_ras
