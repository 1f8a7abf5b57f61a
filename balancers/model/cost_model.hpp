// Pearce et al.'s cost model (ICS'12, Section 5.2, equations 5-11): the application time
// predicted under no balancing, a global balancer and diffusion, from the current
// per-process loads, the platform's alpha and beta, and each balancer's decision cost.
#pragma once

#include "balancers/model/diffusion_sim.hpp"

namespace lbbench {

// alpha: start-up cost of one migration (s); beta: per byte (s/B). Equation 6.
struct Platform {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};

// Equation 6: C_DataMvmt = alpha + beta x ElementsMoved_max x elementsize (0 when nothing
// moves: no message, no latency).
double data_movement_cost(const Platform& platform, double elements_moved_max, double element_bytes);

// Equation 5: C_BalAlg = C_LbDecision + C_DataMvmt.
double balancing_cost(double decision_s, const Platform& platform, double elements_moved_max, double element_bytes);

// Equation 7, corrected: the heaviest process sends the share of its elements by which it
// exceeds the mean, Elements_max x (L_max - L_ave) / L_max. The paper prints
// L_ave / (L_max - L_ave), which grows as the imbalance shrinks; its own explanation
// ("the portion ... proportional to the load imbalance") is the corrected form.
double elements_moved_global(double elements_max, double l_ave, double l_max);

// Equation 11: AppTime_none = steps x L_max.
double app_time_none(double l_max, int steps);

// Equation 9: AppTime_global = C_global + steps x L_ave (one call, then balanced steps).
// `l_after` generalizes L_ave to the balance the balancer really reaches (L_ave for the
// paper's ideal global balancer).
double app_time_global(double c_global, double l_after, int steps);

// Equation 10: AppTime_diff = sum over steps of (C_diff_i + L_max_i), with L_max_i and
// ElementsMoved_max_i from the simulator and C_diff_i = decision + data movement. The
// paper diffuses at every step; with diffusion every `steps_per_call` steps each
// simulated step's L_max lasts that many application steps.
double app_time_diffusion(const DiffusionSimResult& sim, double decision_s, const Platform& platform,
                          double element_bytes, int steps_per_call = 1);

}  // namespace lbbench
