#include "report/figure.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "report/json.hpp"

namespace commsweep::report {
namespace {

// The run's nodes, each once, sorted: where a collective or EP row was taken (every rank).
std::vector<std::string> figure_nodes(const std::vector<std::string>& hosts) {
  const std::set<std::string> unique(hosts.begin(), hosts.end());
  return {unique.begin(), unique.end()};
}

Figure figure_base(const char* workload, const std::vector<CasePart>& parts, const Series& series, const Where& where,
                   std::optional<std::uint64_t> wrong) {
  Figure f;
  f.workload = workload;
  f.parts = parts;
  f.series = series;
  f.where = where;
  f.wrong = wrong;
  return f;
}

Figure with_value(Figure f, const char* metric, double value, const char* unit, Better better, Role role) {
  f.metric = metric;
  f.value = value;
  f.unit = unit;
  f.better = better;
  f.role = role;
  return f;
}

}  // namespace

const char* better_text(Better better) { return better == Better::Lower ? "lower" : "higher"; }

const SheetReader* find_reader(const SheetReaders& readers, const std::string& schema) {
  for (const auto& r : readers) {
    if (r.schema == schema) return &r;
  }
  return nullptr;
}

double halves_apart_pct(double time_us, double other_half_time_us) {
  const double lo = std::min(time_us, other_half_time_us);
  return lo > 0 ? std::fabs(time_us - other_half_time_us) / lo * 100.0 : 0.0;
}

std::vector<Figure> figures_of(const std::vector<ResultRow>& rows, const std::vector<std::string>& hosts) {
  std::vector<Figure> out;
  out.reserve(rows.size() * 6);
  const std::vector<std::string> nodes = figure_nodes(hosts);
  for (const auto& row : rows) {
    const Timing* halves[] = {&row.out_of_place, &row.in_place};
    const char* places[] = {"out_of_place", "in_place"};
    for (int h = 0; h < 2; ++h) {
      const Timing& t = *halves[h];
      const Timing& other = *halves[1 - h];
      const std::vector<CasePart> parts{{"test", row.test},
                                        {"type", row.type},
                                        {"redop", row.redop},
                                        {"root", std::to_string(row.root)},
                                        {"size", std::to_string(row.size_bytes)},
                                        {"place", places[h]}};
      Where where;
      where.ranks = static_cast<int>(t.rank_time_us.size());
      where.nodes = nodes;
      const Figure base =
          figure_base("collective", parts, {row.test, row.type, row.redop, row.root, "", row.size_bytes, places[h]},
                      where, t.wrong);
      Figure time = with_value(base, "time", t.time_us, "us", Better::Lower, Role::Time);
      time.spread.iterations = t.per_iter;
      time.spread.rank_values = t.rank_time_us;
      if (!t.rank_time_us.empty() && t.time_us > 0) {
        const auto [lo, hi] = std::minmax_element(t.rank_time_us.begin(), t.rank_time_us.end());
        time.spread.rank_spread_pct = (*hi - *lo) / t.time_us * 100.0;
      }
      time.spread.halves_pct = halves_apart_pct(t.time_us, other.time_us);
      out.push_back(std::move(time));
      out.push_back(with_value(base, "algbw", t.algbw_gbps, "GB/s", Better::Higher, Role::Shown));
      out.push_back(with_value(base, "busbw", t.busbw_gbps, "GB/s", Better::Higher, Role::Bandwidth));
    }
  }
  return out;
}

std::vector<Figure> figures_of(const std::vector<EpRow>& rows, const std::vector<std::string>& hosts) {
  std::vector<Figure> out;
  out.reserve(rows.size() * 6);
  const std::vector<std::string> nodes = figure_nodes(hosts);
  for (const auto& row : rows) {
    // The reference implementation keeps the key it had before --ep-impl existed.
    const std::string impl = row.impl == "alltoallv" ? "" : row.impl + " ";
    const std::string config = impl + row.routing + " h" + std::to_string(row.hidden) + " k" +
                               std::to_string(row.topk) + " e" + std::to_string(row.experts);
    const std::pair<const char*, const EpPhase*> phases[] = {{"dispatch", &row.dispatch}, {"combine", &row.combine}};
    for (const auto& [phase, p] : phases) {
      const std::vector<CasePart> parts{{"impl", row.impl},
                                        {"routing", row.routing},
                                        {"hidden", std::to_string(row.hidden)},
                                        {"topk", std::to_string(row.topk)},
                                        {"experts", std::to_string(row.experts)},
                                        {"tokens", std::to_string(row.tokens)},
                                        {"dtype", row.dtype},
                                        {"phase", phase}};
      Where where;
      where.ranks = static_cast<int>(p->rank_time_us.size());
      where.nodes = nodes;
      const Figure base = figure_base(
          "ep", parts, {"ep", row.dtype, "none", -1, config, static_cast<std::uint64_t>(row.tokens), phase}, where,
          p->wrong);
      Figure time = with_value(base, "time", p->time_us, "us", Better::Lower, Role::Time);
      time.spread.rank_values = p->rank_time_us;
      time.spread.rank_spread_pct = p->rank_spread_pct;
      out.push_back(std::move(time));
      out.push_back(with_value(base, "bandwidth", p->bandwidth_gbps, "GB/s", Better::Higher, Role::Bandwidth));
      out.push_back(with_value(base, "fabric_bandwidth", p->fabric_bandwidth_gbps, "GB/s", Better::Higher, Role::Shown));
    }
  }
  return out;
}

namespace {

std::string figure_schema_of(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("schema") && doc.at("schema").is_string() ? doc.at("schema").get<std::string>()
                                                                                  : "";
}

// DOC read by READER: "malformed SCHEMA document: field ..." where it is not what it says.
Sheet figure_sheet(const SheetReader& reader, const nlohmann::json& doc, const std::string& where) {
  try {
    return reader.read(doc);
  } catch (const std::exception& e) {  // json::exception, or a field named by the reader
    throw std::runtime_error("malformed " + reader.schema + " document" + where + ": " + e.what());
  }
}

}  // namespace

Results results_with_figures(const nlohmann::json& doc, const SheetReaders& readers) {
  const std::string schema = figure_schema_of(doc);
  for (const auto& reader : readers) {
    const std::string family = reader.schema.substr(0, reader.schema.find('/') + 1);  // "commsweep.pairs/"
    if (schema != reader.schema && schema.rfind(family, 0) == 0) {
      throw std::runtime_error("schema \"" + schema + "\" is not the one this commsweep judges (\"" + reader.schema +
                               "\")");
    }
  }
  if (const SheetReader* reader = find_reader(readers, schema)) {
    auto sheet = std::make_shared<Sheet>(figure_sheet(*reader, doc, ""));
    Results r;
    r.schema = schema;
    r.provenance = sheet->provenance;
    r.complete = sheet->complete;
    r.interrupted_by = sheet->interrupted_by;
    r.failure = sheet->failure;
    r.wrong_total = sheet->wrong_total;
    r.health = sheet->health;
    r.sheets.push_back(std::move(sheet));
    return r;
  }
  Results r = results_from_json(doc);
  // A suite's sweeps of workloads with documents of their own: each read by its workload's reader.
  for (std::size_t i = 0; i < r.documents.size(); ++i) {
    const std::string at = "documents[" + std::to_string(i) + "]";
    const std::string embedded = figure_schema_of(r.documents[i]);
    const SheetReader* reader = find_reader(readers, embedded);
    if (!reader) {
      throw std::runtime_error("field \"" + at + "\": schema \"" + embedded + "\" is not one this commsweep reads");
    }
    r.sheets.push_back(std::make_shared<Sheet>(figure_sheet(*reader, r.documents[i], " " + at)));
  }
  return r;
}

Results read_results_with_figures(const std::string& path, const SheetReaders& readers) {
  const nlohmann::json doc = read_json_file(path);
  try {
    return results_with_figures(doc, readers);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace commsweep::report
