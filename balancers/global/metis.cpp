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
#include <cmath>
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

namespace {

// Each rank's share of the movable load in each of the ncon constraints, rank-major: the
// speed's share of all the load less the rank's background (never below zero), so that
// each constraint's shares add up to 1. A load vector's background is taken per component.
std::vector<double> movable_share_targets(const GlobalProblem& problem, int ncon) {
  const auto p = static_cast<std::size_t>(problem.nranks);
  const auto c = static_cast<std::size_t>(ncon);
  const bool per_component =
      ncon > 1 && problem.rank_background_vec.size() == p * c && problem.load_vec.size() == problem.size() * c;
  std::vector<double> out(p * c);
  if (!per_component) {
    const std::vector<double> share = movable_shares(problem);
    const double total = std::accumulate(share.begin(), share.end(), 0.0);
    for (std::size_t r = 0; r < p; ++r) {
      for (std::size_t k = 0; k < c; ++k) out[r * c + k] = total > 0 ? share[r] / total : 1.0 / static_cast<double>(p);
    }
    return out;
  }
  double speeds = 0;
  for (int r = 0; r < problem.nranks; ++r) speeds += problem.speed(r);
  for (std::size_t k = 0; k < c; ++k) {
    double movable = 0, background = 0;
    for (std::size_t i = 0; i < problem.size(); ++i) movable += problem.load_vec[i * c + k].seconds();
    for (std::size_t r = 0; r < p; ++r) background += problem.rank_background_vec[r * c + k].seconds();
    double sum = 0;
    for (std::size_t r = 0; r < p; ++r) {
      const double s = problem.speed(static_cast<int>(r)) / speeds;
      out[r * c + k] = std::max(0.0, (movable + background) * s - problem.rank_background_vec[r * c + k].seconds());
      sum += out[r * c + k];
    }
    for (std::size_t r = 0; r < p; ++r) out[r * c + k] = sum > 0 ? out[r * c + k] / sum : 1.0 / static_cast<double>(p);
  }
  return out;
}

}  // namespace

void set_speed_targets(const GlobalProblem& problem, int ncon, MetisOptions& options, PartMappingInput& mapping) {
  const int p = problem.nranks;
  const bool uniform_speed = std::all_of(problem.rank_speed.begin(), problem.rank_speed.end(),
                                         [&](double s) { return s == problem.speed(0); });
  if (!problem.has_background()) {
    if (uniform_speed) return;
    double total = 0;
    for (int r = 0; r < p; ++r) total += problem.speed(r);
    std::map<double, int> classes;
    for (int r = 0; r < p; ++r) {
      for (int k = 0; k < ncon; ++k) options.tpwgts.push_back(static_cast<real_t>(problem.speed(r) / total));
      const int c = classes.emplace(problem.speed(r), static_cast<int>(classes.size())).first->second;
      mapping.rank_class.push_back(c);
    }
    mapping.part_class = mapping.rank_class;  // part r targets rank r's share
    return;
  }
  // With a background every rank's target differs a little. Targets closer than half of
  // METIS's own tolerance are one class, which a part may take wherever its vertices are
  // (relabeling would otherwise have to send part r to rank r, moving nearly everything);
  // each class's parts target its members' mean.
  const auto c = static_cast<std::size_t>(ncon);
  const std::vector<double> target = movable_share_targets(problem, ncon);
  const double close = 0.5 * (static_cast<double>(options.ubvec.front()) - 1.0) / p;
  std::vector<int> order(static_cast<std::size_t>(p));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return std::lexicographical_compare(
        target.begin() + a * static_cast<std::ptrdiff_t>(c), target.begin() + (a + 1) * static_cast<std::ptrdiff_t>(c),
        target.begin() + b * static_cast<std::ptrdiff_t>(c), target.begin() + (b + 1) * static_cast<std::ptrdiff_t>(c));
  });
  mapping.rank_class.assign(static_cast<std::size_t>(p), 0);
  std::vector<double> mean(static_cast<std::size_t>(p) * c, 0.0);
  int classes = 0;
  std::size_t first = 0;  // the class's first rank in `order`
  for (std::size_t i = 0; i <= order.size(); ++i) {
    const bool ends = i == order.size() || [&] {
      for (std::size_t k = 0; k < c; ++k) {
        // Sorted on the first component only: the others may go either way.
        if (std::abs(target[static_cast<std::size_t>(order[i]) * c + k] -
                     target[static_cast<std::size_t>(order[first]) * c + k]) > close)
          return true;
      }
      return false;
    }();
    if (!ends) continue;
    for (std::size_t k = 0; k < c; ++k) {
      double sum = 0;
      for (std::size_t j = first; j < i; ++j) sum += target[static_cast<std::size_t>(order[j]) * c + k];
      for (std::size_t j = first; j < i; ++j) mean[static_cast<std::size_t>(order[j]) * c + k] = sum / (i - first);
    }
    for (std::size_t j = first; j < i; ++j) mapping.rank_class[static_cast<std::size_t>(order[j])] = classes;
    ++classes;
    first = i;
  }
  // METIS wants every target above zero.
  for (const double t : mean) options.tpwgts.push_back(static_cast<real_t>(std::max(t, 1e-9)));
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
