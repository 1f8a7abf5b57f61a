// The replay benchmark, Algorithm 3 of Pearce et al. (ICS'12): every step, post a receive
// and a send for each remote edge, run do_work(w) for each local vertex, wait for all
// messages, and rebalance at LB points.
#pragma once

#include <mpi.h>

#include <string>

#include "core/json_yaml.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct RunOptions {
  bool verify = false;          // check every owner table after every migration
  double watchdog_seconds = 600;
  bool recalibrate = false;     // measure do_work even when a cached calibration exists
  std::string command_line;     // for provenance
};

struct RunOutcome {
  bool reporter = false;  // this process holds what follows: rank 0 of the run's communicator
  Json record;
  std::string summary;    // the human summary
  std::string warnings;
  std::string steps_csv;  // the per-step table
};

// Collective over comm. With `cores` or `reorder` in the scenario, the replay runs on a
// reordered copy of comm, whose rank 0 need not be comm's.
RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options, MPI_Comm comm);

}  // namespace lbbench
