// Decision time of the centralized strategies' serial solve(), with the quality of the
// result as counters: the makespan, and the makespan over its lower bound (the larger of
// the average rank load and the largest object).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>

#include "balancers/global/greedy.hpp"
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

BENCHMARK(BM_Greedy)->ArgNames({"ranks", "objects"})->Args({1000, 100000})->Args({10000, 1000000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lbbench

BENCHMARK_MAIN();
