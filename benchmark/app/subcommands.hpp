// The command line's other commands: validate, list, calibrate, reorder, sweep and report,
// each an options struct bound to its subcommand here and run by one function.
#pragma once

#include <string>
#include <vector>

#include "app/reorder_plan.hpp"
#include "engines/native_commands.hpp"
#include "harness/commands.hpp"

namespace CLI {
class App;
}

namespace lbbench {

struct ValidateCommand {
  std::string scenario_file;
  std::vector<std::string> overrides;
  std::vector<std::string> plugins;  // --plugin
};
CLI::App* add_validate_command(CLI::App& app, ValidateCommand& c);
int validate_command(const ValidateCommand& c);

struct ListCommand {
  std::string what;
  std::vector<std::string> plugins;  // --plugin
};
CLI::App* add_list_command(CLI::App& app, ListCommand& c);
int list_command(const ListCommand& c);

CLI::App* add_calibrate_command(CLI::App& app, CalibrateRequest& c);
CLI::App* add_reorder_command(CLI::App& app, ReorderRequest& c);
CLI::App* add_sweep_command(CLI::App& app, SweepCommand& c);
CLI::App* add_report_command(CLI::App& app, ReportCommand& c);

}  // namespace lbbench
