// Ping-pong network calibration (see network.hpp).
#include "engines/mpi/network.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "comm/mpi.hpp"
#include "core/clock.hpp"

namespace lbbench {

namespace {

constexpr int kTag = 7;
constexpr int kBatches = 7;  // the fastest batch stands: noise only ever adds time

// Message sizes from one double to 2 MiB (256 KiB when quick), by factors of 8.
std::vector<std::int64_t> message_sizes(bool quick) {
  std::vector<std::int64_t> sizes;
  const std::int64_t largest = quick ? (std::int64_t{1} << 18) : (std::int64_t{1} << 22);
  for (std::int64_t b = 8; b <= largest; b *= 8) sizes.push_back(b);
  return sizes;
}

// Enough round trips per batch for a batch of about `batch_s`, judged from a first trip.
int round_trips_per_batch(double first_trip_s, double batch_s) {
  return std::clamp(static_cast<int>(batch_s / std::max(first_trip_s, 1e-7)), 1, 100000);
}

// The first rank on a node other than rank 0's, or 1 when every rank shares rank 0's node.
int choose_peer(MPI_Comm comm, bool& same_node) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  int with_rank0 = comm_rank(comm) == 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &with_rank0, 1, MPI_INT, MPI_MAX, node);
  MPI_Comm_free(&node);
  const int mine = with_rank0 ? comm_size(comm) : comm_rank(comm);
  int elsewhere = 0;
  MPI_Allreduce(&mine, &elsewhere, 1, MPI_INT, MPI_MIN, comm);
  same_node = elsewhere >= comm_size(comm);
  return same_node ? 1 : elsewhere;
}

// Rank 0 and `peer` exchange `trips` round trips of `bytes`; returns rank 0's seconds.
double time_round_trips(MPI_Comm comm, int peer, std::vector<char>& buffer, int trips) {
  const int me = comm_rank(comm);
  const auto count = static_cast<int>(buffer.size());
  const double t0 = wall_seconds();
  for (int i = 0; i < trips; ++i) {
    if (me == 0) {
      MPI_Send(buffer.data(), count, MPI_BYTE, peer, kTag, comm);
      MPI_Recv(buffer.data(), count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer.data(), count, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), count, MPI_BYTE, 0, kTag, comm);
    }
  }
  return wall_seconds() - t0;
}

PingPongPoint measure_size(MPI_Comm comm, int peer, std::int64_t bytes, double batch_s) {
  std::vector<char> buffer(static_cast<std::size_t>(bytes), 1);
  time_round_trips(comm, peer, buffer, 2);  // warm-up: connections and registration
  int trips = round_trips_per_batch(time_round_trips(comm, peer, buffer, 1), batch_s);
  MPI_Bcast(&trips, 1, MPI_INT, 0, comm);  // both sides must agree on the count
  PingPongPoint p{bytes, 0, 0};
  double fastest = INFINITY;
  for (int b = 0; b < kBatches; ++b) {
    fastest = std::min(fastest, time_round_trips(comm, peer, buffer, trips) / trips);
    p.round_trips += trips;
  }
  p.one_way_s = fastest / 2;
  return p;
}

}  // namespace

NetworkFit fit_network(const std::vector<PingPongPoint>& points) {
  // Minimize Σ ((α + β·b − t) / t)²: weighted least squares with weights 1/t².
  double sw = 0, sb = 0, sbb = 0, st = 0, sbt = 0;
  for (const auto& p : points) {
    if (p.one_way_s <= 0) throw std::invalid_argument("fit_network: a ping-pong time is not positive");
    const double w = 1 / (p.one_way_s * p.one_way_s);
    const auto b = static_cast<double>(p.bytes);
    sw += w;
    sb += w * b;
    sbb += w * b * b;
    st += w * p.one_way_s;
    sbt += w * b * p.one_way_s;
  }
  const double det = sw * sbb - sb * sb;
  if (points.size() < 2 || det <= 0) throw std::invalid_argument("fit_network: needs two distinct message sizes");
  NetworkFit fit;
  const double beta = (sw * sbt - sb * st) / det;
  // A negative intercept or slope is noise around zero; the model has no use for either.
  fit.latency_s = std::max(0.0, (st - beta * sb) / sw);
  fit.bandwidth_Bps = beta > 0 ? 1 / beta : INFINITY;
  for (const auto& p : points) {
    const double predicted = fit.latency_s + static_cast<double>(p.bytes) * std::max(beta, 0.0);
    fit.max_relative_residual = std::max(fit.max_relative_residual, std::abs(predicted - p.one_way_s) / p.one_way_s);
  }
  return fit;
}

NetworkCalibration measure_network(MPI_Comm comm, bool quick) {
  bool same_node = true;
  const int peer = choose_peer(comm, same_node);
  NetworkCalibration out = measure_pair(comm, peer, quick);
  out.same_node = same_node;
  return out;
}

Peers find_peers(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  int with_rank0 = comm_rank(comm) == 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &with_rank0, 1, MPI_INT, MPI_MAX, node);
  MPI_Comm_free(&node);
  const int me = comm_rank(comm);
  const int none = comm_size(comm);
  std::array<int, 2> mine{with_rank0 && me != 0 ? me : none, with_rank0 ? none : me};
  std::array<int, 2> first{};
  MPI_Allreduce(mine.data(), first.data(), 2, MPI_INT, MPI_MIN, comm);
  return Peers{.same_node = first[0] < none ? first[0] : -1, .other_node = first[1] < none ? first[1] : -1};
}

NetworkCalibration measure_pair(MPI_Comm comm, int peer, bool quick) {
  NetworkCalibration out;
  out.peer = peer;
  const int me = comm_rank(comm);
  const bool in_pair = me == 0 || me == out.peer;
  const double batch_s = quick ? 0.005 : 0.03;
  // Only the pair talks; a communicator of its own keeps the bystanders out of its Bcasts.
  MPI_Comm pair;
  MPI_Comm_split(comm, in_pair ? 0 : MPI_UNDEFINED, me == 0 ? 0 : 1, &pair);
  if (in_pair) {
    for (const std::int64_t bytes : message_sizes(quick)) out.points.push_back(measure_size(pair, 1, bytes, batch_s));
    MPI_Comm_free(&pair);
  }
  if (me == 0) out.fit = fit_network(out.points);
  return out;
}

}  // namespace lbbench
