// Loads that move through the mesh (see motion.hpp).
#include "balancers/model/motion.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "balancers/model/params.hpp"

namespace lbbench {

namespace {

constexpr int kMaxDims = 3;
using Vec = std::array<double, kMaxDims>;
using Mat = std::array<Vec, kMaxDims>;

// A coarse grid cell holds about this many objects: enough that a cell's mean load is
// smooth, few enough that a rank's share of the mesh is still its own.
constexpr double kObjectsPerCell = 4;
// The steps ahead are forecast at most at this many points and interpolated between them:
// a rank's load changes smoothly as a spot crosses it, and a long run should not cost a
// grid pass per step.
constexpr int kTimeSamples = 16;
// The velocity is fitted on at most this many objects, evenly spread over the problem's
// order: three unknowns need no more, and a decision pays for every one it looks at.
constexpr std::size_t kFitObjects = 1024;

// Solves a x = b for a symmetric positive semi-definite a of size n (Eigen's LDLT), after
// adding `ridge` times its mean diagonal to the diagonal: an object whose neighbors all lie
// in a plane (a flat mesh with three coordinates) gets no gradient across it. Returns false
// where a is zero.
bool solve_ridged(const Mat& a, const Vec& b, int n, double ridge, Vec& x) {
  Eigen::Matrix3d m = Eigen::Matrix3d::Zero();
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  double trace = 0;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) m(r, c) = a[r][c];
    v(r) = b[r];
    trace += a[r][r];
  }
  if (!(trace > 0)) return false;
  m.diagonal().head(n).array() += ridge * trace / n;
  const Eigen::VectorXd solved = m.topLeftCorner(n, n).ldlt().solve(v.head(n));
  for (int k = 0; k < n; ++k) x[k] = solved(k);
  return true;
}

Vec position(const GlobalProblem& p, std::size_t i) {
  Vec x{};
  for (int k = 0; k < p.coord_dims; ++k) x[k] = p.coords[i * static_cast<std::size_t>(p.coord_dims) + k];
  return x;
}

// The load's gradient at object i, from its neighbors' loads and positions in least squares.
bool gradient_at(const GlobalProblem& p, std::size_t i, Vec& g) {
  const int n = p.coord_dims;
  const Vec xi = position(p, i);
  const double li = p.load[i].seconds();
  Mat a{};
  Vec b{};
  for (auto e = p.xadj[i]; e < p.xadj[i + 1]; ++e) {
    const auto j = static_cast<std::size_t>(p.adjncy[static_cast<std::size_t>(e)]);
    const Vec xj = position(p, j);
    Vec d{};
    for (int k = 0; k < n; ++k) d[k] = xj[k] - xi[k];
    const double dl = p.load[j].seconds() - li;
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) a[r][c] += d[r] * d[c];
      b[r] += d[r] * dl;
    }
  }
  return solve_ridged(a, b, n, 1e-9, g);
}

// The coarse grid over the objects' bounding box.
struct Grid {
  int dims = 0;
  std::array<int, kMaxDims> cells{1, 1, 1};
  Vec width{1, 1, 1};  // of a cell, per axis
  std::vector<double> mean_load;
  std::vector<int> count;
  std::vector<std::size_t> object_cell;  // in the problem's order

  [[nodiscard]] std::size_t size() const { return mean_load.size(); }
};

// The objects' bounding box: its lower corner and its extent, per axis.
std::pair<Vec, Vec> box_of(const GlobalProblem& p) {
  Vec lo{};
  Vec hi{};
  const auto n = static_cast<std::size_t>(p.coord_dims);
  for (std::size_t k = 0; k < n; ++k) {
    lo[k] = std::numeric_limits<double>::infinity();
    hi[k] = -std::numeric_limits<double>::infinity();
  }
  for (std::size_t i = 0; i < p.coords.size(); i += n) {
    for (std::size_t k = 0; k < n; ++k) {
      lo[k] = std::min(lo[k], p.coords[i + k]);
      hi[k] = std::max(hi[k], p.coords[i + k]);
    }
  }
  Vec extent{};
  for (std::size_t k = 0; k < n; ++k) extent[k] = hi[k] - lo[k];
  return {lo, extent};
}

// Cells per axis in proportion to the box's extent, about kObjectsPerCell objects to a cell;
// an axis the objects do not spread along gets one.
Grid grid_over(const GlobalProblem& p) {
  Grid g;
  g.dims = p.coord_dims;
  const auto [lo, extent] = box_of(p);
  double volume = 1;
  int spread = 0;
  for (int k = 0; k < g.dims; ++k) {
    if (extent[k] > 0) {
      volume *= extent[k];
      ++spread;
    }
  }
  const double target = std::max(1.0, static_cast<double>(p.size()) / kObjectsPerCell);
  const double side = spread > 0 ? std::pow(volume / target, 1.0 / spread) : 1.0;
  Vec per_width{};
  for (int k = 0; k < g.dims; ++k) {
    g.cells[k] = extent[k] > 0 ? static_cast<int>(std::clamp(std::round(extent[k] / side), 1.0, target)) : 1;
    // The last cell's upper edge is the box's, so that its objects fall inside it.
    g.width[k] = extent[k] > 0 ? extent[k] / g.cells[k] * (1 + 1e-12) : 1.0;
    per_width[k] = 1.0 / g.width[k];
  }
  const std::size_t cells = static_cast<std::size_t>(g.cells[0]) * g.cells[1] * g.cells[2];
  g.mean_load.assign(cells, 0.0);
  g.count.assign(cells, 0);
  g.object_cell.resize(p.size());
  const auto n = static_cast<std::size_t>(g.dims);
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::size_t cell = 0;
    for (std::size_t k = n; k-- > 0;) {
      const auto at = static_cast<int>((p.coords[i * n + k] - lo[k]) * per_width[k]);
      cell = cell * static_cast<std::size_t>(g.cells[k]) + static_cast<std::size_t>(std::clamp(at, 0, g.cells[k] - 1));
    }
    g.object_cell[i] = cell;
    g.mean_load[cell] += p.load[i].seconds();
    ++g.count[cell];
  }
  for (std::size_t c = 0; c < cells; ++c) {
    if (g.count[c] > 0) g.mean_load[c] /= g.count[c];
  }
  return g;
}

// One axis of the field moved by `shift` cells (the same for every cell): each cell takes
// the value at its center less the shift, by a straight line between the two cells around
// it. What leaves the box at one edge enters it at the other, so that the motion moves
// load without making or losing any: a spot that drifts out of the box comes back as the
// scenarios' drift does. (Taking the edge's load for what enters instead made a hot slab
// grow at the edge a spot had just left: 9% over `none`'s run on drift-3d, random.)
void shift_along(const Grid& g, int axis, double shift, std::vector<double>& field, std::vector<double>& scratch) {
  const int cells = g.cells[axis];
  if (cells == 1 || std::abs(shift) < 1e-6) return;
  std::size_t inner = 1;  // cells of the axes before this one, per cell of it
  for (int k = 0; k < axis; ++k) inner *= static_cast<std::size_t>(g.cells[k]);
  const std::size_t layer = inner * static_cast<std::size_t>(cells);
  scratch = field;
  const auto wrap = [cells](double x) {
    return static_cast<std::size_t>(((static_cast<long>(x) % cells) + cells) % cells);
  };
  for (int c = 0; c < cells; ++c) {
    const double q = c + shift;
    const double f = q - std::floor(q);
    const std::size_t base = wrap(std::floor(q));
    const std::size_t next = wrap(std::floor(q) + 1);
    for (std::size_t outer = 0; outer < field.size(); outer += layer) {
      const double* below = scratch.data() + outer + base * inner;
      const double* above = scratch.data() + outer + next * inner;
      double* out = field.data() + outer + static_cast<std::size_t>(c) * inner;
      for (std::size_t i = 0; i < inner; ++i) out[i] = (1 - f) * below[i] + f * above[i];
    }
  }
}

// Each rank's objects per grid cell, as (cell, rank, objects); a cell may be listed for a
// rank more than once where the objects do not come rank by rank.
struct Share {
  std::size_t cell = 0;
  int rank = 0;
  int objects = 0;
};

std::vector<Share> shares_of(const GlobalProblem& p, const Grid& g) {
  std::vector<Share> out;
  std::vector<std::size_t> last(g.size(), std::numeric_limits<std::size_t>::max());  // per cell, its last share
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::size_t cell = g.object_cell[i];
    const int rank = p.owner[i].value();
    if (last[cell] < out.size() && out[last[cell]].rank == rank) {
      ++out[last[cell]].objects;
      continue;
    }
    last[cell] = out.size();
    out.push_back({cell, rank, 1});
  }
  return out;
}

// The ranks' compute `t` steps after the call: each rank's time as problem.load shows it
// (`now`: rank_times, background included, over its speed), plus what the motion brings to its objects' cells and
// takes from them. Carrying the change, not the cells' means themselves, keeps each rank's
// own objects: where the ranks' objects are scattered over the mesh, a rank's few objects
// in a cell are not its mean, and the slowest of ranks so blurred would be slower than any
// is. The occupied cells' loads and an indicator of occupancy move alike, so that their
// ratio interpolates between occupied cells only (where none is around a point, the cell
// keeps its load).
std::vector<double> rank_times_at(const GlobalProblem& p, const Motion& m, const Grid& g,
                                  const std::vector<Share>& shares, const std::vector<double>& now, double t) {
  std::vector<double> load(g.size());
  std::vector<double> occupied(g.size());
  for (std::size_t c = 0; c < g.size(); ++c) {
    occupied[c] = g.count[c] > 0 ? 1.0 : 0.0;
    load[c] = occupied[c] * g.mean_load[c];
  }
  std::vector<double> scratch;
  for (int k = 0; k < g.dims; ++k) {
    const double shift = -m.velocity[static_cast<std::size_t>(k)] * (t - p.trend_origin) / g.width[k];
    shift_along(g, k, shift, load, scratch);
    shift_along(g, k, shift, occupied, scratch);
  }
  std::vector<double> out = now;
  for (const Share& s : shares) {
    if (occupied[s.cell] <= 1e-12) continue;
    out[static_cast<std::size_t>(s.rank)] +=
        s.objects * (load[s.cell] / occupied[s.cell] - g.mean_load[s.cell]) / p.speed(s.rank);
  }
  return out;
}

}  // namespace

std::optional<Motion> fit_motion(const GlobalProblem& p) {
  const int n = p.coord_dims;
  if (n < 1 || n > kMaxDims || p.coords.size() != p.size() * static_cast<std::size_t>(n) ||
      p.load_trend.size() != p.size() || !p.has_graph()) {
    return std::nullopt;
  }
  // Every object's gradient, kept for the residuals once the velocity is known.
  std::vector<Vec> gradient(p.size());
  std::vector<bool> has(p.size(), false);
  Mat a{};
  Vec b{};
  const std::size_t stride = std::max<std::size_t>(1, p.size() / kFitObjects);
  for (std::size_t i = 0; i < p.size(); i += stride) {
    if (!gradient_at(p, i, gradient[i])) continue;
    has[i] = true;
    const Vec& g = gradient[i];
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) a[r][c] += g[r] * g[c];
      b[r] -= g[r] * p.load_trend[i];  // trend = -velocity . gradient
    }
  }
  Vec v{};
  if (!solve_ridged(a, b, n, 1e-9, v)) return std::nullopt;
  Motion m;
  m.velocity.assign(v.begin(), v.begin() + n);
  double total = 0;
  double residual = 0;
  for (std::size_t i = 0; i < p.size(); i += stride) {
    if (!has[i]) continue;
    double predicted = 0;
    for (int k = 0; k < n; ++k) predicted -= v[k] * gradient[i][k];
    total += p.load_trend[i] * p.load_trend[i];
    residual += (p.load_trend[i] - predicted) * (p.load_trend[i] - predicted);
    ++m.objects_fitted;
  }
  m.fit_r2 = total > 0 ? 1.0 - residual / total : 0.0;
  return m;
}

std::vector<std::vector<double>> moved_rank_times(const GlobalProblem& p, const Motion& m, int steps) {
  std::vector<std::vector<double>> out;
  if (steps < 1) return out;
  const Grid grid = grid_over(p);
  const std::vector<Share> shares = shares_of(p, grid);
  const std::vector<double> now = rank_times(p, p.owner);
  // The sampled steps, then each step between two of them by a straight line.
  const int samples = std::min(steps, kTimeSamples);
  std::vector<double> at(static_cast<std::size_t>(samples));
  std::vector<std::vector<double>> sampled;
  for (int j = 0; j < samples; ++j) {
    at[static_cast<std::size_t>(j)] = samples == 1 ? 1.0 : 1.0 + j * (steps - 1.0) / (samples - 1.0);
    sampled.push_back(rank_times_at(p, m, grid, shares, now, at[static_cast<std::size_t>(j)]));
  }
  out.reserve(static_cast<std::size_t>(steps));
  std::size_t j = 0;
  for (int t = 1; t <= steps; ++t) {
    while (j + 1 < at.size() && at[j + 1] < t) ++j;
    if (j + 1 >= at.size()) {
      out.push_back(sampled[j]);
      continue;
    }
    const double f = std::clamp((t - at[j]) / (at[j + 1] - at[j]), 0.0, 1.0);
    std::vector<double> step(sampled[j].size());
    for (std::size_t r = 0; r < step.size(); ++r) step[r] = (1 - f) * sampled[j][r] + f * sampled[j + 1][r];
    out.push_back(std::move(step));
  }
  return out;
}

// The rank graph of the current owners: ranks that share an edge are neighbors, in
// ascending order. The objects come rank by rank, so a stamp per far rank (the last near
// rank that listed it) keeps each list free of repeats as it grows; a sort and unique per
// rank make it exact for any order. The walk over every edge is still 4-8 ms on a
// 24,000-vertex point cloud with 1.2 million edges (AutoParams::paper_diffusion).
std::vector<std::vector<int>> rank_neighbors(const GlobalProblem& problem) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(problem.nranks));
  std::vector<int> listed_by(static_cast<std::size_t>(problem.nranks), -1);
  auto add = [&](int a, int b) {
    if (a == b || listed_by[static_cast<std::size_t>(b)] == a) return;
    listed_by[static_cast<std::size_t>(b)] = a;
    out[static_cast<std::size_t>(a)].push_back(b);
  };
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const int a = problem.owner[i].value();
    for (auto e = problem.xadj[i]; e < problem.xadj[i + 1]; ++e) {
      add(a, problem.owner[static_cast<std::size_t>(problem.adjncy[static_cast<std::size_t>(e)])].value());
    }
    if (!problem.has_fixed_edges()) continue;
    for (auto e = problem.fixed_xadj[i]; e < problem.fixed_xadj[i + 1]; ++e) {
      add(a, problem.fixed_rank[static_cast<std::size_t>(e)]);
    }
  }
  for (std::vector<int>& ranks : out) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  }
  return out;
}

double critical_path_s(std::span<const std::vector<double>> rank_times_per_step,
                       const std::vector<std::vector<int>>& neighbors) {
  if (rank_times_per_step.empty()) return 0.0;
  std::vector<double> end(rank_times_per_step.front().size(), 0.0);
  std::vector<double> next(end.size());
  for (const std::vector<double>& step : rank_times_per_step) {
    for (std::size_t r = 0; r < end.size(); ++r) {
      // Its neighbors' messages left as their step started, when their last one ended; a
      // rank waits for them only where they come after its own compute.
      double messages_in = 0;
      for (const int q : neighbors[r]) messages_in = std::max(messages_in, end[static_cast<std::size_t>(q)]);
      next[r] = std::max(end[r] + step[r], messages_in);
    }
    std::swap(end, next);
  }
  return *std::max_element(end.begin(), end.end());
}

}  // namespace lbbench
