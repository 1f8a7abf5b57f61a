// The platform costs of Pearce et al.'s cost model, modeled from recorded runs, for each
// balancer on each platform (engine and machine), as linear functions of sizes:
// - C_LbDecision (equations 9-11): decision seconds ≈ c0 + c1·V + c2·E + c3·P over the
//   graph's vertices V and edges E and the ranks P, fitted to every LB call;
// - C_DataMvmt (equation 8): migration seconds ≈ c0 + c1·M + c2·B + c3·P over the vertices
//   M and bytes B that the call moved, fitted to every call that moved something.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"

namespace lbbench {

struct CostSample {
  std::array<double, 3> sizes{};  // the three size terms; the constant is implied
  double seconds = 0;
};

struct CostFit {
  std::string balancer;
  std::string platform;  // engine and machine: costs differ between them
  int samples = 0;  // the samples fitted: those of positive time
  int sizes = 0;  // distinct size triples among the samples
  // c0 (s) and seconds per unit of each size term; all ≥ 0.
  std::array<double, 4> coefficients{};
  double mean_relative_error = 0;  // mean |fit − measured| / measured over the samples

  [[nodiscard]] double predict(const std::array<double, 3>& sizes) const;
};

// Least squares on relative errors (costs span orders of magnitude, and a large case's
// absolute error would otherwise set the fit), over non-negative coefficients: the best of
// the fits on every subset of the four terms whose coefficients all come out ≥ 0. A term
// that does not vary in the samples (one rank count, say) is folded into c0. Samples of 0
// seconds are skipped; throws when none is left.
CostFit fit_linear_cost(const std::vector<CostSample>& samples);

// One fit per balancer and platform, from the LB calls of run records (others ignored).
std::vector<CostFit> fit_decision_costs(const std::vector<const Json*>& records);
std::vector<CostFit> fit_migration_costs(const std::vector<const Json*>& records);

}  // namespace lbbench
