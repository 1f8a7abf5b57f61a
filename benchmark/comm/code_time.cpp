// Charging the machine for real code (see code_time.hpp).
#include "comm/code_time.hpp"

#include <algorithm>

#include "core/clock.hpp"

namespace lbbench {

// Both clocks are read before the region, the CPU clock first, so that neither read is
// inside the interval that is measured.
CodeStopwatch::CodeStopwatch() : cpu_start_(code_cpu_seconds()), wall_start_(wall_seconds()) {}

double CodeStopwatch::seconds() const {
  const double wall = wall_seconds() - wall_start_;
  return wall < kShortRegionSeconds ? wall : std::clamp(code_cpu_seconds() - cpu_start_, 0.0, wall);
}

}  // namespace lbbench
