// Charging the machine for real code (see code_time.hpp).
#include "mpi/code_time.hpp"

#include "core/clock.hpp"

namespace lbbench {

ChargedCode::ChargedCode() : start_(thread_cpu_seconds()) {}

ChargedCode::~ChargedCode() { charge_code(thread_cpu_seconds() - start_); }

}  // namespace lbbench
