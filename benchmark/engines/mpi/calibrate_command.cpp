// `lbbench calibrate` on real hosts (see engines/native_commands.hpp): do_work's rate and
// accuracy, cached per host; with --network the α and β between two ranks; with --overhead
// the replay's own floor.
#include <fmt/format.h>

#include <cstdio>

#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "engines/mpi/calibration.hpp"
#include "engines/mpi/host_preset.hpp"
#include "engines/mpi/network.hpp"
#include "engines/mpi/overhead.hpp"
#include "engines/native_commands.hpp"

namespace lbbench {

namespace {

int calibrate_network(int argc, char** argv, bool quick) {
  MpiSession mpi(&argc, &argv, MpiThreads::funneled);
  if (comm_size(MPI_COMM_WORLD) < 2) {
    std::fprintf(stderr, "lbbench: error: a ping-pong needs two ranks: mpirun -np 2 lbbench calibrate --network\n");
    return 2;
  }
  const NetworkCalibration c = measure_network(MPI_COMM_WORLD, quick);
  if (comm_rank(MPI_COMM_WORLD) != 0) return 0;
  fmt::print("network calibration: ping-pong between rank 0 and rank {} ({})\n", c.peer,
             c.same_node ? "same node: shared memory" : "another node");
  fmt::print("  {:>10}  {:>12}  {:>12}  {:>8}\n", "bytes", "one-way", "bandwidth", "trips");
  for (const auto& p : c.points) {
    fmt::print("  {:>10}  {:>9.3f} us  {:>7.3f} GB/s  {:>8}\n", p.bytes, p.one_way_s * 1e6,
               static_cast<double>(p.bytes) / p.one_way_s / 1e9, p.round_trips);
  }
  fmt::print("  fit t = alpha + bytes * beta: alpha = {:.3f} us, 1/beta = {:.3f} GB/s (worst point off by {:.1f}%)\n",
             c.fit.latency_s * 1e6, c.fit.bandwidth_Bps / 1e9, 100 * c.fit.max_relative_residual);
  fmt::print("  for a scenario: machine: {{latency: {:.4g}, bandwidth: {:.4g}}}\n", c.fit.latency_s,
             c.fit.bandwidth_Bps);
  fmt::print("  or: --set machine.latency={:.4g} --set machine.bandwidth={:.4g}\n", c.fit.latency_s,
             c.fit.bandwidth_Bps);
  return 0;
}

}  // namespace

int calibrate_command(const CalibrateRequest& request, int argc, char** argv) {
  if (request.network) return calibrate_network(argc, argv, request.quick);
  if (!request.preset_out.empty()) return calibrate_preset(request, argc, argv);
  MpiSession mpi(&argc, &argv, MpiThreads::funneled);
  if (request.overhead) {
    return overhead_command(
        OverheadRequest{.quick = request.quick, .repetitions = request.repetitions, .json_path = request.json_path});
  }
  const int me = comm_rank(MPI_COMM_WORLD);
  WorkKernel kernel(default_work_array_bytes());
  // The ranks on a host measure together, as they will read together in a run with as
  // many ranks there; the first rank on each node writes the host's cache file for that
  // count.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  MPI_Barrier(node);
  Calibration c = measure_calibration(kernel, request.quick ? 0.3 : 1.0);
  c.ranks_per_node = readers_on_node(node);
  MPI_Barrier(node);
  const auto rows = measure_accuracy(kernel, c, request.quick);
  // Ranks that outnumber the cores take turns while they measure, so each reads memory
  // nearly alone and the rate comes out too fast: such a rate is shown, never cached.
  const bool oversubscribed = ranks_take_turns(node);
  if (oversubscribed && me == 0) {
    std::fprintf(stderr,
                 "lbbench: warning: %d ranks share %d cores on this host, so they took turns while measuring; "
                 "the rate below is not cached (launch calibrate with at most one rank per core)\n",
                 comm_size(node), c.ranks_per_node);
  }
  if (!request.no_cache && !oversubscribed && comm_rank(node) == 0) save_calibration(c);
  MPI_Comm_free(&node);
  if (me != 0) return 0;
  fmt::print("do_work calibration on {} ({}), {} rank{} of this host reading at once\n", c.host, c.cpu,
             c.ranks_per_node, c.ranks_per_node == 1 ? "" : "s");
  fmt::print("  array {} MiB, {:.4g} random reads per second{}\n", c.array_bytes >> 20, c.accesses_per_second,
             request.no_cache || oversubscribed
                 ? ""
                 : fmt::format("; cached in {}", calibration_cache_path(c.ranks_per_node)));
  fmt::print("  {:>10}  {:>6}  {:>12}  {:>8}  {:>8}  {:>12}  {:>12}  {:>12}  {:>8}\n", "target", "reps", "mean",
             "error", "cv", "p5", "p95", "median", "error");
  for (const auto& r : rows) {
    fmt::print("  {:>10.6f}  {:>6}  {:>12.6f}  {:>7.2f}%  {:>7.2f}%  {:>12.6f}  {:>12.6f}  {:>12.6f}  {:>7.2f}%\n",
               r.target_s, r.repetitions, r.mean_s, r.error_pct, r.cv_pct, r.p5_s, r.p95_s, r.median_s,
               r.median_error_pct);
  }
  return 0;
}

}  // namespace lbbench
