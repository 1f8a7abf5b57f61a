// What mesh to build: a generator with its sizes, or a file in one of the supported formats.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

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
using MeshSpec = std::variant<GridSpec, GeometricSpec, DropletsSpec, MeshFileSpec>;

// The generators a scenario can name (a grid's name gives its dimension).
enum class Generator { grid2d, grid3d, geometric, droplets };
inline constexpr NameTable<Generator, 4> kGenerators{{{Generator::grid2d, "grid2d"},
                                                      {Generator::grid3d, "grid3d"},
                                                      {Generator::geometric, "geometric"},
                                                      {Generator::droplets, "droplets"}}};

std::string_view to_string(MeshFormat f);
// True for a recorded run (an LBDatafile trace).
bool is_trace_mesh(const MeshSpec& mesh);
// Coordinates per vertex the mesh will have, when the spec alone tells (0: none or unknown).
int known_mesh_dim(const MeshSpec& mesh);

}  // namespace lbbench
