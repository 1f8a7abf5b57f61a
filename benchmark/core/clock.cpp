// Wall-clock helpers (see clock.hpp).
#include "core/clock.hpp"

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>

namespace lbbench {

double now_seconds() {
#ifdef LBBENCH_SMPI
  return MPI_Wtime();
#else
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
#endif
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
#ifdef LBBENCH_SMPI
  // The simulated host this rank runs on.
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
    int length = 0;
    MPI_Get_processor_name(name.data(), &length);
    return std::string(name.data(), static_cast<std::size_t>(length));
  }
#endif
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

}  // namespace lbbench
