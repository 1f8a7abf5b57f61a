// METIS k-way partitioning with real-valued weights scaled to METIS's 32-bit integers.
#pragma once

#include <metis.h>

#include <cstdint>
#include <span>
#include <vector>

namespace lbbench {

struct MetisGraph {
  std::vector<idx_t> xadj{0};
  std::vector<idx_t> adjncy;
  std::vector<idx_t> adjwgt;  // empty: every edge weighs 1
  std::vector<idx_t> vwgt;    // ncon per vertex; empty: every vertex weighs 1
  std::vector<idx_t> vsize;   // for the volume objective; empty: 1
  int ncon = 1;

  [[nodiscard]] idx_t vertices() const { return static_cast<idx_t>(xadj.size() - 1); }
};

struct MetisOptions {
  std::vector<real_t> ubvec{1.03f};  // allowed imbalance per constraint
  std::vector<real_t> tpwgts;        // target weight of each part (ncon per part); empty: equal
  std::int64_t seed = 1;
  bool minimize_volume = false;  // communication volume instead of edge cut
};

// Part of each vertex, 0..nparts-1. One part, or no more vertices than parts, is answered
// without METIS. Throws RunError when METIS reports an error.
std::vector<int> metis_kway(const MetisGraph& graph, int nparts, const MetisOptions& options);

// Scales non-negative values to integers whose sum stays below `budget`, keeping every
// weight at least 1 (METIS treats 0 specially) and all-zero inputs equal.
std::vector<idx_t> scale_to_integers(std::span<const double> values, double budget);

}  // namespace lbbench
