// Gather, solve on rank 0, scatter (see centralized.hpp).
#include "balancers/sdk/centralized.hpp"

#include <algorithm>
#include <numeric>

#include "comm/code_time.hpp"
#include "comm/mpi.hpp"

namespace lbbench {

namespace {

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  return displs;
}

// The object index of each gathered id: an array over the ids where they are dense
// (0..n-1), else the ids sorted with their indices, since a mesh that regrids gives its
// blocks sparse ids that only grow and the gather must stay O(objects).
class ObjectIndex {
 public:
  ObjectIndex(const std::vector<VertexId>& ids, const LocalGraph& g) : sparse_(g.sparse_ids) {
    if (!sparse_) {
      dense_.assign(static_cast<std::size_t>(g.global_vertices), -1);
      for (std::size_t i = 0; i < ids.size(); ++i)
        dense_[static_cast<std::size_t>(ids[i].value())] = static_cast<std::int64_t>(i);
      return;
    }
    sorted_.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) sorted_.emplace_back(ids[i].value(), static_cast<std::int64_t>(i));
    std::sort(sorted_.begin(), sorted_.end());
  }
  // The index, or -1 for an id that is no object (a pinned vertex).
  [[nodiscard]] std::int64_t of(std::int64_t id) const {
    if (!sparse_)
      return id >= 0 && id < static_cast<std::int64_t>(dense_.size()) ? dense_[static_cast<std::size_t>(id)] : -1;
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::pair<std::int64_t, std::int64_t>{id, -1});
    return it != sorted_.end() && it->first == id ? it->second : -1;
  }

 private:
  bool sparse_;
  std::vector<std::int64_t> dense_;
  std::vector<std::pair<std::int64_t, std::int64_t>> sorted_;
};

// Gathers every rank's edges to rank 0 and turns neighbor ids into object indices.
void gather_graph(const LoadView& view, const std::vector<int>& vertex_counts, MPI_Comm comm, GlobalProblem& problem) {
  const LocalGraph& g = view.graph;
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  std::vector<std::int64_t> degree(static_cast<std::size_t>(g.num_local()));
  std::vector<std::int64_t> bytes(g.adj.size());
  for (LocalIndex v = 0; v < g.num_local(); ++v) degree[static_cast<std::size_t>(v)] = g.degree(v);
  for (std::size_t e = 0; e < bytes.size(); ++e)
    bytes[e] = view.edge_bytes * g.edge_weight(static_cast<std::int64_t>(e));
  const int local_edges = static_cast<int>(g.adj.size());
  std::vector<int> edge_counts(static_cast<std::size_t>(nranks), 0);
  MPI_Gather(&local_edges, 1, MPI_INT, edge_counts.data(), 1, MPI_INT, 0, comm);
  const std::vector<int> edge_displs = displacements(edge_counts);
  const std::vector<int> vertex_displs = displacements(vertex_counts);
  std::vector<std::int64_t> all_degree(problem.size());
  std::vector<VertexId> neighbor;
  if (me == 0) {
    neighbor.resize(static_cast<std::size_t>(edge_displs.back()) + static_cast<std::size_t>(edge_counts.back()));
    problem.adj_bytes.resize(neighbor.size());
  }
  MPI_Gatherv(degree.data(), g.num_local(), MPI_INT64_T, all_degree.data(), vertex_counts.data(), vertex_displs.data(),
              MPI_INT64_T, 0, comm);
  MPI_Gatherv(g.adj.data(), local_edges, mpi_type<VertexId>(), neighbor.data(), edge_counts.data(), edge_displs.data(),
              mpi_type<VertexId>(), 0, comm);
  MPI_Gatherv(bytes.data(), local_edges, MPI_INT64_T, problem.adj_bytes.data(), edge_counts.data(), edge_displs.data(),
              MPI_INT64_T, 0, comm);
  // Edges to pinned vertices name the rank they sit on: their owners come along.
  std::vector<Rank> neighbor_owner(me == 0 && g.has_pinned() ? neighbor.size() : 0);
  if (g.has_pinned()) {
    MPI_Gatherv(g.adj_owner.data(), local_edges, mpi_type<Rank>(), neighbor_owner.data(), edge_counts.data(),
                edge_displs.data(), mpi_type<Rank>(), 0, comm);
  }
  if (me != 0) return;
  const ChargedCode assembly;
  const ObjectIndex index_of(problem.id, g);
  if (!g.has_pinned()) {
    problem.xadj.assign(problem.size() + 1, 0);
    std::inclusive_scan(all_degree.begin(), all_degree.end(), problem.xadj.begin() + 1);
    problem.adjncy.resize(neighbor.size());
    for (std::size_t e = 0; e < neighbor.size(); ++e) problem.adjncy[e] = index_of.of(neighbor[e].value());
    return;
  }
  // Objects' edges among themselves, and to pinned vertices as the ranks they sit on.
  std::vector<std::int64_t> bytes_kept;
  problem.xadj.assign(1, 0);
  problem.fixed_xadj.assign(1, 0);
  std::size_t e = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    for (std::int64_t k = 0; k < all_degree[i]; ++k, ++e) {
      const std::int64_t id = neighbor[e].value();
      if (id < g.global_vertices) {
        problem.adjncy.push_back(index_of.of(id));
        bytes_kept.push_back(problem.adj_bytes[e]);
      } else {
        problem.fixed_rank.push_back(neighbor_owner[e].value());
      }
    }
    problem.xadj.push_back(static_cast<std::int64_t>(problem.adjncy.size()));
    problem.fixed_xadj.push_back(static_cast<std::int64_t>(problem.fixed_rank.size()));
  }
  problem.adj_bytes = std::move(bytes_kept);
}

// Gathers every object's load vector to rank 0; a scalar workload's vector is its load.
void gather_vectors(const LoadView& view, const std::vector<int>& vertex_counts, MPI_Comm comm,
                    GlobalProblem& problem) {
  // By the workload's dims, the same on every rank: a rank left with no vertex has an
  // empty vector list, and must still count its (zero) vectors as the others do.
  const int dims = view.dims > 1 ? view.dims : 1;
  const std::span<const Load> mine = view.dims > 1 ? view.vertex_load_vec : view.vertex_load;
  std::vector<int> counts(vertex_counts);
  for (int& c : counts) c *= dims;
  const std::vector<int> displs = displacements(counts);
  problem.dims = dims;
  if (comm_rank(comm) == 0) problem.load_vec.resize(problem.size() * static_cast<std::size_t>(dims));
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), mpi_type<Load>(), problem.load_vec.data(), counts.data(),
              displs.data(), mpi_type<Load>(), 0, comm);
}

// Every object's load trend to rank 0, where the engine measured them.
void gather_trends(const LoadView& view, const std::vector<int>& vertex_counts, MPI_Comm comm, GlobalProblem& problem) {
  const std::vector<int> displs = displacements(vertex_counts);
  if (comm_rank(comm) == 0) {
    problem.load_trend.resize(problem.size());
    problem.trend_origin = *view.trend_origin;
  }
  MPI_Gatherv(view.vertex_load_trend.data(), static_cast<int>(view.vertex_load_trend.size()), MPI_DOUBLE,
              problem.load_trend.data(), vertex_counts.data(), displs.data(), MPI_DOUBLE, 0, comm);
}

// Every object's coordinates to rank 0, with the trends, where the mesh has them.
void gather_coords(const LoadView& view, const std::vector<int>& vertex_counts, MPI_Comm comm, GlobalProblem& problem) {
  const int dims = view.graph.dim;
  std::vector<int> counts(vertex_counts);
  for (int& c : counts) c *= dims;
  const std::vector<int> displs = displacements(counts);
  if (comm_rank(comm) == 0) {
    problem.coord_dims = dims;
    problem.coords.resize(problem.size() * static_cast<std::size_t>(dims));
  }
  MPI_Gatherv(view.graph.coords.data(), view.graph.num_local() * dims, MPI_DOUBLE, problem.coords.data(), counts.data(),
              displs.data(), MPI_DOUBLE, 0, comm);
}

// Every rank's background load to rank 0: its sum, and its vector for vector strategies.
void gather_background(const LoadView& view, bool vectors, MPI_Comm comm, GlobalProblem& problem) {
  const bool root = comm_rank(comm) == 0;
  const auto p = static_cast<std::size_t>(comm_size(comm));
  const auto dims = static_cast<int>(view.background.size());
  Load sum{};
  for (const Load l : view.background) sum += l;
  if (root) problem.rank_background.resize(p);
  MPI_Gather(&sum, 1, mpi_type<Load>(), problem.rank_background.data(), 1, mpi_type<Load>(), 0, comm);
  if (!vectors) return;
  if (root) problem.rank_background_vec.resize(p * static_cast<std::size_t>(dims));
  MPI_Gather(view.background.data(), dims, mpi_type<Load>(), problem.rank_background_vec.data(), dims, mpi_type<Load>(),
             0, comm);
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
    problem.rank_speed = view.machine.rank_speed.values();
    problem.rank_site = view.machine.rank_site.values();
    problem.rank_node = view.machine.rank_node.values();
    problem.seed = view.seed;
    problem.invocation = view.invocation;
  }
  MPI_Gatherv(view.graph.gid.data(), local, mpi_type<VertexId>(), problem.id.data(), counts.data(), displs.data(),
              mpi_type<VertexId>(), 0, comm);
  MPI_Gatherv(view.vertex_load.data(), local, mpi_type<Load>(), problem.load.data(), counts.data(), displs.data(),
              mpi_type<Load>(), 0, comm);
  if (needs_graph()) gather_graph(view, counts, comm, problem);
  if (needs_vectors()) gather_vectors(view, counts, comm, problem);
  if (needs_trends() && view.trend_origin) gather_trends(view, counts, comm, problem);
  // Coordinates go with the trends for a strategy that asks for both (`auto`'s motion).
  const bool coords = needs_coords() && view.graph.dim > 0 && (view.trend_origin || !needs_trends());
  if (coords) gather_coords(view, counts, comm, problem);
  if (!view.background.empty()) gather_background(view, needs_vectors(), comm, problem);

  Assignment assignment;
  if (me == 0) {
    const ChargedCode solving;  // the strategy's decision, on rank 0
    problem.owner = owners_in_rank_order(counts);
    assignment = solve(problem);
  }
  std::vector<Rank> mine(static_cast<std::size_t>(local));
  MPI_Scatterv(assignment.data(), counts.data(), displs.data(), mpi_type<Rank>(), mine.data(), local, mpi_type<Rank>(),
               0, comm);

  const ChargedCode reading;
  MigrationPlan out;
  for (LocalIndex v = 0; v < local; ++v) {
    if (mine[static_cast<std::size_t>(v)] != view.rank) out.moves.push_back({v, mine[static_cast<std::size_t>(v)]});
  }
  return out;
}

std::vector<Rank> owners_in_rank_order(std::span<const int> counts) {
  std::vector<Rank> owner;
  owner.reserve(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0})));
  for (std::size_t r = 0; r < counts.size(); ++r)
    owner.insert(owner.end(), static_cast<std::size_t>(counts[r]), Rank{static_cast<int>(r)});
  return owner;
}

std::vector<double> rank_times(const GlobalProblem& problem, const Assignment& assignment) {
  std::vector<double> t(static_cast<std::size_t>(problem.nranks), 0.0);
  for (int r = 0; r < problem.nranks; ++r) t[static_cast<std::size_t>(r)] = problem.background(r);
  for (std::size_t i = 0; i < problem.size(); ++i)
    t[static_cast<std::size_t>(assignment[i].value())] += problem.load[i].seconds();
  for (int r = 0; r < problem.nranks; ++r) t[static_cast<std::size_t>(r)] /= problem.speed(r);
  return t;
}

std::vector<double> movable_shares(const GlobalProblem& problem) {
  const auto p = static_cast<std::size_t>(problem.nranks);
  double movable = 0, background = 0, speeds = 0;
  for (const Load l : problem.load) movable += l.seconds();
  for (int r = 0; r < problem.nranks; ++r) {
    background += problem.background(r);
    speeds += problem.speed(r);
  }
  std::vector<double> share(p);
  double sum = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const int rank = static_cast<int>(r);
    share[r] = std::max(0.0, (movable + background) * problem.speed(rank) / speeds - problem.background(rank));
    sum += share[r];
  }
  for (double& s : share) s = sum > 0 ? s * movable / sum : movable / static_cast<double>(p);
  return share;
}

}  // namespace lbbench
