// Charging the machine for real code (see code_time.hpp).
#include "mpi/code_time.hpp"

#include <algorithm>

#include "core/clock.hpp"

namespace lbbench {

namespace {

// Below this a region is timed by the monotonic clock alone: too short to hold a page fault
// or a preemption, and shorter than the CPU clock's own cost, which would otherwise be most
// of what a protocol round's handler is charged.
constexpr double kShortRegion = 5e-6;

}  // namespace

// Both clocks are read before the region, the CPU clock first, so that neither read is
// inside the interval that is charged.
ChargedCode::ChargedCode() : cpu_start_(code_cpu_seconds()), wall_start_(wall_seconds()) {}

ChargedCode::~ChargedCode() {
  const double wall = wall_seconds() - wall_start_;
  charge_code(wall < kShortRegion ? wall : std::max(0.0, code_cpu_seconds() - cpu_start_));
}

}  // namespace lbbench
