// A run's outputs (see outputs.hpp).
#include "app/outputs.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>

#include "app/reporters.hpp"
#include "core/error.hpp"
#include "record/record_file.hpp"

namespace lbbench {

void check_outputs_writable(const RunOutputs& outputs) {
  check_writable(outputs.record, "record file", true);
  check_writable(outputs.steps_csv, "per-step table", false);
}

void report_run(const RunRecord& record, const std::string& warnings, const RunOutputs& outputs) {
  std::fputs(warnings.c_str(), stderr);
  std::fputs(console_summary(record).c_str(), stdout);
  if (!outputs.record.empty()) {
    append_record(outputs.record, to_json(record));
    fmt::print("  record appended to {}\n", outputs.record);
  }
  if (!outputs.steps_csv.empty()) {
    std::ofstream out(outputs.steps_csv);
    out << steps_csv(record);
    if (!out) throw RunError(fmt::format("{}: could not write the per-step table", outputs.steps_csv));
  }
  std::fflush(stdout);
}

}  // namespace lbbench
