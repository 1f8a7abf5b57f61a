// Starting a run on an engine the `lbbench` front end does not run in-process: it checks
// the request and starts what runs it (`--engine smpi`: smpirun with lbbench-smpi), with the
// same scenario, overrides and outputs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/catalog.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

struct LaunchRequest {
  std::string scenario;
  std::string trace;                   // --trace: a recorded run instead of a scenario file
  std::vector<std::string> overrides;  // --set, forwarded
  std::string lbdatafile_out;          // --lbdatafile-out
  std::string rank_loads_out;          // --rank-loads
  int rank_loads_stride = 0;           // --rank-loads-stride
  int ranks = 0;                       // 0: the scenario's `ranks`
  std::string record_out;              // --out
  std::string steps_csv;               // --steps-csv
  bool verify = false;                 // --verify
  double watchdog_seconds = 600;       // --watchdog
  std::string platform_dir;            // keep the generated platform here; empty: a temporary folder
  std::vector<std::string> cfg;        // extra simulator settings, KEY:VALUE
  // The simulating host's clock, which sets how real code is charged (code_time_scale);
  // measured when not given.
  std::optional<double> host_ghz;
  // How real code takes simulated time: "explicit" (the balancers' and the migration's
  // code, by its own CPU time: code_cpu_seconds), "simulator" (SimGrid benchmarks all code between
  // MPI calls, its own overhead included) or "none" (only do_work and messages take time:
  // runs repeat exactly).
  std::string code_charge = "explicit";
  std::string command_line;          // for provenance
  std::optional<double> max_memory;  // --max-memory, bytes: the limit the run is checked against
  std::vector<std::string> plugins;  // --plugin, absolute, forwarded
};

// A scenario's rank count for a one-process engine: --ranks, or the scenario's `ranks`, or
// a recorded run's own.
int requested_ranks(const LaunchRequest& launch, const Scenario& s, std::string_view engine);

// Cycles per second of one core of this host, measured with a chain of dependent adds
// (one per cycle on any current core); or the request's host_ghz.
double host_ghz(const LaunchRequest& launch);

}  // namespace lbbench
