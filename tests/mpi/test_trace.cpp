// Recorded runs at 1, 2 and 4 ranks: the graph every rank builds of a trace, a replay that
// never moves a pinned task, and the round trip through the LBDatafile export.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "comm/mpi.hpp"
#include "meshes/build.hpp"
#include "meshes/trace/trace.hpp"
#include "mpi_test_util.hpp"
#include "replay/replay.hpp"

namespace lbbench {
namespace {

namespace fs = std::filesystem;
const MPI_Comm kWorld = MPI_COMM_WORLD;

std::string vt_trace() {
  const fs::path dir = fs::path(LBBENCH_SOURCE_DIR) / ".." / "shared" / "traces" / "lbaf-vt-16ranks";
  return fs::is_directory(dir) ? dir.lexically_normal().string() : "";
}

// The scenario key of an entity: its id, or its seq_id.
std::int64_t key_of(const TraceEntity& e) { return e.id ? *e.id : -1 - *e.seq_id; }

// Per task (by entity), per phase: the recorded time.
std::map<std::int64_t, std::vector<double>> times_by_task(const Trace& t) {
  std::map<std::int64_t, std::vector<double>> out;
  const TraceLayout& l = *t.layout;
  for (std::int64_t v = 0; v < l.vertices(); ++v) {
    if (l.entity[static_cast<std::size_t>(v)].type == "node") continue;
    auto& times = out[key_of(l.entity[static_cast<std::size_t>(v)])];
    for (int p = 0; p < l.phases(); ++p) times.push_back(l.time(VertexId{v}, p, TraceLayout::time_slot()));
  }
  return out;
}

// Every edge as (entity, entity) with its bytes per message.
std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> edges_by_task(const Trace& t) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> out;
  const TraceLayout& l = *t.layout;
  for (const TraceEdge& e : t.edges) {
    const std::int64_t a = key_of(l.entity[static_cast<std::size_t>(e.a)]);
    const std::int64_t b = key_of(l.entity[static_cast<std::size_t>(e.b)]);
    out[std::minmax(a, b)] = e.bytes;
  }
  return out;
}

TEST(TraceMesh, EveryRankHoldsItsBlockOfTheTasks) {
  const std::string dir = vt_trace();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent: LBAF's vt run cannot be read here";
  MeshFileSpec spec;
  spec.path = spec.resolved = dir;
  spec.format = MeshFormat::lbdatafile;
  const Mesh mesh = read_mesh_file(spec, kWorld);
  const LocalGraph& g = mesh.graph;
  EXPECT_EQ(g.global_vertices, 480);
  EXPECT_EQ(g.global_edges, 737);
  ASSERT_TRUE(mesh.trace);
  EXPECT_TRUE(g.has_pinned());
  EXPECT_EQ(allreduce<std::int64_t>(g.num_local(), MPI_SUM, kWorld), 480);
  EXPECT_EQ(test::all_ids(g, kWorld).size(), 480U);
}

// The vt run replayed with greedy on the application's own times (exact in the export),
// scaled down so do_work takes milliseconds, then written out and read back.
TEST(TraceMesh, ReplayedAndExportedItReadsBackTheSame) {
  const std::string dir = vt_trace();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent: LBAF's vt run cannot be replayed here";
  test::SharedTempDir out(kWorld);
  const std::string yaml = "name: round-trip\nsteps: 10\nmesh: {file: " + dir +
                           ", format: lbdatafile}\n"
                           "workload: {weights: {model: trace, scale: 0.01}, element_bytes: 64}\n"
                           "balancer: {name: greedy, period: 3}\nmodel: weights-no-comm\n";
  const Scenario s = parse_scenario(YAML::Load(yaml), "test.yaml");
  RunOptions options;
  options.verify = true;
  options.lbdatafile_out = out.path() + "/export";
  const RunOutcome outcome = run_scenario(s, options, test::native_engine(), kWorld);
  if (comm_rank(kWorld) != 0) return;
  ASSERT_TRUE(outcome.record.trace);
  EXPECT_EQ(outcome.record.trace->tasks, 480);
  if (comm_size(kWorld) > 1) {
    EXPECT_GT(outcome.record.migrations, 0);
  }

  const Trace original = read_trace(dir);
  const Trace exported = read_trace(options.lbdatafile_out);
  EXPECT_EQ(exported.files.size(), static_cast<std::size_t>(comm_size(kWorld)));
  EXPECT_EQ(exported.layout->phases(), 10);
  // The same tasks with the same times (scaled as the scenario says), the same edges.
  const auto before = times_by_task(original);
  const auto after = times_by_task(exported);
  ASSERT_EQ(after.size(), before.size());
  for (const auto& [task, times] : before) {
    ASSERT_TRUE(after.contains(task)) << task;
    for (std::size_t p = 0; p < times.size(); ++p) {
      EXPECT_NEAR(after.at(task)[p], 0.01 * times[p], 1e-12 * std::max(1.0, times[p])) << task << " phase " << p;
    }
  }
  EXPECT_EQ(edges_by_task(exported), edges_by_task(original));
  // Pinned tasks stayed where the run started them, in every phase.
  const TraceLayout& l = *original.layout;
  std::map<std::int64_t, int> start;
  for (std::int64_t v = l.pinned_from; v < l.vertices(); ++v)
    start[key_of(l.entity[static_cast<std::size_t>(v)])] = l.start_rank(VertexId{v}, comm_size(kWorld)).value();
  int pinned_seen = 0;
  for (int r = 0; r < comm_size(kWorld); ++r) {
    std::ifstream in(options.lbdatafile_out + "/data." + std::to_string(r) + ".json");
    const nlohmann::json file = nlohmann::json::parse(in);
    for (const auto& phase : file["phases"]) {
      for (const auto& task : phase["tasks"]) {
        if (task["entity"]["migratable"].get<bool>()) continue;
        ++pinned_seen;
        EXPECT_EQ(task["node"].get<int>(), r);
        EXPECT_EQ(start.at(task["entity"]["id"].get<std::int64_t>()), r);
      }
    }
  }
  EXPECT_EQ(pinned_seen, 224 * 10);
}

}  // namespace
}  // namespace lbbench
