// The step loop (see step_loop.hpp).
#include "replay/step_loop.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "comm/mpi.hpp"
#include "replay/engine.hpp"
#include "replay/run_status.hpp"

namespace lbbench {

StepLoop::StepLoop(const Scenario& s, const Engine& engine, const WorkloadField& field, ComputePhase& work,
                   std::optional<WanDelay> wan_delay, bool sleep_while_waiting, Comms comms, bool time_vertices,
                   bool sum_vertex_times)
    : s_(s),
      engine_(engine),
      field_(field),
      work_(work),
      wan_delay_(std::move(wan_delay)),
      sleep_while_waiting_(sleep_while_waiting),
      comms_(comms),
      me_(comm_rank(comms.run)),
      time_vertices_(time_vertices),
      sum_vertex_times_(time_vertices && sum_vertex_times) {
  const auto steps = static_cast<std::size_t>(s_.steps);
  steps_.compute.assign(steps, 0.0);
  steps_.wait.assign(steps, 0.0);
  steps_.wall.assign(steps, 0.0);
  steps_.phase_compute.assign(static_cast<std::size_t>(field_.dims()), std::vector<double>(steps, 0.0));
}

void StepLoop::make_exchange(const LocalGraph& graph) {
  exchange_.reset();
  exchange_ = std::make_unique<HaloExchange>(graph, s_.workload.edge_bytes, s_.workload.messages, comms_.halo,
                                             engine_.wait_mode(), wan_delay_ ? &*wan_delay_ : nullptr);
  exchange_->sleep_while_waiting(sleep_while_waiting_);
  if (run_status::watching()) run_status::exchanges_with(exchange_->peers());
}

void StepLoop::rebuild(const LocalGraph& graph) {
  // A prepared step's messages are posted on the graph as it was.
  if (prepared_at_) throw std::logic_error("StepLoop::rebuild after a step that prepared the next one");
  make_exchange(graph);
  phase_time_.assign(static_cast<std::size_t>(field_.dims()),
                     std::vector<double>(static_cast<std::size_t>(graph.num_local()), 0.0));
  if (sum_vertex_times_) phase_time_summed_ = phase_time_;
  steps_since_rebuild_ = 0;
  weights_ready_ = false;
}

void StepLoop::restart_vertex_times() {
  for (auto& times : phase_time_) std::fill(times.begin(), times.end(), 0.0);
  for (auto& sums : phase_time_summed_) std::fill(sums.begin(), sums.end(), 0.0);
  steps_since_rebuild_ = 0;
}

StepLoop::TimesById StepLoop::times_by_id(const LocalGraph& graph) const {
  TimesById out;
  out.index.reserve(static_cast<std::size_t>(graph.num_local()));
  for (LocalIndex v = 0; v < graph.num_local(); ++v) out.index.emplace(graph.gid[static_cast<std::size_t>(v)], v);
  out.time = phase_time_;
  out.summed = phase_time_summed_;
  return out;
}

namespace {

// Each new vertex's mean of the old values its lineage names and `before` knows.
std::vector<double> inherited(const std::vector<double>& old, const StepLoop::TimesById& before,
                              std::span<const std::int64_t> begin, std::span<const VertexId> from) {
  std::vector<double> out(begin.size() - 1, 0.0);
  for (std::size_t v = 0; v + 1 < begin.size(); ++v) {
    double sum = 0;
    int known = 0;
    for (auto i = begin[v]; i < begin[v + 1]; ++i) {
      const auto it = before.index.find(from[static_cast<std::size_t>(i)]);
      if (it == before.index.end()) continue;
      sum += old[static_cast<std::size_t>(it->second)];
      ++known;
    }
    out[v] = known > 0 ? sum / known : 0.0;
  }
  return out;
}

}  // namespace

void StepLoop::regridded(const LocalGraph& graph, const TimesById& before, std::span<const std::int64_t> begin,
                         std::span<const VertexId> from) {
  if (prepared_at_) throw std::logic_error("StepLoop::regridded after a step that prepared the next one");
  make_exchange(graph);
  for (std::size_t k = 0; k < phase_time_.size(); ++k) phase_time_[k] = inherited(before.time[k], before, begin, from);
  for (std::size_t k = 0; k < phase_time_summed_.size(); ++k)
    phase_time_summed_[k] = inherited(before.summed[k], before, begin, from);
  weights_ready_ = false;
}

std::span<double> StepLoop::vertex_times(std::size_t component) {
  return time_vertices_ ? std::span<double>(phase_time_[component]) : std::span<double>();
}

void StepLoop::sum_vertex_times() {
  for (std::size_t k = 0; k < phase_time_summed_.size(); ++k) {
    std::vector<double>& sums = phase_time_summed_[k];
    const std::vector<double>& times = phase_time_[k];
    for (std::size_t v = 0; v < sums.size(); ++v) sums[v] += times[v];
  }
}

void StepLoop::prepare(const LocalGraph& graph, int step) {
  if (!weights_ready_ || !field_.is_static()) {
    field_.weights(graph, step, weights_);
    weights_ready_ = true;
  }
  exchange_->post();
}

void StepLoop::run(const LocalGraph& graph, int step, double watchdog_seconds, bool next_follows) {
  run_status::at_step(step);
  // A step that directly follows another was prepared at that one's end, and the clock
  // read there is both that step's end and this one's start: one read less per step, which
  // is a third of the replay's own cost at the smallest work (`calibrate --overhead`).
  const bool prepared = prepared_at_.has_value();
  const double t0 = prepared ? *prepared_at_ : engine_.now();
  if (!prepared) prepare(graph, step);
  const double start = prepared ? t0 : engine_.now();
  prepared_at_.reset();
  const double computing = s_.workload.schedule == Schedule::bulk ? run_bulk(step, start, watchdog_seconds)
                                                                  : run_message_driven(step, start, watchdog_seconds);
  // The next step's weights and posts count as this step's time out of do_work, as they
  // would have as the next one's; so does the forecast's sum.
  sum_vertex_times();
  if (next_follows) prepare(graph, step + 1);
  const double t_end = engine_.now();
  if (next_follows) prepared_at_ = t_end;
  const auto i = static_cast<std::size_t>(step);
  steps_.compute[i] = computing;
  steps_.wait[i] = t_end - t0 - computing;
  steps_.wall[i] = t_end - t0;
  ++steps_since_rebuild_;
}

// Algorithm 3: all work, then wait. Returns the time spent computing. A vector workload
// runs its phases in order, each ended by a barrier (as a multi-phase code synchronizes,
// say to agree on a time step), so each phase's slowest rank costs time. The barrier
// after the last phase matters too: without it, a rank whose heavy phase comes first
// runs ahead into the next step, and the phases of consecutive steps overlap.
double StepLoop::run_bulk(int step, double start, double watchdog_seconds) {
  double computing = 0;
  const int dims = field_.dims();
  for (int k = 0; k < dims; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    if (k > 0) start = engine_.now();
    work_.run(weights_[ku], vertex_times(ku));
    const double phase = engine_.now() - start;
    steps_.phase_compute[ku][static_cast<std::size_t>(step)] = phase;
    computing += phase;
    // A scalar workload is Algorithm 3 as it stands: no barrier.
    if (dims > 1) exchange_->barrier(comms_.phases, step, watchdog_seconds, "that ends a phase");
  }
  exchange_->wait(step, watchdog_seconds);
  return computing;
}

// Interior vertices while messages fly, then each vertex once its messages are in.
double StepLoop::run_message_driven(int step, double start, double watchdog_seconds) {
  work_.run_some(exchange_->interior(), weights_[0], vertex_times(0));
  double computing = engine_.now() - start;
  for (auto ready = exchange_->next_ready(step, watchdog_seconds); !ready.empty();
       ready = exchange_->next_ready(step, watchdog_seconds)) {
    start = engine_.now();
    work_.run_some(ready, weights_[0], vertex_times(0));
    computing += engine_.now() - start;
  }
  exchange_->finish(step, watchdog_seconds);
  return computing;
}

CensusShare StepLoop::census_share(const MachineInfo& machine) const {
  const int my_site = machine.rank_site[static_cast<std::size_t>(me_)];
  const std::int64_t cross =
      exchange_->messages_to([&](int peer) { return machine.rank_site[static_cast<std::size_t>(peer)] != my_site; });
  return {exchange_->remote_edges(), exchange_->remote_edge_bytes(), exchange_->messages_per_step(), cross};
}

CommCensus StepLoop::census(const MachineInfo& machine) const {
  // One reduction for the four sums: on a wide-area machine each collective costs the
  // WAN's latency several times over.
  CensusShare sums = census_share(machine);
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_INT64_T, MPI_SUM, comms_.run);
  return census_of(sums);
}

CommCensus census_of(const CensusShare& summed) {
  CommCensus c;
  c.edge_cut = summed[0] / 2;  // each cut edge has an end on two ranks
  c.edge_cut_bytes = summed[1] / 2;
  c.messages_per_step = summed[2];
  c.cross_site_messages_per_step = summed[3];
  return c;
}

}  // namespace lbbench
