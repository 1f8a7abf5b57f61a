// Decision time of a centralized strategy written in Python (balancer `python`, with
// balancers/examples/hilbert_sfc.py) against the same algorithm in C++, on the same
// problems in the same run: the Hilbert curve through random 3-D points, cut into pieces of
// equal load. BM_HilbertPython's x_cpp counter is its time over BM_HilbertCpp's.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "balancers/global/python.hpp"
#include "core/hash.hpp"

namespace lbbench {
namespace {

constexpr int kRanks = 1024;
constexpr int kBits = 16;

GlobalProblem points_problem(std::int64_t objects) {
  GlobalProblem p;
  p.nranks = kRanks;
  p.coord_dims = 3;
  for (std::int64_t i = 0; i < objects; ++i) {
    const auto u = static_cast<std::uint64_t>(i);
    p.id.push_back(VertexId{i});
    p.load.push_back(Load(std::exp(standard_normal(hash_of({7, u})))));
    p.owner.push_back(Rank{static_cast<int>(i % kRanks)});
    for (std::uint64_t a = 0; a < 3; ++a) p.coords.push_back(uniform01({11, u, a}));
  }
  return p;
}

// Skilling's transpose algorithm, step for step as hilbert_sfc.py runs it on arrays.
std::uint64_t hilbert_index(std::array<std::uint64_t, 3> x) {
  const std::uint64_t top = std::uint64_t{1} << (kBits - 1);
  for (std::uint64_t q = top; q > 1; q >>= 1) {
    const std::uint64_t p = q - 1;
    for (std::size_t i = 0; i < 3; ++i) {
      if ((x[i] & q) != 0) {
        x[0] ^= p;
      } else {
        const std::uint64_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (std::size_t i = 1; i < 3; ++i) x[i] ^= x[i - 1];
  std::uint64_t t = 0;
  for (std::uint64_t q = top; q > 1; q >>= 1) {
    if ((x[2] & q) != 0) t ^= q - 1;
  }
  for (auto& c : x) c ^= t;
  std::uint64_t index = 0;
  for (int b = kBits - 1; b >= 0; --b) {
    for (const std::uint64_t c : x) index = (index << 1) | ((c >> b) & 1);
  }
  return index;
}

Assignment hilbert_cpp(const GlobalProblem& p) {
  const std::size_t n = p.size();
  std::array<double, 3> lo{HUGE_VAL, HUGE_VAL, HUGE_VAL};
  std::array<double, 3> hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], p.coords[i * 3 + a]);
      hi[a] = std::max(hi[a], p.coords[i * 3 + a]);
    }
  }
  const double top = static_cast<double>((std::uint64_t{1} << kBits) - 1);
  std::vector<std::uint64_t> index(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::array<std::uint64_t, 3> x{};
    for (std::size_t a = 0; a < 3; ++a) {
      const double span = hi[a] > lo[a] ? hi[a] - lo[a] : 1.0;
      x[a] = static_cast<std::uint64_t>(std::nearbyint((p.coords[i * 3 + a] - lo[a]) / span * top));
    }
    index[i] = hilbert_index(x);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return index[a] < index[b]; });
  double total = 0;
  for (const Load l : p.load) total += l.seconds();
  std::vector<double> ends(static_cast<std::size_t>(p.nranks));
  double speeds = 0;
  for (int r = 0; r < p.nranks; ++r) speeds += p.speed(r);
  double sum = 0;
  for (int r = 0; r < p.nranks; ++r) ends[static_cast<std::size_t>(r)] = (sum += p.speed(r)) / speeds * total;
  Assignment owner(n);
  double along = 0;
  for (const std::size_t i : order) {
    const double w = p.load[i].seconds();
    const double middle = along + w / 2;
    along += w;
    const auto piece = std::upper_bound(ends.begin(), ends.end(), middle) - ends.begin();
    owner[i] = Rank{static_cast<int>(std::min<std::ptrdiff_t>(piece, p.nranks - 1))};
  }
  return owner;
}

const GlobalProblem& problem_of(std::int64_t objects) {
  static std::map<std::int64_t, GlobalProblem> made;
  auto it = made.find(objects);
  if (it == made.end()) it = made.emplace(objects, points_problem(objects)).first;
  return it->second;
}

// Each size's C++ time, for the Python benchmark's ratio.
std::map<std::int64_t, double>& cpp_seconds() {
  static std::map<std::int64_t, double> seconds;
  return seconds;
}

template <class Solve>
double seconds_per_solve(benchmark::State& state, const GlobalProblem& p, Solve&& solve) {
  double total = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(solve(p));
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return total / static_cast<double>(state.iterations());
}

void BM_HilbertCpp(benchmark::State& state) {
  const GlobalProblem& p = problem_of(state.range(0));
  cpp_seconds()[state.range(0)] = seconds_per_solve(state, p, hilbert_cpp);
}

void BM_HilbertPython(benchmark::State& state) {
  const GlobalProblem& p = problem_of(state.range(0));
  PythonParams params;
  params.module = params.module_resolved = LBBENCH_SOURCE_DIR "/balancers/examples/hilbert_sfc.py";
  params.args = Json{{"bits", kBits}};
  const PythonBalancer python(params);
  if (python.solve(p) != hilbert_cpp(p)) {
    state.SkipWithError("the Python and the C++ partitions differ");
    return;
  }
  const double seconds = seconds_per_solve(state, p, [&](const GlobalProblem& q) { return python.solve(q); });
  if (const auto it = cpp_seconds().find(state.range(0)); it != cpp_seconds().end()) {
    state.counters["x_cpp"] = seconds / it->second;
  }
}

BENCHMARK(BM_HilbertCpp)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HilbertPython)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lbbench
