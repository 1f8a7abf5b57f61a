// Reporters: text made from a run record and nothing else (measurement and reporting are
// apart, as in google/benchmark's reporters). The console summary `lbbench run` prints,
// and the per-step table of --steps-csv.
#pragma once

#include <string>

#include "record/run_record.hpp"

namespace lbbench {

std::string console_summary(const RunRecord& r);
std::string steps_csv(const RunRecord& r);

}  // namespace lbbench
