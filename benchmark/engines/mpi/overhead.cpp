// `lbbench calibrate --overhead` (see overhead.hpp).
#include "engines/mpi/overhead.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/json_yaml.hpp"
#include "core/version.hpp"
#include "engines/mpi/calibration.hpp"
#include "engines/mpi/do_work.hpp"
#include "replay/engine.hpp"
#include "replay/replay.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace {

// The replay's own step loop reads the clock this many times per step when it does not
// time its vertices: the compute phase's end, and the step's end, which is the next step's
// start and its compute's (StepLoop::run).
constexpr int kClockReadsPerStep = 2;
constexpr std::size_t kMessageBytes = 16;
// The peak rate is the median over the largest granularities, where the overhead no longer
// matters, so that one noisy run at the top does not shift every efficiency.
constexpr std::size_t kPeakPoints = 4;

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Work per task: none, then 1/16 us doubling to about 1 ms.
std::vector<double> work_per_task() {
  std::vector<double> w{0.0};
  for (double x = 0.0625e-6; x < 1.1e-3; x *= 2) w.push_back(x);
  return w;
}

// Enough steps for about `seconds` of run at that work per task.
int steps_for(double work, double seconds) {
  const double per_step = work + 0.5e-6;  // the floor is about half a microsecond here
  return static_cast<int>(std::clamp(seconds / per_step, 100.0, 200'000.0));
}

// The chain of Task Bench's stencil_1d with one task per rank: vertex r on rank r, an edge
// to each neighbor, a 16-byte message across each, and no balancing.
Scenario chain_scenario(int ranks, int steps, double work) {
  const std::string yaml = fmt::format(
      "name: overhead\nseed: 1\nsteps: {}\nmesh: {{generator: grid2d, nx: {}, ny: 1}}\n"
      "workload: {{unit_seconds: {}, edge_bytes: {}, messages: per-edge}}\n"
      "distribution: block\nbalancer: {{name: none}}\nmachine: local\nmodel: weights\n",
      steps, ranks, work, kMessageBytes);
  return parse_scenario(YAML::Load(yaml), "calibrate --overhead");
}

// Seconds per step of the replay on that chain, on every rank.
double replay_step_seconds(const Engine& engine, int steps, double work, MPI_Comm comm) {
  const RunOutcome out = run_scenario(chain_scenario(comm_size(comm), steps, work), RunOptions{}, engine, comm);
  double total = out.reporter ? out.record.total_time_s : 0;
  MPI_Bcast(&total, 1, MPI_DOUBLE, 0, comm);
  return total / steps;
}

// Task Bench's MPI "nonblock" implementation of the same chain, written out: each step
// posts a receive from each neighbor and a send to it, waits for them all, and runs the
// task's work; the clock is read once before the loop and once after. The same do_work
// kernel, so the two differ only by what the replay adds. Seconds per step, the slowest
// rank's, on every rank.
double bare_step_seconds(DoWork& work, int steps, MPI_Comm comm) {
  const int me = comm_rank(comm);
  const int ranks = comm_size(comm);
  std::vector<int> neighbors;
  if (me > 0) neighbors.push_back(me - 1);
  if (me + 1 < ranks) neighbors.push_back(me + 1);
  std::array<std::byte, kMessageBytes> out{};
  std::vector<std::array<std::byte, kMessageBytes>> in(neighbors.size());
  std::vector<MPI_Request> requests(2 * neighbors.size());
  MPI_Barrier(comm);
  const double start = wall_seconds();
  for (int step = 0; step < steps; ++step) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < neighbors.size(); ++i) {
      MPI_Irecv(in[i].data(), kMessageBytes, MPI_BYTE, neighbors[i], 0, comm, &requests[k++]);
    }
    for (const int peer : neighbors) MPI_Isend(out.data(), kMessageBytes, MPI_BYTE, peer, 0, comm, &requests[k++]);
    MPI_Waitall(static_cast<int>(k), requests.data(), MPI_STATUSES_IGNORE);
    work(1.0);
  }
  const double elapsed = wall_seconds() - start;
  return allreduce(elapsed, MPI_MAX, comm) / steps;
}

// Seconds per call of do_work at this work, alone, untimed calls back to back for about
// 10 ms.
double do_work_call_seconds(WorkKernel& kernel, const Calibration& c, double work) {
  DoWork call(kernel, c.accesses_per_second, work, c.call_seconds);
  const int calls = static_cast<int>(std::clamp(0.01 / (work + 0.05e-6), 10.0, 100'000.0));
  const double start = wall_seconds();
  for (int i = 0; i < calls; ++i) call(1.0);
  return (wall_seconds() - start) / calls;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::array<std::string, 3> avg;
  if (!(in >> avg[0] >> avg[1] >> avg[2])) return "unknown";
  return fmt::format("{} {} {}", avg[0], avg[1], avg[2]);
}

// NaN (a crossing below the smallest work measured) as null.
Json seconds_or_null(double s) { return std::isnan(s) ? Json(nullptr) : Json(s); }

// The table for scripts (harness/task_bench.py compares it with Task Bench's own runs).
void write_overhead_json(const std::string& path, const Overhead& measured, int ranks) {
  Json points = Json::array();
  for (const OverheadPoint& p : measured.points) {
    points.push_back({{"work_s", p.work_s},
                      {"steps", p.steps},
                      {"replay_step_s", p.replay_step_s},
                      {"bare_step_s", p.bare_step_s},
                      {"do_work_s", p.do_work_s}});
  }
  const Json out{{"schema", "lbbench.overhead/1"},
                 {"git", git_describe()},
                 {"host", host_name()},
                 {"ranks", ranks},
                 {"message_bytes", kMessageBytes},
                 {"clock_seconds", measured.clock_seconds},
                 {"clock_reads_per_step", kClockReadsPerStep},
                 {"metg_s",
                  {{"replay", seconds_or_null(efficiency_crossing(measured.points, true, 0.5))},
                   {"bare", seconds_or_null(efficiency_crossing(measured.points, false, 0.5))}}},
                 {"load_average", load_average()},
                 {"points", points}};
  std::ofstream file(path);
  file << out.dump(2) << "\n";
  if (!file) throw InputError(fmt::format("calibrate --overhead: cannot write '{}'", path));
}

}  // namespace

double peak_rate(std::span<const OverheadPoint> points) {
  std::vector<double> rates;
  for (std::size_t i = points.size() - std::min<std::size_t>(kPeakPoints, points.size()); i < points.size(); ++i) {
    rates.push_back(points[i].work_s / points[i].replay_step_s);
    rates.push_back(points[i].work_s / points[i].bare_step_s);
  }
  return median(rates);
}

double efficiency_crossing(std::span<const OverheadPoint> points, bool replay, double level) {
  const double peak = peak_rate(points);
  std::optional<std::pair<double, double>> below;  // (log granularity, efficiency) under the level
  for (const OverheadPoint& p : points) {
    if (!(p.work_s > 0)) continue;
    const double step = replay ? p.replay_step_s : p.bare_step_s;
    const double efficiency = p.work_s / step / peak;
    const double log_granularity = std::log(step);
    if (efficiency >= level) {
      if (!below) return std::nan("");  // efficient already at the smallest work measured
      const double f = (level - below->second) / (efficiency - below->second);
      return std::exp(below->first + f * (log_granularity - below->first));
    }
    below = {log_granularity, efficiency};
  }
  return std::nan("");
}

Overhead measure_overhead(MPI_Comm comm, const OverheadRequest& request) {
  const auto engine = make_native_engine(EngineSettings{});
  // The replay's runs use the same kernel and calibration (process_kernel), so the two
  // loops read at one rate.
  const ProcessKernel shared = process_kernel(false, comm);
  WorkKernel& kernel = shared.kernel;
  const Calibration& c = shared.calibration;
  const std::vector<double> works = work_per_task();
  const int repetitions = request.repetitions > 0 ? request.repetitions : (request.quick ? 1 : 5);
  const double seconds = request.quick ? 0.03 : 0.15;
  std::vector<std::vector<double>> replay(works.size()), bare(works.size());
  // Interleaved, so that whatever else the host does falls on both alike, and each goes
  // first in every other repetition, so that neither always runs on the other's warm-up.
  for (int rep = 0; rep < repetitions; ++rep) {
    for (std::size_t i = 0; i < works.size(); ++i) {
      const int steps = steps_for(works[i], seconds);
      DoWork work(kernel, c.accesses_per_second, works[i], c.call_seconds);
      if (rep % 2 == 1) bare[i].push_back(bare_step_seconds(work, steps, comm));
      replay[i].push_back(replay_step_seconds(*engine, steps, works[i], comm));
      if (rep % 2 == 0) bare[i].push_back(bare_step_seconds(work, steps, comm));
    }
  }
  Overhead out{.points = {}, .clock_seconds = c.clock_seconds};
  for (std::size_t i = 0; i < works.size(); ++i) {
    out.points.push_back({.work_s = works[i],
                          .steps = steps_for(works[i], seconds),
                          .replay_step_s = median(replay[i]),
                          .bare_step_s = median(bare[i]),
                          .do_work_s = do_work_call_seconds(kernel, c, works[i])});
  }
  return out;
}

int overhead_command(const OverheadRequest& request) {
  const int me = comm_rank(MPI_COMM_WORLD);
  const int ranks = comm_size(MPI_COMM_WORLD);
  // A JSON file that cannot be written is said before half a minute of measuring, not after.
  const bool unwritable = me == 0 && !request.json_path.empty() && !std::ofstream(request.json_path, std::ios::app);
  if (allreduce(unwritable ? 1 : 0, MPI_MAX, MPI_COMM_WORLD) != 0) {
    if (me == 0)
      std::fprintf(stderr, "lbbench: error: calibrate --overhead: cannot write '%s'\n", request.json_path.c_str());
    return 2;  // an input error, as the command line's
  }
  const Overhead measured = measure_overhead(MPI_COMM_WORLD, request);
  const std::vector<OverheadPoint>& points = measured.points;
  const double clock_s = measured.clock_seconds;
  if (me != 0) return 0;
  fmt::print("replay overhead on {}: {} rank{}, a chain of one task per rank, {}-byte messages, balancer none\n",
             host_name(), ranks, ranks == 1 ? "" : "s", kMessageBytes);
  fmt::print("against Task Bench's MPI nonblock loop written out with the same do_work (the bare loop)\n");
  fmt::print("  {:>12}  {:>7}  {:>12}  {:>12}  {:>10}  {:>10}\n", "work/task", "steps", "replay/step", "bare/step",
             "replay eff", "bare eff");
  const double peak = peak_rate(points);
  for (const OverheadPoint& p : points) {
    const auto efficiency = [&](double step) {
      return p.work_s > 0 ? fmt::format("{:>9.1f}%", 100 * p.work_s / step / peak) : "         -";
    };
    fmt::print("  {:>9.4f} us  {:>7}  {:>9.3f} us  {:>9.3f} us  {}  {}\n", p.work_s * 1e6, p.steps,
               p.replay_step_s * 1e6, p.bare_step_s * 1e6, efficiency(p.replay_step_s), efficiency(p.bare_step_s));
  }
  const double replay_metg = efficiency_crossing(points, true, 0.5);
  const double bare_metg = efficiency_crossing(points, false, 0.5);
  const auto shown = [](double g) {
    return std::isnan(g) ? std::string("below the smallest work measured") : fmt::format("{:.3f} us", g * 1e6);
  };
  fmt::print("  METG(50%): replay {}, bare loop {}", shown(replay_metg), shown(bare_metg));
  if (!std::isnan(replay_metg) && !std::isnan(bare_metg)) fmt::print(" (ratio {:.2f})", replay_metg / bare_metg);
  fmt::print("\n");
  const OverheadPoint& floor = points.front();  // no work
  fmt::print("  per-step floor (no work): replay {:.3f} us, bare loop {:.3f} us (ratio {:.2f})\n",
             floor.replay_step_s * 1e6, floor.bare_step_s * 1e6, floor.replay_step_s / floor.bare_step_s);
  const double exchange = floor.bare_step_s;
  const double clocks = kClockReadsPerStep * clock_s;
  fmt::print(
      "    exchange (post, send, wait: the bare loop's whole step) {:.3f} us; clock reads {} x {:.1f} ns = "
      "{:.3f} us; the rest of the replay's step {:.3f} us\n",
      exchange * 1e6, kClockReadsPerStep, clock_s * 1e9, clocks * 1e6, (floor.replay_step_s - exchange - clocks) * 1e6);
  const OverheadPoint& smallest = points[1];
  fmt::print("    do_work at {:.4f} us per task costs {:.3f} us per call alone\n", smallest.work_s * 1e6,
             smallest.do_work_s * 1e6);
  fmt::print("  load average {}\n", load_average());
  if (!request.json_path.empty()) write_overhead_json(request.json_path, measured, ranks);
  return 0;
}

}  // namespace lbbench
