// The rank-reorder methods and their names: plain data that scenarios validate against
// without linking the reorder library (which needs MPI).
#pragma once

#include <array>
#include <string_view>

namespace lbbench::reorder {

enum class Method {
  identity,  // no reorder: slot s keeps the load of the process that sits there
  paper,     // §1.1: sorted round-robin, heaviest first
  ours,      // LPT under the cardinality constraint, then pairwise-swap local search
  exact,     // branch and bound: the optimum, for small instances
  dist,      // §2: the distributed algorithm (histogram levels and scan rounds)
  random,    // a seeded pseudo-random permutation (the paper's "average scenario")
  worst,     // the heaviest loads packed on the largest core (the paper's worst case)
};

// The name of each method, in the enumeration's order.
inline constexpr std::array<std::string_view, 7> kMethodNames{"identity", "paper",  "ours", "exact",
                                                              "dist",     "random", "worst"};

}  // namespace lbbench::reorder
