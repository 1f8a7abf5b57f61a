// lbbench-smpi is the smpi engine's back end: smpirun starts it, `lbbench run --engine
// smpi` starts smpirun. The commands that need a real host say so here.
#include "core/error.hpp"
#include "engines/native_commands.hpp"

namespace lbbench {

int calibrate_command(const CalibrateRequest& request, int, char**) {
  if (!request.preset_out.empty()) {
    throw InputError("calibrate --preset-out measures a real machine: run it with lbbench under mpirun or srun");
  }
  if (request.network) {
    throw InputError(
        "under the smpi engine the network is the preset's (machine.latency, machine.bandwidth); there is nothing to "
        "calibrate");
  }
  throw InputError("the smpi engine simulates do_work; there is nothing to calibrate");
}

}  // namespace lbbench
