// Load-distribution metrics (see metrics.hpp).
#include "balancers/model/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lbbench {

LoadMoments load_moments(std::span<const double> loads) {
  LoadMoments m;
  if (loads.empty()) return m;
  const auto n = static_cast<double>(loads.size());
  m.mean = std::accumulate(loads.begin(), loads.end(), 0.0) / n;
  m.max = *std::max_element(loads.begin(), loads.end());
  if (m.mean > 0) {
    m.max_over_avg = m.max / m.mean;
    m.imbalance_pct = (m.max_over_avg - 1) * 100;
  }
  double m2 = 0;
  double m3 = 0;
  double m4 = 0;
  for (const double l : loads) {
    const double d = l - m.mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  m.sigma = std::sqrt(m2);
  // Rounding leaves a constant series a variance of a few ulps of the mean squared; that is
  // not a distribution with a shape.
  if (m2 > 1e-24 * std::max(1.0, m.mean * m.mean)) {
    m.skewness = m3 / std::pow(m2, 1.5);
    m.kurtosis = m4 / (m2 * m2) - 3;
  }
  return m;
}

std::vector<double> average_ranks(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double mean_rank = 0.5 * static_cast<double>(i + j) + 1;  // ranks i+1 .. j+1
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = mean_rank;
    i = j + 1;
  }
  return ranks;
}

std::optional<double> rank_correlation(std::span<const double> modeled, std::span<const double> measured) {
  if (modeled.size() != measured.size() || modeled.size() < 2) return std::nullopt;
  const auto m = average_ranks(modeled);
  const auto l = average_ranks(measured);
  const double m_bar = std::accumulate(m.begin(), m.end(), 0.0) / static_cast<double>(m.size());
  const double l_bar = std::accumulate(l.begin(), l.end(), 0.0) / static_cast<double>(l.size());
  double cross = 0;
  double mm = 0;
  double ll = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    cross += (m[i] - m_bar) * (l[i] - l_bar);
    mm += (m[i] - m_bar) * (m[i] - m_bar);
    ll += (l[i] - l_bar) * (l[i] - l_bar);
  }
  if (mm == 0 || ll == 0) return std::nullopt;
  return cross / std::sqrt(mm * ll);
}

double step_exchange_s(std::span<const double> compute, std::span<const double> wall) {
  if (compute.empty() || wall.empty()) return 0.0;
  return std::max(0.0, *std::max_element(wall.begin(), wall.end()) - *std::max_element(compute.begin(), compute.end()));
}

}  // namespace lbbench
