// The platform costs of Pearce et al.'s cost model, modeled from recorded runs on each
// platform (engine and machine), as linear functions of sizes:
// - C_LbDecision (equations 9-11), per balancer: decision seconds ≈ c0 + c1·V + c2·E + c3·P
//   over the graph's vertices V and edges E and the ranks P, fitted to every LB call;
// - C_DataMvmt (equation 6), one per platform, since every balancer's plan goes through the
//   same migration engine: migration seconds ≈ c0 + c1·V/P + c2·M + c3·B over the vertices
//   per rank (the engine's fixed work at every call: conservation checks, rebuilt halo
//   exchanges), and the vertices M arriving at the busiest receiver and their payload
//   bytes B, fitted to every LB call that recorded M.
// A costs file (`lbbench report --costs-out`) carries the fits to a scenario's machine.costs.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"
#include "record/run_record.hpp"

namespace lbbench {

struct CostSample {
  std::array<double, 3> sizes{};  // the three size terms; the constant is implied
  double seconds = 0;
};

struct CostFit {
  std::string balancer;  // empty for the migration fit, which is every balancer's
  std::string engine;    // costs differ between engines and machines
  std::string machine;
  int samples = 0;  // the samples fitted: those of positive time
  int sizes = 0;    // distinct size triples among the samples
  // c0 (s) and seconds per unit of each size term; all ≥ 0.
  std::array<double, 4> coefficients{};
  double mean_relative_error = 0;  // mean |fit − measured| / measured over the samples

  [[nodiscard]] double predict(const std::array<double, 3>& sizes) const;
  [[nodiscard]] std::string platform() const { return engine + " · " + machine; }
};

// Least squares on relative errors (costs span orders of magnitude, and a large case's
// absolute error would otherwise set the fit), over non-negative coefficients: the best of
// the fits on every subset of the four terms whose coefficients all come out ≥ 0. A term
// that does not vary in the samples (one rank count, say) is folded into c0. Samples of 0
// seconds are skipped; throws when none is left.
CostFit fit_linear_cost(const std::vector<CostSample>& samples);

// From the LB calls of run records: one decision fit per balancer and platform, one
// migration fit per platform.
std::vector<CostFit> fit_decision_costs(const std::vector<const RunRecord*>& records);
std::vector<CostFit> fit_migration_costs(const std::vector<const RunRecord*>& records);

// The costs file: schema lbbench.costs/1, one entry per platform with its decision fits by
// balancer and its migration fit, each with its terms (balancers/sdk/fitted_costs.hpp).
Json costs_file_json(const std::vector<CostFit>& decision, const std::vector<CostFit>& migration);

}  // namespace lbbench
