// Builds this rank's part of a mesh (see build.hpp).
#include "meshes/build.hpp"

#include <algorithm>
#include <limits>

#include "comm/mpi.hpp"
#include "core/overloaded.hpp"

namespace lbbench {

Mesh build_mesh(const MeshSpec& spec, std::uint64_t seed, MPI_Comm comm) {
  return std::visit(Overloaded{
                        [&](const GridSpec& g) {
                          return Mesh{generate_grid(g, comm), nullptr};
                        },
                        [&](const GeometricSpec& g) {
                          return Mesh{generate_geometric(g, seed, comm), nullptr};
                        },
                        [&](const DropletsSpec& d) {
                          return Mesh{generate_droplets(d, seed, comm), nullptr};
                        },
                        [&](const MeshFileSpec& f) { return read_mesh_file(f, comm); },
                        [&](const OctreeSpec& o) {
                          return Mesh{generate_octree(o, comm), nullptr};
                        },
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
