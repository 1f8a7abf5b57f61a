// The vector family's serial solve(): norm against its exhaustive reference, the
// objective against its lower bound, and what each strategy is for.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

#include "balancers/global/greedy.hpp"
#include "balancers/vector/metis_vector.hpp"
#include "balancers/vector/multi_greedy.hpp"
#include "balancers/vector/norm.hpp"
#include "balancers/vector/norm_exhaustive.hpp"
#include "balancers/vector/norm_search.hpp"
#include "balancers/vector/params.hpp"
#include "balancers/vector/vector_greedy.hpp"
#include "balancers/vector/vector_refine.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "problem_fixtures.hpp"

namespace lbbench {
namespace {

// Objects 0..n-1 owned round-robin, with load vectors from vec(i, k); load is the sum.
GlobalProblem vector_problem(int ranks, int n, int dims, const std::function<double(int, int)>& vec) {
  GlobalProblem p;
  p.nranks = ranks;
  p.dims = dims;
  for (int i = 0; i < n; ++i) {
    p.id.push_back(VertexId{i});
    p.owner.push_back(Rank{i % ranks});
    double sum = 0;
    for (int k = 0; k < dims; ++k) {
      p.load_vec.emplace_back(vec(i, k));
      sum += vec(i, k);
    }
    p.load.emplace_back(sum);
  }
  return p;
}

double unit_random(std::uint64_t seed, int i, int k) {
  return static_cast<double>(hash_of({seed, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(k)}) >> 11) *
         0x1.0p-53;
}

// Mixed shapes on purpose: small integers (many exact ties), zero and one-hot vectors,
// and log-normal reals.
GlobalProblem random_vector_problem(std::uint64_t seed, int ranks, int n, int dims) {
  return vector_problem(ranks, n, dims, [=](int i, int k) {
    switch (i % 4) {
      case 0: return std::floor(4 * unit_random(seed, i, k));
      case 1: return k == i % dims ? 1.0 + 9 * unit_random(seed, i, 0) : 0.0;
      case 2:
        return i % 7 == 2 ? 0.0
                          : std::exp(standard_normal(
                                hash_of({seed, static_cast<std::uint64_t>(i), 7u + static_cast<std::uint64_t>(k)})));
      default: return 0.5 + unit_random(seed, i, k);
    }
  });
}

void expect_valid(const GlobalProblem& p, const Assignment& a) {
  ASSERT_EQ(a.size(), p.size());
  for (Rank r : a) {
    ASSERT_GE(r.value(), 0);
    ASSERT_LT(r.value(), p.nranks);
  }
}

TEST(NormSearch, TreeAnswersExactlyAsTheScanUnderAddsAndRemovals) {
  // 37 ranks are one leaf, scanned in one batch; 300 make a tree of leaves; from 4,096
  // ranks on, p = 2 also bounds by the expanded square, and from 8,192 leaves are wider.
  for (const int ranks : {37, 300, 4100, 8200}) {
    for (const double p : {1.0, 2.0, 3.0, 2.5, std::numeric_limits<double>::infinity(), -2.0}) {
      for (const int dims : {1, 2, 4}) {
        std::vector<double> loads(static_cast<std::size_t>(ranks * dims)), inv(static_cast<std::size_t>(ranks));
        for (std::size_t i = 0; i < loads.size(); ++i)
          loads[i] = std::floor(5 * unit_random(3, static_cast<int>(i), 0));
        for (int r = 0; r < ranks; ++r) inv[static_cast<std::size_t>(r)] = r % 5 == 0 ? 0.5 : 1.0;
        std::vector<double> scale(static_cast<std::size_t>(dims));
        for (int k = 0; k < dims; ++k) scale[static_cast<std::size_t>(k)] = 1.0 + k;
        // p = -2 stands for vector-refine's cost, the squared 2-norm's increase.
        const NormCost cost = p < 0 ? NormCost::squared_increase(scale) : NormCost(p, scale);
        NormSearchTree tree(dims, cost, loads, inv);
        std::vector<double> x(static_cast<std::size_t>(dims));
        for (int q = 0; q < 400; ++q) {
          for (int k = 0; k < dims; ++k) x[static_cast<std::size_t>(k)] = std::floor(3 * unit_random(4, q, k));
          const int expected = best_rank_exhaustive(cost, loads, inv, x);
          ASSERT_EQ(tree.best_rank(x), expected)
              << "ranks=" << ranks << " p=" << p << " dims=" << dims << " query " << q;
          // Every third update takes half of x away again where the loads hold it, as
          // vector-refine takes away what a rank has.
          int r = expected;
          double sign = 1.0;
          if (q % 3 == 2) {
            r = (q * 7) % ranks;
            sign = -0.5;
            for (int k = 0; k < dims; ++k) {
              if (loads[static_cast<std::size_t>(r * dims + k)] < 0.5 * x[static_cast<std::size_t>(k)]) sign = 1.0;
            }
          }
          tree.add(r, x, sign);
          for (int k = 0; k < dims; ++k)
            loads[static_cast<std::size_t>(r * dims + k)] += sign * x[static_cast<std::size_t>(k)];
        }
      }
    }
  }
}

TEST(Norm, EqualsTheExhaustiveSearchOnRandomInstances) {
  int instance = 0;
  for (const double p : {1.0, 2.0, 3.0, 1.5}) {
    for (const int dims : {1, 2, 3, 4}) {
      for (const int ranks : {1, 3, 16, 100, 300}) {  // up to 128 ranks the search is one scan
        GlobalProblem prob = random_vector_problem(100 + instance, ranks, 40 + 7 * ranks + instance % 13, dims);
        if (instance % 3 == 0) {
          for (int r = 0; r < ranks; ++r) prob.rank_speed.push_back(r % 4 == 1 ? 2.0 : 1.0);
        }
        const Assignment fast = NormBalancer({p}).solve(prob);
        const Assignment reference = NormExhaustiveBalancer({p}).solve(prob);
        ASSERT_EQ(fast, reference) << "p=" << p << " dims=" << dims << " ranks=" << ranks;
        ++instance;
      }
    }
  }
}

TEST(Norm, PrunesMostRanksAtScaleWithTheSameResult) {
  // Log-normal components, 100 objects per rank. (Mixed shapes with many exact ties, as
  // above, leave far more ranks tied for the best, and each tie must be looked at.)
  const GlobalProblem p = vector_problem(1000, 100000, 2, [](int i, int k) {
    return std::exp(standard_normal(hash_of({11, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(k)})));
  });
  std::int64_t evaluations = 0;
  EXPECT_EQ(NormBalancer({2.0}).solve_counting(p, &evaluations), NormExhaustiveBalancer({2.0}).solve(p));
  // The scan evaluates 1000 ranks per object.
  EXPECT_LT(evaluations, 100000LL * 1000 / 10);
}

TEST(VectorStrategies, RespectTheLowerBoundAndGiveValidMappings) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const int dims = 1 + static_cast<int>(seed % 4);
    GlobalProblem p = random_vector_problem(seed, 2 + static_cast<int>(seed * 3 % 13), 300, dims);
    if (seed % 2) {
      p.rank_speed.assign(static_cast<std::size_t>(p.nranks), 1.0);
      p.rank_speed[0] = 3.0;
    }
    const double bound = vector_lower_bound(p);
    const std::vector<std::pair<std::string, Assignment>> results{{"vector-greedy", VectorGreedyBalancer().solve(p)},
                                                                  {"multi-greedy", MultiGreedyBalancer().solve(p)},
                                                                  {"norm", NormBalancer({2.0}).solve(p)},
                                                                  {"metis-vector", MetisVectorBalancer({}).solve(p)},
                                                                  {"vector-refine", VectorRefineBalancer({}).solve(p)},
                                                                  {"owners", p.owner}};
    for (const auto& [name, a] : results) {
      expect_valid(p, a);
      EXPECT_GE(vector_objective(p, a), bound * (1 - 1e-12)) << name << " seed " << seed;
    }
  }
}

// Two ranks, objects (3,0), (0,3), (2,0), (0,2): the naive greedy sees 3, 3, 2, 2 and
// stacks each component on one rank; MultiGreedy and Norm reach the bound 3 + 3.
TEST(VectorStrategies, TheSlidesExampleSeparatesNaiveFromHolistic) {
  const std::vector<std::array<double, 2>> v{{3, 0}, {0, 3}, {2, 0}, {0, 2}};
  const GlobalProblem p = vector_problem(
      2, 4, 2, [&](int i, int k) { return v[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)]; });
  EXPECT_DOUBLE_EQ(vector_lower_bound(p), 6.0);
  EXPECT_DOUBLE_EQ(vector_objective(p, VectorGreedyBalancer().solve(p)), 10.0);
  EXPECT_DOUBLE_EQ(vector_objective(p, MultiGreedyBalancer().solve(p)), 6.0);
  EXPECT_DOUBLE_EQ(vector_objective(p, NormBalancer({2.0}).solve(p)), 6.0);
}

TEST(VectorStrategies, VectorGreedyIsGreedyOnTheLargestComponent) {
  const GlobalProblem p = random_vector_problem(5, 7, 200, 3);
  GlobalProblem scalar = p;
  scalar.load_vec.clear();
  for (std::size_t i = 0; i < p.size(); ++i) {
    scalar.load[i] = std::max({p.load_vec[3 * i], p.load_vec[3 * i + 1], p.load_vec[3 * i + 2]});
  }
  EXPECT_EQ(VectorGreedyBalancer().solve(p), GreedyBalancer().solve(scalar));
}

TEST(VectorStrategies, NormBeatsNaiveGreedyOnAntiCorrelatedPhases) {
  // Half the objects are heavy in phase 0 and light in phase 1, half the reverse.
  const GlobalProblem p = vector_problem(16, 800, 2, [](int i, int k) {
    const double big = 1.0 + unit_random(8, i, 0);
    return (i % 2 == k) ? big : 0.2 * big;
  });
  const double naive = vector_objective(p, VectorGreedyBalancer().solve(p));
  const double norm = vector_objective(p, NormBalancer({2.0}).solve(p));
  EXPECT_LT(norm, naive);
  EXPECT_LT(norm, 1.02 * vector_lower_bound(p));
}

TEST(VectorRefine, BringsEveryComponentWithinToleranceMovingFewObjects) {
  // Ranks 0-3 hold the phase-0 work, ranks 4-7 the phase-1 work: every rank is over the
  // limit in one component, so balance needs exchanges.
  GlobalProblem p = vector_problem(8, 1600, 2, [](int i, int k) {
    const bool first_half = (i % 8) < 4;
    return (first_half == (k == 0)) ? 1.0 + unit_random(2, i, k) : 0.1;
  });
  const double tol = 0.05;
  const Assignment a = VectorRefineBalancer({tol}).solve(p);
  const auto t = rank_vector_times(p, a);
  const auto before = rank_vector_times(p, p.owner);
  for (int k = 0; k < 2; ++k) {
    double avg = 0, worst = 0;
    for (int r = 0; r < 8; ++r) {
      avg += t[static_cast<std::size_t>(2 * r + k)] / 8;
      worst = std::max(worst, t[static_cast<std::size_t>(2 * r + k)]);
    }
    EXPECT_LE(worst, (1 + tol) * avg * (1 + 1e-12)) << "component " << k;
  }
  EXPECT_LT(vector_objective(p, a), objective_of(before, 2));
  // Each rank must swap away close to half its heavy work (the largest objects go first,
  // so a little less than half its objects); a fresh mapping moves most of them.
  EXPECT_LE(test::moved(p, a), 800);
  EXPECT_LT(test::moved(p, a), test::moved(p, NormBalancer({2.0}).solve(p)));
}

TEST(VectorRefine, LeavesABalancedMappingAlone) {
  const GlobalProblem p = vector_problem(6, 600, 3, [](int, int k) { return 1.0 + k; });
  EXPECT_EQ(test::moved(p, VectorRefineBalancer({0.01}).solve(p)), 0);
}

TEST(MetisVector, KeepsEveryComponentWithinItsUbvec) {
  for (const bool full : {false, true}) {
    // A grid, so the full-graph variant has edges to cut.
    GlobalProblem p = test::grid_problem(40, 40, 8, [](int, int) { return 1.0; });
    p.dims = 2;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const int x = static_cast<int>(i % 40);
      p.load_vec.emplace_back(x < 20 ? 2.0 : 0.5);
      p.load_vec.emplace_back(x < 20 ? 0.5 : 2.0);
    }
    MetisVectorParams params;
    params.full_graph = full;
    params.ubvec = {1.05, 1.10};
    const Assignment a = MetisVectorBalancer(params).solve(p);
    const auto t = rank_vector_times(p, a);
    for (int k = 0; k < 2; ++k) {
      double avg = 0, worst = 0;
      for (int r = 0; r < 8; ++r) {
        avg += t[static_cast<std::size_t>(2 * r + k)] / 8;
        worst = std::max(worst, t[static_cast<std::size_t>(2 * r + k)]);
      }
      EXPECT_LE(worst / avg, params.ubvec[static_cast<std::size_t>(k)] + 1e-3) << "component " << k << " full " << full;
    }
    if (full) {
      EXPECT_LT(test::cut_edges(p, a, false), 3 * 40 * 8);
    }
  }
}

TEST(MetisVector, RefusesAnUbvecOfTheWrongLength) {
  MetisVectorParams params;
  params.ubvec = {1.05, 1.1, 1.2};
  EXPECT_THROW(params.check_dims(2), InputError);
  EXPECT_NO_THROW(params.check_dims(3));
  EXPECT_NO_THROW(MetisVectorParams{}.check_dims(5));
}

}  // namespace
}  // namespace lbbench
