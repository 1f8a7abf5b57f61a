// What the LB calls leave for the record. Each rank keeps its share of everything the
// record says of a call that no balancer needs: the plan's predicted imbalance, the
// migration's totals and placement digest, the census after it, the slowest rank's
// decision and migration times, and Pearce's metrics of the loads. The run's end reduces
// the shares of all calls at once (record_builder.hpp), after the run's clock has
// stopped. A record must not move the times it records: on a machine of two sites every
// collective costs the wide-area latency several times over, and these were five per call
// (with a sparse exchange), more than a whole step of the run.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "comm/sparse_exchange.hpp"
#include "record/run_record.hpp"
#include "replay/step_loop.hpp"

namespace lbbench {

// One rank's share of one LB call.
struct CallShare {
  // This rank's model load, and its mean compute and wall time per step since the last
  // call: the metrics' inputs.
  std::array<double, 3> loads{};
  double total_load = 0;  // over all ranks, as the call saw it (the same on every rank)
  bool kept = false;      // the balancer promised that nothing moves
  // Per load component: this rank's loads before the plan (vector workloads only), what
  // the plan keeps here, and what it gives to each other rank.
  std::vector<double> components_before;
  std::vector<double> components_kept;
  std::map<int, std::vector<double>> components_given;
  std::int64_t arrived = 0;  // vertices this rank received
  double decision_s = 0;
  double migration_s = 0;
  CensusShare census_after{};
  std::int64_t vertices_sent = 0;
  std::int64_t bytes_sent = 0;
  std::uint64_t digest_share = 0;  // of the placement after the call
};

class CallLedger {
 public:
  CallLedger(std::uint64_t initial_digest, const CommCensus& initial, const CensusShare& initial_share)
      : initial_digest_(initial_digest), initial_(initial), carried_share_(initial_share) {}

  void add(CallShare share);
  // This rank's census share as the last migration left it (or as the run began, or a
  // regrid): only these may change it, which `--verify` checks at every call.
  [[nodiscard]] const CensusShare& carried_census_share() const { return carried_share_; }
  // A block mesh regridded: this rank's census share and placement digest share after it,
  // which the next call finds.
  void regridded(const CensusShare& share, std::uint64_t digest_share);

  // Collective over comm: one sparse exchange (the plans' gifts of load), two reductions
  // and a gather, whatever the number of calls. Fills what the shares say of `events` (one
  // per call, in order) on rank 0; other ranks' events are left as they were.
  void settle(std::vector<LbEvent>& events, int dims, SparseExchange& exchange, MPI_Comm comm) const;

 private:
  std::uint64_t initial_digest_;
  CommCensus initial_;
  CensusShare carried_share_;
  std::vector<CallShare> calls_;
  // The regrids since the run began: the calls before each, and this rank's shares after it.
  struct Regrid {
    std::size_t calls_before = 0;
    CensusShare census{};
    std::uint64_t digest = 0;
  };
  std::vector<Regrid> regrids_;
};

}  // namespace lbbench
