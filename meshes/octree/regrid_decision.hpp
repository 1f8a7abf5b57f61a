// How a block mesh decides a regrid, as a collective protocol of the ranks that hold the
// blocks, after Langer et al.'s distributed remeshing (SBAC-PAD 2012): each block takes
// the criterion's wish, then talks only to the ranks of its face neighbours.
//
//  1. Splits spread: a block whose finer neighbour splits must split too, or the two
//     would end two levels apart (2:1 balance). Rounds of messages carry each boundary
//     block's flag until no flag changes anywhere (an allreduce ends each round); each
//     round reads the flags of the round before, so the rounds, and their outcome, do not
//     depend on how the blocks are distributed.
//  2. Families agree: a family merges when all 2^dim siblings are leaves, all wish to
//     merge, none splits, and no neighbour of any of them ends finer than their own level.
//     Siblings are face neighbours of each other; `dim` rounds of messages, each merging
//     what a block knows of its family with what its sibling neighbours knew, give every
//     sibling the whole family: whether each agrees, and which rank holds it. The family
//     gathers on the rank that holds most of its blocks (the lowest such rank on a tie).
// Departures: in Langer et al.'s AMR3D every block, leaf or not, is a chare; decisions
// spread by messages until quiescence detection finds no more, and merging children tell
// their parent's chare and send it their data. Here only leaves exist, a round of step 1
// ends with an allreduce and step 2 takes a fixed count of rounds, as a bulk-synchronous
// MPI code runs them, and a family gathers on the rank that holds most of it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "comm/sparse_exchange.hpp"
#include "core/local_graph.hpp"
#include "meshes/mesh_spec.hpp"
#include "meshes/octree/front.hpp"
#include "meshes/octree/geometry.hpp"

namespace lbbench {

enum class Fate : std::uint8_t { stay = 0, refine = 1, coarsen = 2 };

// What a rank sent in a regrid's rounds of messages.
struct RegridTraffic {
  int rounds = 0;
  std::int64_t messages = 0;
  std::int64_t bytes = 0;
  void add_round(const std::vector<Message>& sent);
};

struct RegridContext {
  const OctreeSpec& spec;
  const OctreeGeometry& geometry;
  const Front& front;
  int step = 0;              // the criterion's step
  bool refine_only = false;  // building the initial mesh: no family merges
};

struct RegridDecision {
  std::vector<Fate> fate;       // per local vertex
  std::vector<Rank> gather_to;  // per local vertex: its family's gathering rank where it merges, else its owner
  RegridTraffic traffic;        // this rank's messages in both steps
  int split_rounds = 0;         // rounds of step 1
  std::int64_t refined = 0;     // local blocks that split
  std::int64_t families = 0;    // families that merge, counted where their child 0 is
};

// How many of these blocks the criterion asks to split or to merge: where none does on
// any rank, a regrid has nothing to decide (no communication).
std::int64_t wished_changes(const RegridContext& ctx, const LocalGraph& g);

// Collective over `comm`; `exchange` carries the rounds' messages. `owner[v]` is the rank
// that holds local vertex v: this rank, or, for a process that holds every block of a
// modeled machine, the modeled rank. A neighbour this process does not hold is asked of
// the rank its owner-table entry names; one that holds every block sends nothing.
RegridDecision decide_regrid(const RegridContext& ctx, const LocalGraph& g, std::span<const Rank> owner,
                             SparseExchange& exchange, MPI_Comm comm);

// The fate of every block this rank holds or borders: `fate` of its own, and those of
// its neighbours on other ranks, told in one round of messages (counted in `traffic`).
// Collective. fate_of throws RunError for a block it was not told.
class FateBook {
 public:
  FateBook(const LocalGraph& g, const std::vector<Fate>& fate, SparseExchange& exchange, RegridTraffic& traffic);
  [[nodiscard]] Fate of(VertexId id) const;

 private:
  std::unordered_map<VertexId, Fate> fates_;
};

// The number of blocks each rank sends the others in one round of `entry_bytes` per block
// (a block goes once to each rank that holds a neighbour of it): what a round of the
// protocol costs a modeled machine. `owner_of(v)` names local vertex v's rank, and
// `owner` of each edge's far end comes from the owner table.
struct RoundFlow {
  int from = 0;
  int to = 0;
  double bytes = 0;
};
std::vector<RoundFlow> round_flows(const LocalGraph& g, std::span<const Rank> owner, std::int64_t entry_bytes,
                                   const std::function<bool(LocalIndex, std::int64_t)>& sends_over);

// Bytes of one block's entry in each kind of round.
inline constexpr std::int64_t kSplitEntryBytes = 9;  // id, flag
inline constexpr std::int64_t kFateEntryBytes = 9;   // id, fate
std::int64_t family_entry_bytes(int dim);            // id, known and agreeing siblings, their ranks

}  // namespace lbbench
