// Pearce et al.'s diffusion simulator (ICS'12, Algorithm 2), which predicts what diffusive
// balancing will do without running it: per simulated step, the largest process load and
// the largest number of elements moved to one process, and `convergence_steps`, the steps
// taken until the imbalance is within the threshold.
//
// One simulated step is one LB call of lbbench's `diffusion` balancer, so the simulator
// predicts that balancer. Departures from Algorithm 2, each following the balancer:
// - The update is Cybenko's, L_i += sum_j alpha_ij (L_j - L_i): the paper's sign would
//   amplify imbalance (a typo).
// - alpha_ij is the paper's gamma when it is given; by default it is Boillat's
//   damping / (1 + max(deg_i, deg_j)), since with gamma = 1 and more than one neighbor the
//   paper's update overshoots and oscillates.
// - Each step runs `iterations` diffusion iterations on virtual loads, as the balancer
//   does per call, and then moves the accumulated flow of each edge between neighbors only.
//   A process sends at most its own load; flow passing through it beyond that stays put.
// - Elements move with the sender's mean load per element: Algorithm 2's
//   NumElements_i x (moved load) assumes loads normalized per element.
#pragma once

#include <optional>
#include <vector>

namespace lbbench {

struct DiffusionSimInput {
  std::vector<double> loads;                // L_i, per process
  std::vector<double> elements;             // NumElements_i, per process
  std::vector<std::vector<int>> neighbors;  // D_i; symmetric
  std::optional<double> gamma;              // the paper's load-shifting coefficient, <= 1
  double damping = 1.0;                     // Boillat's alpha's scale, when gamma is unset
  int iterations = 20;                      // diffusion iterations per step
  double threshold = 0.02;                  // imbalance (max/avg - 1) counted as balanced
  int steps = 1;                            // steps to simulate
};

struct DiffusionSimStep {
  double imbalance_before = 0;    // max/avg - 1 at the start of the step
  double lmax = 0;                // L_max_i, after the step's movement
  double elements_moved_max = 0;  // ElementsMoved_max_i: most elements moved to one process
};

struct DiffusionSimResult {
  std::vector<DiffusionSimStep> steps;
  int convergence_steps = 0;  // steps that began above the threshold
  std::vector<double> final_loads;
};

DiffusionSimResult simulate_diffusion(const DiffusionSimInput& input);

}  // namespace lbbench
