#include "regress/run_file.hpp"

namespace commsweep::regress {

report::Results run_from_json(const nlohmann::json& doc, const report::SheetReaders& readers) {
  return report::results_with_figures(doc, readers);
}

report::Results read_run_file(const std::string& path, const report::SheetReaders& readers) {
  return report::read_results_with_figures(path, readers);
}

}  // namespace commsweep::regress
