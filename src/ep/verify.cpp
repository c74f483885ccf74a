#include "ep/verify.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>

#include "ep/layout.hpp"
#include "ep/reference.hpp"
#include "pattern/ep_pattern.hpp"
#include "pattern/ep_record.hpp"

namespace commsweep::ep {
namespace {

void note(EpWrong& w, const std::string& what) {
  if (w.first.empty()) w.first = what;
}

// The bytes a token's record carries as payload, as its sender holds them.
std::vector<std::uint8_t> payload_of(const TokenInput& in, const RecordFormat& f) {
  std::vector<std::uint8_t> bytes(f.payload_bytes);
  if (f.fp8) {
    std::memcpy(bytes.data(), in.fp8.data(), in.fp8.size());
    std::memcpy(bytes.data() + f.scales_offset, in.scales.data(), in.scales.size() * 4);
  } else {
    std::memcpy(bytes.data(), in.bf16.data(), in.bf16.size() * 2);
  }
  return bytes;
}

// Differing elements of a payload: bf16 or e4m3 elements, and fp8 scales.
std::uint64_t payload_differences(const std::uint8_t* got, const std::vector<std::uint8_t>& want,
                                  const RecordFormat& f) {
  std::uint64_t wrong = 0;
  const std::uint32_t elem = f.fp8 ? 1 : 2;
  for (std::uint32_t e = 0; e < f.hidden; ++e) {
    wrong += std::memcmp(got + e * elem, want.data() + e * elem, elem) != 0;
  }
  if (f.fp8) {
    for (std::uint32_t s = 0; s < f.hidden / kFp8BlockElements; ++s) {
      wrong += std::memcmp(got + f.scales_offset + 4 * s, want.data() + f.scales_offset + 4 * s, 4) != 0;
    }
  }
  return wrong;
}

void check_dispatch(const EpResult& got, const EpCase& c, const std::vector<Routing>& all,
                    std::uint64_t seed, int rank, int nranks, EpWrong& w) {
  const RecordFormat f = record_format(static_cast<std::uint32_t>(c.hidden),
                                       static_cast<std::uint32_t>(c.topk), c.dtype == EpDtype::Fp8);
  const ExpectedDispatch want = expected_dispatch(all, rank, c.experts, nranks);
  if (got.recv_counts != want.recv_counts) {
    for (int s = 0; s < nranks; ++s) {
      const int g = s < static_cast<int>(got.recv_counts.size()) ? got.recv_counts[s] : -1;
      if (g != want.recv_counts[s]) {
        ++w.dispatch;
        std::ostringstream m;
        m << "dispatch: " << g << " tokens received from rank " << s << ", expected "
          << want.recv_counts[s];
        note(w, m.str());
      }
    }
    return;  // nothing lines up after a wrong count
  }
  // Records arrive by source, in the source's token order: their indices and weights.
  std::size_t record = 0;
  const int k = c.topk;
  for (int s = 0; s < nranks; ++s) {
    for (int t = 0; t < all[s].tokens; ++t) {
      bool sent = false;
      for (int j = 0; j < k; ++j) {
        sent |= rank_of_expert(all[s].experts[static_cast<std::size_t>(t) * k + j], c.experts, nranks) == rank;
      }
      if (!sent) continue;
      for (int j = 0; j < k; ++j) {
        const std::size_t at = static_cast<std::size_t>(t) * k + j;
        const std::size_t got_at = record * k + j;
        const bool idx_ok = got.recv_idx[got_at] == all[s].experts[at];
        const bool w_ok = std::memcmp(&got.recv_weights[got_at], &all[s].weights[at], 4) == 0;
        if (!idx_ok || !w_ok) {
          w.dispatch += !idx_ok + !w_ok;
          std::ostringstream m;
          m << "dispatch: token " << t << " of rank " << s << ", top-k slot " << j
            << ": expert/weight " << got.recv_idx[got_at] << "/" << got.recv_weights[got_at]
            << ", expected " << all[s].experts[at] << "/" << all[s].weights[at];
          note(w, m.str());
        }
      }
      ++record;
    }
  }
  // Expert-grouped inputs: counts, then every entry's payload.
  std::map<std::pair<int, int>, std::vector<std::uint8_t>> payloads;
  std::size_t entry = 0;
  for (std::size_t l = 0; l < want.entries.size(); ++l) {
    const int got_count = l < got.per_expert_counts.size() ? got.per_expert_counts[l] : -1;
    if (got_count != want.per_expert_counts[l]) {
      w.dispatch += 1;
      std::ostringstream m;
      m << "dispatch: local expert " << l << " holds " << got_count << " tokens, expected "
        << want.per_expert_counts[l];
      note(w, m.str());
      return;
    }
    for (const auto& [src, token] : want.entries[l]) {
      auto it = payloads.find({src, token});
      if (it == payloads.end()) {
        it = payloads.emplace(std::make_pair(src, token),
                              payload_of(token_input(c, seed, src, token), f)).first;
      }
      const std::uint64_t bad = payload_differences(&got.expert_payload[entry * got.payload_bytes], it->second, f);
      if (bad > 0) {
        w.dispatch += bad;
        std::ostringstream m;
        m << "dispatch: local expert " << l << " entry for token " << token << " of rank " << src
          << ": " << bad << " elements differ";
        note(w, m.str());
      }
      ++entry;
    }
  }
}

void check_combine(const EpResult& got, const EpCase& c, const Routing& mine, std::uint64_t seed,
                   int rank, int nranks, EpWrong& w) {
  const std::vector<std::uint16_t> want = expected_combine(c, mine, seed, rank, nranks);
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (i >= got.combined.size() || got.combined[i] != want[i]) {
      ++w.combine;
      if (w.first.empty()) {
        std::ostringstream m;
        m << "combine: token " << i / c.hidden << " element " << i % c.hidden << ": 0x" << std::hex
          << (i < got.combined.size() ? got.combined[i] : 0) << ", expected 0x" << want[i];
        note(w, m.str());
      }
    }
  }
}

}  // namespace

EpWrong verify(const EpResult& got, const EpCase& c, const std::vector<Routing>& all,
               std::uint64_t seed, int rank, int nranks) {
  EpWrong w;
  check_dispatch(got, c, all, seed, rank, nranks, w);
  check_combine(got, c, all[rank], seed, rank, nranks, w);
  return w;
}

}  // namespace commsweep::ep
