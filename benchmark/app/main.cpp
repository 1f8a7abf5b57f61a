// The lbbench command line: run, validate, list, calibrate, reorder, sweep, report. Each
// command's options and work are in app/run_command.cpp and app/subcommands.cpp.
#include "app/cli.hpp"
#include "app/exit_codes.hpp"
#include "app/run_command.hpp"
#include "app/subcommands.hpp"
#include "core/version.hpp"

namespace lbbench {
namespace {

int main_impl(int argc, char** argv) {
  CLI::App app{"lbbench: a replay benchmark and evaluation suite for dynamic load balancing"};
  app.set_version_flag("--version", git_describe(), "Print the commit this binary was built from and exit");
  app.require_subcommand(1);
  RunCommand run;
  ValidateCommand validate;
  ListCommand list;
  CalibrateRequest calibrate;
  ReorderRequest reorder;
  SweepCommand sweep;
  sweep.slurm_overrides.runs_per_task = 0;  // unset: the sweep file's settings stand
  sweep.slurm_overrides.mpi.clear();
  ReportCommand report;
  auto* run_cmd = add_run_command(app, run);
  auto* validate_cmd = add_validate_command(app, validate);
  auto* list_cmd = add_list_command(app, list);
  auto* calibrate_cmd = add_calibrate_command(app, calibrate);
  auto* reorder_cmd = add_reorder_command(app, reorder);
  auto* sweep_cmd = add_sweep_command(app, sweep);
  auto* report_cmd = add_report_command(app, report);
  CLI11_PARSE(app, argc, argv);
  if (*run_cmd) return run_command(run, argc, argv);
  return exit_code_of([&] {
    if (*sweep_cmd) return sweep_command(sweep);
    if (*report_cmd) return report_command(report);
    if (*list_cmd) return list_command(list);
    if (*reorder_cmd) return plan_reorder(reorder);
    if (*validate_cmd) return validate_command(validate);
    if (*calibrate_cmd) return calibrate_command(calibrate, argc, argv);
    return kExitInput;
  });
}

}  // namespace
}  // namespace lbbench

int main(int argc, char** argv) { return lbbench::main_impl(argc, argv); }
