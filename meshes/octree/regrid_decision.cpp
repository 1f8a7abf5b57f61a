// A regrid's decision (see regrid_decision.hpp).
#include "meshes/octree/regrid_decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "comm/code_time.hpp"
#include "comm/mpi.hpp"
#include "core/error.hpp"

namespace lbbench {

void RegridTraffic::add_round(const std::vector<Message>& sent) {
  ++rounds;
  messages += static_cast<std::int64_t>(sent.size());
  for (const auto& m : sent) bytes += static_cast<std::int64_t>(m.data.size());
}

std::int64_t family_entry_bytes(int dim) { return 8 + 2 + 4 * (std::int64_t{1} << dim); }

namespace {

// Where each edge's far end is: a block this process holds (its local index) or one
// another rank holds (its slot among the remote neighbours, whose states arrive by
// message). Which rank each boundary block is sent to.
struct Neighbourhood {
  std::vector<LocalIndex> local;     // per edge: the neighbour's local index, or -1
  std::vector<std::int32_t> remote;  // per edge: the neighbour's remote slot, or -1
  std::vector<Block> block;          // per local vertex
  std::vector<Block> remote_block;   // per remote slot
  std::unordered_map<VertexId, std::int32_t> slot_of;
  std::map<int, std::vector<LocalIndex>> boundary;          // per rank: local vertices with a neighbour there
  std::map<int, std::vector<LocalIndex>> sibling_boundary;  // ... with a sibling there

  [[nodiscard]] const Block& far_block(std::int64_t e) const {
    const auto i = static_cast<std::size_t>(e);
    return local[i] >= 0 ? block[static_cast<std::size_t>(local[i])]
                         : remote_block[static_cast<std::size_t>(remote[i])];
  }
};

Neighbourhood neighbourhood_of(const LocalGraph& g, const OctreeGeometry& geometry) {
  Neighbourhood n;
  std::unordered_map<VertexId, LocalIndex> local_of;
  local_of.reserve(static_cast<std::size_t>(g.num_local()));
  n.block.reserve(static_cast<std::size_t>(g.num_local()));
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    local_of.emplace(g.gid[static_cast<std::size_t>(v)], v);
    n.block.push_back(geometry.block_of(g.gid[static_cast<std::size_t>(v)]));
  }
  n.local.assign(g.adj.size(), -1);
  n.remote.assign(g.adj.size(), -1);
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const auto i = static_cast<std::size_t>(e);
      if (const auto it = local_of.find(g.adj[i]); it != local_of.end()) {
        n.local[i] = it->second;
        continue;
      }
      const auto [slot, fresh] = n.slot_of.try_emplace(g.adj[i], static_cast<std::int32_t>(n.remote_block.size()));
      if (fresh) n.remote_block.push_back(geometry.block_of(g.adj[i]));
      n.remote[i] = slot->second;
      const int peer = g.adj_owner[i].value();
      auto& to_peer = n.boundary[peer];
      if (to_peer.empty() || to_peer.back() != v) to_peer.push_back(v);
      if (OctreeGeometry::siblings(n.block[static_cast<std::size_t>(v)],
                                   n.remote_block[static_cast<std::size_t>(slot->second)])) {
        auto& siblings = n.sibling_boundary[peer];
        if (siblings.empty() || siblings.back() != v) siblings.push_back(v);
      }
    }
  }
  return n;
}

// What a block knows of its family: which siblings it has heard of (bit i for child i),
// which of those agree to merge, and the rank that holds each.
struct Family {
  std::uint8_t known = 0;
  std::uint8_t agree = 0;
  std::array<std::int32_t, 8> owner{};

  void merge(const Family& other) {
    for (int i = 0; i < 8; ++i) {
      if ((other.known >> i) & 1U) owner[static_cast<std::size_t>(i)] = other.owner[static_cast<std::size_t>(i)];
    }
    known |= other.known;
    agree |= other.agree;
  }
  // The rank that holds most of the family, the lowest on a tie.
  [[nodiscard]] int gathering_rank(int children) const {
    std::map<int, int> held;
    for (int i = 0; i < children; ++i) ++held[owner[static_cast<std::size_t>(i)]];
    int best = owner[0];
    int most = 0;
    for (const auto& [rank, count] : held) {
      if (count > most) {
        best = rank;
        most = count;
      }
    }
    return best;
  }
};

// A round's states of the boundary blocks, one message per rank that borders them.
template <class Put>
std::vector<Message> boundary_messages(const std::map<int, std::vector<LocalIndex>>& lists, const LocalGraph& g,
                                       Put put) {
  std::vector<Message> out;
  for (const auto& [peer, vertices] : lists) {
    Message m{peer, {}};
    ByteWriter w(m.data);
    for (const LocalIndex v : vertices) {
      w.put(g.gid[static_cast<std::size_t>(v)]);
      put(w, v);
    }
    out.push_back(std::move(m));
  }
  return out;
}

template <class Get>
void read_states(const std::vector<Message>& received, const Neighbourhood& n, int me, Get get) {
  for (const auto& m : received) {
    ByteReader r(m.data);
    while (!r.done()) {
      const auto id = r.get<VertexId>();
      const auto it = n.slot_of.find(id);
      if (it == n.slot_of.end()) {
        throw RunError(fmt::format("regrid: rank {} told rank {} of block {}, which borders none of its blocks", m.peer,
                                   me, id.value()));
      }
      get(r, it->second);
    }
  }
}

class Decider {
 public:
  Decider(const RegridContext& ctx, const LocalGraph& g, std::span<const Rank> owner, SparseExchange& exchange,
          MPI_Comm comm)
      : ctx_(ctx), g_(g), owner_(owner), exchange_(exchange), comm_(comm), me_(comm_rank(comm)) {
    const ChargedCode code;
    n_ = neighbourhood_of(g, ctx.geometry);
    wish_.reserve(n_.block.size());
    for (const Block& b : n_.block) wish_.push_back(wish_of(ctx.spec, ctx.geometry, ctx.front, b, ctx.step));
  }

  RegridDecision decide() {
    RegridDecision d;
    spread_splits(d);
    const std::vector<Family> families = ctx_.refine_only ? std::vector<Family>() : agree_on_merges(d);
    const ChargedCode code;
    const auto n = static_cast<std::size_t>(g_.num_local());
    const int children = ctx_.geometry.children();
    const auto whole = static_cast<std::uint8_t>((1U << children) - 1);
    d.fate.assign(n, Fate::stay);
    d.gather_to.assign(owner_.begin(), owner_.end());
    for (std::size_t v = 0; v < n; ++v) {
      if (split_[v]) {
        d.fate[v] = Fate::refine;
        ++d.refined;
      } else if (!families.empty() && families[v].known == whole && families[v].agree == whole) {
        d.fate[v] = Fate::coarsen;
        d.gather_to[v] = Rank{families[v].gathering_rank(children)};
        if (ctx_.geometry.child_index(n_.block[v]) == 0) ++d.families;
      }
    }
    return d;
  }

 private:
  // Step 1: rounds until no block's split flag changes.
  void spread_splits(RegridDecision& d) {
    const auto n = static_cast<std::size_t>(g_.num_local());
    split_.assign(n, 0);
    for (std::size_t v = 0; v < n; ++v) split_[v] = wish_[v] == Wish::refine ? 1 : 0;
    remote_split_.assign(n_.remote_block.size(), 0);
    std::vector<char> next(n);
    for (;;) {
      const auto sent = boundary_messages(n_.boundary, g_, [&](ByteWriter& w, LocalIndex v) {
        w.put(static_cast<std::uint8_t>(split_[static_cast<std::size_t>(v)]));
      });
      d.traffic.add_round(sent);
      const auto received = exchange_.exchange(sent);
      ++d.split_rounds;
      std::int64_t changed = 0;
      {
        const ChargedCode code;
        read_states(received, n_, me_, [&](ByteReader& r, std::int32_t slot) {
          remote_split_[static_cast<std::size_t>(slot)] = static_cast<char>(r.get<std::uint8_t>());
        });
        for (std::size_t v = 0; v < n; ++v) {
          next[v] = split_[v] || forced_to_split(static_cast<LocalIndex>(v)) ? 1 : 0;
          changed += next[v] != split_[v] ? 1 : 0;
        }
        split_.swap(next);
      }
      if (allreduce(changed, MPI_SUM, comm_) == 0) return;
    }
  }

  [[nodiscard]] bool splits(std::int64_t e) const {
    const auto i = static_cast<std::size_t>(e);
    return n_.local[i] >= 0 ? split_[static_cast<std::size_t>(n_.local[i])] != 0
                            : remote_split_[static_cast<std::size_t>(n_.remote[i])] != 0;
  }

  // A finer neighbour splits: staying would leave the two levels two apart.
  [[nodiscard]] bool forced_to_split(LocalIndex v) const {
    const int level = n_.block[static_cast<std::size_t>(v)].level;
    for (std::int64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) {
      if (n_.far_block(e).level > level && splits(e)) return true;
    }
    return false;
  }

  // A block agrees to merge: it wishes to, does not split, and no neighbour ends finer.
  [[nodiscard]] bool agrees(LocalIndex v) const {
    const auto i = static_cast<std::size_t>(v);
    if (wish_[i] != Wish::coarsen || split_[i]) return false;
    const int level = n_.block[i].level;
    for (std::int64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) {
      if (n_.far_block(e).level + (splits(e) ? 1 : 0) > level) return false;
    }
    return true;
  }

  // Step 2: `dim` rounds among siblings.
  std::vector<Family> agree_on_merges(RegridDecision& d) {
    const auto n = static_cast<std::size_t>(g_.num_local());
    const int children = ctx_.geometry.children();
    std::vector<Family> family(n);
    {
      const ChargedCode code;
      for (std::size_t v = 0; v < n; ++v) {
        const int i = ctx_.geometry.child_index(n_.block[v]);
        family[v].known = static_cast<std::uint8_t>(1U << i);
        family[v].agree = agrees(static_cast<LocalIndex>(v)) ? family[v].known : 0;
        family[v].owner[static_cast<std::size_t>(i)] = owner_[v].value();
      }
    }
    std::vector<Family> remote(n_.remote_block.size());
    for (int round = 0; round < ctx_.geometry.dim(); ++round) {
      const auto sent = boundary_messages(n_.sibling_boundary, g_, [&](ByteWriter& w, LocalIndex v) {
        const Family& f = family[static_cast<std::size_t>(v)];
        w.put(f.known);
        w.put(f.agree);
        w.put_span(std::span<const std::int32_t>(f.owner.data(), static_cast<std::size_t>(children)));
      });
      d.traffic.add_round(sent);
      const auto received = exchange_.exchange(sent);
      const ChargedCode code;
      read_states(received, n_, me_, [&](ByteReader& r, std::int32_t slot) {
        Family& f = remote[static_cast<std::size_t>(slot)];
        f.known = r.get<std::uint8_t>();
        f.agree = r.get<std::uint8_t>();
        for (int i = 0; i < children; ++i) f.owner[static_cast<std::size_t>(i)] = r.get<std::int32_t>();
      });
      std::vector<Family> next = family;
      for (std::size_t v = 0; v < n; ++v) {
        for (std::int64_t e = g_.xadj[static_cast<LocalIndex>(v)]; e < g_.xadj[static_cast<LocalIndex>(v) + 1]; ++e) {
          if (!OctreeGeometry::siblings(n_.block[v], n_.far_block(e))) continue;
          const auto k = static_cast<std::size_t>(e);
          next[v].merge(n_.local[k] >= 0 ? family[static_cast<std::size_t>(n_.local[k])]
                                         : remote[static_cast<std::size_t>(n_.remote[k])]);
        }
      }
      family.swap(next);
    }
    return family;
  }

  const RegridContext& ctx_;
  const LocalGraph& g_;
  std::span<const Rank> owner_;
  SparseExchange& exchange_;
  MPI_Comm comm_;
  int me_;
  Neighbourhood n_;
  std::vector<Wish> wish_;
  std::vector<char> split_;
  std::vector<char> remote_split_;
};

}  // namespace

std::int64_t wished_changes(const RegridContext& ctx, const LocalGraph& g) {
  const ChargedCode code;
  std::int64_t wished = 0;
  for (const VertexId id : g.gid) {
    wished += wish_of(ctx.spec, ctx.geometry, ctx.front, ctx.geometry.block_of(id), ctx.step) != Wish::stay ? 1 : 0;
  }
  return wished;
}

RegridDecision decide_regrid(const RegridContext& ctx, const LocalGraph& g, std::span<const Rank> owner,
                             SparseExchange& exchange, MPI_Comm comm) {
  return Decider(ctx, g, owner, exchange, comm).decide();
}

FateBook::FateBook(const LocalGraph& g, const std::vector<Fate>& fate, SparseExchange& exchange,
                   RegridTraffic& traffic) {
  std::map<int, std::vector<LocalIndex>> boundary;
  {
    const ChargedCode code;
    fates_.reserve(static_cast<std::size_t>(g.num_local()));
    for (LocalIndex v = 0; v < g.num_local(); ++v)
      fates_.emplace(g.gid[static_cast<std::size_t>(v)], fate[static_cast<std::size_t>(v)]);
    for (LocalIndex v = 0; v < g.num_local(); ++v) {
      for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
        const auto i = static_cast<std::size_t>(e);
        if (fates_.contains(g.adj[i])) continue;
        auto& to_peer = boundary[g.adj_owner[i].value()];
        if (to_peer.empty() || to_peer.back() != v) to_peer.push_back(v);
      }
    }
  }
  const auto sent = boundary_messages(boundary, g, [&](ByteWriter& w, LocalIndex v) {
    w.put(static_cast<std::uint8_t>(fate[static_cast<std::size_t>(v)]));
  });
  traffic.add_round(sent);
  const auto received = exchange.exchange(sent);
  const ChargedCode code;
  for (const auto& m : received) {
    ByteReader r(m.data);
    while (!r.done()) {
      const auto id = r.get<VertexId>();
      fates_[id] = static_cast<Fate>(r.get<std::uint8_t>());
    }
  }
}

Fate FateBook::of(VertexId id) const {
  const auto it = fates_.find(id);
  if (it == fates_.end()) throw RunError(fmt::format("regrid: no rank told the fate of block {}", id.value()));
  return it->second;
}

std::vector<RoundFlow> round_flows(const LocalGraph& g, std::span<const Rank> owner, std::int64_t entry_bytes,
                                   const std::function<bool(LocalIndex, std::int64_t)>& sends_over) {
  std::map<std::pair<int, int>, double> pairs;
  std::vector<int> told;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const int from = owner[static_cast<std::size_t>(v)].value();
    told.clear();
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const int to = g.adj_owner[static_cast<std::size_t>(e)].value();
      if (to == from || !sends_over(v, e) || std::find(told.begin(), told.end(), to) != told.end()) continue;
      told.push_back(to);
      pairs[{from, to}] += static_cast<double>(entry_bytes);
    }
  }
  std::vector<RoundFlow> out;
  out.reserve(pairs.size());
  for (const auto& [pair, bytes] : pairs) out.push_back({pair.first, pair.second, bytes});
  return out;
}

}  // namespace lbbench
