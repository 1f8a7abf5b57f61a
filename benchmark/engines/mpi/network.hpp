// Calibrating the network: the α (start-up) and β (per-byte) costs of Pearce et al.'s
// migration model (equation 8), from a ping-pong between two ranks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace lbbench {

struct PingPongPoint {
  std::int64_t bytes = 0;
  double one_way_s = 0;  // half the fastest batch's mean round trip
  int round_trips = 0;   // in all batches
};

// t(bytes) = latency_s + bytes / bandwidth_Bps.
struct NetworkFit {
  double latency_s = 0;
  double bandwidth_Bps = 0;
  double max_relative_residual = 0;  // of the points, |fit − measured| / measured
};

// Least squares on relative errors (each point weighted by 1/t²), so the small messages,
// which fix α, count as much as the large ones, which fix β. Needs two distinct sizes.
NetworkFit fit_network(const std::vector<PingPongPoint>& points);

struct NetworkCalibration {
  int peer = 1;           // the rank that answered rank 0
  bool same_node = true;  // no rank on another node: α and β are shared memory's
  std::vector<PingPongPoint> points;
  NetworkFit fit;
};

// Collective over `comm` (at least two ranks): rank 0 ping-pongs with the first rank on
// another node, or with rank 1 when all share one. Only rank 0's result is filled.
NetworkCalibration measure_network(MPI_Comm comm, bool quick);

// Collective over `comm`: rank 0 ping-pongs with `peer` (the others wait). Only rank 0's
// result is filled.
NetworkCalibration measure_pair(MPI_Comm comm, int peer, bool quick);

// The first rank on rank 0's node other than rank 0, and the first rank on another node;
// -1 where there is none. Collective.
struct Peers {
  int same_node = -1;
  int other_node = -1;
};
Peers find_peers(MPI_Comm comm);

}  // namespace lbbench
