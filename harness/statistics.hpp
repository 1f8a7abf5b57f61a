// The statistics reports use: medians and percentile bootstrap intervals of ratios.
#pragma once

#include <cstdint>
#include <vector>

namespace lbbench {

struct Interval {
  double low = 0;
  double high = 0;
};

double median(std::vector<double> values);
// Linear interpolation between order statistics of an ascending sample, q in [0, 1].
double quantile(const std::vector<double>& sorted, double q);
// Percentile interval (95%) of median(b) / median(a) over resamples of both samples.
Interval bootstrap_ratio_of_medians(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                                    std::uint64_t seed);
// Percentile interval (95%) of sum(hits) / sum(trials) over resamples of the clusters (a
// cluster bootstrap: the repetitions of one case are not independent draws).
struct Cluster {
  double hits = 0;
  double trials = 0;
};
Interval bootstrap_proportion(const std::vector<Cluster>& clusters, int resamples, std::uint64_t seed);

}  // namespace lbbench
