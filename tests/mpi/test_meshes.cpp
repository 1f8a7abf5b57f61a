// Mesh generators and readers, built distributed at 1, 2 and 4 ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "meshes/build.hpp"
#include "mpi_test_util.hpp"
#include "replay/migration.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

// Structural checks every built graph must pass: the edge set is symmetric, the owner
// tables are right, ids are exactly 0..n-1, and the counts add up.
void expect_well_formed(const LocalGraph& g, MPI_Comm comm = kWorld) {
  const auto ids = test::all_ids(g, comm);
  ASSERT_EQ(static_cast<std::int64_t>(ids.size()), g.global_vertices);
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<std::int64_t>(i));
  std::int64_t directed = allreduce(g.num_local_edges(), MPI_SUM, comm);
  EXPECT_EQ(directed, 2 * g.global_edges) << "every edge is listed at both ends";
  const auto edges = test::all_edges(g, comm);
  EXPECT_EQ(static_cast<std::int64_t>(edges.size()), g.global_edges) << "the edge set is symmetric";
  EXPECT_EQ(count_wrong_owner_entries(g, comm), 0);
  check_structure(g);
}

// An order-independent fingerprint of the edge set.
std::uint64_t edge_fingerprint(const LocalGraph& g, MPI_Comm comm) {
  std::uint64_t h = 0;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (auto u : g.neighbors(v))
      h += hash_of({static_cast<std::uint64_t>(g.gid[v].value()), static_cast<std::uint64_t>(u.value())});
  }
  return allreduce(h, MPI_SUM, comm);
}

TEST(Grid, CountsEdgesAndCoordinates) {
  const LocalGraph g2 = generate_grid(GridSpec{2, {7, 5, 1}}, kWorld);
  EXPECT_EQ(g2.global_vertices, 35);
  EXPECT_EQ(g2.global_edges, 6 * 5 + 7 * 4);
  EXPECT_EQ(g2.dim, 2);
  expect_well_formed(g2);
  for (LocalIndex v = 0; v < g2.num_local(); ++v) {
    const auto id = g2.gid[v].value();
    EXPECT_EQ(g2.coords_of(v)[0], double(id % 7));
    EXPECT_EQ(g2.coords_of(v)[1], double(id / 7));
  }
  const LocalGraph g3 = generate_grid(GridSpec{3, {4, 3, 5}}, kWorld);
  EXPECT_EQ(g3.global_vertices, 60);
  EXPECT_EQ(g3.global_edges, 3 * 3 * 5 + 4 * 2 * 5 + 4 * 3 * 4);
  EXPECT_EQ(g3.bounds.hi[2], 4.0);
  expect_well_formed(g3);
}

TEST(Geometric, EdgesAreExactlyThePairsWithinTheCutoff) {
  const GeometricSpec spec{600, 2, 0.07};
  const LocalGraph g = generate_geometric(spec, 9, kWorld);
  EXPECT_EQ(g.global_vertices, 600);
  expect_well_formed(g);
  // Gather every point and check all pairs by brute force.
  std::vector<double> mine(g.coords);
  std::vector<std::int64_t> ids;
  for (auto id : g.gid) ids.push_back(id.value());
  const int p = comm_size(kWorld);
  std::vector<int> counts(p), displs(p), ccounts(p), cdispls(p);
  const int n_local = g.num_local();
  MPI_Allgather(&n_local, 1, MPI_INT, counts.data(), 1, MPI_INT, kWorld);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  for (int r = 0; r < p; ++r) {
    ccounts[r] = 2 * counts[r];
    cdispls[r] = 2 * displs[r];
  }
  std::vector<std::int64_t> all_ids(600);
  std::vector<double> all_xy(1200);
  MPI_Allgatherv(ids.data(), n_local, MPI_INT64_T, all_ids.data(), counts.data(), displs.data(), MPI_INT64_T, kWorld);
  MPI_Allgatherv(mine.data(), 2 * n_local, MPI_DOUBLE, all_xy.data(), ccounts.data(), cdispls.data(), MPI_DOUBLE,
                 kWorld);
  std::vector<std::array<double, 2>> xy(600);
  for (int i = 0; i < 600; ++i) {
    const auto id = static_cast<std::size_t>(all_ids[i]);
    xy[id] = {all_xy[2 * i], all_xy[2 * i + 1]};
    EXPECT_GE(xy[id][0], 0.0);
    EXPECT_LT(xy[id][0], 1.0);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> brute;
  for (int a = 0; a < 600; ++a) {
    for (int b = a + 1; b < 600; ++b) {
      const double dx = xy[a][0] - xy[b][0], dy = xy[a][1] - xy[b][1];
      if (dx * dx + dy * dy < spec.radius * spec.radius) brute.emplace_back(a, b);
    }
  }
  EXPECT_EQ(test::all_edges(g, kWorld), brute);
}

TEST(Geometric, TheGraphDoesNotDependOnTheRankCount) {
  const GeometricSpec spec{3000, 3, 0.09};
  const LocalGraph distributed = generate_geometric(spec, 4, kWorld);
  const LocalGraph serial = generate_geometric(spec, 4, MPI_COMM_SELF);
  EXPECT_EQ(distributed.global_edges, serial.global_edges);
  EXPECT_EQ(edge_fingerprint(distributed, kWorld), edge_fingerprint(serial, MPI_COMM_SELF));
  expect_well_formed(distributed);
  const LocalGraph other_seed = generate_geometric(spec, 5, MPI_COMM_SELF);
  EXPECT_NE(edge_fingerprint(other_seed, MPI_COMM_SELF), edge_fingerprint(serial, MPI_COMM_SELF));
}

TEST(Droplets, ExactCountRankIndependenceAndClustering) {
  const DropletsSpec spec{5000, 2, 0.02, 3, 0.06, 0.8};
  const LocalGraph distributed = generate_droplets(spec, 2, kWorld);
  const LocalGraph serial = generate_droplets(spec, 2, MPI_COMM_SELF);
  EXPECT_EQ(distributed.global_vertices, 5000);
  EXPECT_EQ(edge_fingerprint(distributed, kWorld), edge_fingerprint(serial, MPI_COMM_SELF));
  expect_well_formed(distributed);
  // Clustered: dense droplets and sparse vapor make the 90th percentile of the degree many
  // times the 10th; a uniform cloud of the same size and cutoff keeps them within a few.
  auto spread = [](const LocalGraph& g) {
    std::vector<std::int64_t> degree;
    for (LocalIndex v = 0; v < g.num_local(); ++v) degree.push_back(g.degree(v));
    std::sort(degree.begin(), degree.end());
    const auto at = [&](double q) {
      return static_cast<double>(degree[static_cast<std::size_t>(q * (degree.size() - 1))]);
    };
    return at(0.9) / (at(0.1) + 1.0);
  };
  const LocalGraph uniform = generate_geometric(GeometricSpec{5000, 2, 0.02}, 2, MPI_COMM_SELF);
  EXPECT_LT(spread(uniform), 4.0);
  EXPECT_GT(spread(serial), 10.0);
}

// --- readers -----------------------------------------------------------------------------------

MeshFileSpec file_spec(const std::string& path, MeshFormat format, const std::string& coords = "") {
  MeshFileSpec f;
  f.path = f.resolved = path;
  f.format = format;
  f.coords = f.coords_resolved = coords;
  return f;
}

// A 2x3 grid, vertices numbered row by row:  1-2-3 / 4-5-6, with two vertex weights each
// and edge weights (METIS fmt 011, ncon 2).
const char* kWeightedGraph =
    "% a comment line\n"
    "6 7 011 2\n"
    "1 10  2 1 4 2\n"
    "2 20  1 1 3 3 5 4\n"
    "3 30  2 3 6 5\n"
    "4 40  1 2 5 6\n"
    "5 50  2 4 4 6 6 7\n"
    "6 60  3 5 5 7\n";

TEST(MetisReader, ReadsWeightsAndEdgeWeights) {
  test::SharedTempDir dir;
  const auto path = dir.write("w.graph", kWeightedGraph);
  const LocalGraph g = read_mesh_file(file_spec(path, MeshFormat::metis), kWorld).graph;
  EXPECT_EQ(g.global_vertices, 6);
  EXPECT_EQ(g.global_edges, 7);
  EXPECT_EQ(g.ncon, 2);
  EXPECT_TRUE(g.has_edge_weights);
  expect_well_formed(g);
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto id = g.gid[v].value();
    EXPECT_EQ(g.vweights_of(v)[0], double(id + 1));
    EXPECT_EQ(g.vweights_of(v)[1], double(10 * (id + 1)));
  }
  // Edge 2-5 (0-based 1-4) has weight 4 at both ends.
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const auto a = std::min(g.gid[v].value(), g.adj[e].value());
      const auto b = std::max(g.gid[v].value(), g.adj[e].value());
      if (a == 1 && b == 4) {
        EXPECT_EQ(g.edge_weight(e), 4);
      }
    }
  }
}

TEST(MetisReader, ReadsTheMetisDistributionMeshesWhenPresent) {
  const std::string dir = test::shared_meshes_dir();
  if (dir.empty()) GTEST_SKIP() << "the METIS meshes folder is absent";
  const LocalGraph elt = read_mesh_file(file_spec(dir + "/4elt.graph", MeshFormat::metis), kWorld).graph;
  EXPECT_EQ(elt.global_vertices, 15606);
  EXPECT_EQ(elt.global_edges, 45878);
  EXPECT_EQ(count_wrong_owner_entries(elt, kWorld), 0);
  const LocalGraph multi = read_mesh_file(file_spec(dir + "/test.mgraph", MeshFormat::metis), kWorld).graph;
  EXPECT_EQ(multi.global_vertices, 766);
  EXPECT_EQ(multi.global_edges, 1314);
  EXPECT_EQ(multi.ncon, 2);
  expect_well_formed(multi);
}

TEST(ChacoReader, VertexNumbersWeightsAndCoordinates) {
  test::SharedTempDir dir;
  // Chaco code 110: each line starts with the vertex number, then one vertex weight.
  const auto graph = dir.write("c.graph", "4 4 110\n1 5 2 3\n2 6 1 4\n3 7 1 4\n4 8 2 3\n");
  const auto coords = dir.write("c.coords", "0 0\n1 0\n0 1\n1 1\n");
  const LocalGraph g = read_mesh_file(file_spec(graph, MeshFormat::chaco, coords), kWorld).graph;
  EXPECT_EQ(g.global_edges, 4);
  EXPECT_EQ(g.ncon, 1);
  EXPECT_EQ(g.dim, 2);
  EXPECT_EQ(g.bounds.hi[0], 1.0);
  expect_well_formed(g);
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto id = g.gid[v].value();
    EXPECT_EQ(g.vweights_of(v)[0], double(5 + id));
    EXPECT_EQ(g.coords_of(v)[0], double(id % 2));
    EXPECT_EQ(g.coords_of(v)[1], double(id / 2));
  }
}

TEST(MatrixMarketReader, SymmetrizesAndDropsTheDiagonal) {
  test::SharedTempDir dir;
  const auto sym = dir.write("s.mtx",
                             "%%MatrixMarket matrix coordinate real symmetric\n% comment\n4 4 5\n1 1 2.0\n2 1 -1\n3 2 "
                             "-1\n4 3 -1\n4 1 0.5\n");
  const LocalGraph s = read_mesh_file(file_spec(sym, MeshFormat::matrix_market), kWorld).graph;
  EXPECT_EQ(s.global_vertices, 4);
  EXPECT_EQ(s.global_edges, 4);
  expect_well_formed(s);
  // A general matrix with (1,2) and (2,1) both present and (3,1) alone: edges 1-2, 1-3.
  const auto gen = dir.write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 1\n3 1\n");
  const LocalGraph g = read_mesh_file(file_spec(gen, MeshFormat::matrix_market), kWorld).graph;
  EXPECT_EQ(g.global_edges, 2);
  expect_well_formed(g);
}

// --- reader errors: every one names the file and line, and stops every rank ----------------------

struct BadFile {
  const char* name;
  MeshFormat format;
  const char* content;
  std::vector<std::string> message;
};

class ReaderErrors : public testing::TestWithParam<BadFile> {};

TEST_P(ReaderErrors, NameTheLineAndWhatIsWrong) {
  const BadFile& bad = GetParam();
  test::SharedTempDir dir;
  const auto path = dir.write(bad.name, bad.content);
  std::vector<std::string> parts{path};
  parts.insert(parts.end(), bad.message.begin(), bad.message.end());
  test::expect_error_containing([&] { read_mesh_file(file_spec(path, bad.format), kWorld); }, parts);
}

INSTANTIATE_TEST_SUITE_P(
    Files, ReaderErrors,
    testing::Values(
        BadFile{"asym.graph",
                MeshFormat::metis,
                "3 2\n2\n1 3\n2 1\n",
                {":4: vertex 3 lists neighbor 1, but vertex 1 (line 2) does not list 3"}},
        BadFile{"range.graph",
                MeshFormat::metis,
                "3 2\n2\n1 3\n2 7\n",
                {":4: vertex 3: neighbor id 7 is out of range 1..3"}},
        BadFile{"count.graph",
                MeshFormat::metis,
                "3 3\n2\n1 3\n2\n",
                {":1: the header declares m = 3 edges, but the vertex lines list 4 neighbor entries"}},
        // Found by fuzzing: twice such an m overflowed before the counts were compared.
        BadFile{"huge.graph",
                MeshFormat::metis,
                "2 4888888888888888888\n2\n1\n",
                {":1: the header declares m = 4888888888888888888 edges, but the vertex lines list 2 neighbor "
                 "entries"}},
        BadFile{"short.graph",
                MeshFormat::metis,
                "4 2\n2\n1 3\n2\n",
                {":4: the file ends after 3 vertex lines, but the header (line 1) declares n = 4"}},
        BadFile{"long.graph", MeshFormat::metis, "2 1\n2\n1\n1\n", {":4: more vertex lines than the n = 2"}},
        BadFile{"self.graph", MeshFormat::metis, "2 1\n1 2\n1\n", {":2: vertex 1 lists itself"}},
        BadFile{"dup.graph", MeshFormat::metis, "3 2\n2 2\n1 1 3\n2\n", {":2: vertex 1 lists neighbor 2 twice"}},
        BadFile{"ewgt.graph", MeshFormat::metis, "2 1 001\n2 5\n1 6\n", {"has weight", "here but", "on line"}},
        BadFile{"header.graph", MeshFormat::metis, "three 2\n", {":1: bad header 'three 2'"}},
        BadFile{"token.graph", MeshFormat::metis, "2 1\n2\nx\n", {":3: vertex 2: neighbor 'x' is not an integer"}},
        BadFile{"rect.mtx",
                MeshFormat::matrix_market,
                "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1\n",
                {":2: the matrix is 3 x 4; a graph needs a square matrix"}},
        BadFile{"nnz.mtx",
                MeshFormat::matrix_market,
                "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n",
                {"the file ends after 1 entries, but the size line (line 2) declares 3"}},
        BadFile{"dense.mtx",
                MeshFormat::matrix_market,
                "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
                {":1: 'array' format is a dense matrix"}}),
    [](const testing::TestParamInfo<BadFile>& info) { return test::param_name(info.param.name); });

TEST(CoordinatesReader, CountMismatchIsAnError) {
  test::SharedTempDir dir;
  const auto graph = dir.write("g.graph", "3 2\n2\n1 3\n2\n");
  const auto coords = dir.write("g.coords", "0 0\n1 1\n");
  test::expect_error_containing([&] { read_mesh_file(file_spec(graph, MeshFormat::metis, coords), kWorld); },
                                {coords, "coordinates for 2 vertices, but the mesh has 3"});
}

TEST(Readers, MissingFileIsAnError) {
  test::expect_error_containing([&] { read_mesh_file(file_spec("/nonexistent/x.graph", MeshFormat::metis), kWorld); },
                                {"/nonexistent/x.graph", "cannot open"});
}

}  // namespace
}  // namespace lbbench
