// Host time: a monotonic clock for timers, UTC timestamps and the host name for provenance.
#pragma once

#include <string>

namespace lbbench {

// Seconds on this host's monotonic clock (not the simulated clock of a simulated run: the
// run's clock is its engine's).
double wall_seconds();
// CPU time of the calling thread, in seconds: what a piece of code cost, whatever else the
// host was doing meanwhile.
double thread_cpu_seconds();

// The current UTC time in strftime's `format`; by default ISO 8601, "2026-11-21T20:59:00Z".
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");
// The real host this process runs on.
std::string host_name();

}  // namespace lbbench
