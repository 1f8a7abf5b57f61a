// Reads a mesh file in the format the scenario names, plus optional coordinates.
#include "comm/mpi.hpp"
#include "meshes/build.hpp"
#include "meshes/readers/graph_reader.hpp"

namespace lbbench {

Mesh read_mesh_file(const MeshFileSpec& spec, MPI_Comm comm) {
  if (spec.format == MeshFormat::lbdatafile) return read_trace_mesh(spec, comm);
  LocalGraph g;
  if (spec.format == MeshFormat::matrix_market) {
    g = read_matrix_market(spec.resolved, comm);
  } else {
    g = read_metis_or_chaco(spec.resolved, spec.format == MeshFormat::chaco, comm).graph;
  }
  g.global_vertices = allreduce<std::int64_t>(g.num_local(), MPI_SUM, comm);
  if (!spec.coords_resolved.empty()) read_coordinates(spec.coords_resolved, g, comm);
  finish_graph(g, comm);
  return Mesh{std::move(g), nullptr};
}

}  // namespace lbbench
