// The network as the model engine charges it: a message between two ranks costs the
// route's latency plus its bytes over the route's bandwidth, on the routes SimGrid builds
// for the same preset (engines/smpi): the loopback within a node, dimension-order hops
// on a torus, two or four links through a two-level fat tree, a node's own link twice on
// a crossbar, and the wide-area link between sites, where TCP's window bounds the rate as
// in SimGrid (network/TCP-gamma). A receive costs the preset's receive overhead; a
// non-blocking send costs nothing, as under SMPI.
//
// Contention is modeled where it bounds what lbbench does, not link by link: on the one
// link every cross-site message shares, the WAN, whose bandwidth a phase's cross-site
// flows divide equally; and at a node's own links, which its ranks share, for the bulk
// transfers of an LB call (a centralized gather into rank 0 and the scatter out of it, a
// migration's busiest sending and receiving nodes). A node moves data at
// node_bandwidth_Bps: on a torus twice the link's, as measured under SMPI (SimGrid routes
// dimension by dimension, so a node's traffic to the rest of the machine leaves mostly by
// the two directions of its first dimension); elsewhere its one link's. A step's small
// halo messages share nothing. SimGrid shares every link's bandwidth max-min fairly among
// the flows that cross it, so the model is optimistic where flows from many nodes meet on
// inner torus or fat-tree links.
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
  // What one node sends or receives per second to or from the rest of the machine.
  [[nodiscard]] double node_bandwidth_Bps() const;

  // Open MPI's collectives as SMPI runs them (the ompi selector), over all ranks, from
  // their algorithms and checked against SMPI at 256 and 1,024 ranks on bgq (barrier 41 and
  // 51 us, the same as a small allreduce; a gather of an int 11 and 16 us; linear gatherv
  // and scatterv of 100 B and 10 kB per rank as below, within 10%):
  // a barrier and an allreduce of a few values are ceil(log2 P) rounds in which each rank
  // sends and receives, paying both overheads, once each way;
  [[nodiscard]] double barrier_s() const { return allreduce_s(0); }
  [[nodiscard]] double allreduce_s(double bytes) const;
  // a gather of one value each is a binomial tree;
  [[nodiscard]] double small_gather_s() const;
  // a gatherv is linear: rank 0 receives every rank's share in turn, one receive overhead
  // each, while its node's links carry them all;
  [[nodiscard]] double gatherv_s(double total_bytes) const;
  // a scatterv is linear from rank 0, whose sends cost nothing: the last share arrives
  // when rank 0's node has sent them all.
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
