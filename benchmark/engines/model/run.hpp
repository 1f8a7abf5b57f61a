// The model engine's run: the same scenario and balancer code as the MPI engines, on a
// machine modeled rather than simulated (state.hpp, step_timing.hpp, lb_call.hpp), filling
// the same record (`engine: "model"`).
#pragma once

#include <string>

#include "record/run_record.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct ModelOptions {
  // Machine seconds per host second of real code (balancer decisions), as SMPI charges
  // code. do_work(w) takes w x unit_seconds on the machine's core, as under SMPI.
  double code_time_scale = 1.0;
  bool charge_code = true;     // false: the decision's code is free (--code-charge none)
  std::string command_line;    // for provenance
  std::string lbdatafile_out;  // --lbdatafile-out: a folder for the run as LBDatafile JSON
  std::string rank_loads_out;  // --rank-loads (replay/rank_loads.hpp)
  int rank_loads_stride = 0;
};

// Throws InputError for what the model engine cannot run.
RunRecord run_model(const Scenario& s, int nranks, const ModelOptions& options);

}  // namespace lbbench
