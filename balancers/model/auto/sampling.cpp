#include "balancers/model/auto/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "core/clock.hpp"
#include "core/hash.hpp"

namespace lbbench {

namespace {

constexpr int kSide = 48;   // objects per side of the sample grid
constexpr int kRanks = 32;  // ranks the sample is dealt out over
constexpr int kRuns = 3;

GlobalProblem sample_problem() {
  GlobalProblem p;
  p.nranks = kRanks;
  p.coord_dims = 2;
  const int n = kSide * kSide;
  p.xadj.push_back(0);
  for (int v = 0; v < n; ++v) {
    const int x = v % kSide;
    const int y = v / kSide;
    p.id.push_back(VertexId{v});
    p.load.push_back(Load(std::exp(standard_normal(hash_of({7, static_cast<std::uint64_t>(v)})))));
    p.owner.push_back(Rank{v * kRanks / n});
    p.coords.insert(p.coords.end(), {static_cast<double>(x), static_cast<double>(y)});
    for (const int u : {v - kSide, v - 1, v + 1, v + kSide}) {
      const bool same_row = (u == v - 1 && x > 0) || (u == v + 1 && x + 1 < kSide);
      const bool same_column = (u == v - kSide || u == v + kSide) && u >= 0 && u < n;
      if (same_row || same_column) p.adjncy.push_back(u);
    }
    p.xadj.push_back(static_cast<std::int64_t>(p.adjncy.size()));
  }
  p.adj_bytes.assign(p.adjncy.size(), 256);
  return p;
}

}  // namespace

double solve_seconds_per_object(const CentralizedBalancer& candidate) {
  const GlobalProblem problem = sample_problem();
  double fastest = std::numeric_limits<double>::infinity();
  for (int run = 0; run < kRuns; ++run) {
    const double t0 = code_cpu_seconds();
    try {
      (void)candidate.solve(problem);
    } catch (const std::exception&) {
      return 0;  // a strategy that cannot solve the sample is priced by the network alone
    }
    fastest = std::min(fastest, code_cpu_seconds() - t0);
  }
  return std::max(0.0, fastest) / static_cast<double>(problem.size());
}

}  // namespace lbbench
