// Orthogonal recursive bisection on the objects' coordinates, as Charm++'s OrbLB does it:
// the objects' box is cut across its longest side so that each half holds the load of its
// half of the ranks, and each half again, until every part is one rank's. Written as a
// user writes a strategy outside the tree (balancers/template), against the SDK alone.
// Departure from OrbLB: a part's load is shared by its ranks' speeds, not only their
// number, so that it also balances machines whose ranks differ in speed.
#include <algorithm>
#include <lbbench/balancers/sdk/plugin.hpp>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace {

using lbbench::Assignment;
using lbbench::GlobalProblem;

class Orb final : public lbbench::plugin::Centralized {
 public:
  explicit Orb(const lbbench::plugin::Params& /*params*/) {}

  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override {
    if (problem.coord_dims == 0) {
      throw std::invalid_argument("orb cuts space: the mesh has no coordinates (give mesh.coords, or a generator)");
    }
    Assignment owner(problem.size());
    std::vector<std::size_t> objects(problem.size());
    std::iota(objects.begin(), objects.end(), 0);
    bisect(problem, objects.begin(), objects.end(), 0, problem.nranks, owner);
    return owner;
  }

  [[nodiscard]] lbbench::plugin::Needs needs() const override { return {.coords = true}; }

 private:
  using Iter = std::vector<std::size_t>::iterator;

  // Ranks [first, last) get the objects [begin, end).
  static void bisect(const GlobalProblem& p, Iter begin, Iter end, int first, int last, Assignment& owner) {
    if (last - first == 1 || begin == end) {
      for (Iter it = begin; it != end; ++it) owner[*it] = lbbench::Rank{first};
      return;
    }
    const int middle = first + (last - first) / 2;
    const double left_share = speed(p, first, middle) / speed(p, first, last);
    const int axis = longest_axis(p, begin, end);
    std::sort(begin, end, [&](std::size_t a, std::size_t b) { return coord(p, a, axis) < coord(p, b, axis); });
    double total = 0;
    for (Iter it = begin; it != end; ++it) total += p.load[*it].seconds();
    // The cut after the object that brings the left part nearest its share of the load.
    double left = 0;
    Iter cut = begin;
    while (cut != end && left + p.load[*cut].seconds() / 2 <= left_share * total) left += p.load[*cut++].seconds();
    bisect(p, begin, cut, first, middle, owner);
    bisect(p, cut, end, middle, last, owner);
  }

  static double coord(const GlobalProblem& p, std::size_t object, int axis) {
    return p.coords[object * static_cast<std::size_t>(p.coord_dims) + static_cast<std::size_t>(axis)];
  }

  static int longest_axis(const GlobalProblem& p, Iter begin, Iter end) {
    int best = 0;
    double longest = -1;
    for (int a = 0; a < p.coord_dims; ++a) {
      const auto [lo, hi] = std::minmax_element(
          begin, end, [&](std::size_t x, std::size_t y) { return coord(p, x, a) < coord(p, y, a); });
      const double extent = coord(p, *hi, a) - coord(p, *lo, a);
      if (extent > longest) {
        longest = extent;
        best = a;
      }
    }
    return best;
  }

  static double speed(const GlobalProblem& p, int first, int last) {
    double sum = 0;
    for (int r = first; r < last; ++r) sum += p.speed(r);
    return sum;
  }
};

}  // namespace

LBBENCH_BALANCER(Orb, "orb", lbbench::Family::global,
                 "Charm++'s OrbLB: recursive bisection of the coordinates, each half the load of its half of the ranks",
                 {})
