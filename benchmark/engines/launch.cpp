// What starting a run on another engine needs (see launch.hpp).
#include "engines/launch.hpp"

#include <fmt/format.h>

#include "core/clock.hpp"
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

double host_ghz(const LaunchRequest& launch) { return launch.host_ghz ? *launch.host_ghz : measured_host_ghz(); }

}  // namespace lbbench
