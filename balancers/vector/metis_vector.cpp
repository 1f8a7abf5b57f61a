// METIS multi-constraint (see metis_vector.hpp). Each component is scaled to integers on
// its own (METIS normalizes every constraint by its total anyway). Parts are relabeled
// onto ranks so that as few objects move as possible, as for scalar metis; with unequal
// rank speeds each part's target weight is its rank's share of the total speed, in every
// component.
#include "balancers/vector/metis_vector.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "balancers/global/metis.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

// METIS sums weights in 32 bits; keep every constraint's total well inside.
constexpr double kWeightBudget = 1 << 30;

// ncon weights per vertex, vertex-major, each component scaled on its own.
std::vector<idx_t> multi_constraint_weights(const ObjectVectors& objects) {
  const int d = objects.dims();
  std::vector<idx_t> vwgt(objects.size() * static_cast<std::size_t>(d));
  std::vector<double> column(objects.size());
  for (int k = 0; k < d; ++k) {
    for (std::size_t i = 0; i < objects.size(); ++i) column[i] = objects.at(i, k);
    const std::vector<idx_t> scaled = scale_to_integers(column, kWeightBudget);
    for (std::size_t i = 0; i < objects.size(); ++i)
      vwgt[i * static_cast<std::size_t>(d) + static_cast<std::size_t>(k)] = scaled[i];
  }
  return vwgt;
}

}  // namespace

Assignment MetisVectorBalancer::solve(const GlobalProblem& problem) const {
  const ObjectVectors objects(problem);
  const int d = objects.dims();
  const int p = problem.nranks;
  MetisGraph graph;
  if (params_.full_graph) {
    graph = metis_graph_of(problem, false);
  } else {
    graph.xadj.assign(objects.size() + 1, 0);  // no edges: balance only
  }
  graph.ncon = d;
  graph.vwgt = multi_constraint_weights(objects);

  MetisOptions options;
  options.ubvec.clear();
  for (int k = 0; k < d; ++k) {
    options.ubvec.push_back(
        static_cast<real_t>(params_.ubvec.size() == 1 ? params_.ubvec[0] : params_.ubvec[static_cast<std::size_t>(k)]));
  }
  options.seed = params_.seed;
  PartMappingInput mapping;
  mapping.nparts = p;
  mapping.slots.assign(static_cast<std::size_t>(p), 1);
  set_speed_targets(problem, d, options, mapping);
  const std::vector<int> part = metis_kway(graph, p, options);
  mapping.part = part;
  mapping.owner = problem.owner;
  const std::vector<int> rank_of_part = map_parts_to_ranks(mapping);
  Assignment out(objects.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Rank{rank_of_part[static_cast<std::size_t>(part[i])]};
  return out;
}

}  // namespace lbbench
