// Exact norm search (see norm_search.hpp).
#include "balancers/vector/norm_search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>

// Function multi-versioning for the hot kernel (see batch_dispatch).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LBBENCH_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LBBENCH_VECTOR_CLONES
#endif

namespace lbbench {

namespace {

// Leaves of 16 to 32 ranks (fewer when all ranks fit in one): their costs are one
// vectorized batch, and the tree above them is shallow (see norm_search.hpp). From
// kWideLeavesFrom ranks on, leaves of 32 to 64: only with that many leaves do fewer bounds
// to check outweigh more ranks costed per leaf (the vector benchmark measures both).
constexpr int kLeafSize = 32;
constexpr int kWideLeafSize = 64;
constexpr std::size_t kWideLeavesFrom = 8192;
// Up to this many ranks one batch over all of them is quicker than the tree (the vector
// benchmark, lbbench_micro --benchmark_filter=BM_Vector, measures both).
constexpr int kScanUpTo = 128;
// From this many ranks on, p = 2 also bounds by the expanded square (see
// norm_search.hpp): keeping its minima up to date costs more than the bound saves with
// fewer ranks, and less with more (the vector benchmark measures both).
constexpr std::size_t kExpandedFrom = 4096;

}  // namespace

NormCost::NormCost(double p, std::vector<double> scale)
    : p_(p),
      integer_p_(p == 1.0 || p == 2.0 || p == 3.0 || p == 4.0 ? static_cast<int>(p) : 0),
      infinite_(std::isinf(p)),
      scale_(std::move(scale)) {}

NormCost NormCost::squared_increase(std::vector<double> scale) {
  NormCost c(2.0, std::move(scale));
  c.increase_ = true;
  return c;
}

double NormCost::term(double t) const {
  switch (integer_p_) {
    case 1: return t;
    case 2: return t * t;
    case 3: return t * t * t;
    case 4: {
      const double s = t * t;
      return s * s;
    }
    default: return std::pow(t, p_);
  }
}

double NormCost::operator()(const double* load, std::span<const double> x, double inv_speed) const {
  double acc = 0;
  if (increase_) {
    for (std::size_t k = 0; k < x.size(); ++k) {
      const double s = scale_.empty() ? 1.0 : scale_[k];
      const double u = load[k] * inv_speed * s, dx = x[k] * inv_speed * s;
      acc += dx * (2 * u + dx);
    }
    return acc;
  }
  for (std::size_t k = 0; k < x.size(); ++k) {
    double t = (load[k] + x[k]) * inv_speed;
    if (!scale_.empty()) t *= scale_[k];
    acc = infinite_ ? std::max(acc, t) : acc + term(t);
  }
  return acc;
}

namespace {

// What a cost adds for one component, as operator() computes it.
enum class Term { p1, p2, p3, p4, maximum, increase };

template <Term T, bool Scaled>
[[gnu::always_inline]] inline double accumulate(double acc, double load, double xk, double inv, double s) {
  if constexpr (T == Term::increase) {
    // Scale 1 where there is none, as operator() multiplies by: a product with 1 is exact.
    const double u = load * inv * s, dx = xk * inv * s;
    return acc + dx * (2 * u + dx);
  } else {
    double t = (load + xk) * inv;
    if constexpr (Scaled) t *= s;
    if constexpr (T == Term::maximum) return std::max(acc, t);
    if constexpr (T == Term::p1) return acc + t;
    if constexpr (T == Term::p2) return acc + t * t;
    if constexpr (T == Term::p3) return acc + t * t * t;
    const double u = t * t;
    return acc + u * u;
  }
}

// out[i] = the cost of point i, its components summed in order in a register; returns
// the least of them. D is the dimension where the compiler knows it (0: dims), so the
// components unroll and the loop over points vectorizes, the least an `omp simd`
// reduction alongside.
template <Term T, bool Scaled, int D>
[[gnu::always_inline]] inline double batch_costs(const double* loads, std::size_t stride, const double* inv, int n,
                                                 const double* x, const double* scale, int dims, double* out) {
  const int d = D > 0 ? D : dims;
  // The query in registers: out might alias it, as far as the compiler knows.
  std::array<double, (D > 0 ? D : 1)> xs{};
  if constexpr (D > 0) std::copy_n(x, D, xs.begin());
  const double* xk = D > 0 ? xs.data() : x;
  double least = std::numeric_limits<double>::infinity();
#pragma omp simd reduction(min : least)
  for (int i = 0; i < n; ++i) {
    double acc = 0;  // operator() starts its sum (or maximum) at 0 too
    for (int k = 0; k < d; ++k) {
      acc = accumulate<T, Scaled>(acc, loads[static_cast<std::size_t>(k) * stride + static_cast<std::size_t>(i)], xk[k],
                                  inv[i], Scaled ? scale[k] : 1.0);
    }
    out[i] = acc;
    least = acc < least ? acc : least;
  }
  return least;
}

template <Term T, bool Scaled>
[[gnu::always_inline]] inline double batch_costs(const double* loads, std::size_t stride, const double* inv, int n,
                                                 const double* x, const double* scale, int dims, double* out) {
  switch (dims) {
    case 2: return batch_costs<T, Scaled, 2>(loads, stride, inv, n, x, scale, dims, out);
    case 3: return batch_costs<T, Scaled, 3>(loads, stride, inv, n, x, scale, dims, out);
    case 4: return batch_costs<T, Scaled, 4>(loads, stride, inv, n, x, scale, dims, out);
    default: return batch_costs<T, Scaled, 0>(loads, stride, inv, n, x, scale, dims, out);
  }
}

template <Term T>
[[gnu::always_inline]] inline double batch_costs(bool scaled, const double* loads, std::size_t stride,
                                                 const double* inv, int n, const double* x, const double* scale,
                                                 int dims, double* out) {
  return scaled ? batch_costs<T, true>(loads, stride, inv, n, x, scale, dims, out)
                : batch_costs<T, false>(loads, stride, inv, n, x, scale, dims, out);
}

// The one place that picks the kernel. On x86-64 it is compiled twice, for AVX2 and for
// the baseline, and the loader picks what the processor has: AVX2 costs four points at
// once where SSE2 costs two. Neither target contracts into FMA, so both give operator()'s
// bits (the exactness test against the exhaustive scan checks it).
LBBENCH_VECTOR_CLONES double batch_dispatch(Term term, bool scaled, const double* loads, std::size_t stride,
                                            const double* inv, int n, const double* x, const double* scale, int dims,
                                            double* out) {
  switch (term) {
    case Term::p1: return batch_costs<Term::p1>(scaled, loads, stride, inv, n, x, scale, dims, out);
    case Term::p2: return batch_costs<Term::p2>(scaled, loads, stride, inv, n, x, scale, dims, out);
    case Term::p3: return batch_costs<Term::p3>(scaled, loads, stride, inv, n, x, scale, dims, out);
    case Term::p4: return batch_costs<Term::p4>(scaled, loads, stride, inv, n, x, scale, dims, out);
    case Term::maximum: return batch_costs<Term::maximum>(scaled, loads, stride, inv, n, x, scale, dims, out);
    case Term::increase: return batch_costs<Term::increase>(scaled, loads, stride, inv, n, x, scale, dims, out);
  }
  return 0;  // not reached: every term has its case
}

}  // namespace

std::optional<double> NormCost::batch(const double* loads, std::size_t stride, const double* inv, int n,
                                      std::span<const double> x, double* out) const {
  if (integer_p_ == 0 && !infinite_) return std::nullopt;
  static constexpr std::array kByP{Term::p1, Term::p2, Term::p3, Term::p4};
  const Term term =
      increase_ ? Term::increase : (infinite_ ? Term::maximum : kByP[static_cast<std::size_t>(integer_p_ - 1)]);
  return batch_dispatch(term, !scale_.empty(), loads, stride, inv, n, x.data(), scale_.data(),
                        static_cast<int>(x.size()), out);
}

int best_rank_exhaustive(const NormCost& cost, std::span<const double> loads, std::span<const double> inv_speed,
                         std::span<const double> x) {
  const std::size_t d = x.size();
  int best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < inv_speed.size(); ++r) {
    const double v = cost(loads.data() + r * d, x, inv_speed[r]);
    if (v < best_value) {  // strictly: the lowest rank wins among equals
      best_value = v;
      best = static_cast<int>(r);
    }
  }
  return best;
}

namespace {

// Rows of an orthonormal d x d matrix whose first row is the diagonal: the Helmert basis.
std::vector<double> helmert_basis(int d) {
  std::vector<double> b(static_cast<std::size_t>(d) * d, 0.0);
  for (int j = 0; j < d; ++j) b[static_cast<std::size_t>(j)] = 1.0 / std::sqrt(static_cast<double>(d));
  for (int i = 1; i < d; ++i) {
    const double norm = std::sqrt(static_cast<double>(i) * (i + 1));
    for (int j = 0; j < i; ++j) b[static_cast<std::size_t>(i) * d + j] = 1.0 / norm;
    b[static_cast<std::size_t>(i) * d + i] = -static_cast<double>(i) / norm;
  }
  return b;
}

}  // namespace

NormSearchTree::NormSearchTree(int dims, NormCost cost, std::vector<double> loads, std::vector<double> inv_speed)
    : dims_(dims), cost_(std::move(cost)), loads_(std::move(loads)), inv_speed_(std::move(inv_speed)) {
  rotated_ = cost_.is_squared_euclidean() && dims_ >= 2;
  leaf_size_ = inv_speed_.size() >= kWideLeavesFrom ? kWideLeafSize : kLeafSize;
  expanded_ = rotated_ && inv_speed_.size() >= kExpandedFrom;
  if (rotated_) {
    basis_ = helmert_basis(dims_);
    y_.resize(loads_.size());
    point_y_.resize(loads_.size());
    query_.resize(static_cast<std::size_t>(dims_));
    for (std::size_t r = 0; r < inv_speed_.size(); ++r) rotate_point(static_cast<int>(r));
  }
  order_.resize(inv_speed_.size());
  std::iota(order_.begin(), order_.end(), 0);
  position_.resize(order_.size());
  leaf_of_.resize(order_.size());
  point_load_.resize(loads_.size());
  point_inv_.resize(order_.size());
  rebuild();
}

// out = sign · B · (v · scale): a scaled vector in the rotated frame (speed aside).
void NormSearchTree::rotate(const double* v, double sign, double* out) const {
  for (int i = 0; i < dims_; ++i) {
    double acc = 0;
    for (int j = 0; j < dims_; ++j) {
      acc += basis_[static_cast<std::size_t>(i) * dims_ + j] * v[j] * cost_.scale(static_cast<std::size_t>(j));
    }
    out[i] = sign * acc;
  }
}

void NormSearchTree::rotate_point(int rank) {
  const auto at = static_cast<std::size_t>(rank) * dims_;
  rotate(loads_.data() + at, 1.0, y_.data() + at);
}

double NormSearchTree::corner_bound(int node, std::span<const double> x) const {
  return cost_(lo_.data() + static_cast<std::size_t>(node) * dims_, x, nodes_[static_cast<std::size_t>(node)].min_inv);
}

// The squared distance from the rotated query to a node's rotated box, at its smallest
// 1/speed; D is the dimension when the compiler knows it (0: dims_).
template <int D>
inline double NormSearchTree::box_bound(int node) const {
  const int d = D > 0 ? D : dims_;
  const double* box = box_.data() + static_cast<std::size_t>(node) * 2 * d;
  const double* q = query_.data();
  double dist2 = 0;
  for (int i = 0; i < d; ++i) {
    const double gap = std::max(std::max(box[i] - q[i], q[i] - box[d + i]), 0.0);
    dist2 += gap * gap;
  }
  const double min_inv = nodes_[static_cast<std::size_t>(node)].min_inv;
  return dist2 * min_inv * min_inv * (1 - 1e-9);
}

double NormSearchTree::lifted_bound(int node, std::span<const double> x, double x_norm2) const {
  const double* lo = lo_.data() + static_cast<std::size_t>(node) * dims_;
  double dot = 0;
  for (int k = 0; k < dims_; ++k) {
    const double s = cost_.scale(static_cast<std::size_t>(k));
    dot += lo[k] * s * s * x[static_cast<std::size_t>(k)];
  }
  const double min_inv = nodes_[static_cast<std::size_t>(node)].min_inv;
  return (least_norm2_[static_cast<std::size_t>(node)] + 2 * dot + x_norm2) * min_inv * min_inv * (1 - 1e-9);
}

void NormSearchTree::rebuild() {
  nodes_.clear();
  lo_.clear();
  least_norm2_.clear();
  box_.clear();
  last_leaf_ = -1;
  if (!order_.empty()) {
    add_nodes(1);
    nodes_[0] = Node{.begin = 0, .end = static_cast<int>(order_.size())};
    build(0);
  }
  if (rotated_) order_slabs();
  updates_since_build_ = 0;
}

// The leaves by where their points start along the diagonal, the lowest first.
void NormSearchTree::order_slabs() {
  slabs_.clear();
  for (int id = 0; id < static_cast<int>(nodes_.size()); ++id) {
    if (nodes_[static_cast<std::size_t>(id)].left < 0) slabs_.push_back(id);
  }
  std::sort(slabs_.begin(), slabs_.end(), [&](int a, int b) { return slab_before(a, b); });
  slab_at_.assign(nodes_.size(), -1);
  for (std::size_t i = 0; i < slabs_.size(); ++i) slab_at_[static_cast<std::size_t>(slabs_[i])] = static_cast<int>(i);
}

bool NormSearchTree::slab_before(int a, int b) const {
  const double sa = diagonal_low(a), sb = diagonal_low(b);
  return sa < sb || (sa == sb && a < b);
}

// A leaf whose start along the diagonal moved takes its place in the order again, by
// swaps with its neighbours: a point moves by one object, so it passes few of them.
void NormSearchTree::reorder_slab(int leaf) {
  auto at = static_cast<std::size_t>(slab_at_[static_cast<std::size_t>(leaf)]);
  auto swap_with = [&](std::size_t other) {
    std::swap(slabs_[at], slabs_[other]);
    slab_at_[static_cast<std::size_t>(slabs_[at])] = static_cast<int>(at);
    slab_at_[static_cast<std::size_t>(slabs_[other])] = static_cast<int>(other);
    at = other;
  };
  while (at + 1 < slabs_.size() && slab_before(slabs_[at + 1], leaf)) swap_with(at + 1);
  while (at > 0 && slab_before(leaf, slabs_[at - 1])) swap_with(at - 1);
}

void NormSearchTree::add_nodes(int count) {
  nodes_.resize(nodes_.size() + static_cast<std::size_t>(count));
  lo_.resize(nodes_.size() * dims_);
  least_norm2_.resize(nodes_.size());
  if (rotated_) box_.resize(nodes_.size() * 2 * dims_);
}

// Splits at the median of a component, so sibling subtrees separate where their costs
// differ most. Siblings take consecutive ids, so the search reads both children's bounds
// from neighbouring memory.
void NormSearchTree::build(int id) {
  const int begin = nodes_[static_cast<std::size_t>(id)].begin, end = nodes_[static_cast<std::size_t>(id)].end;
  if (end - begin <= leaf_size_ || (id == 0 && end - begin <= kScanUpTo)) {
    lay_out(begin, end);
    for (int i = begin; i < end; ++i) leaf_of_[static_cast<std::size_t>(order_[static_cast<std::size_t>(i)])] = id;
    // A leaf's ranks and speeds stay until the next rebuild; only its loads move.
    Node& leaf = nodes_[static_cast<std::size_t>(id)];
    leaf.min_rank = *std::min_element(order_.begin() + begin, order_.begin() + end);
    leaf.min_inv = *std::min_element(point_inv_.begin() + begin, point_inv_.begin() + end);
    refresh_leaf(id);
    return;
  }
  auto position = [&](int rank, int k) {
    const auto at = static_cast<std::size_t>(rank) * dims_ + k;
    return rotated_ ? y_[at] : loads_[at] * inv_speed_[static_cast<std::size_t>(rank)];
  };
  // In the rotated frame every split is on the diagonal (the first rotated axis). The
  // query sits far out along it, so a rank's cost is its distance along the diagonal,
  // squared, plus a much smaller part across it: ranks cut into slabs of that distance
  // are pruned whole. Splitting instead on the axis of widest spread, weighted by how far
  // out the points sit, prunes less and so takes longer. Without rotation: the component of
  // widest spread.
  int split = 0;
  double widest = -1;
  for (int k = 0; k < (rotated_ ? 0 : dims_); ++k) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int i = begin; i < end; ++i) {
      lo = std::min(lo, position(order_[static_cast<std::size_t>(i)], k));
      hi = std::max(hi, position(order_[static_cast<std::size_t>(i)], k));
    }
    if (hi - lo > widest) {
      widest = hi - lo;
      split = k;
    }
  }
  // A split a multiple of 4 ranks from the start, so every leaf's batch runs in whole
  // vectors of 4 (AVX2) or 2, without a scalar tail, when the rank count is one too.
  const int half = (end - begin) / 2;
  const int mid = begin + (half >= 4 ? (half + 2) / 4 * 4 : half);
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                   [&](int a, int b) { return position(a, split) < position(b, split); });
  const int left = static_cast<int>(nodes_.size());
  add_nodes(2);
  nodes_[static_cast<std::size_t>(left)] = Node{.begin = begin, .end = mid, .parent = id};
  nodes_[static_cast<std::size_t>(left) + 1] = Node{.begin = mid, .end = end, .parent = id};
  nodes_[static_cast<std::size_t>(id)].left = left;
  nodes_[static_cast<std::size_t>(id)].right = left + 1;
  build(left);
  build(left + 1);
  refresh_inner(id);
}

// Lays the points of order_[begin, end), in their final places, out by position.
void NormSearchTree::lay_out(int begin, int end) {
  const std::size_t n = order_.size();
  for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i) {
    const auto r = static_cast<std::size_t>(order_[i]);
    position_[r] = static_cast<int>(i);
    point_inv_[i] = inv_speed_[r];
    for (std::size_t k = 0; k < static_cast<std::size_t>(dims_); ++k) {
      point_load_[k * n + i] = loads_[r * dims_ + k];
      if (rotated_) point_y_[k * n + i] = y_[r * dims_ + k];
    }
  }
}

namespace {

// Sets `to` and says whether that changed it.
bool set(double& to, double value) {
  const bool changed = to != value;
  to = value;
  return changed;
}

// The smallest and largest of values[begin, end). As `omp simd` reductions, which may
// take them in any order (exact for a minimum), so they vectorize; a plain loop waits
// out each comparison's latency in turn, and std::minmax_element must also find the
// first position.
double smallest(const double* values, std::size_t begin, std::size_t end) {
  double low = values[begin];
#pragma omp simd reduction(min : low)
  for (std::size_t i = begin + 1; i < end; ++i) low = values[i] < low ? values[i] : low;
  return low;
}

double largest(const double* values, std::size_t begin, std::size_t end) {
  double high = values[begin];
#pragma omp simd reduction(max : high)
  for (std::size_t i = begin + 1; i < end; ++i) high = values[i] > high ? values[i] : high;
  return high;
}

}  // namespace

// The smallest squared norm of the rotated points at positions [b, e): the scaled loads'
// (add() sums them the same way). Component by component, so the loop vectorizes.
double NormSearchTree::least_norm2(std::size_t b, std::size_t e) {
  const std::size_t stride = order_.size();
  std::vector<double>& norm2 = leaf_costs_;
  norm2.assign(e - b, 0.0);
  for (std::size_t k = 0; k < static_cast<std::size_t>(dims_); ++k) {
    const double* y = point_y_.data() + k * stride;
    for (std::size_t i = b; i < e; ++i) norm2[i - b] += y[i] * y[i];
  }
  return smallest(norm2.data(), 0, e - b);
}

void NormSearchTree::refresh_leaf(int node) {
  const Node& n = nodes_[static_cast<std::size_t>(node)];
  const std::size_t stride = order_.size();
  const auto at = static_cast<std::size_t>(node) * dims_;
  const auto b = static_cast<std::size_t>(n.begin), e = static_cast<std::size_t>(n.end);
  if (expanded_) least_norm2_[static_cast<std::size_t>(node)] = least_norm2(b, e);
  for (std::size_t k = 0; k < static_cast<std::size_t>(dims_); ++k) {
    lo_[at + k] = smallest(point_load_.data() + k * stride, b, e);
    if (rotated_) {
      const double* y = point_y_.data() + k * stride;
      double* box = box_.data() + 2 * at;
      box[k] = smallest(y, b, e);
      box[dims_ + k] = largest(y, b, e);
    }
  }
}

bool NormSearchTree::refresh_inner(int node) {
  Node& n = nodes_[static_cast<std::size_t>(node)];
  const Node& l = nodes_[static_cast<std::size_t>(n.left)];
  const Node& r = nodes_[static_cast<std::size_t>(n.right)];
  const auto d = static_cast<std::size_t>(dims_);
  const auto at = static_cast<std::size_t>(node) * d;
  const auto la = static_cast<std::size_t>(n.left) * d, ra = static_cast<std::size_t>(n.right) * d;
  bool changed = false;
  for (std::size_t k = 0; k < d; ++k) changed |= set(lo_[at + k], std::min(lo_[la + k], lo_[ra + k]));
  if (expanded_) {
    changed |=
        set(least_norm2_[static_cast<std::size_t>(node)],
            std::min(least_norm2_[static_cast<std::size_t>(n.left)], least_norm2_[static_cast<std::size_t>(n.right)]));
  }
  if (rotated_) {
    double* box = box_.data() + 2 * at;
    const double* lb = box_.data() + 2 * la;
    const double* rb = box_.data() + 2 * ra;
    for (std::size_t k = 0; k < d; ++k) {
      changed |= set(box[k], std::min(lb[k], rb[k]));
      changed |= set(box[d + k], std::max(lb[d + k], rb[d + k]));
    }
  }
  n.min_rank = std::min(l.min_rank, r.min_rank);
  n.min_inv = std::min(l.min_inv, r.min_inv);
  return changed;
}

void NormSearchTree::add(int rank, std::span<const double> x, double sign) {
  const auto ru = static_cast<std::size_t>(rank);
  double* point = loads_.data() + ru * dims_;
  for (int k = 0; k < dims_; ++k) point[k] += sign * x[static_cast<std::size_t>(k)];
  if (rotated_) rotate_point(rank);
  if (++updates_since_build_ >= static_cast<std::int64_t>(inv_speed_.size())) {
    rebuild();
    return;
  }
  const std::size_t stride = order_.size();
  const auto i = static_cast<std::size_t>(position_[ru]);
  const int leaf = leaf_of_[ru];
  const auto at = static_cast<std::size_t>(leaf) * dims_;
  const Node& n = nodes_[static_cast<std::size_t>(leaf)];
  const auto b = static_cast<std::size_t>(n.begin), e = static_cast<std::size_t>(n.end);
  // A lone leaf's bounds are never read: the search scans it without them.
  if (nodes_.size() == 1) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(dims_); ++k) {
      point_load_[k * stride + i] = point[k];
      if (rotated_) point_y_[k * stride + i] = y_[ru * dims_ + k];
    }
    return;
  }
  // The squared norms summed as least_norm2 sums them, so that equality is exact.
  double norm2_was = 0, norm2_now = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(dims_) && expanded_; ++k) {
    const double old_y = point_y_[k * stride + i], new_y = y_[ru * dims_ + k];
    norm2_was += old_y * old_y;
    norm2_now += new_y * new_y;
  }
  // Each bound stays exact unless the point left it, which sets it to the point, or held
  // it and moved inwards, which takes one pass over the leaf's points for that bound alone.
  bool changed = false;
  auto keep = [&](double& bound, double was, double now, auto further, auto recompute) {
    if (further(now, bound)) {
      bound = now;
      changed = true;
    } else if (was == bound && further(was, now)) {
      changed |= set(bound, recompute());
    }
  };
  const std::less<> below;
  const std::greater<> above;
  for (std::size_t k = 0; k < static_cast<std::size_t>(dims_); ++k) {
    double* loads = point_load_.data() + k * stride;
    const double was = loads[i];
    loads[i] = point[k];
    keep(lo_[at + k], was, point[k], below, [&] { return smallest(loads, b, e); });
    if (!rotated_) continue;
    double* y = point_y_.data() + k * stride;
    const double y_was = y[i];
    y[i] = y_[ru * dims_ + k];
    double* box = box_.data() + 2 * at;
    keep(box[k], y_was, y[i], below, [&] { return smallest(y, b, e); });
    keep(box[dims_ + k], y_was, y[i], above, [&] { return largest(y, b, e); });
  }
  if (expanded_) {
    keep(least_norm2_[static_cast<std::size_t>(leaf)], norm2_was, norm2_now, below, [&] { return least_norm2(b, e); });
  }
  if (!changed) return;
  if (rotated_) {  // the slab search reads the leaves alone
    reorder_slab(leaf);
    return;
  }
  for (int node = nodes_[static_cast<std::size_t>(leaf)].parent; node >= 0 && refresh_inner(node);
       node = nodes_[static_cast<std::size_t>(node)].parent) {
  }
}

// Every rank of a leaf against (best_value, best): the costs in one batch, which also
// gives their least, where the cost has one, else rank by rank. Most leaves hold no rank
// that can win, and the least cost says so; in a leaf that does, the lowest rank with
// that cost is the only one that can. Comparing each cost with the bar as it comes would
// read every rank's id and branch on each, a large share of the search.
void NormSearchTree::scan_leaf(const Node& leaf, std::span<const double> x, double& best_value, int& best) {
  const int count = leaf.end - leaf.begin;
  leaf_costs_.resize(static_cast<std::size_t>(count));
  double* costs = leaf_costs_.data();
  const int* ranks = order_.data() + leaf.begin;
  std::optional<double> least =
      cost_.batch(point_load_.data() + leaf.begin, order_.size(), point_inv_.data() + leaf.begin, count, x, costs);
  if (!least) {
    for (int i = 0; i < count; ++i) costs[i] = cost_of(ranks[i], x);
    least = smallest(costs, 0, static_cast<std::size_t>(count));
  }
  evaluations_ += count;
  if (*least > best_value) return;
  int lowest = std::numeric_limits<int>::max();
  for (int i = 0; i < count; ++i) {
    if (costs[i] == *least) lowest = std::min(lowest, ranks[i]);
  }
  if (*least < best_value || lowest < best) {
    best_value = *least;
    best = lowest;
  }
}

int NormSearchTree::best_rank(std::span<const double> x) {
  if (nodes_.empty()) return std::numeric_limits<int>::max();
  if (nodes_.size() == 1) {  // the plain scan, in one batch
    int best = std::numeric_limits<int>::max();
    double best_value = std::numeric_limits<double>::infinity();
    scan_leaf(nodes_[0], x, best_value, best);
    return best;
  }
  if (!rotated_) return search(x);
  rotate(x.data(), -1.0, query_.data());  // the query point is -x
  switch (dims_) {
    case 2: return search_slabs<2>(x);
    case 3: return search_slabs<3>(x);
    case 4: return search_slabs<4>(x);
    default: return search_slabs<0>(x);
  }
}

void NormSearchTree::remember_winner(int best) {
  if (best < static_cast<int>(leaf_of_.size())) last_leaf_ = leaf_of_[static_cast<std::size_t>(best)];
}

// The tree, depth first, the more promising child first, pruned by the lower corners.
int NormSearchTree::search(std::span<const double> x) {
  int best = std::numeric_limits<int>::max();
  double best_value = std::numeric_limits<double>::infinity();
  const Node* nodes = nodes_.data();
  // No rank below can beat (best_value, best): all cost at least the bound, and on a tie
  // the lowest rank below is no lower.
  auto hopeless = [&](int node, double b) {
    return b > best_value || (b == best_value && nodes[node].min_rank > best);
  };
  // The tree halves down to leaves of at least 16 ranks, so it is at most 27 deep for any
  // int rank count, and the stack holds at most one more entry than that.
  struct Entry {
    int node;
    double bound;
  };
  std::array<Entry, 64> stack{};
  int top = 0;
  // Warm start: the last winner's leaf holds ranks much like it, so it usually sets a bar
  // close to the best at once and the walk prunes more.
  const int warm = last_leaf_;
  if (warm >= 0) scan_leaf(nodes[warm], x, best_value, best);
  stack[top++] = {0, corner_bound(0, x)};
  while (top > 0) {
    const Entry e = stack[--top];
    if (hopeless(e.node, e.bound)) continue;
    const Node& n = nodes[e.node];
    if (n.left < 0) {
      if (e.node != warm) scan_leaf(n, x, best_value, best);
      continue;
    }
    const double bl = corner_bound(n.left, x), br = corner_bound(n.right, x);
    const bool left_first = bl < br || (bl == br && nodes[n.left].min_rank < nodes[n.right].min_rank);
    stack[top++] = left_first ? Entry{n.right, br} : Entry{n.left, bl};
    stack[top++] = left_first ? Entry{n.left, bl} : Entry{n.right, br};
  }
  remember_winner(best);
  return best;
}

// p = 2: the leaves in the order they start along the diagonal. The rotated query lies
// below every point there, so a leaf's box bound is at least its distance along the
// diagonal, squared, and so is every later leaf's: the first leaf too far out ends the
// search. Before it, a leaf is scanned unless its box, its expanded square or (on a near
// tie) its corner rules it out. Walking a tree of diagonal slabs instead cost about half
// the search's time in branches mispredicted at each node (see norm_search.hpp).
template <int D>
int NormSearchTree::search_slabs(std::span<const double> x) {
  int best = std::numeric_limits<int>::max();
  double best_value = std::numeric_limits<double>::infinity();
  double x_norm2 = 0;
  if (expanded_) {
    for (int k = 0; k < dims_; ++k) {
      const double xk = x[static_cast<std::size_t>(k)] * cost_.scale(static_cast<std::size_t>(k));
      x_norm2 += xk * xk;
    }
  }
  const int warm = last_leaf_;
  if (warm >= 0) scan_leaf(nodes_[static_cast<std::size_t>(warm)], x, best_value, best);
  const double along = query_[0];
  const double least_inv = nodes_[0].min_inv;
  for (const int leaf : slabs_) {
    // box_bound's first term, at the smallest 1/speed of all (the root's): no more than
    // its bound, or any later leaf's (rounding is monotone).
    const double gap = std::max(diagonal_low(leaf) - along, 0.0);
    if (gap * gap * least_inv * least_inv * (1 - 1e-9) > best_value) break;
    const double bound = box_bound<D>(leaf);
    if (bound > best_value) continue;
    // The expanded square's bound only where the box did not prune: it is needed less
    // often than the box, and costs as much.
    if (expanded_ && lifted_bound(leaf, x, x_norm2) > best_value) continue;
    // Only a near tie needs the corner, exact to the bit; the box bound's margin is 1e-9.
    const bool near_tie = bound >= best_value * (1 - 1e-8);
    const double settled = near_tie ? std::max(bound, corner_bound(leaf, x)) : bound;
    const Node& n = nodes_[static_cast<std::size_t>(leaf)];
    if (settled > best_value || (settled == best_value && n.min_rank > best)) continue;
    if (leaf != warm) scan_leaf(n, x, best_value, best);
  }
  remember_winner(best);
  return best;
}

}  // namespace lbbench
