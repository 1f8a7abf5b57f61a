#include "balancers/model/auto/balancer.hpp"

#include <algorithm>
#include <utility>

#include "balancers/model/auto/sampling.hpp"
#include "balancers/sdk/centralized.hpp"
#include "balancers/sdk/factory.hpp"
#include "balancers/sdk/protocol.hpp"

namespace lbbench {

namespace {

std::vector<std::unique_ptr<Balancer>> make_candidates(const AutoParams& params) {
  std::vector<std::unique_ptr<Balancer>> out;
  for (const auto& c : params.candidates) out.push_back(make_balancer(c));
  return out;
}

// A centralized candidate gathers every object to rank 0; the rest run a protocol.
std::vector<LoopCandidate> loop_candidates(const AutoParams& params,
                                           const std::vector<std::unique_ptr<Balancer>>& built,
                                           const std::vector<SampleSolve>& samples, int nranks) {
  std::vector<LoopCandidate> out;
  for (std::size_t i = 0; i < built.size(); ++i) {
    const SampleSolve sample = i < samples.size() ? samples[i] : SampleSolve{};  // unsampled without prepare()
    CandidateShape shape{.solve_s_per_object = sample.seconds_per_object,
                         .share_removed = sample.share_removed,
                         .share_cut = sample.share_cut};
    shape.centralized = dynamic_cast<const CentralizedBalancer*>(built[i].get()) != nullptr;
    if (const auto* protocol = dynamic_cast<const DistributedBalancer*>(built[i].get())) {
      shape.rounds = protocol->expected_rounds(nranks);
      shape.reducing_rounds = protocol->expected_reducing_rounds(nranks);
    }
    out.push_back(LoopCandidate{.name = std::string(params.candidates[i].name()), .shape = shape});
  }
  return out;
}

PointObservation observation_of(const CallOutlook& call, bool called_before) {
  const int to_next = call.period > 0 ? std::min(call.period, call.steps_left) : call.steps_left;
  const MigrationCode code = call.machine ? call.machine->migration_code : MigrationCode{};
  const double scale = call.machine ? call.machine->code_time_scale : 1.0;
  return {.nranks = call.nranks,
          .objects = call.objects,
          .edges = call.edges,
          .max_load_s = std::max(call.max_rank_load_s, call.max_step_s),
          .mean_load_s = call.total_load_s / call.nranks,
          .max_rank_load_s = call.max_rank_load_s,
          .unmoved_max_load_s = call.unmoved_max_load_s,
          .stepwise_max_load_s = call.stepwise_max_load_s,
          .steps_measured = call.steps_measured,
          .first_step_max_load_s = call.first_step_max_load_s,
          .first_step_mean_load_s = call.first_step_mean_load_s,
          .steps_to_next = to_next,
          .steps_left = call.steps_left,
          .last_call_cost_s = called_before ? std::optional<double>(call.last_call_s) : std::nullopt,
          .edge_bytes = call.edge_bytes,
          .element_bytes = call.element_bytes,
          .moved_code_s = (code.pack_s + code.unpack_s) * scale,
          .kept_code_s = code.keep_s * scale,
          .code_time_scale = scale};
}

}  // namespace

AutoBalancer::AutoBalancer(AutoParams params) : params_(std::move(params)), candidates_(make_candidates(params_)) {}

MigrationPlan AutoBalancer::plan(const LoadView& view, MPI_Comm comm) {
  const CallOutlook call{.nranks = view.nranks,
                         .objects = view.graph.global_vertices,
                         .edges = view.graph.global_edges,
                         .max_rank_load_s = view.max_rank_load.seconds(),
                         .total_load_s = view.total_load.seconds(),
                         .max_step_s = (view.max_rank_load + view.step_exchange).seconds(),
                         .period = view.period,
                         .steps_left = view.steps_left,
                         .last_call_s = view.last_call_s,
                         .element_bytes = view.element_bytes,
                         .machine = &view.machine};
  Acting acting = acting_for(call);
  MigrationPlan plan = acting.balancer.plan(view, comm);
  if (view.rank.value() == 0) plan.decision = std::move(acting.why);
  return plan;
}

Acting AutoBalancer::acting_for(const CallOutlook& call) {
  const NetworkFacts net = call.machine ? call.machine->network : NetworkFacts{};
  const FittedCosts* fits = call.machine ? call.machine->fitted_costs.get() : nullptr;
  if (!loop_) loop_.emplace(loop_candidates(params_, candidates_, samples_, call.nranks), params_.budget);
  LoopChoice choice = loop_->decide(observation_of(call, chosen_.has_value()), net, fits);
  chosen_ = choice.candidate;
  if (chosen_ && candidates_[*chosen_]->promised_nothing_moves()) chosen_.reset();
  Balancer& acting = chosen_ ? *candidates_[*chosen_] : static_cast<Balancer&>(none_);
  return {acting, std::move(choice.record), choice.points_to_skip};
}

const Balancer& AutoBalancer::acting() const {
  if (chosen_) return *candidates_[*chosen_];
  return none_;
}

void AutoBalancer::prepare(MPI_Comm comm) {
  for (auto& c : candidates_) c->prepare(comm);
  // Rank 0's, on every rank: the loop decides alike everywhere.
  samples_.assign(candidates_.size(), SampleSolve{});
  int me = 0;
  MPI_Comm_rank(comm, &me);
  for (std::size_t i = 0; i < candidates_.size() && me == 0; ++i) {
    if (!candidates_[i]->promised_nothing_moves()) samples_[i] = solve_sample(*candidates_[i]);
  }
  static_assert(sizeof(SampleSolve) == 3 * sizeof(double));
  MPI_Bcast(samples_.data(), static_cast<int>(3 * samples_.size()), MPI_DOUBLE, 0, comm);
}

Assignment AutoBalancer::decide_serially(const GlobalProblem& problem, ProtocolObserver* observer) const {
  return acting().decide_serially(problem, observer);
}

bool AutoBalancer::any_candidate(bool (Balancer::*needs)() const) const {
  for (const auto& c : candidates_) {
    if (((*c).*needs)()) return true;
  }
  return false;
}

bool AutoBalancer::needs_graph() const { return any_candidate(&Balancer::needs_graph); }
bool AutoBalancer::needs_vectors() const { return any_candidate(&Balancer::needs_vectors); }
bool AutoBalancer::needs_trends() const { return any_candidate(&Balancer::needs_trends); }
bool AutoBalancer::needs_coords() const { return any_candidate(&Balancer::needs_coords); }

}  // namespace lbbench
