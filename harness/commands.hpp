// `lbbench sweep` and `lbbench report`, behind the command line's parsing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/report.hpp"
#include "harness/sweep.hpp"

namespace lbbench {

struct SweepCommand {
  std::string file;
  std::vector<std::string> sets;     // --set, after the sweep file's settings
  std::vector<std::string> plugins;  // --plugin, loaded before the sweep file's
  std::string results;               // default results/<name>
  bool list = false;                 // print the runs and their state, run nothing
  bool fresh = false;                // set earlier records aside and start over
  std::string launcher;              // overrides the sweep's `launcher`
  int repetitions = 0;               // > 0: overrides the sweep's `repetitions`
  // Slurm
  bool slurm = false;
  bool dry_run = false;
  bool status = false;
  bool collect = false;
  SlurmSettings slurm_overrides;  // non-empty fields win over the sweep file's
  // One array task of a submitted job (written into batch scripts).
  std::optional<int> task;
  std::string ids_file;
};

int sweep_command(const SweepCommand& cmd);

struct ReportCommand {
  std::string results;
  ReportOptions options;
  std::string csv_file;    // also write the CSV table here
  std::string costs_file;  // write the fitted platform costs here, for machine.costs
  bool csv = false;        // print CSV instead of markdown
  std::string engines;     // set the engines' runs of the same cases beside this engine's
};

int report_command(const ReportCommand& cmd);

}  // namespace lbbench
