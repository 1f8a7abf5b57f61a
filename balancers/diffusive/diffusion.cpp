// First-order diffusion (see diffusion.hpp).
#include "balancers/diffusive/diffusion.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lbbench {

namespace {

class DiffusionProtocol final : public CopyableProtocol<DiffusionProtocol> {
 public:
  DiffusionProtocol(RankWork work, DiffusionParams params)
      : w_(std::move(work)), p_(params), load_(static_cast<double>(w_.load())) {
    flow_.assign(w_.peers.size(), 0.0);
    peer_degree_.assign(w_.peers.size(), 0);
    owners_.assign(w_.units(), Rank{w_.rank});
  }

  Outbox step(const Inbox& inbox) override {
    if (done_) return {};
    Outbox out;
    if (first_) {
      first_ = false;
      out.sum = {w_.load()};
      out.max = {w_.load()};
      send_load(out, true);
      return out;
    }
    if (!inbox.sum.empty()) average_ = static_cast<double>(inbox.sum[0]) / w_.nranks;
    const std::vector<double> peer_load = read_peer_loads(inbox);
    const double max_load = static_cast<double>(inbox.max.at(0));
    if (iteration_ == p_.iterations || average_ <= 0 || max_load / average_ - 1.0 <= p_.threshold) {
      select_vertices();
      done_ = true;
      return out;
    }
    diffuse(peer_load);
    ++iteration_;
    out.max = {std::llround(load_)};
    send_load(out, false);
    return out;
  }

  [[nodiscard]] bool finished() const override { return done_; }
  [[nodiscard]] std::vector<Rank> owners() const override { return owners_; }
  [[nodiscard]] std::int64_t largest_list() const override { return static_cast<std::int64_t>(w_.peers.size()); }

 private:
  void send_load(Outbox& out, bool with_degree) const {
    for (const int peer : w_.peers) {
      Message m{peer, {}};
      ByteWriter writer(m.data);
      writer.put(load_);
      if (with_degree) writer.put(static_cast<std::int32_t>(w_.peers.size()));
      out.messages.push_back(std::move(m));
    }
  }

  // Messages arrive sorted by sender, and peers are sorted: one message per peer.
  std::vector<double> read_peer_loads(const Inbox& inbox) {
    std::vector<double> loads(w_.peers.size(), 0.0);
    std::size_t k = 0;
    for (const auto& m : inbox.messages) {
      while (k < w_.peers.size() && w_.peers[k] != m.peer) ++k;
      if (k == w_.peers.size()) throw std::logic_error("diffusion: a message from a rank that is not a neighbor");
      ByteReader reader(m.data);
      loads[k] = reader.get<double>();
      if (!reader.done()) peer_degree_[k] = reader.get<std::int32_t>();
    }
    return loads;
  }

  void diffuse(const std::vector<double>& peer_load) {
    const double mine = load_;
    const auto my_degree = static_cast<std::int32_t>(w_.peers.size());
    for (std::size_t k = 0; k < w_.peers.size(); ++k) {
      const double alpha = p_.alpha(my_degree, peer_degree_[k]);
      const double f = alpha * (mine - peer_load[k]);
      flow_[k] += f;
      load_ -= f;
    }
  }

  // Carries each positive flow, largest first, with vertices that grow a region from the
  // shared boundary: first the boundary vertices most attached to the receiver, then
  // layer by layer the vertices most attached to what it already gets. A vertex goes only
  // if it fits in what is left to send: overshooting would make a receiver that also gets
  // load from other neighbors the new maximum.
  void select_vertices() {
    std::vector<std::size_t> order(w_.peers.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return flow_[a] > flow_[b]; });
    std::vector<bool> taken(w_.units(), false);
    for (const std::size_t k : order) {
      if (flow_[k] <= 0) break;
      grow_region(w_.peers[k], flow_[k], taken);
    }
  }

  void grow_region(int peer, double left, std::vector<bool>& taken) {
    std::vector<std::int32_t> toward(w_.units(), 0);  // edges to the peer or to vertices it gets
    std::vector<std::size_t> frontier;
    for (std::size_t u = 0; u < w_.units(); ++u) {
      for (auto e = w_.nbr_xadj[u]; e < w_.nbr_xadj[u + 1]; ++e) {
        if (w_.nbr_rank[static_cast<std::size_t>(e)] == peer) toward[u] = w_.nbr_edges[static_cast<std::size_t>(e)];
      }
      if (toward[u] > 0 && !taken[u]) frontier.push_back(u);
    }
    const auto attachment = [&](std::size_t u) {
      return static_cast<double>(toward[u]) / std::max<std::int32_t>(1, w_.degree[u]);
    };
    while (left > 0 && !frontier.empty()) {
      std::stable_sort(frontier.begin(), frontier.end(),
                       [&](std::size_t a, std::size_t b) { return attachment(a) > attachment(b); });
      std::vector<std::size_t> next;
      for (const std::size_t u : frontier) {
        if (left <= 0) break;
        const auto q = static_cast<double>(w_.quanta[u]);
        if (taken[u] || q > left) continue;
        taken[u] = true;
        owners_[u] = Rank{peer};
        left -= q;
        for (auto e = w_.local_xadj[u]; e < w_.local_xadj[u + 1]; ++e) {
          const auto v = static_cast<std::size_t>(w_.local_adj[static_cast<std::size_t>(e)]);
          if (taken[v]) continue;
          if (toward[v]++ == 0) next.push_back(v);
        }
      }
      frontier = std::move(next);
    }
  }

  RankWork w_;
  DiffusionParams p_;
  double load_;  // virtual load, in quanta
  double average_ = 0;
  std::vector<double> flow_;  // accumulated flow to each peer
  std::vector<std::int32_t> peer_degree_;
  std::vector<Rank> owners_;
  int iteration_ = 0;
  bool first_ = true;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<RankProtocol> DiffusionBalancer::make_protocol(RankWork work, const ProtocolContext&) const {
  return std::make_unique<DiffusionProtocol>(std::move(work), params_);
}

}  // namespace lbbench
