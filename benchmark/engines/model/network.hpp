// The network as the model engine charges it: a message between two ranks costs the
// route's latency plus its bytes over the route's bandwidth, on the routes SimGrid builds
// for the same preset (engines/smpi): the loopback within a node, dimension-order hops
// on a torus, two or four links through a two-level fat tree, a node's own link twice on
// a crossbar, and the wide-area link between sites, where TCP's window bounds the rate as
// in SimGrid (network/TCP-gamma). A receive costs the preset's receive overhead; a
// non-blocking send costs nothing, as under SMPI.
//
// Contention is modeled on the one link every cross-site message shares, the WAN: a
// phase's cross-site flows divide its bandwidth equally. Elsewhere concurrent messages do
// not share links. SimGrid shares every link's bandwidth max-min fairly among the flows
// that cross it, so the model is optimistic where many messages meet on one torus or
// fat-tree link (a centralized gather's last hops into rank 0).
#pragma once

#include <vector>

#include "machine/preset.hpp"

namespace lbbench {

class NetworkModel {
 public:
  NetworkModel(const MachinePreset& preset, int nranks);

  [[nodiscard]] double latency_s(int from, int to) const;
  [[nodiscard]] double bandwidth_Bps(int from, int to, double wan_flows = 1) const;
  // Seconds for `bytes` to cross the wide-area link alone (0 with one site).
  [[nodiscard]] double wan_s(double bytes) const;
  // One message of `bytes` from one rank to another, from its send to its arrival, while
  // `wan_flows` messages cross the wide-area link at once.
  [[nodiscard]] double transfer_s(int from, int to, double bytes, double wan_flows = 1) const {
    return latency_s(from, to) + bytes / bandwidth_Bps(from, to, wan_flows);
  }
  [[nodiscard]] double receive_overhead_s() const { return preset_.recv_overhead; }

  // Open MPI's collectives as SMPI runs them (the ompi selector), over all ranks, from
  // their algorithms and checked against SMPI at 32 to 4,096 ranks on bgq:
  // a barrier is recursive doubling of empty messages, each received;
  [[nodiscard]] double barrier_s() const;
  // an allreduce of a few values is recursive doubling with a send and a receive each way
  // per round;
  [[nodiscard]] double allreduce_s(double bytes) const;
  // a gather of one value each is a binomial tree;
  [[nodiscard]] double small_gather_s() const;
  // a gatherv is linear: rank 0 receives every rank's share in turn, over its own link;
  [[nodiscard]] double gatherv_s(double total_bytes) const;
  // a scatterv is linear from rank 0, whose sends cost nothing: the last share arrives
  // when rank 0's link has carried them all.
  [[nodiscard]] double scatterv_s(double total_bytes) const;

  [[nodiscard]] int nranks() const { return nranks_; }
  [[nodiscard]] int site_of(int rank) const { return layout_.rank_site[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] int node_of(int rank) const { return layout_.rank_host[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] int nodes() const;
  [[nodiscard]] const MachinePreset& preset() const { return preset_; }
  [[nodiscard]] const RankLayout& layout() const { return layout_; }

 private:
  // Links between two distinct nodes of one site.
  [[nodiscard]] int hops_within_site(int host_a, int host_b) const;

  MachinePreset preset_;
  RankLayout layout_;
  int nranks_;
  double round_latency_s_ = 0;  // Σ over recursive doubling's rounds of its partner's latency
  int rounds_ = 0;              // ceil(log2 P)
};

}  // namespace lbbench
