// Gather, solve on rank 0, scatter (see centralized.hpp).
#include "balancers/centralized.hpp"

#include <numeric>

#include "core/mpi.hpp"

namespace lbbench {

namespace {

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  return displs;
}

}  // namespace

MigrationPlan CentralizedBalancer::plan(const LoadView& view, MPI_Comm comm) {
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  const int local = view.graph.num_local();

  std::vector<int> counts(static_cast<std::size_t>(nranks), 0);
  MPI_Gather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  const std::vector<int> displs = displacements(counts);
  const int total = me == 0 ? std::accumulate(counts.begin(), counts.end(), 0) : 0;

  GlobalProblem problem;
  problem.nranks = nranks;
  if (me == 0) {
    problem.id.resize(static_cast<std::size_t>(total));
    problem.load.resize(static_cast<std::size_t>(total));
    problem.rank_speed = view.machine.rank_speed;
  }
  MPI_Gatherv(view.graph.gid.data(), local, mpi_type<VertexId>(), problem.id.data(), counts.data(), displs.data(),
              mpi_type<VertexId>(), 0, comm);
  MPI_Gatherv(view.vertex_load.data(), local, mpi_type<Load>(), problem.load.data(), counts.data(), displs.data(),
              mpi_type<Load>(), 0, comm);

  Assignment assignment;
  if (me == 0) {
    problem.owner.reserve(static_cast<std::size_t>(total));
    for (int r = 0; r < nranks; ++r) problem.owner.insert(problem.owner.end(), static_cast<std::size_t>(counts[r]), Rank{r});
    assignment = solve(problem);
  }
  std::vector<Rank> mine(static_cast<std::size_t>(local));
  MPI_Scatterv(assignment.data(), counts.data(), displs.data(), mpi_type<Rank>(), mine.data(), local,
               mpi_type<Rank>(), 0, comm);

  MigrationPlan out;
  for (LocalIndex v = 0; v < local; ++v) {
    if (mine[static_cast<std::size_t>(v)] != view.rank) out.moves.push_back({v, mine[static_cast<std::size_t>(v)]});
  }
  return out;
}

std::vector<double> rank_times(const GlobalProblem& problem, const Assignment& assignment) {
  std::vector<double> t(static_cast<std::size_t>(problem.nranks), 0.0);
  for (std::size_t i = 0; i < problem.size(); ++i) t[static_cast<std::size_t>(assignment[i].value())] += problem.load[i].seconds();
  for (int r = 0; r < problem.nranks; ++r) t[static_cast<std::size_t>(r)] /= problem.speed(r);
  return t;
}

}  // namespace lbbench
