// Centralized strategies: gather the whole load picture to rank 0, solve serially, scatter
// the assignment back. The serial solve() is what unit tests and micro-benchmarks call
// directly, at a million objects, with no MPI.
#pragma once

#include <span>
#include <vector>

#include "balancers/sdk/balancer.hpp"

namespace lbbench {

// Every object (vertex) in the system, indexed 0..n-1 in (rank, local index) order.
struct GlobalProblem {
  int nranks = 1;
  std::vector<VertexId> id;
  std::vector<Load> load;
  // Load vectors, dims per object (object-major), gathered only for strategies that ask
  // for them; load[i] is then the sum of object i's vector.
  int dims = 1;
  std::vector<Load> load_vec;
  // Each object's load trend (LoadView::vertex_load_trend), gathered only for strategies
  // that ask for it (needs_trends) and where it was measured; empty otherwise. `load`
  // shows the loads as of trend_origin steps after the call's step.
  std::vector<double> load_trend;
  double trend_origin = 0;
  // Each object's coordinates (coord_dims per object, object-major), gathered with the
  // trends for strategies that ask for them (needs_coords) where the mesh has them; empty
  // otherwise.
  int coord_dims = 0;
  std::vector<double> coords;
  std::vector<Rank> owner;         // current owner
  std::vector<double> rank_speed;  // one per rank; empty means all equal
  std::vector<int> rank_site;      // one per rank; empty means one site
  std::vector<int> rank_node;      // one per rank; empty means not known
  // Load that stays on each rank whatever the plan: a recorded run's non-migratable
  // objects (LBAF's sentinel objects, the background load of Charm++'s LB database). One
  // per rank, and dims per rank (rank-major) where load vectors are gathered; empty when
  // there is none.
  std::vector<Load> rank_background;
  std::vector<Load> rank_background_vec;

  // The communication graph, filled only for strategies that ask for it: CSR over object
  // indices, with the bytes each edge carries per step.
  std::vector<std::int64_t> xadj;
  std::vector<std::int64_t> adjncy;
  std::vector<std::int64_t> adj_bytes;
  // Edges to objects outside the problem that never move (a recorded run's pinned
  // objects), as CSR over objects giving each such neighbor's rank: the ranks an object
  // talks to for good. Filled with the graph; empty when there are none.
  std::vector<std::int64_t> fixed_xadj;
  std::vector<int> fixed_rank;
  // The run's seed and call number, for randomized strategies.
  std::uint64_t seed = 0;
  int invocation = 0;

  [[nodiscard]] std::size_t size() const { return id.size(); }
  [[nodiscard]] bool has_graph() const { return !xadj.empty(); }
  [[nodiscard]] bool has_fixed_edges() const { return !fixed_xadj.empty(); }
  [[nodiscard]] double speed(int r) const { return rank_speed.empty() ? 1.0 : rank_speed[static_cast<std::size_t>(r)]; }
  [[nodiscard]] int site(int r) const { return rank_site.empty() ? 0 : rank_site[static_cast<std::size_t>(r)]; }
  [[nodiscard]] bool has_background() const { return !rank_background.empty(); }
  [[nodiscard]] double background(int r) const {
    return rank_background.empty() ? 0.0 : rank_background[static_cast<std::size_t>(r)].seconds();
  }
};

class CentralizedBalancer : public Balancer {
 public:
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) final;
  [[nodiscard]] virtual Assignment solve(const GlobalProblem& problem) const = 0;
  [[nodiscard]] Assignment decide_serially(const GlobalProblem& problem, ProtocolObserver*) const final {
    return solve(problem);
  }
  // Graph partitioners need the edges (needs_graph); load-only strategies skip gathering
  // them. Vector strategies need each object's load vector, not only its sum
  // (needs_vectors).
};

// Each gathered object's current rank, from the gather's counts per rank: what rank 0
// builds before it solves (plan() charges it with the solve, and the model engine times it
// alike).
std::vector<Rank> owners_in_rank_order(std::span<const int> counts);

// Per-rank load sums of an assignment, background included, each divided by the rank's speed.
std::vector<double> rank_times(const GlobalProblem& problem, const Assignment& assignment);

// The movable load each rank would hold in a perfect balance: its speed's share of all the
// load, background included, less its own background (never below zero), scaled so that
// the shares add up to the movable load.
std::vector<double> movable_shares(const GlobalProblem& problem);

}  // namespace lbbench
