// Structured 2-D and 3-D grids: vertex (x, y, z) has id x + nx*(y + ny*z), coordinates
// (x, y, z), and edges to its face neighbors (5- and 7-point stencils).
#include <array>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "meshes/build.hpp"

namespace lbbench {

LocalGraph generate_grid(const GridSpec& spec, MPI_Comm comm) {
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  const auto [nx, ny, nz] = spec.size;
  const std::int64_t n = nx * ny * nz;

  LocalGraph g;
  g.dim = spec.dim;
  const std::int64_t begin = block_begin(me, n, nranks);
  const std::int64_t end = block_begin(me + 1, n, nranks);
  std::vector<VertexId> nbrs;
  std::vector<Rank> owners;
  for (std::int64_t id = begin; id < end; ++id) {
    const std::array<std::int64_t, 3> p{id % nx, (id / nx) % ny, id / (nx * ny)};
    const std::array<std::int64_t, 3> extent{nx, ny, nz};
    const std::array<std::int64_t, 3> stride{1, nx, nx * ny};
    nbrs.clear();
    owners.clear();
    // Visiting -z, -y, -x, +x, +y, +z keeps neighbor ids sorted.
    for (int a = spec.dim - 1; a >= 0; --a) {
      if (p[a] > 0) nbrs.push_back(VertexId{id - stride[a]});
    }
    for (int a = 0; a < spec.dim; ++a) {
      if (p[a] + 1 < extent[a]) nbrs.push_back(VertexId{id + stride[a]});
    }
    for (auto v : nbrs) owners.push_back(Rank{block_owner(v.value(), n, nranks)});
    const std::array<double, 3> xyz{double(p[0]), double(p[1]), double(p[2])};
    g.add_vertex(VertexId{id}, nbrs, owners, {}, std::span(xyz).first(static_cast<std::size_t>(spec.dim)), {});
  }
  finish_graph(g, comm);
  return g;
}

}  // namespace lbbench
