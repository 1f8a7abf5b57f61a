// Charging the machine for real code (see code_time.hpp).
#include "mpi/code_time.hpp"

#include <algorithm>

#include "core/clock.hpp"

namespace lbbench {

ChargedCode::ChargedCode() : start_(code_cpu_seconds()) {}

ChargedCode::~ChargedCode() { charge_code(std::max(0.0, code_cpu_seconds() - start_)); }

}  // namespace lbbench
