// The network as the model engine charges it: a message between two ranks costs the
// route's latency plus its bytes over the route's bandwidth, on the routes SimGrid builds
// for the same preset (engines/smpi): the loopback within a node, dimension-order hops
// on a torus, two or four links through a two-level fat tree, a node's own link twice on
// a crossbar, and the wide-area link between sites, where TCP's window bounds the rate as
// in SimGrid (network/TCP-gamma). An eager message (under machine.eager_bytes) costs the
// preset's send and receive overheads; a rendezvous message costs none, as under SMPI; a
// non-blocking send costs nothing more.
//
// Contention is modeled where it bounds what lbbench does, not flow by flow: on the one
// link every cross-site message shares, the WAN, whose bandwidth a phase's cross-site
// flows divide equally (unless the preset's sites.wan_sharing is per-flow); at a node's own links for a centralized
// gather into rank 0 and the scatter out of it (node_bandwidth_Bps: on a torus twice the link's, as measured under
// SMPI, since SimGrid routes dimension by dimension and a node's traffic leaves mostly by
// the two directions of its first dimension; elsewhere its one link's); and for a
// migration and a distributed protocol's round, flow by flow: every rank-to-rank message
// is routed as SimGrid routes it and the links are shared max-min fairly, weighted as SMPI
// weighs flows, with SimGrid's cross-traffic, the rates solved again as flows finish
// (bulk_transfer_s). A step's halo messages share the links as a bound: each arrives no
// sooner than the busiest link of its route has carried every step message that crosses
// it (step_drain_s).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "machine/preset.hpp"

namespace lbbench {

// Bytes a bulk transfer (a migration) moves from one rank to another: one message, one
// flow on the network.
struct RankFlow {
  int from = 0;
  int to = 0;
  double bytes = 0;
};

class NetworkModel {
 public:
  NetworkModel(const MachinePreset& preset, int nranks);

  [[nodiscard]] double latency_s(int from, int to) const;
  [[nodiscard]] double bandwidth_Bps(int from, int to, double wan_flows = 1) const;
  // Seconds for `bytes` to cross the shared wide-area link alone (0 with one site, or when
  // each cross-site flow has the link's bandwidth to itself).
  [[nodiscard]] double wan_s(double bytes) const;
  // One message of `bytes` from one rank to another, from its send to its arrival, while
  // `wan_flows` messages cross the wide-area link at once.
  [[nodiscard]] double transfer_s(int from, int to, double bytes, double wan_flows = 1) const {
    return latency_s(from, to) + bytes / bandwidth_Bps(from, to, wan_flows);
  }
  // The preset's per-message overheads, which SMPI charges to eager messages only (those
  // under machine.eager_bytes): a rendezvous message costs its latency and bytes alone.
  [[nodiscard]] double send_overhead_s(double bytes) const {
    return bytes < preset_.eager_bytes ? preset_.send_overhead : 0.0;
  }
  [[nodiscard]] double receive_overhead_s(double bytes) const {
    return bytes < preset_.eager_bytes ? preset_.recv_overhead : 0.0;
  }
  // What one node sends or receives per second to or from the rest of the machine.
  [[nodiscard]] double node_bandwidth_Bps() const;
  // Seconds until flows between ranks of different nodes that start together have all
  // arrived. Each flow takes its route's links (on a torus each directed link between
  // neighbors along SimGrid's dimension-order routes, elsewhere its nodes' own links out
  // and in: full bisection) and the links are shared as SimGrid's SMPI model shares them:
  // max-min fairly, each flow weighted by the inverse of its route's latency plus
  // weight_S over each link's bandwidth, the rates solved again whenever flows finish
  // (fluid_transfer_s); each flow also loads the links of its route back with 5% of its
  // rate, as SimGrid's network/crosstraffic does. Cross-site flows also cross the
  // wide-area link, which wan_s prices; flows within a node cross the loopback, which is
  // not shared.
  //
  // Flow by flow costs the links summed over the routes (each flow's way there and back)
  // per solve of the rates, and with cross-traffic the rates are solved about once per
  // flow: over `link_limit` such links, the busiest link's bytes over its bandwidth bound
  // the transfer instead, and so they do when that bound is under `follow_above_s`, where
  // the caller has a larger cost than the sharing could make. A migration follows its
  // flows up to kFluidLinks links, past which following them grows too slow to be worth it.
  static constexpr std::size_t kFluidLinks = 100000;
  [[nodiscard]] double bulk_transfer_s(std::span<const RankFlow> flows, std::size_t link_limit = kFluidLinks,
                                       double follow_above_s = 0) const;

  // Per flow, the seconds the busiest link of its route takes to carry the bytes of every
  // flow that crosses it (each flow's way back at the cross-traffic's share, as in
  // bulk_transfer_s): no flow of a set sent together arrives sooner. 0 within a node (the
  // loopback is not shared) and across sites (wan_s prices the wide-area link). A step's
  // halo exchange is bounded by it where its flows load one link well past the others:
  // many ranks of a node sending across the same link, as a scattered placement makes.
  [[nodiscard]] std::vector<double> step_drain_s(std::span<const RankFlow> flows) const;
  // The same for flows given as a CSR over their receivers: those into rank r are
  // from[into_begin[r]] to from[into_begin[r + 1] - 1], with their bytes.
  [[nodiscard]] std::vector<double> step_drain_s(std::span<const std::int64_t> into_begin, std::span<const int> from,
                                                 std::span<const double> bytes) const;
  // The same bound for a step whose every rank sends alike to every other, per byte sent in
  // all: the busiest link's seconds per byte. Followed node pair by node pair up to
  // kScatterNodes nodes; past them, a node's links (node_bandwidth_Bps) carry what its
  // ranks send off it.
  static constexpr int kScatterNodes = 256;
  [[nodiscard]] double scattered_exchange_s_per_byte() const;

  // Open MPI's collectives as SMPI runs them (the ompi selector), over all ranks, from
  // their algorithms and checked against SMPI on bgq:
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
  // Appends the directed links (ids from 0 to links_per_site() within the site) of the
  // route between two nodes of one site.
  void append_route(int from_host, int to_host, std::vector<int>& links) const;
  [[nodiscard]] int links_per_site() const;
  // append_route between two nodes of `site`, numbered over every node, its links numbered
  // over every site's.
  void append_site_route(int site, int from_node, int to_node, std::vector<int>& links) const;
  [[nodiscard]] std::vector<double> drain_s(std::size_t count, const std::function<RankFlow(std::size_t)>& flow) const;

  MachinePreset preset_;
  RankLayout layout_;
  int nranks_;
  double round_latency_s_ = 0;  // Σ over recursive doubling's rounds of its partner's latency
  int rounds_ = 0;              // ceil(log2 P)
};

}  // namespace lbbench
