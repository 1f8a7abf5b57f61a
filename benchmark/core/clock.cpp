// Wall-clock helpers (see clock.hpp).
#include "core/clock.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>

namespace lbbench {

double wall_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double thread_cpu_seconds() {
  timespec t{};
  // Parenthesized, so that a simulator's clock_gettime macro (SMPI's answers with simulated
  // time) does not replace the host's clock.
  (clock_gettime)(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::string utc_timestamp(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 64> buffer{};
  std::strftime(buffer.data(), buffer.size(), format, &tm);
  return buffer.data();
}

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

}  // namespace lbbench
