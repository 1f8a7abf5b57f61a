// What starting a run on another engine needs (see launch.hpp).
#include "engines/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "core/error.hpp"

namespace lbbench {

int requested_ranks(const LaunchRequest& launch, const Scenario& s, std::string_view engine) {
  int ranks = launch.ranks > 0 ? launch.ranks : s.ranks.value_or(0);
  if (ranks < 1 && is_trace_mesh(s.mesh)) ranks = trace_ranks(std::get<MeshFileSpec>(s.mesh).resolved);
  if (ranks < 1) {
    throw InputError(fmt::format("the {} engine needs a rank count: give --ranks N or the scenario's ranks", engine));
  }
  if (launch.ranks > 0 && s.ranks && *s.ranks != launch.ranks) {
    throw InputError(fmt::format("--ranks {} contradicts the scenario's ranks: {}", launch.ranks, *s.ranks));
  }
  return ranks;
}

double host_ghz(const LaunchRequest& launch) {
  if (launch.host_ghz) return *launch.host_ghz;
  using clock = std::chrono::steady_clock;
  constexpr std::uint64_t kAdds = std::uint64_t{1} << 28;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::uint64_t x = 0;
    const auto t0 = clock::now();
    for (std::uint64_t i = 0; i < kAdds; ++i) {
      x += 1;
      asm volatile("" : "+r"(x));  // one dependent add per iteration, not folded away
    }
    const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
    best = std::max(best, static_cast<double>(kAdds) / seconds / 1e9);
  }
  return best;
}

}  // namespace lbbench
