// Commands that exist only where a binary's native engine runs on real hosts:
// `lbbench calibrate` measures do_work and the network of this host (engines/mpi);
// lbbench-smpi refuses it (engines/smpi/backend_only.cpp).
#pragma once

#include <string>

namespace lbbench {

struct CalibrateRequest {
  bool quick = false;      // a short measurement, accuracy only up to 10 ms
  bool no_cache = false;   // do not write the calibration cache
  bool network = false;    // ping-pong between two ranks for α and β
  bool overhead = false;   // the replay's own METG(50%) and per-step floor
  int repetitions = 0;     // --overhead: runs of each loop at each work (0: its default)
  std::string json_path;   // --overhead: also write the table here as JSON
  std::string preset_out;  // --preset-out: this machine measured into a machine preset
};

// Runs under mpirun (it starts MPI with argc and argv); returns the exit code.
int calibrate_command(const CalibrateRequest& request, int argc, char** argv);

}  // namespace lbbench
