// One line of 1 to 3 coordinates per vertex, in vertex order (Chaco .coords / .xyz).
#include <fmt/format.h>

#include "comm/mpi.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "meshes/readers/graph_reader.hpp"
#include "meshes/readers/line_source.hpp"
#include "meshes/readers/root_router.hpp"

namespace lbbench {

void read_coordinates(const std::string& path, LocalGraph& g, MPI_Comm comm) {
  const int nranks = comm_size(comm);
  const std::int64_t n = g.global_vertices;
  const Bytes mine = route_from_root(comm, [&](RootRouter& router) {
    LineSource src(path, '%');
    std::string line;
    std::int32_t dim = 0;
    std::int64_t v = 0;
    while (src.next(line)) {
      const auto tokens = split_tokens(line);
      if (tokens.empty()) continue;
      if (v == n) src.fail(fmt::format("more coordinate lines than the mesh's {} vertices", n));
      if (dim == 0) {
        if (tokens.size() > 3) src.fail(fmt::format("{} coordinates per line; expected 1 to 3", tokens.size()));
        dim = static_cast<std::int32_t>(tokens.size());
      }
      if (static_cast<std::int32_t>(tokens.size()) != dim) {
        src.fail(fmt::format("{} coordinates where the first line had {}", tokens.size(), dim));
      }
      ByteWriter out = router.record(block_owner(v, n, nranks));
      out.put(dim);
      for (const auto t : tokens) {
        double x = 0;
        if (!parse_double(t, x)) src.fail(fmt::format("coordinate '{}' is not a number", t));
        out.put(x);
      }
      ++v;
    }
    if (v != n) src.fail(fmt::format("the file has coordinates for {} vertices, but the mesh has {}", v, n));
  });
  ByteReader in(mine);
  int dim = 0;
  g.coords.clear();
  while (!in.done()) {
    dim = in.get<std::int32_t>();
    in.get_into(g.coords, static_cast<std::size_t>(dim));
  }
  g.dim = allreduce(dim, MPI_MAX, comm);
  if (g.coords.size() != static_cast<std::size_t>(g.num_local()) * static_cast<std::size_t>(g.dim)) {
    throw RunError("coordinates do not line up with the local vertices");
  }
}

}  // namespace lbbench
