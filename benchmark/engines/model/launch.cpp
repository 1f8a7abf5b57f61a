// `lbbench run --engine model` (see launch.hpp).
#include "engines/model/launch.hpp"

#include "comm/heap.hpp"
#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "engines/memory.hpp"
#include "engines/model/run.hpp"
#include "record/record_file.hpp"

namespace lbbench {

RunRecord launch_model(const LaunchRequest& launch) {
  const Scenario s = load_run_scenario(launch.scenario, launch.trace, launch.overrides);
  engine_info(EngineKind::model).check(s);
  const int ranks = requested_ranks(launch, s, "model");
  refuse_what_cannot_fit(memory_needed(s, ranks, EngineKind::model), memory_limit(launch.max_memory), ranks,
                         EngineKind::model);
  check_writable(launch.record_out, "record file", true);
  check_writable(launch.steps_csv, "per-step table", false);
  // The mesh builders and readers speak MPI; the model builds the whole mesh in this one
  // process (MPI_COMM_SELF) and sends no message after that.
  MpiSession mpi(nullptr, nullptr);
  turn_off_fastbins();  // every rank's code runs in this process, timed rank by rank
  const double scale = host_ghz(launch) / s.machine.effective_preset().core_ghz;
  if (launch.code_charge == "simulator") {
    throw InputError(
        "--code-charge simulator: the model engine has no simulator to benchmark code; give explicit or none");
  }
  return run_model(s, ranks,
                   ModelOptions{.code_time_scale = scale,
                                .charge_code = launch.code_charge == "explicit",
                                .command_line = launch.command_line,
                                .lbdatafile_out = launch.lbdatafile_out,
                                .rank_loads_out = launch.rank_loads_out,
                                .rank_loads_stride = launch.rank_loads_stride});
}

}  // namespace lbbench
