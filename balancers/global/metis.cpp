// METIS k-way, centralized (see metis.hpp).
//
// Parts are unlabeled, so after partitioning they are relabeled: part p goes to the rank
// that already holds most of its vertices, exactly (an assignment problem) up to 300
// ranks and largest-overlap-first above. With unequal rank speeds or a background load
// (objects that never move), each part's target weight is its rank's share of the movable
// load (movable_shares), and relabeling stays within ranks of the same target.
#include "balancers/global/metis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "balancers/global/part_mapping.hpp"

namespace lbbench {

namespace {

// METIS sums weights in 32 bits; keep every total well inside.
constexpr double kWeightBudget = 1 << 30;

}  // namespace

MetisGraph metis_graph_of(const GlobalProblem& problem, bool with_sizes) {
  MetisGraph g;
  g.xadj.assign(problem.xadj.begin(), problem.xadj.end());
  g.adjncy.assign(problem.adjncy.begin(), problem.adjncy.end());
  std::vector<double> loads(problem.size());
  for (std::size_t i = 0; i < loads.size(); ++i) loads[i] = problem.load[i].seconds();
  g.vwgt = scale_to_integers(loads, kWeightBudget);
  const std::vector<double> bytes(problem.adj_bytes.begin(), problem.adj_bytes.end());
  // Edge weights: the cut METIS minimizes is then bytes per step.
  g.adjwgt = scale_to_integers(bytes, std::min(kWeightBudget, 1000.0 * static_cast<double>(bytes.size())));
  if (with_sizes) {
    // Volume objective: what a vertex sends to each neighboring part, its largest edge.
    g.vsize.assign(problem.size(), 1);
    for (std::size_t v = 0; v < problem.size(); ++v) {
      for (auto e = problem.xadj[v]; e < problem.xadj[v + 1]; ++e) {
        g.vsize[v] = std::max(g.vsize[v], g.adjwgt[static_cast<std::size_t>(e)]);
      }
    }
  }
  return g;
}

void set_speed_targets(const GlobalProblem& problem, int ncon, MetisOptions& options, PartMappingInput& mapping) {
  const int p = problem.nranks;
  const bool uniform_speed = std::all_of(problem.rank_speed.begin(), problem.rank_speed.end(),
                                         [&](double s) { return s == problem.speed(0); });
  if (uniform_speed && !problem.has_background()) return;
  // Each part's target is its rank's share of the movable load: the speed's share of all
  // the load less the rank's background. METIS wants every target above zero.
  const std::vector<double> share = movable_shares(problem);
  const double total = std::accumulate(share.begin(), share.end(), 0.0);
  std::map<double, int> classes;
  for (int r = 0; r < p; ++r) {
    const double target = total > 0 ? std::max(share[static_cast<std::size_t>(r)] / total, 1e-9) : 1.0 / p;
    for (int k = 0; k < ncon; ++k) options.tpwgts.push_back(static_cast<real_t>(target));
    const int c = classes.emplace(target, static_cast<int>(classes.size())).first->second;
    mapping.rank_class.push_back(c);
  }
  mapping.part_class = mapping.rank_class;  // part r targets rank r's share
}

Assignment MetisBalancer::solve(const GlobalProblem& problem) const {
  const int p = problem.nranks;
  MetisOptions options;
  options.ubvec = {static_cast<real_t>(params_.tolerance)};
  options.seed = params_.seed;
  options.minimize_volume = params_.minimize_volume;
  PartMappingInput mapping;
  mapping.nparts = p;
  mapping.slots.assign(static_cast<std::size_t>(p), 1);
  set_speed_targets(problem, 1, options, mapping);
  const std::vector<int> part = metis_kway(metis_graph_of(problem, params_.minimize_volume), p, options);
  mapping.part = part;
  mapping.owner = problem.owner;
  const std::vector<int> rank_of_part = map_parts_to_ranks(mapping);
  Assignment out(problem.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Rank{rank_of_part[static_cast<std::size_t>(part[i])]};
  return out;
}

}  // namespace lbbench
