// METIS k-way partitioning (see metis_partition.hpp).
#include "balancers/global/metis_partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace lbbench {

std::vector<idx_t> scale_to_integers(std::span<const double> values, double budget) {
  const double total = std::accumulate(values.begin(), values.end(), 0.0);
  std::vector<idx_t> out(values.size(), 1);
  if (!(total > 0)) return out;
  // Leave room for the +1 floor of every entry.
  const double scale = std::max(0.0, budget - static_cast<double>(values.size())) / total;
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = 1 + static_cast<idx_t>(std::floor(values[i] * scale));
  return out;
}

std::vector<int> metis_kway(const MetisGraph& graph, int nparts, const MetisOptions& options) {
  const idx_t n = graph.vertices();
  std::vector<int> part(static_cast<std::size_t>(n), 0);
  if (nparts <= 1) return part;
  if (n <= nparts) {
    std::iota(part.begin(), part.end(), 0);
    if (options.tpwgts.empty()) return part;
    // Unequal targets: the heaviest vertices to the parts with the largest targets.
    const auto ncon = static_cast<std::size_t>(graph.ncon);
    std::vector<int> parts(static_cast<std::size_t>(nparts));
    std::iota(parts.begin(), parts.end(), 0);
    std::stable_sort(parts.begin(), parts.end(), [&](int a, int b) {
      return options.tpwgts[static_cast<std::size_t>(a) * ncon] > options.tpwgts[static_cast<std::size_t>(b) * ncon];
    });
    std::vector<idx_t> vertices(static_cast<std::size_t>(n));
    std::iota(vertices.begin(), vertices.end(), 0);
    if (!graph.vwgt.empty()) {
      std::stable_sort(vertices.begin(), vertices.end(), [&](idx_t a, idx_t b) {
        return graph.vwgt[static_cast<std::size_t>(a) * ncon] > graph.vwgt[static_cast<std::size_t>(b) * ncon];
      });
    }
    for (std::size_t j = 0; j < vertices.size(); ++j) part[static_cast<std::size_t>(vertices[j])] = parts[j];
    return part;
  }
  idx_t nvtxs = n;
  idx_t ncon = graph.ncon;
  idx_t k = nparts;
  idx_t objval = 0;
  std::vector<idx_t> result(static_cast<std::size_t>(n));
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  opts[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed);
  opts[METIS_OPTION_OBJTYPE] = options.minimize_volume ? METIS_OBJTYPE_VOL : METIS_OBJTYPE_CUT;
  opts[METIS_OPTION_NUMBERING] = 0;
  // METIS takes non-const pointers but does not write through them.
  auto* xadj = const_cast<idx_t*>(graph.xadj.data());
  auto* adjncy = const_cast<idx_t*>(graph.adjncy.data());
  auto* adjwgt = graph.adjwgt.empty() ? nullptr : const_cast<idx_t*>(graph.adjwgt.data());
  auto* vwgt = graph.vwgt.empty() ? nullptr : const_cast<idx_t*>(graph.vwgt.data());
  auto* vsize = graph.vsize.empty() ? nullptr : const_cast<idx_t*>(graph.vsize.data());
  auto* tpwgts = options.tpwgts.empty() ? nullptr : const_cast<real_t*>(options.tpwgts.data());
  auto* ubvec = const_cast<real_t*>(options.ubvec.data());
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj, adjncy, vwgt, vsize, adjwgt, &k, tpwgts, ubvec, opts, &objval,
                                     result.data());
  if (rc != METIS_OK) {
    throw RunError(fmt::format("METIS_PartGraphKway failed ({}) on {} vertices into {} parts",
                               rc == METIS_ERROR_INPUT    ? "input error"
                               : rc == METIS_ERROR_MEMORY ? "out of memory"
                                                          : "error",
                               n, nparts));
  }
  std::copy(result.begin(), result.end(), part.begin());
  return part;
}

}  // namespace lbbench
