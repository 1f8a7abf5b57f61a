// Koenig & Kale's two-phase grid topology-aware balancer (see grid_metis.hpp).
//
// Phase 1 partitions the whole communication graph with every vertex weighing the same
// and every edge weighing its messages per step (one), into as many parts as the sum of
// the sites' multipliers; a site takes as many parts as its multiplier. Phase 2, per
// site, partitions the site's vertices with their loads as weights and only the edges
// inside the site, into as many parts as the sum of its ranks' multipliers; a rank takes
// as many parts as its multiplier. A multiplier is a rank's speed over the slowest one,
// rounded to a whole number of parts, as in the paper (a rank twice as fast takes two
// parts). Departure, stated: in phase 1 the paper's normalization per cluster would lose
// speed differences between clusters, so site multipliers sum rank multipliers taken
// against the slowest rank overall. In both phases parts are unlabeled, and they are
// mapped to sites and ranks so that as few vertices as possible move.
#include "balancers/global/grid_metis.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "balancers/global/part_mapping.hpp"

namespace lbbench {

namespace {

constexpr double kWeightBudget = 1 << 30;

std::vector<int> ranks_of_site(const GlobalProblem& problem, int site) {
  std::vector<int> out;
  for (int r = 0; r < problem.nranks; ++r) {
    if (problem.site(r) == site) out.push_back(r);
  }
  return out;
}

int site_count(const GlobalProblem& problem) {
  int sites = 1;
  for (int r = 0; r < problem.nranks; ++r) sites = std::max(sites, problem.site(r) + 1);
  return sites;
}

}  // namespace

std::vector<int> speed_multipliers(const GlobalProblem& problem, const std::vector<int>& ranks) {
  double slowest = HUGE_VAL;
  for (int r : ranks) slowest = std::min(slowest, problem.speed(r));
  std::vector<int> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(std::max(1, static_cast<int>(std::lround(problem.speed(r) / slowest))));
  return out;
}

std::vector<int> GridMetisBalancer::split_into_sites(const GlobalProblem& problem) const {
  const int sites = site_count(problem);
  std::vector<int> all_ranks(static_cast<std::size_t>(problem.nranks));
  std::iota(all_ranks.begin(), all_ranks.end(), 0);
  const std::vector<int> rank_mult = speed_multipliers(problem, all_ranks);
  std::vector<int> site_mult(static_cast<std::size_t>(sites), 0);
  for (int r = 0; r < problem.nranks; ++r) site_mult[static_cast<std::size_t>(problem.site(r))] += rank_mult[r];
  const int nparts = std::accumulate(site_mult.begin(), site_mult.end(), 0);

  MetisGraph g;
  g.xadj.assign(problem.xadj.begin(), problem.xadj.end());
  g.adjncy.assign(problem.adjncy.begin(), problem.adjncy.end());  // unit vertex and edge weights
  MetisOptions options;
  options.ubvec = {static_cast<real_t>(params_.tolerance)};
  options.seed = params_.seed;
  const std::vector<int> part = metis_kway(g, nparts, options);

  // Map parts to sites by where the vertices are now (a "rank" here is a site).
  std::vector<Rank> current_site(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i) current_site[i] = Rank{problem.site(problem.owner[i].value())};
  PartMappingInput mapping;
  mapping.part = part;
  mapping.owner = current_site;
  mapping.nparts = nparts;
  mapping.slots = site_mult;
  const std::vector<int> site_of_part = map_parts_to_ranks(mapping);
  std::vector<int> site_of(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i) site_of[i] = site_of_part[static_cast<std::size_t>(part[i])];
  return site_of;
}

void GridMetisBalancer::split_site(const GlobalProblem& problem, const std::vector<int>& site_of, int site,
                                   Assignment& out) const {
  const std::vector<int> ranks = ranks_of_site(problem, site);
  std::vector<std::size_t> members;
  std::vector<idx_t> local_index(problem.size(), -1);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    if (site_of[i] != site) continue;
    local_index[i] = static_cast<idx_t>(members.size());
    members.push_back(i);
  }
  if (members.empty()) return;
  MetisGraph g;
  std::vector<double> loads;
  for (std::size_t i : members) {
    for (auto e = problem.xadj[i]; e < problem.xadj[i + 1]; ++e) {
      const auto j = static_cast<std::size_t>(problem.adjncy[static_cast<std::size_t>(e)]);
      if (site_of[j] == site) g.adjncy.push_back(local_index[j]);  // messages inside the site only
    }
    g.xadj.push_back(static_cast<idx_t>(g.adjncy.size()));
    loads.push_back(problem.load[i].seconds());
  }
  g.vwgt = scale_to_integers(loads, kWeightBudget);
  const std::vector<int> rank_mult = speed_multipliers(problem, ranks);
  const int nparts = std::accumulate(rank_mult.begin(), rank_mult.end(), 0);
  MetisOptions options;
  options.ubvec = {static_cast<real_t>(params_.tolerance)};
  options.seed = params_.seed;
  const std::vector<int> part = metis_kway(g, nparts, options);

  // Map parts to this site's ranks; a vertex now outside the site counts as nowhere.
  std::vector<Rank> current(members.size());
  for (std::size_t k = 0; k < members.size(); ++k) {
    const int owner = problem.owner[members[k]].value();
    const auto it = std::find(ranks.begin(), ranks.end(), owner);
    current[k] = Rank{it == ranks.end() ? static_cast<int>(ranks.size()) : static_cast<int>(it - ranks.begin())};
  }
  PartMappingInput mapping;
  mapping.part = part;
  mapping.owner = current;
  mapping.nparts = nparts;
  mapping.slots = rank_mult;
  mapping.slots.push_back(0);  // "nowhere" takes no parts
  const std::vector<int> slot_of_part = map_parts_to_ranks(mapping);
  for (std::size_t k = 0; k < members.size(); ++k) {
    out[members[k]] = Rank{ranks[static_cast<std::size_t>(slot_of_part[static_cast<std::size_t>(part[k])])]};
  }
}

Assignment GridMetisBalancer::solve(const GlobalProblem& problem) const {
  const std::vector<int> site_of = split_into_sites(problem);
  Assignment out(problem.size());
  for (int s = 0; s < site_count(problem); ++s) split_site(problem, site_of, s, out);
  return out;
}

}  // namespace lbbench
