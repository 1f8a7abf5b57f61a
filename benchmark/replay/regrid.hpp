// A block mesh's regrid on the MPI engines: meshes/octree/ decides it and rebuilds each
// rank's blocks; this carries it out among the ranks. In order: the decision's rounds of
// messages; the siblings of each merging family moved by the migration engine to the rank
// that gathers the family (payloads checksummed, owner tables told, counted as the
// regrid's own traffic); the fates told to the neighbours' ranks; every rank's blocks
// rebuilt; and one reduction that checks that blocks, ids and work are conserved across
// it (what is left plus what was made, less what was destroyed). The step's messages and
// the per-vertex times then follow the new blocks. What only the record needs is kept per
// rank and reduced when the run ends, as the LB calls' is (call_ledger.hpp).
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "meshes/octree/front.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "meshes/octree/restructure.hpp"
#include "record/run_record.hpp"
#include "replay/migration.hpp"
#include "replay/step_loop.hpp"
#include "scenario/scenario.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

class Engine;

// The conservation a regrid must keep, from the sums over all ranks: blocks, their ids'
// checksum and their work before it, plus what it made, less what it destroyed, is what
// is after it; and it made and destroyed as many blocks as its splits and merges say.
struct RegridCensus {
  std::int64_t before = 0;
  std::int64_t after = 0;
  std::int64_t created = 0;
  std::int64_t destroyed = 0;
  std::int64_t refined = 0;
  std::int64_t families = 0;
  std::int64_t edge_ends = 0;  // after
  std::uint64_t ids_before = 0;
  std::uint64_t ids_after = 0;
  std::uint64_t ids_created = 0;
  std::uint64_t ids_destroyed = 0;
  double work_before = 0;
  double work_after = 0;
  double work_created = 0;
  double work_destroyed = 0;
  static void add(RegridCensus& into, const RegridCensus& from);
};
// Throws AgreedRunError naming what was not conserved (`children`: 2^dim). The same
// sums on every rank, so every rank throws alike.
void check_regrid_census(const RegridCensus& c, int children, int step);
// One rank's part of the census: its blocks before the rebuild with their fates (what it
// destroys), and after it (what it made); work as the field weighs it at `step`.
void count_regrid_before(RegridCensus& c, const LocalGraph& g, const std::vector<Fate>& fate,
                         const WorkloadField& field, int step);
void count_regrid_after(RegridCensus& c, const Restructured& rebuilt, const WorkloadField& field, int step);

class Regridder {
 public:
  Regridder(const Scenario& s, MPI_Comm comm);
  ~Regridder();
  Regridder(const Regridder&) = delete;
  Regridder& operator=(const Regridder&) = delete;

  // Collective. Regrids the mesh after `step` for the front at step + 1; the loop's
  // messages and times follow. `verify` checks every owner table and edge afterwards.
  void regrid(LocalGraph& graph, StepLoop& loop, Migrator& migrator, const WorkloadField& field,
              const MachineInfo& machine, const Engine& engine, int step, bool verify);

  // Collective: each regrid as the record holds it, complete on rank 0.
  [[nodiscard]] std::vector<RegridEvent> settle(MPI_Comm comm) const;

 private:
  // One rank's share of one regrid.
  struct Share {
    RegridEvent global;  // what every rank knows at once: counts and rounds
    double time_s = 0;
    double decision_s = 0;
    double migration_s = 0;
    double rebuild_s = 0;
    std::int64_t messages = 0;
    std::int64_t bytes = 0;
    MigrationStats moved;
    std::int64_t arrived = 0;
    CensusShare census_after{};
    std::uint64_t digest_share = 0;
  };

  // A regrid where no block wishes to change: nothing is decided, moved or rebuilt.
  void keep_the_blocks(const LocalGraph& graph, const StepLoop& loop, const MachineInfo& machine, int step);

  OctreeSpec spec_;
  OctreeGeometry geometry_;
  Front front_;
  MPI_Comm comm_;
  int me_;
  std::unique_ptr<SparseExchange> exchange_;
  std::vector<Share> shares_;
};

// Checks that every edge is listed at both ends with both ends' owners right. Collective.
// Returns the number of broken entries over all ranks.
std::int64_t count_asymmetric_edges(const LocalGraph& g, MPI_Comm comm);

}  // namespace lbbench
