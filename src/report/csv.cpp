#include "report/csv.hpp"

#include <algorithm>
#include <map>

namespace commsweep::report {
namespace {

// The columns before and after the case parts; a part of the same name is written "case_NAME".
const std::vector<std::string>& csv_fixed_columns() {
  static const std::vector<std::string> columns{
      "file",  "workload", "case",  "metric", "value",      "unit",   "better", "wrong",  "ranks",
      "nodes", "gpus",     "link",  "iterations", "cv_pct", "p50_us", "p95_us", "p99_us", "min_us",
      "max_us", "rank_spread_pct"};
  return columns;
}

std::string csv_number(double v) { return nlohmann::json(v).dump(); }

std::string csv_joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

// The case in one field: "test=all_reduce type=float ... place=out_of_place".
std::string csv_case(const std::vector<CasePart>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p.name + "=" + p.value;
  return out;
}

void csv_line(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << csv_field(fields[i]);
  out << "\r\n";
}

}  // namespace

std::string csv_field(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

void write_csv(std::ostream& out, const std::vector<CsvSource>& sources) {
  // The case parts' columns, in the order first met: a first pass over the figures.
  std::vector<std::string> parts;
  std::map<std::string, std::size_t> part_index;
  for (const auto& source : sources) {
    for_each_figure(*source.results, [&](const Figure& f) {
      for (const auto& p : f.parts) {
        if (part_index.emplace(p.name, parts.size()).second) parts.push_back(p.name);
      }
    });
  }
  const auto& fixed = csv_fixed_columns();
  std::vector<std::string> header(fixed.begin(), fixed.begin() + 3);  // file, workload, case
  for (const auto& name : parts) {
    const bool taken = std::find(fixed.begin(), fixed.end(), name) != fixed.end();
    header.push_back(taken ? "case_" + name : name);
  }
  header.insert(header.end(), fixed.begin() + 3, fixed.end());
  csv_line(out, header);

  std::vector<std::string> row;
  for (const auto& source : sources) {
    for_each_figure(*source.results, [&](const Figure& f) {
      row.assign(header.size(), "");
      row[0] = source.file;
      row[1] = f.workload;
      row[2] = csv_case(f.parts);
      for (const auto& p : f.parts) row[3 + part_index.at(p.name)] = p.value;
      std::size_t c = 3 + parts.size();
      row[c++] = f.metric;
      row[c++] = csv_number(f.value);
      row[c++] = f.unit;
      row[c++] = better_text(f.better);
      row[c++] = f.wrong ? std::to_string(*f.wrong) : "";
      row[c++] = f.where.ranks > 0 ? std::to_string(f.where.ranks) : "";
      row[c++] = csv_joined(f.where.nodes);
      row[c++] = csv_joined(f.where.gpus);
      row[c++] = f.where.link;
      if (const auto& it = f.spread.iterations) {
        row[c++] = it->times_us.empty() ? "" : std::to_string(it->times_us.size());
        for (double v : {it->cv_pct, it->p50_us, it->p95_us, it->p99_us, it->min_us, it->max_us}) row[c++] = csv_number(v);
      } else {
        c += 7;
      }
      row[c++] = f.spread.rank_spread_pct ? csv_number(*f.spread.rank_spread_pct) : "";
      csv_line(out, row);
    });
  }
}

}  // namespace commsweep::report
