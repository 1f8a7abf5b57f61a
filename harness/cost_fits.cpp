// Regressions of LB decision and migration time on sizes (see cost_fits.hpp).
#include "harness/cost_fits.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>

#include "balancers/fitted_costs.hpp"

namespace lbbench {

namespace {

constexpr int kTerms = 4;

std::array<double, kTerms> terms_of(const CostSample& s) { return {1.0, s.sizes[0], s.sizes[1], s.sizes[2]}; }

// Solves the small dense system a·x = b by Gaussian elimination with partial pivoting;
// empty when it is singular (relative to the largest pivot seen).
std::optional<std::vector<double>> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  double largest = 0;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row) {
      if (std::abs(a[row][col]) > std::abs(a[pivot][col])) pivot = row;
    }
    largest = std::max(largest, std::abs(a[pivot][col]));
    if (std::abs(a[pivot][col]) <= 1e-12 * largest || a[pivot][col] == 0) return std::nullopt;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t row = col + 1; row < n; ++row) {
      const double f = a[row][col] / a[col][col];
      for (std::size_t k = col; k < n; ++k) a[row][k] -= f * a[col][k];
      b[row] -= f * b[col];
    }
  }
  std::vector<double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    double sum = b[i];
    for (std::size_t k = i + 1; k < n; ++k) sum -= a[i][k] * x[k];
    x[i] = sum / a[i][i];
  }
  return x;
}

// Weighted least squares of the samples on the chosen terms, each column scaled to a
// largest value of 1 so that vertices and ranks condition alike. Empty when singular.
std::optional<std::array<double, kTerms>> fit_terms(const std::vector<CostSample>& samples,
                                                    const std::vector<int>& chosen) {
  std::array<double, kTerms> scale{};
  for (const auto& s : samples) {
    const auto t = terms_of(s);
    for (int k = 0; k < kTerms; ++k) scale[k] = std::max(scale[k], std::abs(t[k]));
  }
  const std::size_t m = chosen.size();
  std::vector<std::vector<double>> normal(m, std::vector<double>(m, 0.0));
  std::vector<double> rhs(m, 0.0);
  for (const auto& s : samples) {
    const auto t = terms_of(s);
    const double w = 1 / (s.seconds * s.seconds);
    for (std::size_t i = 0; i < m; ++i) {
      const double xi = t[chosen[i]] / scale[chosen[i]];
      rhs[i] += w * xi * s.seconds;
      for (std::size_t j = 0; j < m; ++j) normal[i][j] += w * xi * t[chosen[j]] / scale[chosen[j]];
    }
  }
  const auto x = solve(normal, rhs);
  if (!x) return std::nullopt;
  std::array<double, kTerms> c{};
  for (std::size_t i = 0; i < m; ++i) c[chosen[i]] = (*x)[i] / scale[chosen[i]];
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
std::vector<CostFit> fit_groups(const std::vector<const Json*>& records, bool per_balancer, MakeSample sample) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<CostSample>> groups;
  for (const Json* r : records) {
    if (r->value("schema", "") != "lbbench.run/1" || !r->contains("lb")) continue;
    const std::tuple key{per_balancer ? r->value("balancer", "") : std::string(), r->value("engine", ""),
                         r->value("machine", "")};
    for (const auto& call : (*r)["lb"]) {
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

std::vector<CostFit> fit_decision_costs(const std::vector<const Json*>& records) {
  return fit_groups(records, true, [](const Json& r, const Json& call) -> std::optional<CostSample> {
    return CostSample{{r.value("vertices", 0.0), r.value("edges", 0.0), r.value("ranks", 0.0)},
                      call.value("decision_s", 0.0)};
  });
}

std::vector<CostFit> fit_migration_costs(const std::vector<const Json*>& records) {
  return fit_groups(records, false, [](const Json& r, const Json& call) -> std::optional<CostSample> {
    // Records made before the busiest receiver was recorded cannot say what moved where.
    if (!call.contains("elements_moved_max")) return std::nullopt;
    const double arriving = call["elements_moved_max"].get<double>();
    const double element_bytes = r.contains("config") ? r["config"]["workload"].value("element_bytes", 0.0) : 0.0;
    const double ranks = std::max(1.0, r.value("ranks", 1.0));
    return CostSample{{r.value("vertices", 0.0) / ranks, arriving, arriving * element_bytes},
                      call.value("migration_s", 0.0)};
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
