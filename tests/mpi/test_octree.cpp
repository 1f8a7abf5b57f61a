// Block meshes that regrid, at 1, 2 and 4 ranks: the distributed generator and regrids
// against the same code on one process holding every block (the serial reference), the
// mesh's invariants after every regrid (the blocks tile the box, face neighbours across
// levels, 2:1 balance, ids never reused, conservation), and the replay with regrids.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "comm/mpi.hpp"
#include "meshes/build.hpp"
#include "meshes/octree/front.hpp"
#include "meshes/octree/geometry.hpp"
#include "meshes/octree/regrid_decision.hpp"
#include "meshes/octree/restructure.hpp"
#include "mpi_test_util.hpp"
#include "replay/regrid.hpp"
#include "replay/replay.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

OctreeSpec tree(int dim, int min_level, int max_level, FrontShape shape) {
  OctreeSpec s;
  s.dim = dim;
  s.min_level = min_level;
  s.max_level = max_level;
  s.front.shape = shape;
  s.front.center.assign(static_cast<std::size_t>(dim), 0.4);
  s.front.radius = 0.2;
  s.front.position = 0.1;
  s.front.speed = 0.03;
  return s;
}

// A block's extent along each axis in cells of the deepest level.
struct Extent {
  std::array<std::int64_t, 3> lo{};
  std::int64_t width = 0;
};
Extent extent(const Block& b, int max_level) {
  Extent e;
  e.width = std::int64_t{1} << (max_level - b.level);
  for (std::size_t a = 0; a < 3; ++a) e.lo[a] = b.at[a] * e.width;
  return e;
}

// The area (in cells of the deepest level) that two face neighbours share.
std::int64_t shared_face(const Extent& a, const Extent& b, int dim) {
  std::int64_t area = 1;
  for (std::size_t i = 0; i < static_cast<std::size_t>(dim); ++i) {
    const std::int64_t lo = std::max(a.lo[i], b.lo[i]);
    const std::int64_t hi = std::min(a.lo[i] + a.width, b.lo[i] + b.width);
    if (hi > lo) area *= hi - lo;  // the touching axis has no overlap and adds no factor
  }
  return area;
}

// Every invariant of a block mesh, checked on the whole of it: the blocks tile the box
// with no gap and no overlap; every edge joins face neighbours at most one level apart; and
// every face of every block not on the box's boundary is covered exactly by the faces of
// its neighbours (so no face neighbour is missing, across levels too).
void expect_valid_mesh(const OctreeGeometry& g, const std::vector<std::int64_t>& ids,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& edges) {
  const int dim = g.dim();
  const int deepest = g.max_level();
  std::map<std::uint64_t, Block> by_key;
  for (const std::int64_t id : ids) {
    const Block b = g.block_of(VertexId{id});
    ASSERT_TRUE(by_key.emplace(g.morton_key(b), b).second) << "two blocks start at one cell";
  }
  std::uint64_t next = 0;
  for (const auto& [key, b] : by_key) {
    ASSERT_EQ(key, next) << "a gap or an overlap before block at level " << b.level;
    next += std::uint64_t{1} << (dim * (deepest - b.level));
  }
  EXPECT_EQ(next, std::uint64_t{1} << (dim * deepest)) << "the blocks tile the box";
  std::map<std::int64_t, std::int64_t> covered;  // per block, the face area its neighbours cover
  for (const auto& [a, b] : edges) {
    const Block x = g.block_of(VertexId{a});
    const Block y = g.block_of(VertexId{b});
    ASSERT_TRUE(g.face_adjacent(x, y)) << a << " and " << b << " share no face";
    EXPECT_LE(std::abs(x.level - y.level), 1) << "2:1 balance broken between " << a << " and " << b;
    const std::int64_t area = shared_face(extent(x, deepest), extent(y, deepest), dim);
    covered[a] += area;
    covered[b] += area;
  }
  const std::int64_t side = std::int64_t{1} << deepest;
  for (const std::int64_t id : ids) {
    const Block b = g.block_of(VertexId{id});
    const Extent e = extent(b, deepest);
    std::int64_t inner = 0;
    const std::int64_t face = dim == 2 ? e.width : e.width * e.width;
    for (std::size_t a = 0; a < static_cast<std::size_t>(dim); ++a) {
      inner += (e.lo[a] > 0 ? face : 0) + (e.lo[a] + e.width < side ? face : 0);
    }
    EXPECT_EQ(covered[id], inner) << "block " << id << " at level " << b.level << " misses a face neighbour";
  }
}

// The whole mesh held by one process: a regrid there is the serial reference, with no
// block remote and nothing to gather.
class SerialMesh {
 public:
  explicit SerialMesh(const OctreeSpec& spec)
      : spec_(spec), geometry_(spec.dim, spec.max_level), front_(spec.front, spec.dim), exchange_(MPI_COMM_SELF) {
    graph_ = generate_octree(spec, MPI_COMM_SELF);
  }

  Restructured regrid(int step) {
    const RegridContext ctx{.spec = spec_, .geometry = geometry_, .front = front_, .step = step + 1};
    const std::vector<Rank> owner(static_cast<std::size_t>(graph_.num_local()), Rank{0});
    const RegridDecision d = decide_regrid(ctx, graph_, owner, exchange_, MPI_COMM_SELF);
    RegridTraffic traffic;
    const FateBook fates(graph_, d.fate, exchange_, traffic);
    Restructured r =
        restructure(graph_, geometry_, (step + 1) / spec_.period, Rank{0}, [&](VertexId id) { return fates.of(id); });
    EXPECT_EQ(static_cast<std::int64_t>(r.created.size()), d.refined * geometry_.children() + d.families);
    EXPECT_EQ(static_cast<std::int64_t>(r.destroyed.size()), d.refined + d.families * geometry_.children());
    split_rounds_ = d.split_rounds;
    graph_ = r.graph;
    graph_.global_vertices = graph_.num_local();
    return r;
  }

  [[nodiscard]] const LocalGraph& graph() const { return graph_; }
  [[nodiscard]] const OctreeGeometry& geometry() const { return geometry_; }
  // Rounds the last regrid's splits spread over: more than one where 2:1 balance split
  // blocks the front did not ask to.
  [[nodiscard]] int split_rounds() const { return split_rounds_; }

 private:
  int split_rounds_ = 0;
  OctreeSpec spec_;
  OctreeGeometry geometry_;
  Front front_;
  SparseExchange exchange_;
  LocalGraph graph_;
};

std::vector<std::int64_t> ids_of(const LocalGraph& g) {
  std::vector<std::int64_t> out;
  for (const VertexId id : g.gid) out.push_back(id.value());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> edges_of(const LocalGraph& g) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (const VertexId u : g.neighbors(v)) {
      if (g.gid[v] < u) out.emplace_back(g.gid[v].value(), u.value());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A front that reaches no farther than the blocks it crosses (buffer 0): the levels fall
// off around it only because 2:1 balance splits its neighbours' neighbours.
OctreeSpec thin(OctreeSpec spec) {
  spec.front.buffer = 0;
  spec.front.radius = 0.05;
  spec.front.center = {0.51, 0.49};
  return spec;
}

TEST(Octree, TheInitialMeshIsValidAndTheSameOnAnyRankCount) {
  for (const auto& spec : {tree(2, 1, 5, FrontShape::sphere), tree(3, 1, 4, FrontShape::sphere),
                           tree(3, 2, 4, FrontShape::plane), thin(tree(2, 1, 7, FrontShape::sphere))}) {
    const LocalGraph g = generate_octree(spec, kWorld);
    const std::vector<std::int64_t> ids = test::all_ids(g, kWorld);
    const auto edges = test::all_edges(g, kWorld);
    const SerialMesh serial(spec);
    expect_valid_mesh(serial.geometry(), ids, edges);
    EXPECT_EQ(ids, ids_of(serial.graph()));
    EXPECT_EQ(edges, edges_of(serial.graph()));
    EXPECT_GT(ids.size(), std::size_t{1} << (spec.dim * spec.min_level)) << "the front split some blocks";
    EXPECT_EQ(g.global_vertices, static_cast<std::int64_t>(ids.size()));
    EXPECT_TRUE(g.sparse_ids);
    EXPECT_EQ(count_asymmetric_edges(g, kWorld), 0);
  }
}

// Thirty regrids of a moving front: after each, the mesh is valid, every id made is one
// never seen before, every id destroyed was live, and the counts agree.
TEST(Octree, RegridsKeepTheMeshValidAndNeverReuseAnId) {
  for (const auto& spec :
       {tree(2, 1, 5, FrontShape::sphere), tree(3, 1, 4, FrontShape::plane), thin(tree(2, 1, 7, FrontShape::sphere))}) {
    SerialMesh mesh(spec);
    int most_split_rounds = 0;
    std::set<std::int64_t> ever;
    std::set<std::int64_t> live;
    for (const std::int64_t id : ids_of(mesh.graph())) {
      ever.insert(id);
      live.insert(id);
    }
    std::int64_t made = 0;
    for (int step = spec.period - 1; step < 30 * spec.period; step += spec.period) {
      const Restructured r = mesh.regrid(step);
      for (const VertexId id : r.destroyed) EXPECT_EQ(live.erase(id.value()), 1u) << "destroyed a block not live";
      for (const VertexId id : r.created) {
        EXPECT_TRUE(ever.insert(id.value()).second) << "id " << id.value() << " used twice";
        live.insert(id.value());
        EXPECT_EQ(mesh.geometry().generation_of(id), (step + 1) / spec.period);
      }
      made += static_cast<std::int64_t>(r.created.size());
      EXPECT_EQ(ids_of(mesh.graph()), std::vector<std::int64_t>(live.begin(), live.end()));
      expect_valid_mesh(mesh.geometry(), ids_of(mesh.graph()), edges_of(mesh.graph()));
      check_structure(mesh.graph());
      most_split_rounds = std::max(most_split_rounds, mesh.split_rounds());
    }
    EXPECT_GT(made, 0) << "the front moved the mesh";
    if (spec.front.buffer == 0) {
      EXPECT_GT(most_split_rounds, 1) << "2:1 balance spread splits";
    }
  }
}

Scenario scenario_from(const std::string& yaml) { return parse_scenario(YAML::Load(yaml), "test.yaml"); }

const char* kAmr = R"(
name: octree-replay
seed: 2
steps: 17
mesh:
  generator: quadtree
  min_level: 2
  max_level: 5
  period: 2
  front: {shape: sphere, center: [0.3, 0.4], radius: 0.15, speed: 0.02}
workload:
  unit_seconds: 1.0e-7
  edge_bytes: 32
  element_bytes: 100
distribution: {kind: sfc, curve: hilbert}
balancer: {name: random, period: 4}
model: measured
)";

// The replay regrids as the serial reference does, whatever the ranks and whatever the
// balancer did to the blocks in between (random scatters every family over the ranks, so
// that families must be gathered); --verify checks every owner table and edge after each.
TEST(OctreeReplay, RegridsAsTheSerialReferenceDoes) {
  const Scenario s = scenario_from(kAmr);
  RunOptions options;
  options.verify = true;
  const RunOutcome out = run_scenario(s, options, test::native_engine(), kWorld);
  if (comm_rank(kWorld) != 0) return;
  const RunRecord& r = out.record;
  ASSERT_TRUE(r.regrid.has_value());
  const auto& events = r.regrid->events;
  ASSERT_EQ(events.size(), 8u);  // after steps 1, 3, ..., 15
  SerialMesh serial(std::get<OctreeSpec>(s.mesh));
  ASSERT_EQ(r.per_step.vertices.size(), 17u);
  EXPECT_EQ(r.per_step.vertices[0], serial.graph().num_local());
  std::int64_t gathered = 0;
  for (const RegridEvent& e : events) {
    const Restructured ref = serial.regrid(e.step);
    EXPECT_EQ(e.vertices_after, serial.graph().num_local()) << "after step " << e.step;
    EXPECT_EQ(e.created, static_cast<std::int64_t>(ref.created.size()));
    EXPECT_EQ(e.destroyed, static_cast<std::int64_t>(ref.destroyed.size()));
    EXPECT_EQ(r.per_step.vertices[static_cast<std::size_t>(e.step + 1)], e.vertices_after);
    EXPECT_EQ(e.vertices_after - e.vertices_before, 3 * e.refined - 3 * e.merged);
    EXPECT_GE(e.rounds, 1 + 2 + 1) << "splits spread, 2 rounds among siblings, fates told";
    EXPECT_EQ(r.per_step.regrid_bytes[static_cast<std::size_t>(e.step)], e.bytes + e.migrated_bytes);
    gathered += e.migrations;
  }
  if (comm_size(kWorld) > 1) {
    EXPECT_GT(gathered, 0) << "random scatters families; merging them gathers";
    EXPECT_GT(r.regrid->messages, 0);
  } else {
    EXPECT_EQ(gathered, 0);
    EXPECT_EQ(r.regrid->messages, 0) << "one rank holds every block";
  }
  // Measured loads after a regrid are inherited by the new blocks: every call sees load.
  for (const LbEvent& e : r.lb) EXPECT_GT(e.metrics->model.mean, 0.0) << "the call after step " << e.step;
}

TEST(OctreeReplay, ExistingBalancersKeepWorkingOnTheChangingBlocks) {
  if (comm_size(kWorld) == 1) GTEST_SKIP() << "one rank is always balanced";
  for (const char* name : {"greedy", "metis", "tree", "diffusion", "gossip", "prefix"}) {
    YAML::Node root = YAML::Load(kAmr);
    root["balancer"]["name"] = name;
    root["model"] = "counts";
    const Scenario s = parse_scenario(root, "test.yaml");
    RunOptions options;
    options.verify = true;
    const RunOutcome out = run_scenario(s, options, test::native_engine(), kWorld);
    if (comm_rank(kWorld) != 0) continue;
    ASSERT_EQ(out.record.lb.size(), 4u) << name;
    // Hundreds of equal blocks on two ranks: every strategy balances them within a few
    // blocks (METIS within its tolerance), however the regrids left them.
    for (const LbEvent& e : out.record.lb) {
      EXPECT_LT(e.model_imbalance_predicted_after, std::max(0.05, e.model_imbalance_before))
          << name << " after " << e.step;
    }
  }
}

TEST(RegridCensus, ABlockLostOrMadeTwiceStopsTheRun) {
  RegridCensus c;
  c.before = 10;
  c.after = 17;
  c.created = 8;
  c.destroyed = 1;
  c.refined = 1;
  c.ids_before = 100;
  c.ids_created = 50;
  c.ids_destroyed = 7;
  c.ids_after = 143;
  c.work_before = 10;
  c.work_created = 8;
  c.work_destroyed = 1;
  c.work_after = 17;
  c.edge_ends = 40;
  EXPECT_NO_THROW(check_regrid_census(c, 8, 3));
  RegridCensus lost = c;
  lost.after = 16;
  test::expect_error_containing([&] { check_regrid_census(lost, 8, 3); }, {"after step 3", "16 after"});
  RegridCensus doubled = c;
  doubled.ids_after += 12345;
  test::expect_error_containing([&] { check_regrid_census(doubled, 8, 3); }, {"checksum"});
  RegridCensus miscounted = c;
  miscounted.created = 9;
  miscounted.after = 18;
  miscounted.work_created = 9;
  miscounted.work_after = 18;
  test::expect_error_containing([&] { check_regrid_census(miscounted, 8, 3); }, {"1 splits", "9 blocks made"});
}

}  // namespace
}  // namespace lbbench
