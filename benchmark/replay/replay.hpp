// The replay benchmark, Algorithm 3 of Pearce et al. (ICS'12): every step, post a receive
// and a send for each remote edge, run do_work(w) for each local vertex, wait for all
// messages, and rebalance at LB points. It runs on an MPI engine (replay/engine.hpp) and
// fills a RunRecord; the reporters in benchmark/app turn that into text.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>

#include "record/run_record.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

class Engine;

struct RunOptions {
  bool verify = false;  // check every owner table after every migration
  double watchdog_seconds = 600;
  std::string command_line;          // for provenance
  std::optional<double> max_memory;  // --max-memory, bytes
  std::string lbdatafile_out;        // --lbdatafile-out: a folder for the run as LBDatafile JSON
  std::string rank_loads_out;        // --rank-loads: every rank's load around each LB call (rank_loads.hpp)
  int rank_loads_stride = 0;         // --rank-loads-stride: and at every this-many steps
};

struct RunOutcome {
  bool reporter = false;  // this process holds what follows: rank 0 of the run's communicator
  RunRecord record;
  std::string warnings;  // for the user, before the summary
};

// Collective over comm. With `cores` or `reorder` in the scenario, the replay runs on a
// reordered copy of comm, whose rank 0 need not be comm's.
RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options, const Engine& engine, MPI_Comm comm);

}  // namespace lbbench
