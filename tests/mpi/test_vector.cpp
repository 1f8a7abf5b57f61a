// The vector family through its collective plan(), and vector workloads end to end, at 1,
// 2 and 4 ranks.
#include <gtest/gtest.h>

#include <algorithm>

#include "balancers/sdk/registry.hpp"
#include "balancers/vector/params.hpp"
#include "comm/mpi.hpp"
#include "meshes/build.hpp"
#include "mpi_test_util.hpp"
#include "replay/replay.hpp"

namespace lbbench {
namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

// Each rank's summed load vector after a plan, on every rank (ranks x dims).
std::vector<double> loads_after(const LocalGraph& g, std::span<const Load> vectors, int dims,
                                const MigrationPlan& plan) {
  const int me = comm_rank(kWorld);
  std::vector<int> owner(static_cast<std::size_t>(g.num_local()), me);
  for (const auto& m : plan.moves) owner[static_cast<std::size_t>(m.vertex)] = m.to.value();
  std::vector<double> mine(static_cast<std::size_t>(comm_size(kWorld) * dims), 0.0), all(mine.size());
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (int k = 0; k < dims; ++k) {
      mine[static_cast<std::size_t>(owner[static_cast<std::size_t>(v)] * dims + k)] +=
          vectors[static_cast<std::size_t>(v * dims + k)].seconds();
    }
  }
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, kWorld);
  return all;
}

TEST(MetisVector, KeepsBothConstraintsOfTheMetisMultiConstraintGraphWithinUbvec) {
  const std::string dir = test::shared_meshes_dir();
  if (dir.empty()) GTEST_SKIP() << "the METIS meshes folder is absent";
  MeshFileSpec spec;
  spec.path = spec.resolved = dir + "/test.mgraph";
  spec.format = MeshFormat::metis;
  const LocalGraph g = read_mesh_file(spec, kWorld).graph;
  ASSERT_EQ(g.ncon, 2);
  // The file's two vertex weights are the load vector; the scalar load is their sum.
  std::vector<Load> vectors, sums;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    const auto w = g.vweights_of(v);
    vectors.emplace_back(w[0]);
    vectors.emplace_back(w[1]);
    sums.emplace_back(w[0] + w[1]);
  }
  for (const std::string graph : {"none", "full"}) {
    const MachineInfo machine = MachineInfo::uniform(comm_size(kWorld));
    LoadView view = test::load_view(g, sums, machine, 1, 0, kWorld);
    view.dims = 2;
    view.vertex_load_vec = vectors;
    const auto balancer = test::balancer_from_yaml("metis-vector", "{graph: " + graph + ", ubvec: [1.05, 1.10]}");
    const MigrationPlan plan = balancer->plan(view, kWorld);
    const std::vector<double> after = loads_after(g, vectors, 2, plan);
    const int p = comm_size(kWorld);
    for (int k = 0; k < 2; ++k) {
      double total = 0, worst = 0;
      for (int r = 0; r < p; ++r) {
        total += after[static_cast<std::size_t>(r * 2 + k)];
        worst = std::max(worst, after[static_cast<std::size_t>(r * 2 + k)]);
      }
      EXPECT_LE(worst / (total / p), k == 0 ? 1.05 : 1.10) << "component " << k << " graph " << graph;
    }
  }
}

// A rank with no vertex takes part in gathering load vectors like the others: a root with
// none once took the scalar path and made the gather truncate (SimGrid aborted on it).
TEST(VectorGather, ARootWithoutVerticesGathersTheOthersVectors) {
  const int me = comm_rank(kWorld);
  LocalGraph g;
  const int local = me == 0 ? 0 : 3;
  std::vector<Load> vectors, sums;
  for (int i = 0; i < local; ++i) {
    g.add_vertex(VertexId{(me - 1) * 3 + i}, {}, {}, {}, {}, {});
    vectors.insert(vectors.end(), {Load(1.0), Load(2.0)});
    sums.emplace_back(3.0);
  }
  finish_graph(g, kWorld);
  const MachineInfo machine = MachineInfo::uniform(comm_size(kWorld));
  LoadView view = test::load_view(g, sums, machine, 1, 0, kWorld);
  view.dims = 2;
  view.vertex_load_vec = vectors;
  const MigrationPlan plan = test::balancer_from_yaml("norm", "{}")->plan(view, kWorld);
  const std::vector<double> after = loads_after(g, vectors, 2, plan);
  double total = 0;
  for (const double x : after) total += x;
  EXPECT_DOUBLE_EQ(total, 9.0 * (comm_size(kWorld) - 1));
  if (comm_size(kWorld) > 1) {
    EXPECT_GT(after[0] + after[1], 0.0);  // the empty rank is given vertices
  }
}

// Two anti-correlated phases on strips: every vertex's sum is the same, each phase is
// badly balanced.
const char* kVector = R"(
name: vector-test
seed: 4
steps: 6
mesh: {generator: grid2d, nx: 24, ny: 16}
workload:
  unit_seconds: 1.0e-7
  components:
    - {name: particles, weights: {model: gradient, axis: 0, from: 0.2, to: 3}}
    - {name: field, weights: {model: gradient, axis: 0, from: 3, to: 0.2}}
  edge_bytes: 32
  element_bytes: 100
distribution: {kind: strips, axis: 0}
balancer: {name: norm, period: 3}
model: weights-no-comm
)";

Scenario vector_scenario(const std::string& balancer) {
  Scenario s = parse_scenario(YAML::Load(kVector), "vector.yaml");
  s.balancer.config = default_balancer_config(find_balancer(balancer, ConfigNode(YAML::Node(), "test")).kind);
  return s;
}

class VectorRun : public ::testing::TestWithParam<std::string> {};

TEST_P(VectorRun, RunsEndToEndAndRecordsTheLoadVector) {
  const Scenario s = vector_scenario(GetParam());
  RunOptions options;
  options.verify = true;  // owner tables checked after every migration
  const RunOutcome out = run_scenario(s, options, test::native_engine(), kWorld);
  if (!out.reporter) return;
  const Json r = to_json(out.record);
  ASSERT_TRUE(r.contains("load_vector"));
  EXPECT_EQ(r["load_vector"]["components"], Json({"particles", "field"}));
  EXPECT_EQ(r["load_vector"]["objective_per_step_s"].size(), 6u);
  ASSERT_EQ(r["lb"].size(), 1u);
  const Json& v = r["lb"][0]["vector"];
  EXPECT_EQ(v["max_over_avg_before"].size(), 2u);
  const int p = comm_size(kWorld);
  if (p == 1) {
    EXPECT_EQ(r["migrations"], 0);
    return;
  }
  // The model's view: strips put each phase on a few ranks; after the plan both phases are
  // spread, so the sum of the phase maxima falls by a good margin.
  const double before = v["model_objective_before_s"].get<double>();
  const double after = v["model_objective_predicted_after_s"].get<double>();
  EXPECT_LT(after, 0.9 * before) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(VectorFamily, VectorRun,
                         ::testing::Values("vector-greedy", "multi-greedy", "norm", "norm-exhaustive", "metis-vector",
                                           "vector-refine"),
                         [](const auto& info) { return test::param_name(info.param); });

TEST(VectorRun, ScalarBalancersRunOnVectorWorkloadsToo) {
  const Scenario s = vector_scenario("greedy");
  const RunOutcome out = run_scenario(s, RunOptions{}, test::native_engine(), kWorld);
  if (out.reporter) {
    EXPECT_TRUE(out.record.load_vector.has_value());
  }
}

TEST(VectorRun, AnUbvecOfTheWrongLengthFailsOnEveryRankBeforeTheRun) {
  Scenario s = vector_scenario("metis-vector");
  MetisVectorParams loose = s.balancer.config.params.get<MetisVectorParams>();
  loose.ubvec = {1.1, 1.1, 1.1};
  s.balancer.config.params = loose;
  test::expect_error_containing([&] { (void)run_scenario(s, RunOptions{}, test::native_engine(), kWorld); },
                                {"ubvec has 3 entries", "2 components"});
}

}  // namespace
}  // namespace lbbench
