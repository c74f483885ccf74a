#include "nccl_ras/status.hpp"

#include <algorithm>
#include <sstream>

namespace commsweep::nccl_ras {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool whole(const std::string& s, int* value) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  try {
    *value = std::stoi(s);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

bool starts(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a);
}

// A section title: the line, then one of '=' as long.
bool title(const std::vector<std::string>& lines, std::size_t i, const std::string& name) {
  return i + 1 < lines.size() && starts(lines[i], name) && !lines[i + 1].empty() &&
         lines[i + 1].find_first_not_of('=') == std::string::npos;
}

// "  Rank 1 -- GPU 1 managed by process 4321 on node n1"
void missing_rank(const std::string& line, const std::string& comm, Status& s) {
  const std::string t = trimmed(line);
  if (!starts(t, "Rank ")) return;
  const auto dash = t.find(" -- ");
  MissingRank m;
  m.communicator = comm;
  if (!whole(t.substr(5, dash == std::string::npos ? std::string::npos : dash - 5), &m.rank)) return;
  if (dash != std::string::npos) m.detail = t.substr(dash + 4);
  s.missing_ranks.push_back(m);
}

// The Warnings' lines about operation counts, into the last mismatch of S.
//   "  Communicator ranks have different AllReduce operation counts"
//   "  7 ranks have launched up to operation 42" / "  7 ranks have not launched any operations"
//   "  Rank 1 has launched up to operation 41 -- GPU 1 managed by process 4321 on node n1"
//   "  Rank 1 has not launched any operations -- ..."
void op_count(const std::string& line, const std::string& comm, Status& s) {
  const std::string t = trimmed(line);
  const std::string different = "Communicator ranks have different ";
  if (starts(t, different)) {
    Mismatch m;
    m.communicator = comm;
    m.collective = words_of(t.substr(different.size())).at(0);
    s.mismatches.push_back(m);
    return;
  }
  if (s.mismatches.empty() || s.mismatches.back().communicator != comm) return;
  Mismatch& m = s.mismatches.back();
  const std::string up_to = "launched up to operation ";
  long launched = 0;
  if (const auto at = t.find(up_to); at != std::string::npos) {
    try {
      launched = std::stol(t.substr(at + up_to.size()));
    } catch (const std::exception&) {
      return;
    }
  } else if (t.find("not launched any operations") == std::string::npos) {
    return;
  }
  m.most = std::max(m.most, launched);
  if (!starts(t, "Rank ")) return;  // "7 ranks have ...": counted, not named
  OpCount c;
  c.launched = launched;
  try {
    c.rank = std::stoi(t.substr(5));
  } catch (const std::exception&) {
    return;
  }
  if (const auto dash = t.find(" -- "); dash != std::string::npos) c.detail = t.substr(dash + 4);
  m.ranks.push_back(c);
}

}  // namespace

std::vector<OpCount> Mismatch::behind() const {
  std::vector<OpCount> out;
  for (const auto& r : ranks)
    if (r.launched < most) out.push_back(r);
  return out;
}

Status parse_status(const std::string& text) {
  Status s;
  const std::vector<std::string> lines = lines_of(text);
  enum class Section { Head, Job, Comms, Errors, Warnings } section = Section::Head;
  std::string block;  // Errors: "INCOMPLETE", "DEAD", or a communicator's "#0-0 (hash) INCOMPLETE"
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (starts(line, "NCCL version ")) {
      const auto w = words_of(line);
      if (w.size() >= 3) s.nccl_version = w[2];
      continue;
    }
    if (title(lines, i, "Job summary")) section = Section::Job;
    else if (title(lines, i, "Communicators")) section = Section::Comms;
    else if (title(lines, i, "Errors")) section = Section::Errors;
    else if (title(lines, i, "Warnings")) section = Section::Warnings;
    if (title(lines, i, "Job summary") || title(lines, i, "Communicators") || title(lines, i, "Errors") ||
        title(lines, i, "Warnings")) {
      ++i;  // the '=' line
      continue;
    }
    if (line.find("unidirectional connection") != std::string::npos || starts(line, " No connection data") ||
        (starts(line, " Warning:") && section != Section::Warnings)) {
      s.connections.push_back(trimmed(line));
      continue;
    }
    const auto w = words_of(line);
    switch (section) {
      case Section::Head: break;
      case Section::Job: {
        // "      1          1            1          1        1": nodes, processes per node, GPUs
        // per process, processes, GPUs (totals).
        int v[5];
        if (w.size() == 5 && whole(w[0], &v[0]) && whole(w[1], &v[1]) && whole(w[2], &v[2]) && whole(w[3], &v[3]) &&
            whole(w[4], &v[4])) {
          s.nodes = v[0];
          s.processes = v[3];
          s.gpus = v[4];
        }
        break;
      }
      case Section::Comms: {
        CommGroup g;
        if (w.size() == 8 && whole(w[0], &g.group) && whole(w[1], &g.comms) && whole(w[2], &g.nodes) &&
            whole(w[4], &g.ranks_per_comm) && whole(w[5], &g.ranks_in_group)) {
          g.ranks_per_node = w[3];
          g.status = w[6];
          g.errors = w[7];
          s.groups.push_back(g);
        }
        break;
      }
      case Section::Errors:
        if (line.empty()) break;
        s.errors.push_back(line);
        if (line[0] != ' ') {
          block = line;
          break;
        }
        if (starts(block, "#") && block.find("INCOMPLETE") != std::string::npos) {
          missing_rank(line, block.substr(0, block.rfind(' ')), s);
        } else if (starts(trimmed(line), "Process ")) {
          (block == "DEAD" ? s.dead_processes : s.missing_processes).push_back(trimmed(line));
        }
        break;
      case Section::Warnings:
        if (line.empty()) break;
        s.warnings.push_back(line);
        if (line[0] != ' ') block = line;
        else if (starts(block, "#") && block.find("MISMATCH") != std::string::npos)
          op_count(line, block.substr(0, block.rfind(' ')), s);
        break;
    }
  }
  return s;
}

}  // namespace commsweep::nccl_ras
