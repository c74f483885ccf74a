#include "sweep/sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <sstream>
#include <stdexcept>

#include "core/strings.hpp"
#include "report/iteration_stats.hpp"
#include "core/error.hpp"
#include "runtime/termination.hpp"
#include "core/sizes.hpp"
#include "sweep/size_notes.hpp"
#include "sweep/slices.hpp"

namespace commsweep {

std::vector<PlannedSize> plan_sizes(const CollectiveTest& test, const std::vector<std::uint64_t>& sizes,
                                    DataType type, int nranks) {
  const std::size_t elem = element_size(type);
  std::vector<PlannedSize> planned;
  for (std::uint64_t requested : sizes) {
    const Counts c = test.counts(requested / elem, elem, nranks);
    const std::uint64_t bytes = std::max(c.send_count, c.recv_count) * elem;
    if (!planned.empty() && planned.back().bytes == bytes) continue;  // rounded onto the last
    planned.push_back({requested, c, bytes});
  }
  return planned;
}

BufferBytes sweep_buffer_bytes(const std::vector<PlannedSize>& planned, DataType type, Buffers buffers) {
  const std::size_t elem = element_size(type);
  std::size_t send_bytes = 0, recv_bytes = 0;
  for (const auto& p : planned) {
    send_bytes = std::max(send_bytes, p.counts.send_count * elem);
    recv_bytes = std::max(recv_bytes, p.counts.recv_count * elem);
  }
  return buffer_bytes(send_bytes, recv_bytes, buffers);
}

report::Timing combine_timing(const std::vector<double>& rank_time_us, Average average,
                              std::uint64_t bytes, double bus_factor) {
  report::Timing t;
  t.rank_time_us = rank_time_us;
  if (rank_time_us.empty()) return t;
  const auto slowest = std::max_element(rank_time_us.begin(), rank_time_us.end());
  t.slowest_rank = static_cast<int>(slowest - rank_time_us.begin());
  t.slowest_time_us = *slowest;
  switch (average) {
    case Average::Rank0: t.time_us = rank_time_us.front(); break;
    case Average::Min: t.time_us = *std::min_element(rank_time_us.begin(), rank_time_us.end()); break;
    case Average::Max: t.time_us = *slowest; break;
    case Average::Mean: {
      double sum = 0;
      for (double v : rank_time_us) sum += v;
      t.time_us = sum / rank_time_us.size();
      break;
    }
  }
  // bytes / us = 1e6 B/s; GB/s is 1e9 B/s.
  t.algbw_gbps = t.time_us > 0 ? static_cast<double>(bytes) / t.time_us / 1e3 : 0.0;
  t.busbw_gbps = t.algbw_gbps * bus_factor;
  return t;
}

Sweep::Sweep(World& world, Backend& backend, RunControl& control, const SweepConfig& config, FaultPoints* faults,
             WindowObserver* gpu_state)
    : world_(world),
      backend_(backend),
      control_(control),
      config_(config),
      faults_(faults ? *faults : no_faults_),
      gpu_state_(gpu_state) {}

void Sweep::allocate_buffers(std::size_t send_bytes, std::size_t recv_bytes,
                             const std::string& what) {
  std::string failure;
  try {
    faults_.before_allocation();
    // The last type's buffers go first: kept while the next are allocated, they would count
    // against the memory the backend checks the new ones against (the host's MemAvailable).
    send_.reset();
    recv_.reset();
    send_ = backend_.allocate(send_bytes);
    recv_ = backend_.allocate(recv_bytes);
  } catch (const std::bad_alloc&) {
    failure = "std::bad_alloc";
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!failure.empty()) {
    send_.reset();
    recv_.reset();
  }
  const Phase phase{"buffer allocation for " + what, Deadline::after(config_.timeout_s)};
  const auto failures = world_.gather(failure, phase);
  if (world_.sum(failure.empty() ? 0 : 1, phase) == 0) return;
  std::string named;
  for (std::size_t r = 0; r < failures.size(); ++r) {
    if (failures[r].empty()) continue;
    named += (named.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + " (host " +
             world_.hosts_by_rank().at(r) + "): " + failures[r];
  }
  throw Error(ErrorKind::OutOfMemory,
              "cannot allocate the buffers for " + what + " (send " + binary_size_text(send_bytes) +
                  ", receive " + binary_size_text(recv_bytes) + " per rank): " + named +
                  ". Lower -e/--maxbytes or run fewer ranks per host; nothing was written");
}

CollectiveArgs Sweep::collective_args(const CollectiveTest& test, const PlannedSize& size,
                                     DataType type, RedOp op, bool in_place) {
  const int rank = world_.rank();
  const int nranks = world_.size();
  const std::size_t elem = element_size(type);
  const Counts& c = size.counts;
  char* send_base = static_cast<char*>(send_->data());
  char* recv_base = static_cast<char*>(recv_->data());
  CollectiveArgs args;
  args.call = &collective_call(test.name);
  args.count = c.param_count;
  args.type = type;
  args.op = op;
  args.root = config_.root;
  args.send_peer = (rank + 1) % nranks;
  args.recv_peer = (rank + nranks - 1) % nranks;
  if (in_place) {
    args.recv = recv_base + c.recv_inplace_offset * rank * elem;
    args.send = recv_base + c.send_inplace_offset * rank * elem;
  } else {
    args.recv = recv_base;
    args.send = send_base;
  }
  return args;
}

std::uint64_t Sweep::check(const CollectiveArgs& args, const Counts& c, const Slicing& s,
                           const std::string& label) {
  const int rank = world_.rank();
  const std::size_t elem = element_size(args.type);
  std::uint64_t my_wrong = 0;
  for (int i = 0; i < config_.check; ++i) {
    const Phase p{label + " (check)", Deadline::after(config_.timeout_s)};
    const auto guard = control_.watch(p);
    // Cold: each check runs on the slice after the last one used, poisoned and filled here,
    // and every element of its output is verified, as with one slice. The backend moves the
    // pointers itself, as in the timed iterations: a backend that ignored the slices would
    // leave the poison there and be caught.
    // With -G the check's collective is captured and launched as a graph too: what is verified
    // is what a graph launch wrote, not only what an eager call would have.
    TimingOptions one{1, config_.blocking, config_.graph_launches > 0 ? 1 : 0, false, s.slices};
    one.slices.first = s.check_first + static_cast<std::size_t>(i);
    const CollectiveArgs a = at_offset(args, one.slices.offset(0));
    if (s.output_checked) backend_.poison(a.recv, c.recv_count, s.expect);
    // After the poison: in place they overlap.
    backend_.fill(const_cast<void*>(a.send), c.send_count, s.spec, rank);
    backend_.run(args, one, p);
    if (s.output_checked) faults_.checked_output(a.recv, c.recv_count, elem);
    if (!s.output_checked) continue;
    const Mismatch m = backend_.verify(a.recv, c.recv_count, s.expect);
    if (m.wrong > 0) {
      std::fprintf(stderr,
                   "commsweep: rank %d (%s): %llu wrong elements in %s; first at element %llu: "
                   "expected 0x%llx, got 0x%llx\n",
                   rank, world_.host().c_str(), static_cast<unsigned long long>(m.wrong),
                   label.c_str(), static_cast<unsigned long long>(m.first_index),
                   static_cast<unsigned long long>(m.expected),
                   static_cast<unsigned long long>(m.got));
      std::fflush(stderr);
    }
    my_wrong += m.wrong;
  }
  return my_wrong;
}

report::Timing Sweep::measure(const CollectiveTest& test, const PlannedSize& size, DataType type,
                              RedOp op, bool in_place) {
  const int rank = world_.rank();
  const int nranks = world_.size();
  const Counts& c = size.counts;
  const CollectiveArgs args = collective_args(test, size, type, op, in_place);

  std::ostringstream label;
  label << test.name << " " << size.bytes << " B " << name_of(type);
  if (test.reduces) label << " " << name_of(op);
  label << (in_place ? " in-place" : " out-of-place");
  auto phase = [&](const char* step) {
    return Phase{label.str() + " (" + step + ")", Deadline::after(config_.timeout_s)};
  };

  const pattern::Spec spec = make_spec(type, test.reduces ? op : RedOp::None, nranks, config_.seed);
  const bool checked = config_.check > 0 && (!in_place || test.in_place_checked);
  // Warm-up iterations use slices 0, 1, ...; the timed ones go on from there, then the checks.
  Slicing s{plan_slices(std::min(send_->bytes(), recv_->bytes()), size.bytes, config_.buffers),
            static_cast<std::size_t>(config_.warmup) + static_cast<std::size_t>(config_.iters),
            spec, test.expect(spec, c, rank, nranks, config_.root),
            test.output_checked(rank, config_.root)};

  faults_.before_arrival(size.bytes, phase("timed iterations"));
  // Every rank arrives before any collective is issued: a rank that never comes is named
  // here. Inside a collective it could not be: NCCL may block in the call itself (its lazy
  // connection set-up waits for the absent peer), out of reach of any polling wait. The ranks
  // agree here on stopping (SIGTERM / SIGINT).
  control_.arrive(phase("arrival"));

  // The input of every slice the warm-up and timed iterations read holds the pattern (values
  // do not change NCCL's speed, but uninitialised host memory could hold slow denormals).
  for (std::size_t k = 0; k < std::min(s.slices.count, s.check_first); ++k) {
    backend_.fill(const_cast<void*>(at_offset(args, s.slices.at(k)).send), c.send_count, spec, rank);
  }
  // One pass records NCCL's choice (Backend::last_choice, read at the end): the warm-up (the same
  // calls as the timed ones: the same choice), so that the plugin's task events stay off in the
  // table's pass; without a warm-up the tails' pass, else (-w 0 --per-iteration off) the table's.
  enum class ChoiceIn { WarmUp, Tails, Table };
  const ChoiceIn choice_in = config_.warmup > 0 ? ChoiceIn::WarmUp : per_iteration_ ? ChoiceIn::Tails : ChoiceIn::Table;
  // The GPU's state over this half: read before the warm-up and after the last timed pass, never
  // between a warm-up and the pass it warms nor between the two passes: a read costs milliseconds
  // on some hosts (6 ms on the lent H200 VM), long enough for the GPU to slow down while idle,
  // and the first timed iteration after one was 1.48x the median where it was 1.08x without
  // (docs/gpu-state.md). The window holds the warm-up, the table's pass and the tails' pass.
  std::optional<WindowSamples> window;
  if (gpu_state_) gpu_state_->window_starts();
  if (config_.warmup > 0) {
    const Phase p = phase("warm-up");
    const auto guard = control_.watch(p);
    TimingOptions warmup{config_.warmup, config_.blocking, 0, false, s.slices};
    warmup.record_choice = true;
    backend_.run(args, warmup, p);
  }
  double my_time_us = 0;
  std::vector<double> my_iterations;
  std::string clock;
  {
    const Phase p = phase("timed iterations");
    const auto guard = control_.watch(p);
    // As nccl-tests: the ranks start the clock together, after a barrier.
    backend_.synchronize(p);
    world_.barrier(p);
    faults_.timed_iterations(size.bytes, p);
    BufferSlices timed = s.slices;
    timed.first = static_cast<std::size_t>(config_.warmup);
    Backend& timing = faults_.timing_backend(size.bytes, backend_);
    // The table's pass, as nccl-tests times it: the -n iterations back to back, one clock around
    // their issue and completion, nothing per iteration inside (no event, no kernel timestamp).
    TimingOptions table{config_.iters, config_.blocking, config_.graph_launches, config_.device_timer, timed};
    table.record_choice = choice_in == ChoiceIn::Table;
    my_time_us = timing.run(args, table, p);
    if (per_iteration_) {
      // The tails' pass: the iterations again, each timed (docs/iterations.md), so that what
      // times them never enters the table's time. As many as tails_iterations allows, from rank
      // 0's table time (every rank must run as many). The ranks start it together too.
      double table_us = my_time_us;
      world_.broadcast(&table_us, sizeof(table_us), 0, p);
      backend_.synchronize(p);
      world_.barrier(p);
      TimingOptions each = table;
      if (config_.graph_launches == 0) each.iters = tails_iterations(config_.iters, table_us);
      each.iteration_us = &my_iterations;
      each.record_choice = choice_in == ChoiceIn::Tails;
      timing.run(args, each, p);
      clock = timing.iteration_clock();
    }
    if (gpu_state_) window = gpu_state_->window_ends();  // after the last pass returned
  }

  std::optional<std::uint64_t> wrong;
  if (checked) wrong = world_.sum(check(args, c, s, label.str()), phase("wrong count"));
  const auto times = world_.gather(my_time_us, phase("time gather"));
  report::Timing t = combine_timing(times, config_.average, size.bytes, test.bus_factor(nranks));
  t.method = config_.device_timer ? report::kDeviceSpan : report::kHostSpan;
  t.wrong = wrong;
  if (gpu_state_) t.gpu_state = gather_windows(world_, window, phase("GPU state gather"));
  if (per_iteration_) {
    const auto iterations = world_.gather(my_iterations, phase("iteration times gather"));
    // Every rank's times or none: a rank whose clock missed them (nccl_backend.hpp) would leave
    // the slowest rank's time per iteration to the others.
    const bool every_rank = !iterations.empty() && !iterations.front().empty() &&
                            std::all_of(iterations.begin(), iterations.end(),
                                        [&](const auto& r) { return r.size() == iterations.front().size(); });
    if (rank == 0 && every_rank) {
      t.per_iter = report::iteration_stats(iterations);
      t.per_iter->clock = clock;  // rank 0's
      t.per_iter->pass = report::kTailsPass;
    }
  }
  // Rank 0's: NCCL's tuning is the same on every rank, and rank 0 is the one whose TUNING
  // INFO lines NCCL prints (enqueue.cc), the cross-check's source (scripts/check-nccl-algo.py).
  if (rank == 0) t.nccl = backend_.last_choice();
  return t;
}

int tails_iterations(int iters, double iteration_us) {
  if (iteration_us * iters <= kTailsBudgetUs) return iters;
  const int fit = static_cast<int>(kTailsBudgetUs / iteration_us);
  return std::min(iters, std::max(kTailsMinIterations, fit));
}

void require_root_in_job(const CollectiveTest& test, int root, int nranks, const std::string& named) {
  if (!test.rooted || (root >= 0 && root < nranks)) return;
  throw_usage(named + " " + std::to_string(root) + " is not a rank of this job (0 to " + std::to_string(nranks - 1) + ")");
}

std::vector<report::ResultRow> Sweep::run(const CollectiveTest& test, const SweepSink& sink) {
  const int nranks = world_.size();
  require_root_in_job(test, config_.root, nranks);
  const std::vector<RedOp> no_op{RedOp::None};
  const auto& ops = test.reduces ? config_.ops : no_op;
  const auto sizes = size_list(config_);
  const int samples = config_.graph_launches > 0 ? config_.graph_launches : config_.iters;
  per_iteration_ = config_.per_iteration && samples <= report::kMaxTimedIterations;
  if (config_.per_iteration && !per_iteration_ && sink.on_note) {
    sink.on_note("per-iteration timing off: " + std::to_string(samples) + (config_.graph_launches > 0 ? " graph launches" : " iterations") +
                 " per size are more than the " + std::to_string(report::kMaxTimedIterations) + " timed one by one");
  }
  std::vector<report::ResultRow> rows;
  // A termination request stops the sweep at the next arrival barrier, on every rank at once:
  // the rows measured so far are kept.
  control_.until_stopped([&] {
    for (DataType type : config_.types) {
      const auto planned = plan_sizes(test, sizes, type, nranks);
      // Buffers for the largest size, reused across the sweep like nccl-tests does (cold: both
      // as large as its larger side, so that every slice moves both pointers alike).
      const BufferBytes bytes = sweep_buffer_bytes(planned, type, config_.buffers);
      if (sink.on_note)
        for (const std::string& note : size_notes(test, sizes, type, nranks)) sink.on_note(note);
      bool caveat_said = false;  // once per type, not per operator
      for (RedOp op : ops) {
        if (const std::string caveat = backend_.caveat(type, op); !caveat.empty() && !caveat_said && sink.on_note) {
          sink.on_note(caveat);
          caveat_said = true;
        }
        if (const std::string why = backend_.unsupported(type, op); !why.empty()) {
          if (sink.on_note) sink.on_note("skipping " + std::string(name_of(type)) + ": " + why);
          continue;
        }
        allocate_buffers(bytes.send, bytes.recv,
                         std::string(test.name) + " " + std::string(name_of(type)) + " up to " +
                             binary_size_text(planned.empty() ? 0 : planned.back().bytes));
        for (const auto& p : planned) {
          if (p.counts.param_count == 0) continue;
          report::ResultRow row;
          row.test = std::string(test.name);
          row.size_bytes = p.bytes;
          row.count = p.counts.param_count;
          row.type = std::string(name_of(type));
          row.redop = std::string(name_of(test.reduces ? op : RedOp::None));
          row.root = test.rooted ? config_.root : -1;
          row.out_of_place = measure(test, p, type, op, false);
          row.in_place = measure(test, p, type, op, true);
          if (world_.rank() == 0 && sink.on_row) sink.on_row(row);
          rows.push_back(std::move(row));
        }
        send_.reset();
        recv_.reset();
      }
    }
  });
  send_.reset();  // stopped half-way: the buffers go now
  recv_.reset();
  return rows;
}

}  // namespace commsweep
