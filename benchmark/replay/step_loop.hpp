// Algorithm 3, lines 3-9: every step, post a receive and a send for each remote edge, run
// do_work(w) for every local vertex (each phase of a vector workload in turn), and wait for
// the messages. Keeps this rank's times: per step, and per vertex since the last LB call
// when the loads are measured.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "core/local_graph.hpp"
#include "record/run_record.hpp"
#include "replay/compute_phase.hpp"
#include "replay/halo_exchange.hpp"
#include "scenario/scenario.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

class Engine;

// One rank's share of a CommCensus, summed over ranks: the ends of its cut edges, their
// bytes, its messages per step and those between sites.
using CensusShare = std::array<std::int64_t, 4>;
// The census of the shares summed over all ranks.
CommCensus census_of(const CensusShare& summed);

// This rank's times, per step.
struct RankSteps {
  std::vector<double> compute;                     // in do_work
  std::vector<double> wait;                        // the rest of the step
  std::vector<double> wall;                        // the whole step
  std::vector<std::vector<double>> phase_compute;  // per component, per step (vector workloads)
};

class StepLoop {
 public:
  // The communicators the loop uses: the run's, for reductions; one reserved for step
  // messages; one for the barriers between the phases of a vector workload (null for a
  // scalar one). The caller owns them.
  struct Comms {
    MPI_Comm run = MPI_COMM_NULL;
    MPI_Comm halo = MPI_COMM_NULL;
    MPI_Comm phases = MPI_COMM_NULL;
  };
  // `time_vertices`: keep each vertex's do_work time (phase_time), for measured loads. A
  // clock read per vertex is the replay's largest cost at small weights, so a run that
  // does not need them times only its phases. `sum_vertex_times`: keep phase_time_summed
  // too (the trend forecast, or a balancer that needs trends).
  StepLoop(const Scenario& s, const Engine& engine, const WorkloadField& field, ComputePhase& work,
           std::optional<WanDelay> wan_delay, bool sleep_while_waiting, Comms comms, bool time_vertices,
           bool sum_vertex_times);

  // Builds the step's messages for the graph as it is now; after every migration, which
  // also starts the per-vertex times afresh. Collective.
  void rebuild(const LocalGraph& graph);
  // Starts the per-vertex times afresh on the same graph: after an LB call that moved
  // nothing.
  void restart_vertex_times();

  // Each vertex's times since the last LB call, by id: what a regrid hands on to the blocks
  // it makes.
  struct TimesById {
    std::unordered_map<VertexId, LocalIndex> index;
    std::vector<std::vector<double>> time;    // phase_time as it was
    std::vector<std::vector<double>> summed;  // phase_time_summed as it was
  };
  [[nodiscard]] TimesById times_by_id(const LocalGraph& graph) const;
  // After a regrid of a block mesh: the step's messages for the blocks as they are now
  // (collective), and each block's times since the last LB call inherited from the blocks
  // it replaced, `from[begin[v] .. begin[v+1])` (the mean of those `before` knows). A block
  // does the same work whatever its level, so a child measures as its parent did and a
  // merged block as its siblings did; the steps since the last call go on counting.
  void regridded(const LocalGraph& graph, const TimesById& before, std::span<const std::int64_t> begin,
                 std::span<const VertexId> from);
  // Runs one step. `watchdog_seconds` bounds a wait for messages (engines that poll).
  // `next_follows`: step + 1 runs next on this graph with nothing in between (no LB call,
  // no export), so this step ends by preparing it: its weights and its posted messages.
  void run(const LocalGraph& graph, int step, double watchdog_seconds, bool next_follows);

  // A barrier on the run's communicator under the step's watchdog (see HaloExchange::barrier).
  void barrier(int step, double watchdog_seconds, std::string_view where) const {
    exchange_->barrier(comms_.run, step, watchdog_seconds, where);
  }

  [[nodiscard]] const RankSteps& steps() const { return steps_; }
  // Per component, per local vertex: the weights of the last step run.
  [[nodiscard]] const std::vector<std::vector<double>>& weights() const { return weights_; }
  // Per component, per local vertex: do_work time summed since the last rebuild (zeros
  // unless the loop times its vertices).
  [[nodiscard]] const std::vector<std::vector<double>>& phase_time() const { return phase_time_; }
  // Per component, per local vertex: phase_time summed over the steps since the last
  // rebuild as it stood after each (kept only where a line is fitted through each
  // vertex's steps: `forecast: trend`, or trends for the balancer; see
  // replay/load_model.hpp).
  [[nodiscard]] const std::vector<std::vector<double>>& phase_time_summed() const { return phase_time_summed_; }
  [[nodiscard]] int steps_since_rebuild() const { return steps_since_rebuild_; }
  // The communication the current distribution causes per step, over all ranks.
  // Collective.
  [[nodiscard]] CommCensus census(const MachineInfo& machine) const;
  // This rank's share of it (no communication).
  [[nodiscard]] CensusShare census_share(const MachineInfo& machine) const;

 private:
  // The step's messages for the graph as it is (collective).
  void make_exchange(const LocalGraph& graph);
  // The step's weights and its posted messages.
  void prepare(const LocalGraph& graph, int step);
  // Each returns the time spent in do_work; `start` is when its compute begins.
  [[nodiscard]] double run_bulk(int step, double start, double watchdog_seconds);
  [[nodiscard]] double run_message_driven(int step, double start, double watchdog_seconds);
  // Where component `component`'s vertex times go: empty when they are not kept.
  [[nodiscard]] std::span<double> vertex_times(std::size_t component);
  // Adds this step's phase_time to phase_time_summed, where the forecast needs it.
  void sum_vertex_times();

  const Scenario& s_;
  const Engine& engine_;
  const WorkloadField& field_;
  ComputePhase& work_;
  std::optional<WanDelay> wan_delay_;
  bool sleep_while_waiting_;
  Comms comms_;
  int me_;
  std::unique_ptr<HaloExchange> exchange_;
  std::vector<std::vector<double>> weights_;
  bool weights_ready_ = false;
  std::vector<std::vector<double>> phase_time_;
  std::vector<std::vector<double>> phase_time_summed_;
  bool time_vertices_;
  bool sum_vertex_times_;
  std::optional<double> prepared_at_;  // when the last step ended, having prepared the next one
  int steps_since_rebuild_ = 0;
  RankSteps steps_;
};

}  // namespace lbbench
