// C_LbDecision of Pearce et al.'s cost model (equations 9-11), modeled from recorded runs:
// for each balancer on each platform, decision seconds ≈ c0 + cv·V + ce·E + cp·P over the
// graph's vertices V and edges E and the ranks P, fitted to every LB call in the records.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"

namespace lbbench {

struct DecisionSample {
  double vertices = 0;
  double edges = 0;
  double ranks = 0;
  double seconds = 0;
};

struct DecisionFit {
  std::string balancer;
  std::string platform;  // engine and machine: decision times differ between them
  int samples = 0;
  int sizes = 0;  // distinct (V, E, P) among the samples
  // c0 (s), cv (s per vertex), ce (s per edge), cp (s per rank); all ≥ 0.
  std::array<double, 4> coefficients{};
  double mean_relative_error = 0;  // mean |fit − measured| / measured over the samples

  [[nodiscard]] double predict(double vertices, double edges, double ranks) const;
};

// Least squares on relative errors (decision times span orders of magnitude, and a large
// graph's absolute error would otherwise set the fit), over the non-negative coefficients:
// the best of the fits on every subset of the four terms whose coefficients all come out
// ≥ 0. A term that does not vary in the samples (one rank count, say) is folded into c0.
DecisionFit fit_decision_cost(const std::vector<DecisionSample>& samples);

// One fit per balancer and platform, from the LB calls of run records (others ignored).
std::vector<DecisionFit> fit_decision_costs(const std::vector<const Json*>& records);

Json to_json(const DecisionFit& fit);

}  // namespace lbbench
