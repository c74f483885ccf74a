// Every fault the tests can plant (--fault, testing only: never in --help), in one table: the
// workload that takes it, its name and form, and what it does; and the one parser of --fault for
// every workload. Pure (the model layer's): the settings tables of every workload read through it;
// the faults act through faults/ (sweep_faults.hpp, pairs_faults.hpp) or the workload's own
// planted-fault fields (ep, nvlink).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace commsweep::faults {

// A form after "NAME:": RANK; RANK[@SIZE] (from the first size of at least SIZE bytes);
// RANK@ROUND (ROUND counted from 1); LEAF (a leaf of the job's topology); RANK,RANK (two
// different ranks).
enum class Form { Rank, RankAtSize, RankAtRound, Leaf, RankPair };

struct FaultEntry {
  std::string_view workload;  // "collective", "ep", "pairs", "nvlink"
  std::string_view name;      // "hang"
  Form form;
  std::string_view does;      // one line
};

// Every fault, by workload, in the order their errors list them.
const std::vector<FaultEntry>& catalog();

// What --fault planted, as parsed: the fields its form has, the others at their defaults.
struct Planted {
  std::string name;               // "" where none was given
  int rank = -1;                  // RANK (RANK,RANK: the first)
  int other_rank = -1;            // RANK,RANK: the second
  std::uint64_t from_bytes = 0;   // @SIZE; 0 where not given
  int round = 0;                  // @ROUND
  std::string leaf;               // LEAF
  std::string text;               // as given
};

// TEXT (WHERE: "--fault", or a suite file's line and key) as one of WORKLOAD's faults. A usage
// Error naming WHERE, TEXT and the forms WORKLOAD takes otherwise (an unknown name, a missing or
// malformed rank, size, round or leaf, @SIZE on a fault that takes none, a pair of one rank).
Planted parse_fault(std::string_view workload, const std::string& text, const std::string& where);

// "wrong-element:RANK, never-join:RANK[@SIZE], ... or slow:RANK[@SIZE]": WORKLOAD's forms.
std::string fault_forms(std::string_view workload);

}  // namespace commsweep::faults
