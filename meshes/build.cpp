// Builds this rank's part of a mesh (see build.hpp).
#include "meshes/build.hpp"

#include <algorithm>
#include <limits>

#include "core/overloaded.hpp"
#include "mpi/mpi.hpp"

namespace lbbench {

LocalGraph build_mesh(const MeshSpec& spec, std::uint64_t seed, MPI_Comm comm) {
  return std::visit(Overloaded{
                        [&](const GridSpec& g) { return generate_grid(g, comm); },
                        [&](const GeometricSpec& g) { return generate_geometric(g, seed, comm); },
                        [&](const DropletsSpec& d) { return generate_droplets(d, seed, comm); },
                        [&](const MeshFileSpec& f) { return read_mesh_file(f, comm); },
                    },
                    spec);
}

void finish_graph(LocalGraph& g, MPI_Comm comm) {
  check_structure(g);
  g.global_vertices = allreduce<std::int64_t>(g.num_local(), MPI_SUM, comm);
  g.global_edges = allreduce<std::int64_t>(g.num_local_edges(), MPI_SUM, comm) / 2;
  std::array<double, 3> lo{}, hi{};
  lo.fill(std::numeric_limits<double>::infinity());
  hi.fill(-std::numeric_limits<double>::infinity());
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto x = g.coords_of(v);
    for (int a = 0; a < g.dim; ++a) {
      lo[a] = std::min(lo[a], x[a]);
      hi[a] = std::max(hi[a], x[a]);
    }
  }
  MPI_Allreduce(lo.data(), g.bounds.lo.data(), 3, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(hi.data(), g.bounds.hi.data(), 3, MPI_DOUBLE, MPI_MAX, comm);
  for (int a = g.dim; a < 3; ++a) g.bounds.lo[a] = g.bounds.hi[a] = 0.0;
}

}  // namespace lbbench
