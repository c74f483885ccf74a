#include "run/nvlink_keeper.hpp"

#include "nvlink/judge.hpp"
#include "nvlink/nvlink_json.hpp"

namespace commsweep {

nlohmann::json NvlinkDocument::document(const Record& r) { return nvlink::to_json(r, nvlink::analyse(r)); }

}  // namespace commsweep
