// The network as the model engine charges it (see network.hpp).
#include "engines/model/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace lbbench {

NetworkModel::NetworkModel(const MachinePreset& preset, int nranks)
    : preset_(preset), layout_(plan_layout(preset, nranks)), nranks_(nranks) {
  for (int k = 1; k < nranks; k *= 2) {
    round_latency_s_ += latency_s(0, k);
    ++rounds_;
  }
}

int NetworkModel::nodes() const {
  return layout_.rank_host.empty() ? 0 : *std::max_element(layout_.rank_host.begin(), layout_.rank_host.end()) + 1;
}

int NetworkModel::hops_within_site(int host_a, int host_b) const {
  switch (preset_.topology) {
    case Topology::torus: {
      // SimGrid numbers a torus's hosts with the first dimension fastest and routes
      // dimension by dimension, each the short way round.
      int hops = 0;
      int a = host_a;
      int b = host_b;
      for (const int size : layout_.torus_shape) {
        const int d = std::abs(a % size - b % size);
        hops += std::min(d, size - d);
        a /= size;
        b /= size;
      }
      return hops;
    }
    case Topology::fat_tree:
      // Up to the leaf switch and down, or on through a top switch to the other leaf.
      return host_a / preset_.leaf_nodes == host_b / preset_.leaf_nodes ? 2 : 4;
    case Topology::crossbar: return 2;  // each node's own link, around the backbone
  }
  return 2;
}

double NetworkModel::latency_s(int from, int to) const {
  const int a = node_of(from);
  const int b = node_of(to);
  if (a == b) return preset_.loopback_latency;
  const int site_a = site_of(from);
  const int site_b = site_of(to);
  const int base_a = site_a * layout_.hosts_per_site;
  const int base_b = site_b * layout_.hosts_per_site;
  if (site_a == site_b) return hops_within_site(a - base_a, b - base_b) * preset_.link_latency;
  // Each node's own link to its site's router, and the wide-area link between them.
  return 2 * preset_.link_latency + preset_.wan_latency;
}

double NetworkModel::bandwidth_Bps(int from, int to, double wan_flows) const {
  if (node_of(from) == node_of(to)) return preset_.loopback_bandwidth;
  if (site_of(from) == site_of(to)) return preset_.link_bandwidth;
  const double tcp_bound = kTcpWindowBytes / (2 * latency_s(from, to));
  const double wan_share =
      preset_.wan_shared ? preset_.wan_bandwidth / std::max(1.0, wan_flows) : preset_.wan_bandwidth;
  return std::min({preset_.link_bandwidth, wan_share, tcp_bound});
}

double NetworkModel::wan_s(double bytes) const {
  // A per-flow wide-area link bounds no bulk transfer beyond the nodes' own links.
  return preset_.sites > 1 && preset_.wan_shared ? bytes / preset_.wan_bandwidth : 0.0;
}

double NetworkModel::node_bandwidth_Bps() const {
  return preset_.topology == Topology::torus ? 2 * preset_.link_bandwidth : preset_.link_bandwidth;
}

double NetworkModel::busiest_torus_link_bytes(std::span<const NodeFlow> flows) const {
  // SimGrid's torus: hosts numbered with the first dimension fastest; a route fixes one
  // dimension after another, going up when the target is at most half the ring ahead and
  // down otherwise. Each link between neighbors carries each direction separately.
  const auto& shape = layout_.torus_shape;
  const std::size_t dims = shape.size();
  std::vector<double> link_bytes(static_cast<std::size_t>(layout_.hosts_per_site) * dims * 2, 0.0);
  for (const NodeFlow& f : flows) {
    const int site = f.from / layout_.hosts_per_site;
    if (site != f.to / layout_.hosts_per_site) continue;  // the WAN's, priced apart
    int host = f.from - site * layout_.hosts_per_site;
    const int target = f.to - site * layout_.hosts_per_site;
    int stride = 1;
    for (std::size_t d = 0; d < dims; stride *= shape[d], ++d) {
      const int size = shape[d];
      int at = host / stride % size;
      const int ahead = ((target / stride % size - at) % size + size) % size;
      const bool up = ahead <= size / 2;
      for (int hop = 0; hop < (up ? ahead : size - ahead); ++hop) {
        link_bytes[(static_cast<std::size_t>(host) * dims + d) * 2 + (up ? 0 : 1)] += f.bytes;
        const int next = (at + (up ? 1 : size - 1)) % size;
        host += (next - at) * stride;
        at = next;
      }
    }
  }
  return link_bytes.empty() ? 0.0 : *std::max_element(link_bytes.begin(), link_bytes.end());
}

double NetworkModel::bulk_transfer_s(std::span<const NodeFlow> flows) const {
  if (preset_.topology == Topology::torus) return busiest_torus_link_bytes(flows) / preset_.link_bandwidth;
  std::vector<double> out(static_cast<std::size_t>(nodes()), 0.0);
  std::vector<double> in(out.size(), 0.0);
  for (const NodeFlow& f : flows) {
    out[static_cast<std::size_t>(f.from)] += f.bytes;
    in[static_cast<std::size_t>(f.to)] += f.bytes;
  }
  double busiest = 0;
  for (std::size_t n = 0; n < out.size(); ++n) busiest = std::max({busiest, out[n], in[n]});
  return busiest / preset_.link_bandwidth;
}

double NetworkModel::allreduce_s(double bytes) const {
  return 2 * (round_latency_s_ +
              rounds_ * (send_overhead_s(bytes) + receive_overhead_s(bytes) + bytes / preset_.link_bandwidth));
}

double NetworkModel::small_gather_s() const { return round_latency_s_ + rounds_ * receive_overhead_s(8); }

double NetworkModel::gatherv_s(double total_bytes) const {
  const double share = total_bytes / nranks_;
  return std::max(nranks_ * receive_overhead_s(share), total_bytes / node_bandwidth_Bps()) + latency_s(nranks_ - 1, 0);
}

double NetworkModel::scatterv_s(double total_bytes) const {
  return total_bytes / node_bandwidth_Bps() + latency_s(0, nranks_ - 1) + receive_overhead_s(total_bytes / nranks_);
}

}  // namespace lbbench
