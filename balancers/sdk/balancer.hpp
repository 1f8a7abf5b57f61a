// The one balancer interface: a collective plan() that turns what a rank sees (LoadView)
// into plain data (MigrationPlan) that the migration engine carries out. A plan can be
// scored without being run, and a strategy never knows which MPI engine runs it.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "balancers/sdk/assumed_network.hpp"
#include "balancers/sdk/fitted_costs.hpp"
#include "balancers/sdk/protocol_stats.hpp"
#include "core/json_yaml.hpp"
#include "core/local_graph.hpp"
#include "core/types.hpp"

namespace lbbench {

// One read-only entry per rank, which copies share: simulated ranks live in one process,
// and thousands of ranks each holding their own P-sized tables made memory grow as P².
template <typename T>
class RankTable {
 public:
  RankTable() = default;
  RankTable(std::vector<T> values)  // NOLINT(google-explicit-constructor): a table is its values
      : values_(std::make_shared<const std::vector<T>>(std::move(values))) {}
  [[nodiscard]] const T& operator[](std::size_t rank) const { return (*values_)[rank]; }
  [[nodiscard]] std::size_t size() const { return values_ ? values_->size() : 0; }
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] const std::vector<T>& values() const { return values_ ? *values_ : kNone; }
  [[nodiscard]] auto begin() const { return values().begin(); }
  [[nodiscard]] auto end() const { return values().end(); }

 private:
  static inline const std::vector<T> kNone{};
  std::shared_ptr<const std::vector<T>> values_;
};

// The network as the machine preset describes it, for cost models (0: not known).
struct NetworkFacts {
  double link_latency_s = 0;
  double link_bandwidth_Bps = 0;
  // A small message between the two farthest ranks, the MPI library's overheads included,
  // and a small allreduce over all ranks, as the simulated engines run them.
  double far_message_s = 0;
  double allreduce_s = 0;
  double barrier_s = 0;
  // What a rank's MPI library spends receiving one small message. A gatherv is linear at
  // its root (in Open MPI, MPICH and SMPI alike): rank 0 pays this once per rank, so at
  // 8,192 ranks each gatherv costs at least 8,192 of them, whatever it carries.
  double receive_overhead_s = 0;
  // Between sites (several sites only): the wide-area link's latency, and the rate one
  // flow across it gets (its share of a shared link, or the link, bounded by TCP's window
  // over the round trip).
  double wan_latency_s = 0;
  double wan_flow_Bps = 0;
  double wan_shared_Bps = 0;  // what all cross-site flows share; 0 when each has its own
  // What one node's links carry into it, or out of it, together: every byte that moves
  // between two nodes crosses both ends' (0: not known).
  double node_bandwidth_Bps = 0;
  // What a step's exchange costs per byte where it is spread evenly over every pair of
  // ranks, as a placement that ignores the graph spreads it: the busiest link's seconds
  // per byte sent in all (0: not known). Past the compute a step hides its messages
  // under, every byte costs this.
  double scattered_exchange_s_per_byte = 0;
  // Collectives the migration engine runs at every LB call, moving something or not (its
  // conservation checks and totals): a floor under every call's cost.
  int call_collectives = 0;
  [[nodiscard]] double message_latency_s() const { return link_latency_s > 0 ? link_latency_s : kAssumedLatency_s; }
  [[nodiscard]] double seconds_per_byte() const {
    return link_bandwidth_Bps > 0 ? 1.0 / link_bandwidth_Bps : kAssumedSecondsPerByte;
  }
};

// Host CPU seconds the migration engine's own code spends per vertex: packing one that
// leaves, unpacking (and checking) one that arrives, copying one that stays into the
// rebuilt local graph. Measured by the engine on this host before the run (0: not
// measured); a simulator scales them by code_time_scale, as it charges that code.
struct MigrationCode {
  double pack_s = 0;
  double unpack_s = 0;
  double keep_s = 0;

  // Host seconds of a migration's code, as the engines charge it: the busiest rank's
  // packing of what leaves, then the busiest rank's rebuilding of its local graph from
  // what stays and what arrived. Per rank: vertices sent, kept and arrived.
  [[nodiscard]] double busiest_s(std::span<const std::int64_t> sent, std::span<const std::int64_t> kept,
                                 std::span<const std::int64_t> arrived) const;
};

// What the machine looks like to a balancer: one entry per rank.
struct MachineInfo {
  RankTable<int> rank_node;      // node of each rank
  RankTable<int> rank_site;      // site (cluster) of each rank, 0..sites-1
  RankTable<double> rank_speed;  // relative speed of each rank; 1 is nominal
  int sites = 1;
  NetworkFacts network;
  // Simulated seconds per second of real code on this host: 1 on real machines; under SMPI
  // the simulated core's clock against the host's, which SimGrid applies to all real code.
  double code_time_scale = 1.0;
  // Decision and migration costs fitted from recorded runs on this platform (the
  // scenario's machine.costs); null when none were given.
  std::shared_ptr<const FittedCosts> fitted_costs;
  MigrationCode migration_code;  // measured on rank 0 (and by the model engine)

  static MachineInfo uniform(int nranks);
};

// Everything a balancer is told at an LB point. Per-vertex data is local to this rank;
// global statistics were computed by reductions before plan() is called.
struct LoadView {
  const LocalGraph& graph;
  std::span<const Load> vertex_load;  // per local vertex, as the scenario's model says
  // The load vector of each local vertex (dims components, vertex-major), for workloads
  // whose step runs several phases; vertex_load is then each vector's sum. Empty means
  // one component, vertex_load itself.
  int dims = 1;
  std::span<const Load> vertex_load_vec;
  // How each local vertex's load moved per step over the steps measured since the last
  // call (seconds per step, the slope of its least-squares line), for strategies that ask
  // for it (Balancer::needs_trends). vertex_load shows the loads as of `trend_origin`
  // steps after the call's step (negative: before it), so a vertex is forecast to take
  // vertex_load + trend x (t - trend_origin) at the t-th step after the call. Unset, alike
  // on every rank, where loads are not measured or only one step was.
  std::span<const double> vertex_load_trend;
  std::optional<double> trend_origin;
  // Load this rank keeps whatever the plan, one entry per component: a recorded run's
  // non-migratable objects, which the graph above leaves out. Empty, on every rank alike,
  // when the mesh has none. rank_load, total_load and max_rank_load include it.
  std::span<const Load> background;
  // Other ranks whose movable vertices have an edge to one of this rank's pinned vertices:
  // the other end of their fixed neighbors (LocalGraph::is_fixed_neighbor), so that the
  // rank graph stays symmetric.
  std::span<const int> fixed_peers;
  std::int64_t edge_bytes = 0;     // bytes per message of a unit-weight edge
  std::int64_t element_bytes = 0;  // payload that moves with each vertex
  const MachineInfo& machine;
  Rank rank{0};
  int nranks = 1;
  std::uint64_t seed = 0;  // scenario seed, for randomized strategies
  int invocation = 0;      // 0 for the first LB call of a run
  int step = 0;            // the step after which this LB runs
  int period = 0;          // steps until the next LB call (the scenario's balancer.period)
  int steps_left = 0;      // steps after this call to the end of the run (0: not known)
  Load rank_load;          // sum of vertex_load on this rank
  Load total_load;         // over all ranks
  Load max_rank_load;      // over all ranks
  // Measured, per step since the last call: how much longer the slowest rank's step took
  // than the slowest rank's compute (the halo exchange's share of a step). 0 where it is not
  // measured. A cost model adds it to every step it predicts.
  Load step_exchange;
  // The previous LB point's call, decision and migration on its slowest rank, as the
  // engine charged it; 0 at the first.
  double last_call_s = 0;
};

struct Move {
  LocalIndex vertex = 0;  // local index on the rank that owns it now
  Rank to{0};
};

// Which local vertices go where; vertices not listed stay. Distributed strategies also
// say what their protocol cost.
struct MigrationPlan {
  std::vector<Move> moves;
  std::optional<ProtocolStats> protocol;
  Json decision;  // on rank 0, from strategies that choose among others (`auto`): Acting::why
};

struct GlobalProblem;    // balancers/sdk/centralized.hpp
class ProtocolObserver;  // balancers/sdk/protocol.hpp
// New owner of each object of a GlobalProblem, in the problem's order.
using Assignment = std::vector<Rank>;

// What every rank knows at an LB point before anything is gathered: the totals every
// engine reduces before it calls a balancer, and the machine.
struct CallOutlook {
  int nranks = 1;
  std::int64_t objects = 0;  // the balancer's objects over all ranks
  std::int64_t edges = 0;    // the graph's edges (undirected)
  double max_rank_load_s = 0;
  double total_load_s = 0;
  // The slowest rank's mean step since the last point, as measured (compute and waiting
  // for its neighbors): what a step took, where the loads are what it needed. 0: not measured.
  double max_step_s = 0;
  // The largest rank load per step since the last call had it not been made: the same
  // vertices' loads on the ranks that held them before it. 0: no call yet.
  double unmoved_max_load_s = 0;
  // The slowest rank's compute taken step by step, whichever rank it is at each step, and
  // averaged over the same steps: above the slowest rank's mean compute where the slowest
  // rank changes from step to step. 0: not measured.
  double stepwise_max_load_s = 0;
  int steps_measured = 0;  // the steps since the last call (or the start) the means are over
  // The slowest rank's compute and the ranks' mean compute at the first of those steps:
  // what the last call left before the loads moved on. 0: not measured.
  double first_step_max_load_s = 0;
  double first_step_mean_load_s = 0;
  int period = 0;
  int steps_left = 0;
  // The previous LB point's call, decision and migration on its slowest rank, as the
  // engine charged it (LoadView::last_call_s).
  double last_call_s = 0;
  std::int64_t edge_bytes = 0;     // LoadView::edge_bytes
  std::int64_t element_bytes = 0;  // LoadView::element_bytes
  const MachineInfo* machine = nullptr;
};

class Balancer;
// The balancer that makes a call, and why it was chosen (for the record; null where it
// chose nothing).
struct Acting {
  Balancer& balancer;
  Json why;
  // LB points after this one that the engines skip whole: no reduction, no call.
  int points_to_skip = 0;
};

class Balancer {
 public:
  virtual ~Balancer() = default;
  // Collective over comm (a communicator the balancer may use freely).
  virtual MigrationPlan plan(const LoadView& view, MPI_Comm comm) = 0;
  // Collective, once before the first plan() on comm: one-time setup (communicators)
  // that should not be charged to the first LB call's decision time.
  virtual void prepare(MPI_Comm /*comm*/) {}
  // The same decision made in one process over the whole problem (objects in (rank, local
  // index) order), as the model engine makes it: a centralized
  // strategy's solve, a distributed one's serial reference. `observer`, when given, sees
  // every round of a distributed protocol. The default moves nothing.
  [[nodiscard]] virtual Assignment decide_serially(const GlobalProblem& problem, ProtocolObserver* observer) const;
  // What decide_serially needs in the problem besides the loads: the communication graph,
  // and each object's load vector.
  [[nodiscard]] virtual bool needs_graph() const { return false; }
  [[nodiscard]] virtual bool needs_vectors() const { return false; }
  // ... and each object's load trend (LoadView::vertex_load_trend).
  [[nodiscard]] virtual bool needs_trends() const { return false; }
  // ... and each object's coordinates where the mesh has them (for a strategy that also
  // needs the trends, only where they were measured).
  [[nodiscard]] virtual bool needs_coords() const { return false; }
  // A strategy that chooses among others (`auto`) hands each call to the one it chose
  // from the call's totals. Called once per LB point, alike on every rank; plan() asks it
  // itself, and an engine that decides without plan() (the model engine) asks it and runs
  // what it returns. Itself by default.
  virtual Acting acting_for(const CallOutlook& /*call*/) { return {*this, nullptr}; }
  // Whether the engines ask acting_for() before each LB point, on the loads' totals
  // reduced without waiting from a few steps before it, and skip the point whole (no
  // reduction that every rank waits at, no call) where the balancer it returns promised
  // that nothing moves: a strategy that often chooses no call (`auto`) would otherwise make
  // every rank wait for the slowest at every point, which `none` never does. False by default.
  [[nodiscard]] virtual bool looks_before_calls() const { return false; }
  // After a call (plan() or decide_serially()), alike on every rank: whether it promised
  // that no rank's plan moves anything. The engines then skip the migration and what
  // measures its effect (the census after it, the plan's prediction, the moved totals),
  // collectives that on a wide-area machine cost more than the call itself.
  [[nodiscard]] virtual bool promised_nothing_moves() const { return false; }
};

// The baseline: never moves anything.
class NoneBalancer final : public Balancer {
 public:
  MigrationPlan plan(const LoadView&, MPI_Comm) override { return {}; }
  [[nodiscard]] bool promised_nothing_moves() const override { return true; }
};

}  // namespace lbbench
