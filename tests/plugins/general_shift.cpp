// A general strategy (calls MPI): every rank above the average load sends its first vertex
// to the next rank. Loaded by the tests on the mpi and smpi engines.
#include <lbbench/balancers/sdk/plugin.hpp>

namespace {

class Shift final : public lbbench::plugin::General {
 public:
  explicit Shift(const lbbench::plugin::Params& /*params*/) {}
  lbbench::MigrationPlan plan(const lbbench::LoadView& view, MPI_Comm comm) override {
    double load = view.rank_load.seconds();
    double total = 0;
    MPI_Allreduce(&load, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    lbbench::MigrationPlan plan;
    if (load > total / view.nranks && view.graph.num_local() > 1) {
      plan.moves.push_back({0, lbbench::Rank{(view.rank.value() + 1) % view.nranks}});
    }
    return plan;
  }
};

}  // namespace

LBBENCH_BALANCER(Shift, "test-shift", lbbench::Family::diffusive, "test: overloaded ranks pass one vertex on", {})
