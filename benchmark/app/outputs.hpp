// What `lbbench run` leaves besides its exit code: the console summary, the record appended
// to --out and the per-step table of --steps-csv, the same for every engine.
#pragma once

#include <string>

#include "record/run_record.hpp"

namespace lbbench {

struct RunOutputs {
  std::string record;      // --out
  std::string steps_csv;   // --steps-csv
  std::string lbdatafile;  // --lbdatafile-out
};

// Throws InputError where an output cannot be written, before anything runs.
void check_outputs_writable(const RunOutputs& outputs);

// Prints the warnings and the summary, and writes the record and the per-step table.
void report_run(const RunRecord& record, const std::string& warnings, const RunOutputs& outputs);

}  // namespace lbbench
