// What mesh to build (see mesh_spec.hpp).
#include "meshes/mesh_spec.hpp"

namespace lbbench {

std::string_view to_string(MeshFormat f) { return name_of(kMeshFormats, f); }

bool is_trace_mesh(const MeshSpec& mesh) {
  const auto* f = std::get_if<MeshFileSpec>(&mesh);
  return f && f->format == MeshFormat::lbdatafile;
}

int known_mesh_dim(const MeshSpec& mesh) {
  if (const auto* g = std::get_if<GridSpec>(&mesh)) return g->dim;
  if (const auto* g = std::get_if<GeometricSpec>(&mesh)) return g->dim;
  if (const auto* d = std::get_if<DropletsSpec>(&mesh)) return d->dim;
  if (const auto* o = std::get_if<OctreeSpec>(&mesh)) return o->dim;
  return 0;
}

bool mesh_regrids(const MeshSpec& mesh) { return std::holds_alternative<OctreeSpec>(mesh); }

}  // namespace lbbench
