// What each candidate does on a sample problem, decided once before the run, as the model
// engine decides (in one process). Two things a first call cannot be priced or valued
// without, and which the network does not tell:
//  - a centralized candidate's decision code per object on this host: METIS's solve takes
//    ten times greedy's on the same objects (pricing.hpp);
//  - the share of the imbalance its decision removes: greedy reaches the mean, a tree or a
//    diffusion stops short by its own rules (learned.hpp: an untried candidate's correction);
//  - the share of the edges within a rank its decision cuts: greedy, which ignores the
//    graph, cuts nearly all, a tree or a diffusion those of the few objects it moves
//    (pricing.hpp: what the exchange grows by).
#pragma once

#include "balancers/sdk/balancer.hpp"

namespace lbbench {

struct SampleSolve {
  double seconds_per_object = 0;  // a centralized candidate's solve; 0 for a protocol
  double share_removed = 1;       // of the sample's slowest rank over the mean; 1 where not decided
  double share_cut = 0;           // of the sample's edges within a rank, those its decision cut
};

// The sample: a 2-D grid of objects with coordinates, whose log-normal loads are heavier
// in one region several ranks wide (sampling.cpp), dealt out in blocks over a fixed
// number of ranks, so that partitioners, geometric, load-only and distributed strategies
// all have what they ask for. The solve's time is the fastest of a few runs, by the clock
// the engines charge code by (core/clock.hpp).
[[nodiscard]] SampleSolve solve_sample(const Balancer& candidate);

}  // namespace lbbench
