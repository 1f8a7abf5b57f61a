// Calibrating do_work (see calibration.hpp).
#include "engines/mpi/calibration.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <thread>

#include "comm/mpi.hpp"
#include "core/clock.hpp"

namespace lbbench {

namespace fs = std::filesystem;

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

Json to_json(const Calibration& c) {
  return Json{{"accesses_per_second", c.accesses_per_second},
              {"array_bytes", c.array_bytes},
              {"host", c.host},
              {"cpu", c.cpu},
              {"measured_at", c.measured_at},
              {"source", c.source},
              {"ranks_per_node", c.ranks_per_node},
              {"call_seconds", c.call_seconds},
              {"clock_seconds", c.clock_seconds}};
}

int readers_on_node(MPI_Comm node) {
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  return std::min(comm_size(node), cores);
}

bool ranks_take_turns(MPI_Comm node) { return comm_size(node) > readers_on_node(node); }

namespace {

// The median cost of a call of a few reads, timed as a run times its vertices (back to
// back, one clock read between), less those reads at the long-run rate.
double short_call_cost(WorkKernel& kernel, double accesses_per_second) {
  constexpr std::uint64_t kReads = 64;
  constexpr int kCalls = 4000;
  std::vector<double> calls(kCalls);
  double mark = wall_seconds();
  for (double& call : calls) {
    kernel.access(kReads);
    const double now = wall_seconds();
    call = now - mark;
    mark = now;
  }
  std::nth_element(calls.begin(), calls.begin() + kCalls / 2, calls.end());
  return std::max(0.0, calls[kCalls / 2] - static_cast<double>(kReads) / accesses_per_second);
}

// The cost of one read of the wall clock: the median of batches of back-to-back reads.
double clock_read_cost() {
  constexpr int kReads = 1000;
  constexpr int kBatches = 21;
  std::vector<double> per_read(kBatches);
  for (double& cost : per_read) {
    const double first = wall_seconds();
    double last = first;
    for (int i = 0; i < kReads; ++i) last = wall_seconds();
    cost = (last - first) / kReads;
  }
  std::nth_element(per_read.begin(), per_read.begin() + kBatches / 2, per_read.end());
  return per_read[kBatches / 2];
}

}  // namespace

Calibration measure_calibration(WorkKernel& kernel, double seconds) {
  // Warm up: page in the array and let the clock settle.
  kernel.access(1 << 20);
  // Size a batch to about 10 ms, so timer resolution does not matter.
  std::uint64_t batch = 1 << 16;
  double t0 = wall_seconds();
  kernel.access(batch);
  const double probe = std::max(wall_seconds() - t0, 1e-7);
  batch = std::max<std::uint64_t>(1 << 12, static_cast<std::uint64_t>(static_cast<double>(batch) * 0.01 / probe));
  std::vector<double> rates;
  const double until = wall_seconds() + seconds;
  while (wall_seconds() < until || rates.size() < 5) {
    t0 = wall_seconds();
    kernel.access(batch);
    rates.push_back(static_cast<double>(batch) / (wall_seconds() - t0));
  }
  std::nth_element(rates.begin(), rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2), rates.end());
  Calibration c;
  c.accesses_per_second = rates[rates.size() / 2];
  c.clock_seconds = clock_read_cost();
  // The fixed share of a call alone: the short calls were timed with a clock read each.
  c.call_seconds = std::max(0.0, short_call_cost(kernel, c.accesses_per_second) - c.clock_seconds);
  c.array_bytes = kernel.array_bytes();
  c.host = host_name();
  c.cpu = cpu_model();
  c.measured_at = utc_timestamp();
  c.source = "measured";
  return c;
}

std::string calibration_cache_path(int ranks_per_node) {
  fs::path dir;
  if (const char* d = std::getenv("LBBENCH_CACHE_DIR"); d && *d) {
    dir = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = fs::path(x) / "lbbench";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = fs::path(h) / ".cache" / "lbbench";
  } else {
    dir = fs::temp_directory_path() / "lbbench";
  }
  const std::string per_node = ranks_per_node == 1 ? "" : fmt::format("-{}-per-node", ranks_per_node);
  return (dir / ("calibration-" + host_name() + per_node + ".json")).string();
}

std::optional<Calibration> load_cached_calibration(std::size_t array_bytes, int ranks_per_node) {
  std::ifstream in(calibration_cache_path(ranks_per_node));
  if (!in) return std::nullopt;
  try {
    const Json j = Json::parse(in);
    Calibration c;
    c.accesses_per_second = j.at("accesses_per_second").get<double>();
    c.array_bytes = j.at("array_bytes").get<std::size_t>();
    c.host = j.at("host").get<std::string>();
    c.cpu = j.at("cpu").get<std::string>();
    c.measured_at = j.at("measured_at").get<std::string>();
    c.source = "cached";
    // Files from before the count was kept were made by `lbbench calibrate` alone.
    c.ranks_per_node = j.value("ranks_per_node", 1);
    // Older files lack these, or kept the clock read inside call_seconds: measured again.
    c.call_seconds = j.at("call_seconds").get<double>();
    c.clock_seconds = j.at("clock_seconds").get<double>();
    // A calibration only holds for the same host, CPU, array size and ranks reading at once.
    if (c.host != host_name() || c.cpu != cpu_model() || c.array_bytes != array_bytes ||
        c.ranks_per_node != ranks_per_node || !(c.accesses_per_second > 0) || !(c.call_seconds >= 0) ||
        !(c.clock_seconds >= 0)) {
      return std::nullopt;
    }
    return c;
  } catch (const Json::exception&) {
    return std::nullopt;  // a damaged cache is re-measured, not trusted
  }
}

void save_calibration(const Calibration& c) {
  const fs::path path = calibration_cache_path(c.ranks_per_node);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    if (!out) return;  // caching is an optimization; a read-only home must not fail a run
    Json j = to_json(c);
    j.erase("source");
    out << j.dump(2) << "\n";
  }
  fs::rename(tmp, path, ec);
}

Calibration calibration_for_run(WorkKernel& kernel, bool recalibrate, MPI_Comm comm) {
  // Ranks on one host share its memory system, so the rate that holds is the one
  // measured with as many ranks reading at once as this run has there (at most one per
  // core: oversubscribed ranks take turns).
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  const int ranks_per_node = readers_on_node(node);
  std::optional<Calibration> cached;
  if (!recalibrate) cached = load_cached_calibration(kernel.array_bytes(), ranks_per_node);
  // The node's ranks agree whether to measure (a file can appear while they look), and
  // then measure together.
  const int found = cached ? 1 : 0;
  int all_found = 0;
  MPI_Allreduce(&found, &all_found, 1, MPI_INT, MPI_MIN, node);
  Calibration c;
  if (all_found == 0) {
    MPI_Barrier(node);
    c = measure_calibration(kernel, 0.3);
    c.ranks_per_node = ranks_per_node;
  } else {
    c = *cached;
  }
  MPI_Comm_free(&node);
  // Measuring pages the array in too; a cached calibration needs the same warm-up.
  if (all_found != 0) kernel.access(kernel.array_bytes() / 8);
  // One rate for every rank: a weight is the same number of reads everywhere, so
  // calibration noise does not turn into imbalance, and real speed differences between
  // hosts still show.
  const double ranks = comm_size(comm);
  c.accesses_per_second = allreduce(c.accesses_per_second, MPI_SUM, comm) / ranks;
  c.call_seconds = allreduce(c.call_seconds, MPI_SUM, comm) / ranks;
  c.clock_seconds = allreduce(c.clock_seconds, MPI_SUM, comm) / ranks;
  return c;
}

ProcessKernel process_kernel(bool recalibrate, MPI_Comm comm) {
  static std::unique_ptr<WorkKernel> kernel;
  static std::optional<Calibration> calibration;
  static int calibrated_for = 0;
  if (!kernel) kernel = std::make_unique<WorkKernel>(default_work_array_bytes());
  if (!calibration || calibrated_for != comm_size(comm)) {
    calibration = calibration_for_run(*kernel, recalibrate, comm);
    calibrated_for = comm_size(comm);
  }
  return {*kernel, *calibration};
}

std::vector<AccuracyRow> measure_accuracy(WorkKernel& kernel, const Calibration& c, bool quick) {
  struct Target {
    double seconds;
    int reps;
  };
  std::vector<Target> targets{{1e-6, 5000}, {1e-5, 2000}, {1e-4, 500}, {1e-3, 100}, {1e-2, 30}};
  if (!quick) {
    targets.push_back({1e-1, 10});
    targets.push_back({1.0, 5});
  }
  std::vector<AccuracyRow> rows;
  for (const auto& t : targets) {
    // Each call is timed, as in a run that times its vertices: it pays a clock read.
    DoWork work(kernel, c.accesses_per_second, t.seconds, c.call_seconds + c.clock_seconds);
    std::vector<double> samples;
    for (int i = 0; i < t.reps; ++i) {
      const double t0 = wall_seconds();
      work(1.0);
      samples.push_back(wall_seconds() - t0);
    }
    const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
    double var = 0;
    for (double s : samples) var += (s - mean) * (s - mean);
    var /= static_cast<double>(samples.size());
    std::sort(samples.begin(), samples.end());
    const auto at = [&](double q) { return samples[static_cast<std::size_t>(q * double(samples.size() - 1))]; };
    const double median = at(0.5);
    rows.push_back({t.seconds, t.reps, mean, 100.0 * (mean - t.seconds) / t.seconds, 100.0 * std::sqrt(var) / mean,
                    at(0.05), at(0.95), median, 100.0 * (median - t.seconds) / t.seconds});
  }
  return rows;
}

}  // namespace lbbench
