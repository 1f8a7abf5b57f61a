// A block mesh's regrid in the model engine: the decision and the rebuilding code the MPI
// engines run (meshes/octree/), on the whole mesh in one process. The families gather as
// the migration engine would move them (ModelState::migrate), each modeled rank's blocks
// are rebuilt in its own local order, as its process would rebuild them, and the whole is
// priced on the modeled machine: each round of the decision as a protocol round with the
// messages each rank would send (RoundPricer), the gathering as a migration, and the
// decision's and the rebuilding's code by its CPU time on the busiest rank, scaled to the
// machine's core.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "comm/sparse_exchange.hpp"
#include "engines/model/round_pricer.hpp"
#include "engines/model/state.hpp"
#include "machine/network.hpp"
#include "meshes/octree/front.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "record/run_record.hpp"
#include "scenario/scenario.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

struct ModelRegrid {
  // Complete but for the census after it, which the caller's halo gives.
  RegridEvent event;
  double duration_s = 0;  // from the slowest rank's step end to the next step
  // Per new position, the old positions whose measured times it inherits: those its rank
  // held before the gathering, as an MPI rank knows only its own (CSR).
  std::vector<std::int64_t> inherit_begin{0};
  std::vector<std::int64_t> inherit_from;
};

class ModelRegridder {
 public:
  // `code_scale`: machine seconds per host second of code (0: code is free).
  ModelRegridder(const Scenario& s, const NetworkModel& net, const MachineInfo& machine, double code_scale);
  ~ModelRegridder();
  ModelRegridder(const ModelRegridder&) = delete;
  ModelRegridder& operator=(const ModelRegridder&) = delete;

  // Regrids `state` after `step`, for the front at step + 1.
  ModelRegrid regrid(ModelState& state, const WorkloadField& field, int step);

 private:
  // A regrid where no block wishes to change: nothing is decided, moved or rebuilt.
  static void keep_the_blocks(const ModelState& state, ModelRegrid& out);
  // The decision's rounds, with the messages each rank sends, priced and counted.
  void price_decision(const ModelState& state, const RegridDecision& d, const std::vector<Rank>& owner,
                      RoundPricer& pricer, RegridEvent& e) const;
  // Each merging family onto its gathering rank, as a migration, then the fates' round.
  void gather_families(ModelState& state, const RegridDecision& d, RoundPricer& pricer, RegridEvent& e) const;
  // Every rank's blocks rebuilt in its own order into the new graph, the census checked;
  // returns the slowest rank's rebuilding, host seconds.
  double rebuild_ranks(ModelState& state, const RegridDecision& d, const std::vector<Rank>& before_gather,
                       const WorkloadField& field, ModelRegrid& out) const;

  const OctreeSpec spec_;
  const OctreeGeometry geometry_;
  const Front front_;
  const NetworkModel& net_;
  const MachineInfo& machine_;
  double code_scale_;
  std::unique_ptr<SparseExchange> exchange_;  // on this process alone: no block is remote
};

}  // namespace lbbench
