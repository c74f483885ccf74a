#include "ep/exchange.hpp"

#include <cstring>

namespace commsweep::ep {

void read_routes(const std::uint8_t* records, int count, const RecordFormat& f, EpResult& result) {
  const std::size_t k = f.topk;
  result.recv_idx.resize(static_cast<std::size_t>(count) * k);
  result.recv_weights.resize(static_cast<std::size_t>(count) * k);
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    const std::uint8_t* rec = records + i * f.bytes;
    std::memcpy(&result.recv_idx[i * k], rec + f.idx_offset, 4 * k);
    std::memcpy(&result.recv_weights[i * k], rec + f.weight_offset, 4 * k);
  }
}

}  // namespace commsweep::ep
