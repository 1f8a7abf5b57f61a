// Serial GlobalProblems for unit tests of centralized balancers.
#pragma once

#include <cmath>
#include <functional>

#include "balancers/sdk/centralized.hpp"

namespace lbbench::test {

// An nx-by-ny grid graph (unit bytes per edge), owners in row blocks over `ranks`, and a
// load per vertex from load(x, y).
inline GlobalProblem grid_problem(int nx, int ny, int ranks, const std::function<double(int, int)>& load) {
  GlobalProblem p;
  p.nranks = ranks;
  const int n = nx * ny;
  p.xadj.push_back(0);
  for (int v = 0; v < n; ++v) {
    const int x = v % nx, y = v / nx;
    p.id.push_back(VertexId{v});
    p.load.push_back(Load(load(x, y)));
    p.owner.push_back(Rank{static_cast<int>(static_cast<std::int64_t>(v) * ranks / n)});
    for (int u : {v - nx, v - 1, v + 1, v + nx}) {
      if (u < 0 || u >= n) continue;
      if ((u == v - 1 || u == v + 1) && u / nx != y) continue;
      p.adjncy.push_back(u);
      p.adj_bytes.push_back(64);
    }
    p.xadj.push_back(static_cast<std::int64_t>(p.adjncy.size()));
  }
  return p;
}

// A hot spot near the corner (0, 0), weighing up to `peak` extra.
inline std::function<double(int, int)> corner_hotspot(int nx, double peak) {
  return [nx, peak](int x, int y) {
    const double dx = (x + 0.5) / nx - 0.2, dy = (y + 0.5) / nx - 0.2;
    return 1.0 + peak * std::exp(-(dx * dx + dy * dy) / 0.02);
  };
}

// Edges (counted once) whose ends land on ranks of different sites / different ranks.
inline std::int64_t cut_edges(const GlobalProblem& p, const Assignment& a, bool across_sites) {
  std::int64_t cut = 0;
  for (std::size_t v = 0; v < p.size(); ++v) {
    for (auto e = p.xadj[v]; e < p.xadj[v + 1]; ++e) {
      const auto u = static_cast<std::size_t>(p.adjncy[static_cast<std::size_t>(e)]);
      if (u <= v) continue;
      const int rv = a[v].value(), ru = a[u].value();
      cut += across_sites ? p.site(rv) != p.site(ru) : rv != ru;
    }
  }
  return cut;
}

inline std::int64_t moved(const GlobalProblem& p, const Assignment& a) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < p.size(); ++i) n += a[i] != p.owner[i];
  return n;
}

inline double max_over_fair_share(const GlobalProblem& p, const Assignment& a) {
  const auto t = rank_times(p, a);
  double total = 0, speed = 0;
  for (std::size_t i = 0; i < p.size(); ++i) total += p.load[i].seconds();
  for (int r = 0; r < p.nranks; ++r) speed += p.speed(r);
  return *std::max_element(t.begin(), t.end()) / (total / speed);
}

}  // namespace lbbench::test
