// `lbbench calibrate --preset-out FILE`: this machine measured into a machine preset that
// the smpi and model engines run (see native_commands.hpp). Run under mpirun or srun with
// the ranks a real run would have: the nodes and their ranks are the job's.
#include "engines/mpi/host_preset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "engines/mpi/calibration.hpp"
#include "engines/mpi/network.hpp"

namespace lbbench {

namespace {

struct HostFacts {
  int nodes = 1;
  int ranks_per_node = 1;
  double core_ghz = 1;
  Calibration work;
  NetworkCalibration within;   // rank 0 and a rank of its node
  NetworkCalibration between;  // rank 0 and a rank of another node
  bool has_within = false;
  bool has_between = false;
  bool work_cached = false;  // on this rank's node
};

// Nodes (shared-memory domains) of the job, and the most ranks any holds.
std::pair<int, int> nodes_and_ranks(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  const int leader = comm_rank(node) == 0 ? 1 : 0;
  const int size = comm_size(node);
  MPI_Comm_free(&node);
  return {allreduce(leader, MPI_SUM, comm), allreduce(size, MPI_MAX, comm)};
}

HostFacts measure_host(MPI_Comm comm, bool quick, bool cache) {
  HostFacts f;
  std::tie(f.nodes, f.ranks_per_node) = nodes_and_ranks(comm);
  // do_work's rate with the node's ranks reading together, as a run reads.
  WorkKernel kernel(default_work_array_bytes());
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  MPI_Barrier(node);
  f.work = measure_calibration(kernel, quick ? 0.3 : 1.0);
  f.work.ranks_per_node = readers_on_node(node);
  // Cached as `calibrate` caches it, for real runs that read the cache. A host's rate
  // drifts within an hour too, so a sweep that holds real runs to their twin has each
  // measure its own (the sweep's `recalibrate`).
  f.work_cached = cache && !ranks_take_turns(node);
  if (f.work_cached && comm_rank(node) == 0) save_calibration(f.work);
  MPI_Comm_free(&node);
  f.core_ghz = measured_host_ghz();
  const Peers peers = find_peers(comm);
  f.has_within = peers.same_node >= 0;
  f.has_between = peers.other_node >= 0;
  if (f.has_within) f.within = measure_pair(comm, peers.same_node, quick);
  if (f.has_between) f.between = measure_pair(comm, peers.other_node, quick);
  return f;
}

std::string number(double x) { return fmt::format("{:.6g}", x); }

// The preset, each figure with where it came from.
std::string preset_yaml(const HostFacts& f, const std::string& name) {
  const NetworkFit& in = f.has_within ? f.within.fit : f.between.fit;
  const NetworkFit& out = f.has_between ? f.between.fit : in;
  std::string y;
  y += fmt::format(
      "# Measured by `lbbench calibrate --preset-out` ({}) on {} ({}), {}, with {} rank(s) on each of {} node(s).\n",
      git_describe(), f.work.host, f.work.cpu, utc_timestamp(), f.ranks_per_node, f.nodes);
  y +=
      fmt::format("# do_work read {:.4g} random words per second on each core, {} rank(s) of a node reading at once.\n",
                  f.work.accesses_per_second, f.work.ranks_per_node);
  y += fmt::format("name: {}\n", name);
  y += fmt::format("description: this machine as measured, {} node(s) of {} rank(s)\n", f.nodes, f.ranks_per_node);
  y += "node:\n";
  y += fmt::format("  cores: {}  # the ranks the job ran on a node\n", f.ranks_per_node);
  y += fmt::format("  core_ghz: {}  # a chain of dependent adds, one a cycle: real code is charged 1:1\n",
                   number(f.core_ghz));
  y += "  flops_per_cycle: 1  # do_work is charged its calibrated time; no flop rate enters\n";
  if (f.has_within) {
    y += fmt::format("  loopback_bandwidth: {}  # ping-pong, rank 0 and {} (one node), t = alpha + bytes / bandwidth\n",
                     number(in.bandwidth_Bps), f.within.peer);
    y += fmt::format("  loopback_latency: {}  # its alpha\n", number(in.latency_s));
  } else {
    y += fmt::format("  loopback_bandwidth: {}  # not measured (one rank a node): the figure between nodes\n",
                     number(in.bandwidth_Bps));
    y += fmt::format("  loopback_latency: {}\n", number(in.latency_s));
  }
  y += "network:\n";
  y += "  topology: crossbar  # not measured: every node one hop from every other\n";
  if (f.has_between) {
    y += fmt::format("  link_bandwidth: {}  # ping-pong, rank 0 and {} (another node)\n", number(out.bandwidth_Bps),
                     f.between.peer);
    y += fmt::format("  link_latency: {}  # its alpha\n", number(out.latency_s));
  } else {
    y += fmt::format("  link_bandwidth: {}  # not measured (one node): the figure within it\n",
                     number(out.bandwidth_Bps));
    y += fmt::format("  link_latency: {}\n", number(out.latency_s));
  }
  y += "  send_overhead: 0  # the MPI library's own time is in the alphas above\n";
  y += "  recv_overhead: 0\n";
  return y;
}

}  // namespace

int calibrate_preset(const CalibrateRequest& request, int argc, char** argv) {
  MpiSession mpi(&argc, &argv, MpiThreads::funneled);
  const MPI_Comm comm = MPI_COMM_WORLD;
  if (comm_size(comm) < 2) {
    if (comm_rank(comm) == 0) {
      std::fprintf(stderr,
                   "lbbench: error: a preset needs the ranks a run will have, two at least: mpirun -np 2 lbbench "
                   "calibrate --preset-out %s\n",
                   request.preset_out.c_str());
    }
    return 2;
  }
  const HostFacts facts = measure_host(comm, request.quick, !request.no_cache);
  if (comm_rank(comm) != 0) return 0;
  const std::string name = std::filesystem::path(request.preset_out).stem().string();
  std::ofstream out(request.preset_out);
  out << preset_yaml(facts, name);
  if (!out) {
    std::fprintf(stderr, "lbbench: error: %s: could not write the preset\n", request.preset_out.c_str());
    return 3;
  }
  fmt::print("machine preset '{}' written to {}: {} node(s) of {} rank(s), {:.3g} GHz\n", name, request.preset_out,
             facts.nodes, facts.ranks_per_node, facts.core_ghz);
  fmt::print("  run a simulated twin of this machine with --machine {} (smpi or model engine)\n", request.preset_out);
  if (facts.work_cached) {
    fmt::print("  do_work's rate cached in {}, for real runs that do not measure it afresh (--recalibrate)\n",
               calibration_cache_path(facts.work.ranks_per_node));
  }
  return 0;
}

}  // namespace lbbench
