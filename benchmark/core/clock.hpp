// Wall-clock helpers: monotonic seconds for timers, UTC timestamps for provenance.
#pragma once

#include <chrono>
#include <string>

namespace lbbench {

// Under SMPI, the simulated clock; otherwise the monotonic wall clock.
double now_seconds();

// The current UTC time in strftime's `format`; by default ISO 8601, "2026-11-21T20:59:00Z".
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");
std::string host_name();

}  // namespace lbbench
