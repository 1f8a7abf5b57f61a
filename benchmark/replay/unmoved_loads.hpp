// Where this rank's vertices were before the last LB call, so that the loads since the call
// can be replayed on the placement it changed. `auto` credits a call with how much lower
// the slowest rank is where the vertices went than where they were
// (CallOutlook::unmoved_max_load_s).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "replay/migration.hpp"

namespace lbbench {

class PlacementBefore {
 public:
  // After a call that migrated: what the migration says of where the vertices came from.
  void after_migration(const MigrationStats& stats, std::int64_t local_vertices);
  // After a call that moved nothing: every vertex stayed.
  void after_call_without_moves(std::int64_t local_vertices);
  // After the vertex set changed (a block mesh's regrid): nothing is known until the next call.
  void forget() { known_ = false; }
  [[nodiscard]] bool known() const { return known_; }
  // This rank's load had the last call moved nothing, from its vertices' loads (in local
  // order). Collective among the ranks the call moved vertices between: each sends the
  // load of what it received back to where it came from.
  [[nodiscard]] double unmoved_load(std::span<const Load> loads, MPI_Comm comm) const;

 private:
  bool known_ = false;
  std::int64_t kept_ = 0;
  std::vector<std::pair<int, std::int64_t>> arrived_from_;
  std::vector<int> sent_to_;
};

}  // namespace lbbench
