#include "balancers/model/auto/pricing.hpp"

#include <algorithm>

#include "balancers/model/cost_model.hpp"

namespace lbbench {

namespace {

// Bytes per object that a gather to rank 0 carries (id, load, owner) and that the scatter
// brings back (the new owner).
constexpr double kGatheredBytes = 8 + 8 + 4;
constexpr double kScatteredBytes = 4;
// plan()'s allreduces around a protocol's rounds (the totals before, the checks after).
constexpr int kProtocolAllreduces = 6;

double allreduce_s(const NetworkFacts& net) { return net.allreduce_s > 0 ? net.allreduce_s : net.message_latency_s(); }

double gather_and_scatter_s(const PointObservation& seen, const NetworkFacts& net) {
  // A gatherv is linear at its root: one receive per rank, whatever it carries.
  const double per_rank = std::max(net.receive_overhead_s, net.message_latency_s());
  const auto objects = static_cast<double>(seen.objects);
  return 2 * per_rank * seen.nranks + objects * (kGatheredBytes + kScatteredBytes) * net.seconds_per_byte();
}

double protocol_s(const CandidateShape& shape, const NetworkFacts& net) {
  const double farthest = net.far_message_s > 0 ? net.far_message_s : net.message_latency_s();
  return shape.rounds * farthest + shape.reducing_rounds * allreduce_s(net);
}

// Pearce et al.'s equations 6 and 7: the heaviest rank sends the share of its objects by
// which it exceeds the mean, at α + β × bytes, and every rank rebuilds its local graph.
// Any call that balances moves at least that much.
double objects_per_rank(const PointObservation& seen) {
  return static_cast<double>(seen.objects) / std::max(1, seen.nranks);
}

double least_moved(const PointObservation& seen) {
  return seen.max_load_s > 0 ? elements_moved_global(objects_per_rank(seen), seen.mean_load_s, seen.max_load_s) : 0;
}

double migration_s(const PointObservation& seen, const NetworkFacts& net, double elements) {
  const double per_rank = objects_per_rank(seen);
  const Platform platform{.alpha_s = net.message_latency_s(), .beta_s_per_byte = net.seconds_per_byte()};
  return data_movement_cost(platform, elements, static_cast<double>(seen.element_bytes)) +
         elements * seen.moved_code_s + per_rank * seen.kept_code_s;
}

}  // namespace

double synchronization_cost_s(const PointObservation& seen) {
  return (1 - seen.persistence()) * seen.rank_imbalance_s() * seen.steps_measured;
}

double exchange_growth_s(const CandidateShape& shape, const PointObservation& seen, const NetworkFacts& net) {
  const double cut_bytes = 2 * static_cast<double>(seen.edges) * static_cast<double>(seen.edge_bytes) * shape.share_cut;
  return std::max(0.0, cut_bytes * net.scattered_exchange_s_per_byte - seen.mean_load_s - seen.exchange_s());
}

double fitted_cost_s(std::string_view candidate, const PointObservation& seen, const FittedCosts& fits) {
  const FittedCost* decision = fits.decision_of(candidate);
  const double decided =
      decision ? decision->seconds(static_cast<double>(seen.objects), static_cast<double>(seen.edges), seen.nranks)
               : 0.0;
  return decided + fits.migration_s(objects_per_rank(seen), least_moved(seen), static_cast<double>(seen.element_bytes));
}

double floor_cost_s(const CandidateShape& shape, const PointObservation& seen, const NetworkFacts& net) {
  const double collectives = net.call_collectives * allreduce_s(net);
  const double deciding = shape.centralized
                              ? gather_and_scatter_s(seen, net) +
                                    shape.solve_s_per_object * static_cast<double>(seen.objects) * seen.code_time_scale
                              : protocol_s(shape, net) + kProtocolAllreduces * allreduce_s(net);
  return deciding + collectives + migration_s(seen, net, least_moved(seen));
}

}  // namespace lbbench
