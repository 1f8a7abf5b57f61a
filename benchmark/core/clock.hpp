// Wall-clock helpers: monotonic seconds for timers, UTC timestamps for provenance.
#pragma once

#include <chrono>
#include <string>

namespace lbbench {

inline double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// "2026-11-21T20:59:00Z"
std::string utc_timestamp();
std::string host_name();

}  // namespace lbbench
