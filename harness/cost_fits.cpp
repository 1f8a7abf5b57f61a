// Regressions of LB decision and migration time on sizes (see cost_fits.hpp).
#include "harness/cost_fits.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>

#include "balancers/sdk/fitted_costs.hpp"
#include "record/run_record.hpp"

namespace lbbench {

namespace {

constexpr int kTerms = 4;

std::array<double, kTerms> terms_of(const CostSample& s) { return {1.0, s.sizes[0], s.sizes[1], s.sizes[2]}; }

// Least squares of the samples' relative errors on the chosen terms: row i of the system is
// sample i's terms divided by its time, against 1. Each column is scaled to a largest value
// of 1, so vertices and ranks condition alike, and the system is solved by a
// column-pivoting Householder QR rather than the normal equations, which square the
// condition number of terms that span orders of magnitude. Empty when the chosen terms are
// not independent over the samples (a term that never varies, say, alongside c0).
std::optional<std::array<double, kTerms>> fit_terms(const std::vector<CostSample>& samples,
                                                    const std::vector<int>& chosen) {
  std::array<double, kTerms> scale{};
  for (const auto& s : samples) {
    const auto t = terms_of(s);
    for (int k = 0; k < kTerms; ++k) scale[k] = std::max(scale[k], std::abs(t[k]));
  }
  const auto m = static_cast<Eigen::Index>(chosen.size());
  Eigen::MatrixXd a(static_cast<Eigen::Index>(samples.size()), m);
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(a.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const CostSample& s = samples[static_cast<std::size_t>(i)];
    const auto t = terms_of(s);
    for (Eigen::Index j = 0; j < m; ++j) {
      const int k = chosen[static_cast<std::size_t>(j)];
      a(i, j) = scale[k] > 0 ? t[k] / scale[k] / s.seconds : 0.0;
    }
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-12);
  if (qr.rank() < m) return std::nullopt;
  const Eigen::VectorXd x = qr.solve(b);
  std::array<double, kTerms> c{};
  for (Eigen::Index j = 0; j < m; ++j) {
    const int k = chosen[static_cast<std::size_t>(j)];
    c[k] = x(j) / scale[k];
  }
  return c;
}

double relative_sse(const std::vector<CostSample>& samples, const std::array<double, kTerms>& c) {
  double sse = 0;
  for (const auto& s : samples) {
    const auto t = terms_of(s);
    double fit = 0;
    for (int k = 0; k < kTerms; ++k) fit += c[k] * t[k];
    sse += (fit - s.seconds) * (fit - s.seconds) / (s.seconds * s.seconds);
  }
  return sse;
}

}  // namespace

double CostFit::predict(const std::array<double, 3>& sizes) const {
  return coefficients[0] + coefficients[1] * sizes[0] + coefficients[2] * sizes[1] + coefficients[3] * sizes[2];
}

CostFit fit_linear_cost(const std::vector<CostSample>& samples) {
  CostFit best;
  std::vector<CostSample> usable;
  std::set<std::tuple<double, double, double>> sizes;
  for (const auto& s : samples) {
    if (s.seconds <= 0) continue;  // a call timed at 0 has no relative error to weigh
    usable.push_back(s);
    sizes.insert({s.sizes[0], s.sizes[1], s.sizes[2]});
  }
  best.samples = static_cast<int>(usable.size());
  best.sizes = static_cast<int>(sizes.size());
  if (usable.empty()) throw std::invalid_argument("fit_linear_cost: no sample of positive time");
  double best_sse = INFINITY;
  for (int subset = 1; subset < (1 << kTerms); ++subset) {
    std::vector<int> chosen;
    for (int k = 0; k < kTerms; ++k) {
      if (subset & (1 << k)) chosen.push_back(k);
    }
    const auto c = fit_terms(usable, chosen);
    if (!c || std::any_of(c->begin(), c->end(), [](double v) { return v < 0; })) continue;
    const double sse = relative_sse(usable, *c);
    // Fewer terms win ties: among equal fits, the simpler model.
    if (sse < best_sse * (1 - 1e-9)) {
      best_sse = sse;
      best.coefficients = *c;
    }
  }
  double error = 0;
  for (const auto& s : usable) error += std::abs(best.predict(s.sizes) - s.seconds) / s.seconds;
  best.mean_relative_error = error / static_cast<double>(usable.size());
  return best;
}

namespace {

// Groups the LB calls of run records by `group` (balancer and platform, or platform), as
// `sample` makes them; a call `sample` declines (nullopt) stays out.
template <typename MakeSample>
std::vector<CostFit> fit_groups(const std::vector<const RunRecord*>& records, bool per_balancer, MakeSample sample) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<CostSample>> groups;
  for (const RunRecord* r : records) {
    const std::tuple key{per_balancer ? r->balancer : std::string(), r->engine, r->machine};
    for (const auto& call : r->lb) {
      if (auto s = sample(*r, call)) groups[key].push_back(*s);
    }
  }
  std::vector<CostFit> fits;
  for (const auto& [key, samples] : groups) {
    if (std::none_of(samples.begin(), samples.end(), [](const auto& s) { return s.seconds > 0; })) continue;
    CostFit fit = fit_linear_cost(samples);
    std::tie(fit.balancer, fit.engine, fit.machine) = key;
    fits.push_back(std::move(fit));
  }
  return fits;
}

Json fit_json(const CostFit& f, std::span<const std::string_view> terms) {
  Json names = Json::array();
  for (const auto& t : terms) names.push_back(std::string(t));
  return Json{{"terms", names},
              {"coefficients", f.coefficients},
              {"calls", f.samples},
              {"mean_relative_error", f.mean_relative_error}};
}

}  // namespace

std::vector<CostFit> fit_decision_costs(const std::vector<const RunRecord*>& records) {
  return fit_groups(records, true, [](const RunRecord& r, const LbEvent& call) -> std::optional<CostSample> {
    const auto [vertices, edges] = mesh_size_at_call(r, call.step);
    return CostSample{{static_cast<double>(vertices), static_cast<double>(edges), static_cast<double>(r.ranks)},
                      call.decision_s};
  });
}

namespace {

// The payload of a migrating vertex, from the normalized scenario the record carries.
double element_bytes_of(const RunRecord& r) {
  if (!r.config.is_object() || !r.config.contains("workload")) return 0.0;
  return r.config["workload"].value("element_bytes", 0.0);
}

}  // namespace

std::vector<CostFit> fit_migration_costs(const std::vector<const RunRecord*>& records) {
  return fit_groups(records, false, [](const RunRecord& r, const LbEvent& call) -> std::optional<CostSample> {
    // Records made before the busiest receiver was recorded cannot say what moved where.
    if (!call.elements_moved_max) return std::nullopt;
    const auto arriving = static_cast<double>(*call.elements_moved_max);
    const double ranks = std::max(1.0, static_cast<double>(r.ranks));
    const double vertices = static_cast<double>(mesh_size_at_call(r, call.step).first);
    return CostSample{{vertices / ranks, arriving, arriving * element_bytes_of(r)}, call.migration_s};
  });
}

Json costs_file_json(const std::vector<CostFit>& decision, const std::vector<CostFit>& migration) {
  std::map<std::pair<std::string, std::string>, Json> platforms;
  auto entry = [&](const CostFit& f) -> Json& {
    Json& p = platforms[{f.engine, f.machine}];
    if (p.is_null()) p = Json{{"engine", f.engine}, {"machine", f.machine}, {"decision", Json::object()}};
    return p;
  };
  for (const auto& f : decision) entry(f)["decision"][f.balancer] = fit_json(f, kDecisionTerms);
  for (const auto& f : migration) entry(f)["migration"] = fit_json(f, kMigrationTerms);
  Json list = Json::array();
  for (auto& [key, p] : platforms) list.push_back(std::move(p));
  return Json{{"schema", std::string(kCostsSchema)}, {"platforms", list}};
}

}  // namespace lbbench
