// A regrid carried out on one rank's blocks (see restructure.hpp).
#include "meshes/octree/restructure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/error.hpp"

namespace lbbench {

namespace {

// A block of the new mesh, as one side of an edge sees it.
struct Far {
  VertexId id;
  Rank owner;
  Block block;
};

// A block of the new mesh this rank holds, with the old blocks it is made of.
struct NewBlock {
  Block block;
  VertexId id;
  std::vector<LocalIndex> from;  // the old blocks it replaces
  bool is_child = false;         // of from[0], which split
};

class Rebuilder {
 public:
  Rebuilder(const LocalGraph& g, const OctreeGeometry& geometry, std::int64_t generation, Rank me,
            const FateOf& fate_of)
      : g_(g), geo_(geometry), generation_(generation), me_(me), fate_of_(fate_of) {}

  Restructured run() {
    read_old_blocks();
    list_new_blocks();
    Restructured out;
    out.graph = g_.facts_only();
    std::int64_t edges = 0;
    for (const NewBlock& b : new_) edges += static_cast<std::int64_t>(b.from.size()) * 8;
    out.graph.reserve_more(static_cast<std::int64_t>(new_.size()), edges);
    std::vector<VertexId> nbrs;
    std::vector<Rank> owners;
    for (const NewBlock& b : new_) {
      neighbours_of(b, nbrs, owners);
      const auto c = geo_.center(b.block);
      out.graph.add_vertex(b.id, nbrs, owners, {},
                           std::span<const double>(c.data(), static_cast<std::size_t>(geo_.dim())), {});
      for (const LocalIndex v : b.from) out.lineage.push_back(g_.gid[static_cast<std::size_t>(v)]);
      out.lineage_begin.push_back(static_cast<std::int64_t>(out.lineage.size()));
      if (b.from.size() != 1 || b.is_child) out.created.push_back(b.id);
    }
    for (LocalIndex v = 0; v < g_.num_local(); ++v) {
      if (fate_[static_cast<std::size_t>(v)] != Fate::stay)
        out.destroyed.push_back(g_.gid[static_cast<std::size_t>(v)]);
    }
    return out;
  }

 private:
  void read_old_blocks() {
    const auto n = static_cast<std::size_t>(g_.num_local());
    block_.reserve(n);
    fate_.reserve(n);
    at_slot_.reserve(n);
    for (std::size_t v = 0; v < n; ++v) {
      block_.push_back(geo_.block_of(g_.gid[v]));
      fate_.push_back(fate_of_(g_.gid[v]));
      at_slot_.emplace(slot_of(block_.back()), static_cast<LocalIndex>(v));
    }
    far_.reserve(g_.adj.size());
    for (std::size_t e = 0; e < g_.adj.size(); ++e) far_.push_back(geo_.block_of(g_.adj[e]));
  }

  // A block's place among every block the tree can hold, whatever its generation.
  [[nodiscard]] std::int64_t slot_of(const Block& b) const { return geo_.id_of(b, 0).value(); }

  void list_new_blocks() {
    std::vector<char> merged(block_.size(), 0);
    for (LocalIndex v = 0; v < g_.num_local(); ++v) {
      const auto i = static_cast<std::size_t>(v);
      switch (fate_[i]) {
        case Fate::stay: new_.push_back({block_[i], g_.gid[i], {v}, false}); break;
        case Fate::refine:
          for (int c = 0; c < geo_.children(); ++c) {
            const Block child = OctreeGeometry::child(block_[i], c);
            new_.push_back({child, geo_.id_of(child, generation_), {v}, true});
          }
          break;
        case Fate::coarsen:
          if (!merged[i]) new_.push_back(merge_family(v, merged));
          break;
      }
    }
  }

  NewBlock merge_family(LocalIndex first, std::vector<char>& merged) {
    const Block parent = OctreeGeometry::parent(block_[static_cast<std::size_t>(first)]);
    NewBlock out{parent, geo_.id_of(parent, generation_), {}, false};
    for (int c = 0; c < geo_.children(); ++c) {
      const auto it = at_slot_.find(slot_of(OctreeGeometry::child(parent, c)));
      if (it == at_slot_.end() || fate_[static_cast<std::size_t>(it->second)] != Fate::coarsen) {
        throw RunError(fmt::format("regrid: block {} merges, but its sibling {} is not on rank {} to merge with it",
                                   g_.gid[static_cast<std::size_t>(first)].value(), c, me_.value()));
      }
      merged[static_cast<std::size_t>(it->second)] = 1;
      out.from.push_back(it->second);
    }
    return out;
  }

  // What became of the far end of old edge e.
  void results_of_edge(std::int64_t e, std::vector<Far>& out) const {
    const auto i = static_cast<std::size_t>(e);
    const VertexId id = g_.adj[i];
    const Rank owner = g_.adj_owner[i];
    const Block& b = far_[i];
    switch (fate_of_(id)) {
      case Fate::stay: out.push_back({id, owner, b}); break;
      case Fate::refine:
        for (int c = 0; c < geo_.children(); ++c) {
          const Block child = OctreeGeometry::child(b, c);
          out.push_back({geo_.id_of(child, generation_), owner, child});
        }
        break;
      case Fate::coarsen: {
        const Block parent = OctreeGeometry::parent(b);
        out.push_back({geo_.id_of(parent, generation_), owner, parent});
        break;
      }
    }
  }

  void neighbours_of(const NewBlock& b, std::vector<VertexId>& nbrs, std::vector<Rank>& owners) const {
    std::vector<Far> candidates;
    for (const LocalIndex v : b.from) {
      for (std::int64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) results_of_edge(e, candidates);
    }
    if (b.is_child) {  // the other children of the same parent
      const Block& parent = block_[static_cast<std::size_t>(b.from[0])];
      for (int c = 0; c < geo_.children(); ++c) {
        const Block sibling = OctreeGeometry::child(parent, c);
        candidates.push_back({geo_.id_of(sibling, generation_), me_, sibling});
      }
    }
    std::erase_if(candidates, [&](const Far& f) { return f.id == b.id || !geo_.face_adjacent(b.block, f.block); });
    std::sort(candidates.begin(), candidates.end(), [](const Far& x, const Far& y) { return x.id < y.id; });
    nbrs.clear();
    owners.clear();
    for (const Far& f : candidates) {
      if (!nbrs.empty() && nbrs.back() == f.id) continue;
      nbrs.push_back(f.id);
      owners.push_back(f.owner);
    }
  }

  const LocalGraph& g_;
  const OctreeGeometry& geo_;
  std::int64_t generation_;
  Rank me_;
  const FateOf& fate_of_;
  std::vector<Block> block_;  // per old vertex
  std::vector<Fate> fate_;
  std::unordered_map<std::int64_t, LocalIndex> at_slot_;
  std::vector<Block> far_;  // per old edge: its far end
  std::vector<NewBlock> new_;
};

}  // namespace

Restructured restructure(const LocalGraph& g, const OctreeGeometry& geometry, std::int64_t generation, Rank me,
                         const FateOf& fate_of) {
  return Rebuilder(g, geometry, generation, me, fate_of).run();
}

}  // namespace lbbench
