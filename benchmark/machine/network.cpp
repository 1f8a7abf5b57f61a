// The network as the model engine charges it (see network.hpp).
#include "machine/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <queue>

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

int NetworkModel::links_per_site() const {
  // A torus: each node's link to its next neighbor in every dimension, each direction
  // apart. Elsewhere: each node's own link, out and in.
  return preset_.topology == Topology::torus ? layout_.hosts_per_site * static_cast<int>(layout_.torus_shape.size()) * 2
                                             : layout_.hosts_per_site * 2;
}

void NetworkModel::append_route(int from_host, int to_host, std::vector<int>& links) const {
  if (preset_.topology != Topology::torus) {
    links.push_back(from_host * 2);
    links.push_back(to_host * 2 + 1);
    return;
  }
  // SimGrid's torus (TorusZone): hosts numbered with the first dimension fastest; a route
  // fixes one dimension after another. It goes up when the target lies ahead by at most
  // half the ring without wrapping, or when the source sits past the middle and the target
  // is within half a ring ahead across the wrap; down otherwise. So a tie goes down from
  // the lower half, and in a ring of two, 1 reaches 0 going down: both directions use the
  // link between 0 and 1 that node 0 declares, never node 1's.
  const auto& shape = layout_.torus_shape;
  const auto dims = static_cast<int>(shape.size());
  int host = from_host;
  int stride = 1;
  for (int d = 0; d < dims; stride *= shape[static_cast<std::size_t>(d)], ++d) {
    const int size = shape[static_cast<std::size_t>(d)];
    int at = host / stride % size;
    const int target = to_host / stride % size;
    if (at == target) continue;
    const bool up = (target > at && target <= at + size / 2) || (at > size / 2 && (at + size / 2) % size >= target);
    const int ahead = ((target - at) % size + size) % size;
    for (int hop = 0; hop < (up ? ahead : size - ahead); ++hop) {
      links.push_back((host * dims + d) * 2 + (up ? 0 : 1));
      const int next = (at + (up ? 1 : size - 1)) % size;
      host += (next - at) * stride;
      at = next;
    }
  }
}

void NetworkModel::append_site_route(int site, int from_node, int to_node, std::vector<int>& links) const {
  const int base = site * layout_.hosts_per_site;
  const int offset = site * links_per_site();
  const std::size_t first = links.size();
  append_route(from_node - base, to_node - base, links);
  for (std::size_t i = first; i < links.size(); ++i) links[i] += offset;
}

namespace {

// SimGrid's SMPI network model weighs each flow's share of a link by the inverse of its
// penalty: its route's latency plus weight_S over each of its links' bandwidth
// (network/weight-S, 8,775 under network/model:SMPI), so a flow over more hops gets less.
constexpr double kSmpiWeightS = 8775;

// SimGrid's cross-traffic (network/crosstraffic, on by default): a flow also loads the
// links of the route back from its receiver with 5% of its rate, for the acknowledgements.
// On a link both ways busy that slows a flow more than 5%: a link's level is shared by
// weight, so a long flow that crosses, backwards, a link that short flows fill gets its
// weight's share of that link's level.
constexpr double kCrossTraffic = 0.05;

// Flows that would finish within this fraction of the earliest finish finish with it, so
// the rates are solved once per group rather than once per flow: the solves are bounded
// by the spread of the finish times, and the transfer ends at most this fraction early.
constexpr double kFinishTogether = 0.01;

// Flows on shared links: each flow's route there and back as link ids (CSR) with the share
// of its rate each link carries, and each link's flows.
struct FluidNetwork {
  std::vector<double> bytes;
  std::vector<double> weight;  // 1 / penalty
  // A rendezvous message flows once its receiver posts the receive, and a rank receives
  // one message at a time: flows that wait for their receiver's previous one name it
  // (-1: the flow starts at once).
  std::vector<std::int64_t> after;
  std::vector<std::int64_t> route_begin{0};
  std::vector<int> route;
  std::vector<double> use;       // per route entry: the share of the flow's rate the link carries
  std::vector<double> capacity;  // per link
  std::vector<std::int64_t> flows_begin;
  std::vector<int> flows_of_link;

  [[nodiscard]] std::span<const int> route_of(std::size_t f) const {
    return {route.data() + route_begin[f], static_cast<std::size_t>(route_begin[f + 1] - route_begin[f])};
  }
  [[nodiscard]] std::span<const int> flows_on(std::size_t l) const {
    return {flows_of_link.data() + flows_begin[l], static_cast<std::size_t>(flows_begin[l + 1] - flows_begin[l])};
  }
  // Renumbers the links that some flow crosses from 0, and drops the others: a solve then
  // costs the flows' routes, not the machine's links.
  void keep_used_links() {
    std::vector<int> renumbered(capacity.size(), -1);
    std::vector<double> used;
    for (int& l : route) {
      int& to = renumbered[static_cast<std::size_t>(l)];
      if (to < 0) {
        to = static_cast<int>(used.size());
        used.push_back(capacity[static_cast<std::size_t>(l)]);
      }
      l = to;
    }
    capacity = std::move(used);
  }
  void index_links() {
    flows_begin.assign(capacity.size() + 1, 0);
    for (const int l : route) ++flows_begin[static_cast<std::size_t>(l) + 1];
    for (std::size_t l = 0; l < capacity.size(); ++l) flows_begin[l + 1] += flows_begin[l];
    flows_of_link.resize(route.size());
    std::vector<std::int64_t> fill(flows_begin.begin(), flows_begin.end() - 1);
    for (std::size_t f = 0; f + 1 < route_begin.size(); ++f) {
      for (const int l : route_of(f)) {
        flows_of_link[static_cast<std::size_t>(fill[static_cast<std::size_t>(l)]++)] = static_cast<int>(f);
      }
    }
  }
};

// The weighted max-min fair rates of the active flows, by progressive filling: the link
// with the least capacity per unit of its unfixed flows' weight saturates first and fixes
// their rates (weight x its level); their use leaves the other links.
std::vector<double> max_min_rates(const FluidNetwork& n, const std::vector<char>& active) {
  const std::size_t flows = n.bytes.size();
  std::vector<double> capacity = n.capacity;
  std::vector<double> weight_sum(capacity.size(), 0.0);
  std::vector<int> unfixed(capacity.size(), 0);
  for (std::size_t f = 0; f < flows; ++f) {
    if (!active[f]) continue;
    for (auto i = n.route_begin[f]; i < n.route_begin[f + 1]; ++i) {
      const auto l = static_cast<std::size_t>(n.route[static_cast<std::size_t>(i)]);
      weight_sum[l] += n.use[static_cast<std::size_t>(i)] * n.weight[f];
      ++unfixed[l];
    }
  }
  struct Level {
    double level;
    int link;
    int version;
    bool operator>(const Level& o) const { return level > o.level; }
  };
  std::vector<int> version(capacity.size(), 0);
  std::priority_queue<Level, std::vector<Level>, std::greater<>> queue;
  auto push = [&](std::size_t l) {
    if (unfixed[l] > 0) queue.push({std::max(0.0, capacity[l]) / weight_sum[l], static_cast<int>(l), version[l]});
  };
  for (std::size_t l = 0; l < capacity.size(); ++l) push(l);
  std::vector<double> rate(flows, 0.0);
  std::vector<char> fixed(flows, 0);
  while (!queue.empty()) {
    const Level top = queue.top();
    queue.pop();
    const auto l = static_cast<std::size_t>(top.link);
    if (top.version != version[l] || unfixed[l] == 0) continue;
    for (const int fi : n.flows_on(l)) {
      const auto f = static_cast<std::size_t>(fi);
      if (!active[f] || fixed[f]) continue;
      fixed[f] = 1;
      rate[f] = top.level * n.weight[f];
      for (auto i = n.route_begin[f]; i < n.route_begin[f + 1]; ++i) {
        const auto m = static_cast<std::size_t>(n.route[static_cast<std::size_t>(i)]);
        const double use = n.use[static_cast<std::size_t>(i)];
        capacity[m] -= use * rate[f];
        weight_sum[m] -= use * n.weight[f];
        --unfixed[m];
        ++version[m];
        if (m != l) push(m);
      }
    }
  }
  return rate;
}

// When the last flow has its bytes: the rates are solved, the flows that finish first (and
// those within kFinishTogether of them) end, and the rest go on at new rates.
double fluid_transfer_s(const FluidNetwork& n) {
  std::vector<double> left = n.bytes;
  std::vector<char> active(left.size(), 0);
  std::vector<std::int64_t> next(left.size(), -1);  // the flow that waits for this one
  for (std::size_t f = 0; f < left.size(); ++f) {
    if (n.after[f] < 0) {
      active[f] = 1;
    } else {
      next[static_cast<std::size_t>(n.after[f])] = static_cast<std::int64_t>(f);
    }
  }
  std::size_t running = left.size();
  double now = 0;
  while (running > 0) {
    const std::vector<double> rate = max_min_rates(n, active);
    double first = HUGE_VAL;
    for (std::size_t f = 0; f < left.size(); ++f) {
      if (active[f] && rate[f] > 0) first = std::min(first, left[f] / rate[f]);
    }
    if (!std::isfinite(first)) break;  // no active flow crosses a link
    for (std::size_t f = 0; f < left.size(); ++f) {
      if (!active[f]) continue;
      if (rate[f] > 0 && left[f] / rate[f] <= first * (1 + kFinishTogether)) {
        active[f] = 0;
        --running;
        // The next flow has no rate yet (0 in this pass): it starts with the next rates.
        if (next[f] >= 0) active[static_cast<std::size_t>(next[f])] = 1;
      } else {
        left[f] -= rate[f] * first;
      }
    }
    now += first;
  }
  return now;
}

// The busiest link's bytes over its bandwidth: no flow set ends sooner.
double busiest_link_s(const FluidNetwork& n) {
  std::vector<double> link_bytes(n.capacity.size(), 0.0);
  for (std::size_t f = 0; f < n.bytes.size(); ++f) {
    for (auto i = n.route_begin[f]; i < n.route_begin[f + 1]; ++i) {
      link_bytes[static_cast<std::size_t>(n.route[static_cast<std::size_t>(i)])] +=
          n.use[static_cast<std::size_t>(i)] * n.bytes[f];
    }
  }
  double busiest = 0;
  for (std::size_t l = 0; l < link_bytes.size(); ++l) busiest = std::max(busiest, link_bytes[l] / n.capacity[l]);
  return busiest;
}

}  // namespace

double NetworkModel::bulk_transfer_s(std::span<const RankFlow> flows, std::size_t link_limit,
                                     double follow_above_s) const {
  // Each receiver takes its messages in the order of their senders.
  std::vector<RankFlow> ordered(flows.begin(), flows.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const RankFlow& a, const RankFlow& b) { return std::pair(a.to, a.from) < std::pair(b.to, b.from); });
  FluidNetwork n;
  const int per_site = links_per_site();
  n.capacity.assign(static_cast<std::size_t>(per_site) * static_cast<std::size_t>(preset_.sites),
                    preset_.link_bandwidth);
  const double per_hop_penalty = preset_.link_latency + kSmpiWeightS / preset_.link_bandwidth;
  std::int64_t last_rendezvous = -1;
  int receiver = -1;
  for (const RankFlow& f : ordered) {
    const int from = node_of(f.from);
    const int to = node_of(f.to);
    const int site = site_of(f.from);
    if (site != site_of(f.to) || f.bytes <= 0) continue;  // the WAN's
    if (f.to != receiver) {
      receiver = f.to;
      last_rendezvous = -1;
    }
    const auto flow = static_cast<std::int64_t>(n.bytes.size());
    if (from == to) {
      // The loopback is no shared link: the flow's own, at the loopback's bandwidth.
      n.route.push_back(static_cast<int>(n.capacity.size()));
      n.use.push_back(1.0);
      n.capacity.push_back(preset_.loopback_bandwidth);
      n.weight.push_back(1.0 / preset_.loopback_latency);
    } else {
      append_site_route(site, from, to, n.route);
      n.use.resize(n.route.size(), 1.0);
      append_site_route(site, to, from, n.route);  // the way back, for the acknowledgements
      n.use.resize(n.route.size(), kCrossTraffic);
      const int base = site * layout_.hosts_per_site;
      n.weight.push_back(1.0 / (hops_within_site(from - base, to - base) * per_hop_penalty));
    }
    n.route_begin.push_back(static_cast<std::int64_t>(n.route.size()));
    n.bytes.push_back(f.bytes);
    const bool rendezvous = f.bytes >= preset_.eager_bytes;
    n.after.push_back(rendezvous ? last_rendezvous : -1);
    if (rendezvous) last_rendezvous = flow;
  }
  if (n.bytes.empty()) return 0.0;
  const double busiest = busiest_link_s(n);
  if (n.route.size() > link_limit || busiest < follow_above_s) return busiest;
  n.keep_used_links();
  n.index_links();
  return fluid_transfer_s(n);
}

std::vector<double> NetworkModel::step_drain_s(std::span<const RankFlow> flows) const {
  return drain_s(flows.size(), [&](std::size_t f) { return flows[f]; });
}

std::vector<double> NetworkModel::step_drain_s(std::span<const std::int64_t> into_begin, std::span<const int> from,
                                               std::span<const double> bytes) const {
  // The receiver of each flow, from the CSR's offsets.
  std::vector<int> to(from.size());
  for (std::size_t r = 0; r + 1 < into_begin.size(); ++r) {
    std::fill(to.begin() + into_begin[r], to.begin() + into_begin[r + 1], static_cast<int>(r));
  }
  return drain_s(from.size(), [&](std::size_t f) { return RankFlow{.from = from[f], .to = to[f], .bytes = bytes[f]}; });
}

std::vector<double> NetworkModel::drain_s(std::size_t count, const std::function<RankFlow(std::size_t)>& flow) const {
  const int per_site = links_per_site();
  std::vector<double> link_bytes(static_cast<std::size_t>(per_site) * static_cast<std::size_t>(preset_.sites), 0.0);
  std::vector<int> there;
  std::vector<int> back;
  // A flow's links there and back; false where it shares none.
  auto route_of = [&](const RankFlow& f) {
    const int a = node_of(f.from);
    const int b = node_of(f.to);
    const int site = site_of(f.from);
    there.clear();
    back.clear();
    if (a == b || site != site_of(f.to)) return false;
    append_site_route(site, a, b, there);
    append_site_route(site, b, a, back);
    return true;
  };
  // Two passes, the routes made again in the second, so that a step of a million ranks
  // holds no route beside its halo.
  for (std::size_t i = 0; i < count; ++i) {
    const RankFlow f = flow(i);
    if (!route_of(f)) continue;
    for (const int l : there) link_bytes[static_cast<std::size_t>(l)] += f.bytes;
    for (const int l : back) link_bytes[static_cast<std::size_t>(l)] += kCrossTraffic * f.bytes;
  }
  std::vector<double> drain(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    if (!route_of(flow(i))) continue;
    for (const int l : there) drain[i] = std::max(drain[i], link_bytes[static_cast<std::size_t>(l)]);
    drain[i] /= preset_.link_bandwidth;
  }
  return drain;
}

double NetworkModel::scattered_exchange_s_per_byte() const {
  const int nodes = this->nodes();
  const double p = nranks_;
  if (nranks_ < 2 || nodes < 2) return 0.0;
  std::vector<int> first_rank(static_cast<std::size_t>(nodes), -1);
  std::vector<double> ranks_on(static_cast<std::size_t>(nodes), 0.0);
  for (int r = 0; r < nranks_; ++r) {
    const auto n = static_cast<std::size_t>(node_of(r));
    if (first_rank[n] < 0) first_rank[n] = r;
    ranks_on[n] += 1;
  }
  const double sent = p * (p - 1);  // one byte from every rank to every other
  if (nodes > kScatterNodes) {
    const double busiest = *std::max_element(ranks_on.begin(), ranks_on.end());
    return busiest * (p - busiest) / node_bandwidth_Bps() / sent;
  }
  std::vector<RankFlow> flows;
  for (std::size_t a = 0; a < first_rank.size(); ++a) {
    for (std::size_t b = 0; b < first_rank.size(); ++b) {
      if (a != b) flows.push_back({.from = first_rank[a], .to = first_rank[b], .bytes = ranks_on[a] * ranks_on[b]});
    }
  }
  const std::vector<double> drain = step_drain_s(flows);
  return *std::max_element(drain.begin(), drain.end()) / sent;
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
