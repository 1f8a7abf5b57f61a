// What mesh to build: a generator with its sizes, or a file in one of the supported formats.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/named.hpp"

namespace lbbench {

// --- mesh ------------------------------------------------------------------------------------
struct GridSpec {
  int dim = 2;
  std::array<std::int64_t, 3> size{1, 1, 1};  // nx, ny, nz
};
// Random points in the unit box joined within a cutoff radius (an MD neighbor graph).
struct GeometricSpec {
  std::int64_t n = 0;
  int dim = 2;
  double radius = 0.05;
};
// Clustered particles: a share of the points sits in Gaussian droplets, the rest is vapor.
struct DropletsSpec {
  std::int64_t n = 0;
  int dim = 2;
  double radius = 0.05;  // cutoff
  int droplets = 4;
  double droplet_radius = 0.08;
  double fraction = 0.8;  // share of points inside droplets
};
// lbdatafile: a recorded run (vt's LBDatafile, meshes/trace/trace.hpp); `path` is then a
// folder, a pattern with %r or a glob.
enum class MeshFormat { metis, chaco, matrix_market, lbdatafile };
inline constexpr NameTable<MeshFormat, 4> kMeshFormats{{{MeshFormat::metis, "metis"},
                                                        {MeshFormat::chaco, "chaco"},
                                                        {MeshFormat::matrix_market, "matrix-market"},
                                                        {MeshFormat::lbdatafile, "lbdatafile"}}};
struct MeshFileSpec {
  std::string path;      // as written in the scenario
  std::string resolved;  // relative to the scenario's folder
  MeshFormat format = MeshFormat::metis;
  std::string coords;  // as written; empty when none
  std::string coords_resolved;
};
// Block-structured AMR (meshes/octree/): the unit box as an octree (3-D) or quadtree (2-D)
// of blocks that each carry the same work and payload, refined around a front that moves.
// Every `period` steps blocks near the front split into 2^dim children and families of
// 2^dim siblings behind it merge into their parent, keeping face neighbours within one
// level of each other (2:1 balance).
enum class FrontShape { sphere, plane };
inline constexpr NameTable<FrontShape, 2> kFrontShapes{{{FrontShape::sphere, "sphere"}, {FrontShape::plane, "plane"}}};
struct FrontSpec {
  FrontShape shape = FrontShape::sphere;
  std::vector<double> center;  // sphere: normalized; empty means the middle of the box
  double radius = 0.1;         // sphere: at step 0
  int axis = 0;                // plane: the axis it crosses the box along
  double position = 0.0;       // plane: where it is at step 0
  double speed = 0.01;         // per step: the sphere's growth, the plane's travel (may be negative)
  double buffer = 1.0;         // a block within buffer x its own width of the front is near it
};
// The deepest tree whose blocks' places on a curve fit in 48 bits.
constexpr int octree_deepest_level(int dim) { return dim == 2 ? 24 : 16; }
// Block ids one regrid spans: every block of every level down to max_level (ids are
// generation x this + the block's place; meshes/octree/geometry.hpp).
constexpr std::int64_t octree_id_slots(int dim, int max_level) {
  return static_cast<std::int64_t>(((std::uint64_t{1} << (dim * (max_level + 1))) - 1) /
                                   ((std::uint64_t{1} << dim) - 1));
}
struct OctreeSpec {
  int dim = 3;
  int min_level = 2;  // the mesh starts uniform here; no family merges below it
  int max_level = 5;  // the tree's depth: no block splits beyond it
  int period = 2;     // steps between regrids
  FrontSpec front;
};
using MeshSpec = std::variant<GridSpec, GeometricSpec, DropletsSpec, MeshFileSpec, OctreeSpec>;

// The generators a scenario can name (a grid's or a tree's name gives its dimension).
enum class Generator { grid2d, grid3d, geometric, droplets, quadtree, octree };
inline constexpr NameTable<Generator, 6> kGenerators{{{Generator::grid2d, "grid2d"},
                                                      {Generator::grid3d, "grid3d"},
                                                      {Generator::geometric, "geometric"},
                                                      {Generator::droplets, "droplets"},
                                                      {Generator::quadtree, "quadtree"},
                                                      {Generator::octree, "octree"}}};

std::string_view to_string(MeshFormat f);
// True for a recorded run (an LBDatafile trace).
bool is_trace_mesh(const MeshSpec& mesh);
// Coordinates per vertex the mesh will have, when the spec alone tells (0: none or unknown).
int known_mesh_dim(const MeshSpec& mesh);
// The mesh's vertices are created and destroyed as the run goes (an octree that regrids).
bool mesh_regrids(const MeshSpec& mesh);

}  // namespace lbbench
