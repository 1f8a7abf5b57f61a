// Statistics for reports (see statistics.hpp).
#include "harness/statistics.hpp"

#include <algorithm>
#include <random>

namespace lbbench {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Interval bootstrap_ratio_of_medians(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto resample = [&](const std::vector<double>& v) {
    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
    std::vector<double> out(v.size());
    for (auto& x : out) x = v[pick(rng)];
    return median(std::move(out));
  };
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double ma = resample(a);
    if (ma > 0) ratios.push_back(resample(b) / ma);
  }
  if (ratios.empty()) return {};
  std::sort(ratios.begin(), ratios.end());
  return {quantile(ratios, 0.025), quantile(ratios, 0.975)};
}

Interval bootstrap_proportion(const std::vector<Cluster>& clusters, int resamples, std::uint64_t seed) {
  if (clusters.empty()) return {};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, clusters.size() - 1);
  std::vector<double> shares;
  shares.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    double hits = 0, trials = 0;
    for (std::size_t k = 0; k < clusters.size(); ++k) {
      const Cluster& c = clusters[pick(rng)];
      hits += c.hits;
      trials += c.trials;
    }
    if (trials > 0) shares.push_back(hits / trials);
  }
  if (shares.empty()) return {};
  std::sort(shares.begin(), shares.end());
  return {quantile(shares, 0.025), quantile(shares, 0.975)};
}

}  // namespace lbbench
