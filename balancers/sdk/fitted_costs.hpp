// Platform costs fitted from recorded runs. Pearce et al.'s cost model takes the decision
// cost C_LbDecision and the data-movement cost C_DataMvmt as properties of the platform;
// `lbbench report --costs-out` fits them, per engine and machine, as linear functions of
// sizes, and a scenario's `machine.costs` hands the fits of its platform to the balancers
// (the `auto` balancer predicts with them).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace lbbench {

inline constexpr std::string_view kCostsSchema = "lbbench.costs/1";

// The terms of each fit, in order; the first is the constant. The costs file lists them
// with every fit, so that a file from another version of the model is refused, not misread.
inline constexpr std::array<std::string_view, 4> kDecisionTerms{"call", "vertices", "edges", "ranks"};
inline constexpr std::array<std::string_view, 4> kMigrationTerms{"call", "local_vertices", "elements_moved_max",
                                                                 "bytes_moved_max"};

// seconds ≈ c0 + c1·x1 + c2·x2 + c3·x3, over one of the term lists above.
struct FittedCost {
  std::array<double, 4> coefficients{};
  [[nodiscard]] double seconds(double x1, double x2, double x3) const {
    return coefficients[0] + coefficients[1] * x1 + coefficients[2] * x2 + coefficients[3] * x3;
  }
};

// The fits of one platform (engine and machine).
struct FittedCosts {
  // C_LbDecision of each balancer, over the graph's vertices and edges and the ranks.
  std::map<std::string, FittedCost, std::less<>> decision;
  // C_DataMvmt of one LB call, over the vertices per rank (the engine's fixed work: checks
  // and rebuilt exchanges), the vertices arriving at the busiest receiver and their
  // payload bytes. The migration engine is the same for every balancer, so one fit.
  std::optional<FittedCost> migration;

  [[nodiscard]] const FittedCost* decision_of(std::string_view balancer) const {
    const auto it = decision.find(balancer);
    return it == decision.end() ? nullptr : &it->second;
  }
  // One call's migration: `arriving` vertices of `element_bytes` each at the busiest rank.
  [[nodiscard]] double migration_s(double vertices_per_rank, double arriving, double element_bytes) const {
    return migration ? migration->seconds(vertices_per_rank, arriving, arriving * element_bytes) : 0.0;
  }
};

}  // namespace lbbench
