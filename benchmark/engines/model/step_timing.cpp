// A step's time on every rank (see step_timing.hpp).
#include "engines/model/step_timing.hpp"

#include <algorithm>
#include <numeric>

namespace lbbench {

namespace {

// What a step's messages have in common.
struct StepNetwork {
  const NetworkModel& net;
  const Halo& halo;
  const std::vector<double>& start;
  double wan_flows;  // messages crossing the wide-area link in the step
};

// When the i-th of the back-to-back messages of halo entry `h` (to its rank from its peer,
// or back when `back`) arrives.
double arrival_s(const StepNetwork& sn, int rank, std::size_t h, std::int64_t i, bool back = false) {
  const Halo& halo = sn.halo;
  const int from = back ? rank : halo.peer[h];
  const int to = back ? halo.peer[h] : rank;
  const auto count = static_cast<double>(halo.messages[h]);
  const double each = halo.bytes[h] / count;
  const double start_from = sn.start[static_cast<std::size_t>(from)];
  // Eager data leaves at once; rendezvous data once the receive is posted (MachinePreset).
  const double leaves =
      each < sn.net.preset().eager_bytes ? start_from : std::max(start_from, sn.start[static_cast<std::size_t>(to)]);
  // The way back is the peer's entry for this rank (the graph is symmetric, so it has one).
  const auto ours = [&] {
    if (!back) return h;
    const auto peer = static_cast<std::size_t>(to);
    const auto last = halo.peer.begin() + halo.begin[peer + 1];
    const auto it = std::lower_bound(halo.peer.begin() + halo.begin[peer], last, rank);
    return it != last && *it == rank ? static_cast<std::size_t>(it - halo.peer.begin()) : h;
  }();
  const double alone = each / sn.net.bandwidth_Bps(from, to, sn.wan_flows);
  return leaves + sn.net.latency_s(from, to) + static_cast<double>(i + 1) * std::max(alone, halo.drain_s[ours] / count);
}

// Waits for the rank's receives in order from `t`, each costing the receive overhead once
// it is in; returns when the last is done. Rendezvous sends complete when their data
// arrives, which can be later still.
double wait_for_messages(const StepNetwork& sn, int r, double t) {
  const Halo& halo = sn.halo;
  const auto ru = static_cast<std::size_t>(r);
  for (std::int64_t i = halo.begin[ru]; i < halo.begin[ru + 1]; ++i) {
    const auto iu = static_cast<std::size_t>(i);
    for (std::int64_t m = 0; m < halo.messages[iu]; ++m) {
      t = std::max(t, arrival_s(sn, r, iu, m)) +
          sn.net.receive_overhead_s(halo.bytes[iu] / static_cast<double>(halo.messages[iu]));
    }
  }
  for (std::int64_t i = halo.begin[ru]; i < halo.begin[ru + 1]; ++i) {
    const auto iu = static_cast<std::size_t>(i);
    if (halo.bytes[iu] / static_cast<double>(halo.messages[iu]) < sn.net.preset().eager_bytes) continue;
    t = std::max(t, arrival_s(sn, r, iu, halo.messages[iu] - 1, true));
  }
  return t;
}

// Interior vertices while messages fly, then each boundary vertex once the last of its
// messages is in, in the order the messages complete.
double message_driven_end(const ModelState& state, const StepNetwork& sn, const std::vector<double>& work, int r) {
  const Halo& halo = sn.halo;
  const auto ru = static_cast<std::size_t>(r);
  const LocalGraph& g = state.graph();
  struct Arrival {
    double at;
    double overhead;  // the receive's
    double work = 0;  // of the vertices whose last message this is
  };
  std::vector<Arrival> arrivals;
  std::vector<int> peers;
  for (std::int64_t i = halo.begin[ru]; i < halo.begin[ru + 1]; ++i) {
    const auto iu = static_cast<std::size_t>(i);
    const int s = halo.peer[iu];
    peers.push_back(s);
    arrivals.push_back({arrival_s(sn, r, iu, halo.messages[iu] - 1),
                        sn.net.receive_overhead_s(halo.bytes[iu] / static_cast<double>(halo.messages[iu]))});
  }
  double interior = 0;
  for (const std::int64_t v : state.vertices_of(r)) {
    std::int64_t last = -1;
    for (std::int64_t e = g.xadj[static_cast<std::size_t>(v)]; e < g.xadj[static_cast<std::size_t>(v) + 1]; ++e) {
      const int owner = g.adj_owner[static_cast<std::size_t>(e)].value();
      if (owner == r) continue;
      const auto at = static_cast<std::int64_t>(std::lower_bound(peers.begin(), peers.end(), owner) - peers.begin());
      if (last < 0 || arrivals[static_cast<std::size_t>(at)].at > arrivals[static_cast<std::size_t>(last)].at)
        last = at;
    }
    if (last < 0) {
      interior += work[static_cast<std::size_t>(v)];
    } else {
      arrivals[static_cast<std::size_t>(last)].work += work[static_cast<std::size_t>(v)];
    }
  }
  std::sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
  double t = sn.start[ru] + interior;
  for (const auto& a : arrivals) t = std::max(t, a.at) + a.overhead + a.work;
  return t;
}

}  // namespace

Halo halo_of(const ModelState& state, const WorkloadSpec& workload, const NetworkModel& net) {
  const LocalGraph& g = state.graph();
  const int p = state.nranks();
  Halo h;
  std::vector<double> bytes_to(static_cast<std::size_t>(p), 0.0);
  std::vector<std::int64_t> edges_to(static_cast<std::size_t>(p), 0);
  std::vector<int> touched;
  for (int r = 0; r < p; ++r) {
    touched.clear();
    for (const std::int64_t v : state.vertices_of(r)) {
      for (std::int64_t e = g.xadj[static_cast<std::size_t>(v)]; e < g.xadj[static_cast<std::size_t>(v) + 1]; ++e) {
        const int s = g.adj_owner[static_cast<std::size_t>(e)].value();
        if (s == r) continue;
        const auto su = static_cast<std::size_t>(s);
        if (edges_to[su] == 0) touched.push_back(s);
        ++edges_to[su];
        bytes_to[su] += static_cast<double>(workload.edge_bytes * g.edge_weight(e));
      }
    }
    std::sort(touched.begin(), touched.end());
    for (const int s : touched) {
      const auto su = static_cast<std::size_t>(s);
      h.peer.push_back(s);
      h.bytes.push_back(bytes_to[su]);
      h.edges.push_back(edges_to[su]);
      h.messages.push_back(workload.messages == MessageMode::per_neighbor ? 1 : edges_to[su]);
      bytes_to[su] = 0;
      edges_to[su] = 0;
    }
    h.begin.push_back(static_cast<std::int64_t>(h.peer.size()));
  }
  h.drain_s = net.step_drain_s(h.begin, h.peer, h.bytes);
  return h;
}

CommCensus census_of(const Halo& h, const NetworkModel& net) {
  CommCensus c;
  for (int r = 0; r + 1 < static_cast<int>(h.begin.size()); ++r) {
    for (std::int64_t i = h.begin[static_cast<std::size_t>(r)]; i < h.begin[static_cast<std::size_t>(r) + 1]; ++i) {
      const auto iu = static_cast<std::size_t>(i);
      c.edge_cut += h.edges[iu];
      c.edge_cut_bytes += static_cast<std::int64_t>(h.bytes[iu]);
      c.messages_per_step += h.messages[iu];
      if (net.site_of(r) != net.site_of(h.peer[iu])) c.cross_site_messages_per_step += h.messages[iu];
    }
  }
  c.edge_cut /= 2;
  c.edge_cut_bytes /= 2;
  return c;
}

StepTimes time_step(const ModelState& state, const Halo& halo, const NetworkModel& net, const WorkloadSpec& workload,
                    const std::vector<std::vector<double>>& work, const std::vector<double>& start) {
  const int p = state.nranks();
  const auto pu = static_cast<std::size_t>(p);
  const std::size_t dims = work.size();
  StepTimes out;
  out.compute.assign(pu, 0.0);
  out.phase_compute.assign(dims, std::vector<double>(pu, 0.0));
  out.end.assign(pu, 0.0);
  for (int r = 0; r < p; ++r) {
    for (const std::int64_t v : state.vertices_of(r)) {
      for (std::size_t k = 0; k < dims; ++k)
        out.phase_compute[k][static_cast<std::size_t>(r)] += work[k][static_cast<std::size_t>(v)];
    }
    for (std::size_t k = 0; k < dims; ++k)
      out.compute[static_cast<std::size_t>(r)] += out.phase_compute[k][static_cast<std::size_t>(r)];
  }
  const StepNetwork sn{net, halo, start, static_cast<double>(census_of(halo, net).cross_site_messages_per_step)};
  if (workload.schedule == Schedule::message_driven) {
    for (int r = 0; r < p; ++r) out.end[static_cast<std::size_t>(r)] = message_driven_end(state, sn, work[0], r);
    return out;
  }
  if (dims == 1) {
    for (int r = 0; r < p; ++r) {
      const auto ru = static_cast<std::size_t>(r);
      out.end[ru] = wait_for_messages(sn, r, start[ru] + out.compute[ru]);
    }
    return out;
  }
  // Phases in turn, each ended by a barrier over all ranks; then the messages.
  double barrier_end = 0;
  for (std::size_t r = 0; r < pu; ++r) barrier_end = std::max(barrier_end, start[r] + out.phase_compute[0][r]);
  barrier_end += net.barrier_s();
  for (std::size_t k = 1; k < dims; ++k) {
    double slowest = 0;
    for (std::size_t r = 0; r < pu; ++r) slowest = std::max(slowest, out.phase_compute[k][r]);
    barrier_end += slowest + net.barrier_s();
  }
  for (int r = 0; r < p; ++r) out.end[static_cast<std::size_t>(r)] = wait_for_messages(sn, r, barrier_end);
  return out;
}

}  // namespace lbbench
