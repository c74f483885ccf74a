#include "report/table.hpp"

#include <cstdarg>
#include <cstdio>

namespace commsweep::report {
namespace {

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

std::string format_half(const Timing& t) {
  std::string s = "  " + format_time(t.time_us) + "  " + fit_column(t.algbw_gbps, 6) + "  " +
                  fit_column(t.busbw_gbps, 6);
  if (t.wrong) {
    s += printf_string("  %6llu", static_cast<unsigned long long>(*t.wrong));
  } else {
    s += printf_string("  %5s", "N/A");
  }
  return s;
}

// "Ring/LL128/16"; the reason alone where NCCL's choice is not known ("n/a (mpi backend)").
std::string choice_text(const NcclChoice& c) {
  if (c.channels <= 0) return c.algorithm.empty() ? "-" : c.algorithm;
  return c.algorithm + "/" + c.protocol + "/" + std::to_string(c.channels);
}

bool same_choice(const NcclChoice& a, const NcclChoice& b) {
  return a.algorithm == b.algorithm && a.protocol == b.protocol && a.channels == b.channels;
}

std::string algo_columns(const ResultRow& r) {
  const NcclChoice& c = r.out_of_place.nccl;
  std::string s;
  if (c.channels > 0) {
    s = printf_string("  %8s  %6s  %3d", c.algorithm.c_str(), c.protocol.c_str(), c.channels);
  } else {
    s = "  " + (c.algorithm.empty() ? std::string("-") : c.algorithm);
  }
  if (!same_choice(c, r.in_place.nccl)) s += "  in-place: " + choice_text(r.in_place.nccl);
  return s;
}

std::string iteration_columns(const Timing& t) {
  if (!t.per_iter) return printf_string("  %7s  %7s  %7s  %7s  %7s  %7s  %4s", "-", "-", "-", "-", "-", "-", "-");
  const IterationStats& s = *t.per_iter;
  return "  " + format_time(s.min_us) + "  " + format_time(s.p50_us) + "  " + format_time(s.p99_us) + "  " +
         format_time(s.max_us) + "  " + fit_column(s.cv_pct, 7) + "  " + format_time(s.first_us) +
         printf_string("  %4d", s.spikes);
}

// "  expected  oop/exp  ip/exp": "-" where no expectation applies.
std::string expected_columns(const ResultRow& r) {
  const auto ratio = [](const Timing& t) {
    return t.expected_gbps && *t.expected_gbps > 0 ? fit_column(t.busbw_gbps / *t.expected_gbps, 7)
                                                   : printf_string("%7s", "-");
  };
  const std::string value = r.out_of_place.expected_gbps ? fit_column(*r.out_of_place.expected_gbps, 8)
                                                         : printf_string("%8s", "-");
  return "  " + value + "  " + ratio(r.out_of_place) + "  " + ratio(r.in_place);
}

}  // namespace

std::string format_extra(const ResultRow& r, const TableColumns& columns) {
  std::string s;
  if (columns.iterations) {
    s += iteration_columns(r.out_of_place) + iteration_columns(r.in_place) +
         printf_string("  %4d  %4d", r.out_of_place.slowest_rank, r.in_place.slowest_rank);
  }
  if (columns.expected) s += expected_columns(r);
  if (columns.algo) s += algo_columns(r);
  return s;
}

std::string extra_header(const TableColumns& columns, bool units) {
  std::string s;
  if (columns.iterations) {
    const std::string half = units ? "     (us)     (us)     (us)     (us)      (%)     (us)      "
                                   : "    i_min    i_p50    i_p99    i_max    i_cv%    i_1st   spk";
    s += half + half + (units ? "   oop    ip" : "  slow  slow");
  }
  if (columns.expected) s += units ? "    (GB/s)      (x)      (x)" : "  expected  oop/exp   ip/exp";
  if (columns.algo) s += units ? "  (NCCL's choice)" : "      algo   proto   ch";
  return s;
}

// The check is on the printed text, so 9999.996 counts as five digits.
std::string fit_column(double value, int width) {
  for (int decimals = 2; decimals >= 0; --decimals) {
    std::string s = printf_string("%*.*f", width, decimals, value);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return printf_string("%*.*e", width, width >= 7 ? 1 : 0, value);
}

std::string format_time(double us) { return fit_column(us, 7); }

std::string format_row(const ResultRow& r) {
  return printf_string("%12llu  %12llu  %8s  %6s  %6d", static_cast<unsigned long long>(r.size_bytes),
                       static_cast<unsigned long long>(r.count), r.type.c_str(), r.redop.c_str(),
                       r.root) +
         format_half(r.out_of_place) + format_half(r.in_place);
}

void TablePrinter::header(const TableHeader& h) {
  out_ << "# " << h.version_line << "\n";
  out_ << "# Collective test starting: " << h.test << "\n";
  out_ << "# " << h.parameters_line << "\n";
  out_ << "#\n# Using devices\n";
  for (const auto& line : h.device_lines) out_ << "#  " << line << "\n";
  out_ << "#\n";
  out_ << "#                                                              out-of-place"
          "                       in-place          \n";
  out_ << "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
          "     time   algbw   busbw  #wrong " << extra_header(columns_, false) << "\n";
  out_ << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
          "      (us)  (GB/s)  (GB/s)         " << extra_header(columns_, true) << "\n";
  out_.flush();
}

void TablePrinter::note(const std::string& text) { out_ << "# " << text << "\n" << std::flush; }

void TablePrinter::row(const ResultRow& r) {
  out_ << format_row(r) << format_extra(r, columns_) << "\n" << std::flush;
}

void TablePrinter::footer(const std::string& test, std::uint64_t wrong_total, double avg_busbw) {
  out_ << "# Out of bounds values : " << wrong_total << (wrong_total == 0 ? " OK" : " FAILED")
       << "\n";
  out_ << "# Avg bus bandwidth    : " << printf_string("%g", avg_busbw) << " \n";
  out_ << "#\n# Collective test concluded: " << test << "\n#\n" << std::flush;
}

}  // namespace commsweep::report
