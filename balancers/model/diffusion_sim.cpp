// Pearce et al.'s diffusion simulator (see diffusion_sim.hpp).
#include "balancers/model/diffusion_sim.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "balancers/diffusive/params.hpp"

namespace lbbench {

namespace {

double imbalance_of(const std::vector<double>& loads) {
  const double sum = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (loads.empty() || sum <= 0) return 0;
  return *std::max_element(loads.begin(), loads.end()) / (sum / static_cast<double>(loads.size())) - 1;
}

// Net flow accumulated on each (process, neighbor slot) over the step's iterations,
// positive when the process sends.
std::vector<std::vector<double>> diffusion_flows(const DiffusionSimInput& in, const std::vector<double>& loads) {
  const std::size_t n = loads.size();
  std::vector<std::vector<double>> flow(n);
  std::vector<std::vector<double>> alpha(n);
  for (std::size_t i = 0; i < n; ++i) {
    flow[i].assign(in.neighbors[i].size(), 0.0);
    for (const int j : in.neighbors[i]) {
      alpha[i].push_back(diffusion_alpha(in.gamma, in.damping, static_cast<std::int64_t>(in.neighbors[i].size()),
                                         static_cast<std::int64_t>(in.neighbors[static_cast<std::size_t>(j)].size())));
    }
  }
  std::vector<double> virtual_load = loads;
  std::vector<double> next(n);
  for (int it = 0; it < in.iterations; ++it) {
    if (imbalance_of(virtual_load) <= in.threshold) break;  // the balancer stops here too
    for (std::size_t i = 0; i < n; ++i) {
      double change = 0;
      for (std::size_t k = 0; k < in.neighbors[i].size(); ++k) {
        const double f = alpha[i][k] * (virtual_load[i] - virtual_load[static_cast<std::size_t>(in.neighbors[i][k])]);
        flow[i][k] += f;
        change -= f;
      }
      next[i] = virtual_load[i] + change;
    }
    virtual_load.swap(next);
  }
  return flow;
}

}  // namespace

DiffusionSimResult simulate_diffusion(const DiffusionSimInput& in) {
  const std::size_t n = in.loads.size();
  if (in.elements.size() != n || in.neighbors.size() != n) {
    throw std::invalid_argument("simulate_diffusion: loads, elements and neighbors differ in length");
  }
  DiffusionSimResult result;
  std::vector<double> loads = in.loads;
  std::vector<double> elements = in.elements;
  for (int step = 0; step < in.steps; ++step) {
    DiffusionSimStep s;
    s.imbalance_before = imbalance_of(loads);
    if (s.imbalance_before > in.threshold) ++result.convergence_steps;
    const auto flow = diffusion_flows(in, loads);
    std::vector<double> load_in(n, 0.0);
    std::vector<double> elements_in(n, 0.0);
    std::vector<double> load_out(n, 0.0);
    std::vector<double> elements_out(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      double sending = 0;
      for (const double f : flow[i]) sending += std::max(0.0, f);
      // A process can only send what it holds.
      const double scale = sending > loads[i] ? loads[i] / sending : 1.0;
      const double per_unit = loads[i] > 0 ? elements[i] / loads[i] : 0.0;
      for (std::size_t k = 0; k < flow[i].size(); ++k) {
        if (flow[i][k] <= 0) continue;
        const double moved = flow[i][k] * scale;
        const auto j = static_cast<std::size_t>(in.neighbors[i][k]);
        load_out[i] += moved;
        elements_out[i] += moved * per_unit;
        load_in[j] += moved;
        elements_in[j] += moved * per_unit;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      loads[i] += load_in[i] - load_out[i];
      elements[i] += elements_in[i] - elements_out[i];
      s.elements_moved_max = std::max(s.elements_moved_max, elements_in[i]);
    }
    s.lmax = n ? *std::max_element(loads.begin(), loads.end()) : 0.0;
    result.steps.push_back(s);
  }
  result.final_loads = std::move(loads);
  return result;
}

}  // namespace lbbench
