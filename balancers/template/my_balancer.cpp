// A strategy outside lbbench's tree: copy this folder, rename the class and its
// LBBENCH_BALANCER line, build it (cmake -S . -B build && cmake --build build), and run it:
//   lbbench run scenario.yaml --plugin build/my_balancer.so --set balancer.name=my-balancer
// This one is centralized: rank 0 solves on every object's load. It moves the heaviest
// objects off every rank above the tolerance onto the least loaded rank, and leaves the rest
// where they are. Protocol and General are the other two shapes (balancers/sdk/plugin.hpp).
#include <algorithm>
#include <lbbench/balancers/sdk/plugin.hpp>
#include <numeric>
#include <queue>
#include <vector>

namespace {

class MyBalancer final : public lbbench::plugin::Centralized {
 public:
  explicit MyBalancer(const lbbench::plugin::Params& params) : tolerance_(params.number("tolerance")) {}

  [[nodiscard]] lbbench::Assignment solve(const lbbench::GlobalProblem& problem) const override {
    lbbench::Assignment owner = problem.owner;
    std::vector<double> load(static_cast<std::size_t>(problem.nranks), 0.0);
    for (int r = 0; r < problem.nranks; ++r) load[static_cast<std::size_t>(r)] = problem.background(r);
    for (std::size_t i = 0; i < problem.size(); ++i) load[owner[i].value()] += problem.load[i].seconds();
    const double limit = (1.0 + tolerance_) * std::accumulate(load.begin(), load.end(), 0.0) / problem.nranks;
    // The ranks by load, least loaded on top.
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> lightest;
    for (int r = 0; r < problem.nranks; ++r) lightest.emplace(load[static_cast<std::size_t>(r)], r);
    // Heaviest objects first, each moved only while its rank is above the limit and the
    // lightest rank stays below it with the object.
    std::vector<std::size_t> order(problem.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return problem.load[a] > problem.load[b]; });
    for (const std::size_t i : order) {
      const auto from = static_cast<std::size_t>(owner[i].value());
      const double w = problem.load[i].seconds();
      if (load[from] <= limit) continue;
      auto [to_load, to] = lightest.top();
      while (to_load != load[static_cast<std::size_t>(to)]) {  // an entry made stale by a later move
        lightest.pop();
        std::tie(to_load, to) = lightest.top();
      }
      if (to_load + w > limit) continue;
      lightest.pop();
      owner[i] = lbbench::Rank{to};
      load[from] -= w;
      load[static_cast<std::size_t>(to)] += w;
      lightest.emplace(load[static_cast<std::size_t>(to)], to);
      lightest.emplace(load[from], static_cast<int>(from));
    }
    return owner;
  }

 private:
  double tolerance_;
};

}  // namespace

LBBENCH_BALANCER(MyBalancer, "my-balancer", lbbench::Family::global,
                 "template: the heaviest objects off ranks above the tolerance, onto the least loaded rank",
                 {lbbench::plugin::number_param("tolerance", 0.05, "how far above the average a rank may stay")})
