// Decision time of the centralized strategies' serial solve() (the vector family's scored
// by the vector objective Σ_k max_r), and of the distributed strategies' serial references (every rank's protocol in
// one process, so the time is the work of all ranks together), with the quality of the result as counters: the
// makespan, and the makespan over its lower bound (the larger of the average rank load
// and the largest object). Also the parts of `auto`'s forecast of `none` along moving loads
// (BM_NoneMotion), which a decision pays for on rank 0.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <type_traits>
#include <utility>

#include "balancers/diffusive/diffusion.hpp"
#include "balancers/diffusive/params.hpp"
#include "balancers/global/greedy.hpp"
#include "balancers/global/metis.hpp"
#include "balancers/global/params.hpp"
#include "balancers/global/refine.hpp"
#include "balancers/gossip/gossip.hpp"
#include "balancers/gossip/params.hpp"
#include "balancers/model/auto/loop.hpp"
#include "balancers/prefix/params.hpp"
#include "balancers/prefix/prefix.hpp"
#include "balancers/tree/params.hpp"
#include "balancers/tree/tree.hpp"
#include "balancers/vector/metis_vector.hpp"
#include "balancers/vector/multi_greedy.hpp"
#include "balancers/vector/norm.hpp"
#include "balancers/vector/norm_exhaustive.hpp"
#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_greedy.hpp"
#include "balancers/vector/vector_refine.hpp"
#include "core/hash.hpp"

namespace lbbench {
namespace {

GlobalProblem random_problem(int ranks, std::int64_t objects) {
  GlobalProblem p;
  p.nranks = ranks;
  p.id.reserve(static_cast<std::size_t>(objects));
  for (std::int64_t i = 0; i < objects; ++i) {
    p.id.push_back(VertexId{i});
    // Log-normal loads (sigma 1): a few heavy objects among many light ones.
    p.load.push_back(Load(std::exp(standard_normal(hash_of({42, static_cast<std::uint64_t>(i)})))));
    p.owner.push_back(Rank{static_cast<int>(i % ranks)});
  }
  return p;
}

void report_quality(benchmark::State& state, const GlobalProblem& p, const Assignment& a) {
  const auto times = rank_times(p, a);
  const double makespan = *std::max_element(times.begin(), times.end());
  double total = 0, biggest = 0;
  for (auto l : p.load) {
    total += l.seconds();
    biggest = std::max(biggest, l.seconds());
  }
  state.counters["objective"] = makespan;
  state.counters["objective/bound"] = makespan / std::max(total / p.nranks, biggest);
}

void BM_Greedy(benchmark::State& state) {
  const GlobalProblem p = random_problem(static_cast<int>(state.range(0)), state.range(1));
  const GreedyBalancer greedy;
  Assignment a;
  for (auto _ : state) {
    a = greedy.solve(p);
    benchmark::DoNotOptimize(a.data());
  }
  report_quality(state, p, a);
  state.SetItemsProcessed(state.iterations() * state.range(1));
}

BENCHMARK(BM_Greedy)
    ->ArgNames({"ranks", "objects"})
    ->Args({1000, 100000})
    ->Args({10000, 1000000})
    ->Unit(benchmark::kMillisecond);

// A side x side grid graph (the graph partitioners need edges), objects in row blocks.
GlobalProblem grid_problem(int ranks, int side) {
  GlobalProblem p = random_problem(ranks, static_cast<std::int64_t>(side) * side);
  p.xadj.push_back(0);
  for (int v = 0; v < side * side; ++v) {
    p.owner[static_cast<std::size_t>(v)] =
        Rank{static_cast<int>(static_cast<std::int64_t>(v) * ranks / (static_cast<std::int64_t>(side) * side))};
    const int x = v % side, y = v / side;
    if (y > 0) p.adjncy.push_back(v - side);
    if (x > 0) p.adjncy.push_back(v - 1);
    if (x + 1 < side) p.adjncy.push_back(v + 1);
    if (y + 1 < side) p.adjncy.push_back(v + side);
    p.xadj.push_back(static_cast<std::int64_t>(p.adjncy.size()));
  }
  p.adj_bytes.assign(p.adjncy.size(), 256);
  return p;
}

template <class B>
void BM_Grid(benchmark::State& state, B balancer) {
  const GlobalProblem p = grid_problem(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  Assignment a;
  for (auto _ : state) {
    a = balancer.solve(p);
    benchmark::DoNotOptimize(a.data());
  }
  report_quality(state, p, a);
}

BENCHMARK_CAPTURE(BM_Grid, metis, MetisBalancer(MetisParams{}))
    ->ArgNames({"ranks", "side"})
    ->Args({256, 192})
    ->Args({1024, 512})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Grid, refine, RefineBalancer(RefineParams{}))
    ->ArgNames({"ranks", "side"})
    ->Args({256, 192})
    ->Args({1024, 512})
    ->Unit(benchmark::kMillisecond);

// A distributed strategy's serial reference: its time divided by the rank count is the
// work one rank does, messages aside; the protocol's traffic comes as counters.
template <class B>
void BM_Distributed(benchmark::State& state, B balancer) {
  const GlobalProblem p = grid_problem(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  Assignment a;
  ProtocolStats stats;
  for (auto _ : state) {
    a = balancer.reference(p, {.seed = 1}, &stats);
    benchmark::DoNotOptimize(a.data());
  }
  report_quality(state, p, a);
  std::int64_t moved = 0;
  for (std::size_t i = 0; i < p.size(); ++i) moved += a[i] != p.owner[i];
  state.counters["migrations"] = static_cast<double>(moved);
  state.counters["rounds"] = stats.rounds;
  state.counters["messages"] = static_cast<double>(stats.messages);
  state.counters["largest_list"] = static_cast<double>(stats.largest_list);
}

BENCHMARK_CAPTURE(BM_Distributed, diffusion, DiffusionBalancer(DiffusionParams{}))
    ->ArgNames({"ranks", "side"})
    ->Args({256, 192})
    ->Args({1024, 512})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Distributed, tree, TreeBalancer(TreeParams{}))
    ->ArgNames({"ranks", "side"})
    ->Args({256, 192})
    ->Args({1024, 512})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Distributed, gossip, GossipBalancer(GossipParams{}))
    ->ArgNames({"ranks", "side"})
    ->Args({256, 192})
    ->Args({1024, 512})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Distributed, prefix, PrefixBalancer(PrefixParams{}))
    ->ArgNames({"ranks", "side"})
    ->Args({256, 192})
    ->Args({1024, 512})
    ->Unit(benchmark::kMillisecond);

// --- auto's choice at an LB point ---------------------------------------------------------

// The closed loop's decision from the reduced totals, against greedy's solve of a problem of
// the same ranks (64 objects each) in the same run (x_greedy): what auto adds to a call
// before its candidate runs, as a ratio to a baseline measured alongside on a shared host.
void BM_AutoLoopDecide(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  const std::vector<LoopCandidate> candidates{{"none", CandidateShape{}},
                                              {"greedy", CandidateShape{.centralized = true}},
                                              {"metis", CandidateShape{.centralized = true}},
                                              {"diffusion", CandidateShape{}},
                                              {"tree", CandidateShape{}}};
  NetworkFacts net;
  net.allreduce_s = 2e-5;
  net.far_message_s = 5e-6;
  net.call_collectives = 12;
  ClosedLoop loop(candidates, 0.02);
  int point = 0;
  auto seconds_since = [](auto start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double decide_s = 0;
  for (auto _ : state) {
    const PointObservation seen{.nranks = ranks,
                                .objects = 64LL * ranks,
                                .max_load_s = 0.02 + 0.001 * (point % 7),
                                .mean_load_s = 0.02,
                                .steps_to_next = 10,
                                .steps_left = 1 << 20,
                                .last_call_cost_s = 1e-3};
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(loop.decide(seen, net));
    decide_s += seconds_since(start);
    ++point;
  }
  const GlobalProblem p = random_problem(ranks, 64LL * ranks);
  const auto start = std::chrono::steady_clock::now();
  const Assignment greedy = GreedyBalancer().solve(p);
  benchmark::DoNotOptimize(greedy.data());
  const double greedy_s = seconds_since(start);
  state.counters["decide_us"] = 1e6 * decide_s / static_cast<double>(state.iterations());
  state.counters["x_greedy"] = decide_s / static_cast<double>(state.iterations()) / greedy_s;
}

BENCHMARK(BM_AutoLoopDecide)->ArgNames({"ranks"})->Arg(64)->Arg(8192)->Unit(benchmark::kMicrosecond);

// --- the vector family (Buch) ---------------------------------------------------------------

// Objects with d independent log-normal components (sigma 1), owned round-robin; the
// scalar load is the sum, what scalar greedy balances.
GlobalProblem vector_problem(int ranks, std::int64_t objects, int dims) {
  GlobalProblem p;
  p.nranks = ranks;
  p.dims = dims;
  p.id.reserve(static_cast<std::size_t>(objects));
  for (std::int64_t i = 0; i < objects; ++i) {
    p.id.push_back(VertexId{i});
    p.owner.push_back(Rank{static_cast<int>(i % ranks)});
    double sum = 0;
    for (int k = 0; k < dims; ++k) {
      const double x =
          std::exp(standard_normal(hash_of({43, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(k)})));
      p.load_vec.emplace_back(x);
      sum += x;
    }
    p.load.emplace_back(sum);
  }
  return p;
}

// Any strategy's solve(), scored by the vector objective Σ_k max_r and its lower bound, and
// timed against scalar greedy on the same problem in the same run (x_greedy), since speed
// is a ratio to a baseline measured alongside on a shared host.
template <class B>
void BM_Vector(benchmark::State& state, B balancer) {
  const GlobalProblem p =
      vector_problem(static_cast<int>(state.range(0)), state.range(1), static_cast<int>(state.range(2)));
  Assignment a;
  double solving = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    a = balancer.solve(p);
    benchmark::DoNotOptimize(a.data());
    solving += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double objective = vector_objective(p, a);
  state.counters["objective"] = objective;
  state.counters["objective/bound"] = objective / vector_lower_bound(p);
  const auto start = std::chrono::steady_clock::now();
  const Assignment greedy = GreedyBalancer().solve(p);
  benchmark::DoNotOptimize(greedy.data());
  const double greedy_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["x_greedy"] = solving / static_cast<double>(state.iterations()) / greedy_s;
  if constexpr (std::is_same_v<B, NormBalancer>) {
    // How many ranks the exact search costed per object, against the scan's all of them.
    std::int64_t costed = 0;
    benchmark::DoNotOptimize(balancer.solve_counting(p, &costed).data());
    state.counters["costed/object"] = static_cast<double>(costed) / static_cast<double>(p.id.size());
  }
}

void vector_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"ranks", "objects", "d"})->Unit(benchmark::kMillisecond);
  for (const int d : {2, 4}) {
    b->Args({64, 6400, d});
    b->Args({1000, 100000, d});
    b->Args({10000, 1000000, d});
  }
}

BENCHMARK_CAPTURE(BM_Vector, greedy, GreedyBalancer())->Apply(vector_sizes);
BENCHMARK_CAPTURE(BM_Vector, vector_greedy, VectorGreedyBalancer())->Apply(vector_sizes);
BENCHMARK_CAPTURE(BM_Vector, multi_greedy, MultiGreedyBalancer())->Apply(vector_sizes);
BENCHMARK_CAPTURE(BM_Vector, norm, NormBalancer(NormParams{}))->Apply(vector_sizes);
// Θ(ranks × objects): tens of seconds at the large size, so one iteration.
BENCHMARK_CAPTURE(BM_Vector, norm_exhaustive, NormExhaustiveBalancer(NormParams{}))->Apply(vector_sizes)->Iterations(1);
BENCHMARK_CAPTURE(BM_Vector, metis_vector, MetisVectorBalancer(MetisVectorParams{}))->Apply(vector_sizes);
BENCHMARK_CAPTURE(BM_Vector, vector_refine, VectorRefineBalancer(VectorRefineParams{}))->Apply(vector_sizes);

}  // namespace
}  // namespace lbbench

BENCHMARK_MAIN();
