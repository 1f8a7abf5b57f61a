// A step's time on every rank, as the model engine charges it (Algorithm 3's shape): each
// rank posts its receives and sends, runs its vertices' work, and waits for its messages;
// a message leaves at its sender's start and arrives after the network's time (no sooner
// than the busiest link of its route carries the step's messages that cross it), and each
// receive costs the receive overhead when it is waited on. A vector workload's phases end
// with a barrier each. A message-driven rank runs its interior vertices first and then
// each vertex once the last of its messages is in. The next step of a rank starts where
// its last one ended, so the ranks drift as they do under MPI.
#pragma once

#include <cstdint>
#include <vector>

#include "engines/model/state.hpp"
#include "machine/network.hpp"
#include "record/run_record.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// The messages of every rank per step, per peer (CSR over ranks, peers ascending, as the
// halo exchange orders its messages).
struct Halo {
  std::vector<std::int64_t> begin{0};
  std::vector<int> peer;
  std::vector<double> bytes;           // per step, to that peer
  std::vector<std::int64_t> messages;  // one per peer, or one per cut edge (per-edge messages)
  std::vector<std::int64_t> edges;     // cut edges to that peer
  // From that peer: the least time its messages take on the links they share with the
  // step's others (NetworkModel::step_drain_s).
  std::vector<double> drain_s;
};

Halo halo_of(const ModelState& state, const WorkloadSpec& workload, const NetworkModel& net);
CommCensus census_of(const Halo& halo, const NetworkModel& net);

// One step's per-rank results.
struct StepTimes {
  std::vector<double> compute;                     // per rank
  std::vector<std::vector<double>> phase_compute;  // per component, per rank
  std::vector<double> end;                         // per rank, on the run's clock
};

// The step starting at `start` (per rank). `work` holds each vertex's time on its core
// per component, by position.
StepTimes time_step(const ModelState& state, const Halo& halo, const NetworkModel& net, const WorkloadSpec& workload,
                    const std::vector<std::vector<double>>& work, const std::vector<double>& start);

}  // namespace lbbench
