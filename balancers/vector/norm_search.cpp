// Exact norm search (see norm_search.hpp).
#include "balancers/vector/norm_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace lbbench {

namespace {

// Leaves this small keep the bounds tight; the scan inside a leaf is cheap.
constexpr int kLeafSize = 4;

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
    for (int j = 0; j < i; ++j) b[static_cast<std::size_t>(i * d + j)] = 1.0 / norm;
    b[static_cast<std::size_t>(i * d + i)] = -static_cast<double>(i) / norm;
  }
  return b;
}

}  // namespace

NormSearchTree::NormSearchTree(int dims, NormCost cost, std::vector<double> loads, std::vector<double> inv_speed)
    : dims_(dims), cost_(std::move(cost)), loads_(std::move(loads)), inv_speed_(std::move(inv_speed)) {
  rotated_ = cost_.is_squared_euclidean() && dims_ >= 2;
  if (rotated_) {
    basis_ = helmert_basis(dims_);
    y_.resize(loads_.size());
    query_.resize(static_cast<std::size_t>(dims_));
    for (std::size_t r = 0; r < inv_speed_.size(); ++r) rotate_point(static_cast<int>(r));
  }
  order_.resize(inv_speed_.size());
  std::iota(order_.begin(), order_.end(), 0);
  leaf_of_.resize(inv_speed_.size());
  rebuild();
}

// out = sign · B · (v · scale): a scaled vector in the rotated frame (speed aside).
void NormSearchTree::rotate(const double* v, double sign, double* out) const {
  for (int i = 0; i < dims_; ++i) {
    double acc = 0;
    for (int j = 0; j < dims_; ++j) {
      acc += basis_[static_cast<std::size_t>(i * dims_ + j)] * v[j] * cost_.scale(static_cast<std::size_t>(j));
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

double NormSearchTree::box_bound(int node) const {
  const auto at = static_cast<std::size_t>(node) * dims_;
  const double min_inv = nodes_[static_cast<std::size_t>(node)].min_inv;
  double dist2 = 0;
  for (int i = 0; i < dims_; ++i) {
    const double q = query_[static_cast<std::size_t>(i)];
    const double gap = q < ylo_[at + i] ? ylo_[at + i] - q : q > yhi_[at + i] ? q - yhi_[at + i] : 0.0;
    dist2 += gap * gap;
  }
  return dist2 * min_inv * min_inv * (1 - 1e-9);
}

void NormSearchTree::rebuild() {
  nodes_.clear();
  lo_.clear();
  ylo_.clear();
  yhi_.clear();
  if (!order_.empty()) build(0, static_cast<int>(order_.size()), -1);
  updates_since_build_ = 0;
}

// Splits at the median of the component (in the units the cost sees) whose spread
// matters most to the cost, so sibling subtrees separate where their costs differ most.
int NormSearchTree::build(int begin, int end, int parent) {
  const int id = static_cast<int>(nodes_.size());
  nodes_.push_back(Node{.begin = begin, .end = end, .parent = parent});
  lo_.resize(lo_.size() + static_cast<std::size_t>(dims_));
  if (rotated_) {
    ylo_.resize(lo_.size());
    yhi_.resize(lo_.size());
  }
  auto position = [&](int rank, int k) {
    const auto at = static_cast<std::size_t>(rank) * dims_ + k;
    return rotated_ ? y_[at] : loads_[at] * inv_speed_[static_cast<std::size_t>(rank)];
  };
  if (end - begin <= kLeafSize) {
    for (int i = begin; i < end; ++i) leaf_of_[static_cast<std::size_t>(order_[static_cast<std::size_t>(i)])] = id;
    refresh(id);
    return id;
  }
  int split = 0;
  double widest = -1;
  for (int k = 0; k < dims_; ++k) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int i = begin; i < end; ++i) {
      lo = std::min(lo, position(order_[static_cast<std::size_t>(i)], k));
      hi = std::max(hi, position(order_[static_cast<std::size_t>(i)], k));
    }
    // In the rotated frame a query sits far out along the diagonal, so the cost is far
    // more sensitive there: weigh each spread by how far the points sit from the origin
    // along that axis, roughly the cost's gradient.
    const double weight = rotated_ ? (hi - lo) * (std::max(std::abs(lo), std::abs(hi)) + (hi - lo)) : hi - lo;
    if (weight > widest) {
      widest = weight;
      split = k;
    }
  }
  const int mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                   [&](int a, int b) { return position(a, split) < position(b, split); });
  const int left = build(begin, mid, id);
  const int right = build(mid, end, id);
  nodes_[static_cast<std::size_t>(id)].left = left;
  nodes_[static_cast<std::size_t>(id)].right = right;
  refresh(id);
  return id;
}

// Recomputes one node's minima from its points (a leaf) or its children.
void NormSearchTree::refresh(int node) {
  Node& n = nodes_[static_cast<std::size_t>(node)];
  double* lo = lo_.data() + static_cast<std::size_t>(node) * dims_;
  std::fill(lo, lo + dims_, std::numeric_limits<double>::infinity());
  n.min_rank = std::numeric_limits<int>::max();
  n.min_inv = std::numeric_limits<double>::infinity();
  double* ylo = rotated_ ? ylo_.data() + static_cast<std::size_t>(node) * dims_ : nullptr;
  double* yhi = rotated_ ? yhi_.data() + static_cast<std::size_t>(node) * dims_ : nullptr;
  if (rotated_) {
    std::fill(ylo, ylo + dims_, std::numeric_limits<double>::infinity());
    std::fill(yhi, yhi + dims_, -std::numeric_limits<double>::infinity());
  }
  auto take = [&](const double* point, const double* low, const double* high, int rank, double inv) {
    for (int k = 0; k < dims_; ++k) lo[k] = std::min(lo[k], point[k]);
    if (rotated_) {
      for (int k = 0; k < dims_; ++k) {
        ylo[k] = std::min(ylo[k], low[k]);
        yhi[k] = std::max(yhi[k], high[k]);
      }
    }
    n.min_rank = std::min(n.min_rank, rank);
    n.min_inv = std::min(n.min_inv, inv);
  };
  if (n.left < 0) {
    for (int i = n.begin; i < n.end; ++i) {
      const int r = order_[static_cast<std::size_t>(i)];
      const auto at = static_cast<std::size_t>(r) * dims_;
      const double* y = rotated_ ? y_.data() + at : nullptr;
      take(loads_.data() + at, y, y, r, inv_speed_[static_cast<std::size_t>(r)]);
    }
  } else {
    for (const int child : {n.left, n.right}) {
      const Node& c = nodes_[static_cast<std::size_t>(child)];
      const auto at = static_cast<std::size_t>(child) * dims_;
      take(lo_.data() + at, rotated_ ? ylo_.data() + at : nullptr, rotated_ ? yhi_.data() + at : nullptr, c.min_rank,
           c.min_inv);
    }
  }
}

void NormSearchTree::add(int rank, std::span<const double> x, double sign) {
  double* point = loads_.data() + static_cast<std::size_t>(rank) * dims_;
  for (int k = 0; k < dims_; ++k) point[k] += sign * x[static_cast<std::size_t>(k)];
  if (rotated_) rotate_point(rank);
  if (++updates_since_build_ >= static_cast<std::int64_t>(inv_speed_.size())) {
    rebuild();
    return;
  }
  // Unchanged bounds at a node leave every ancestor's unchanged too.
  auto snapshot = [&](int node, std::vector<double>& out) {
    const auto at = static_cast<std::size_t>(node) * dims_;
    out.assign(lo_.begin() + static_cast<std::ptrdiff_t>(at), lo_.begin() + static_cast<std::ptrdiff_t>(at + dims_));
    if (rotated_) {
      out.insert(out.end(), ylo_.begin() + static_cast<std::ptrdiff_t>(at),
                 ylo_.begin() + static_cast<std::ptrdiff_t>(at + dims_));
      out.insert(out.end(), yhi_.begin() + static_cast<std::ptrdiff_t>(at),
                 yhi_.begin() + static_cast<std::ptrdiff_t>(at + dims_));
    }
  };
  for (int node = leaf_of_[static_cast<std::size_t>(rank)]; node >= 0;
       node = nodes_[static_cast<std::size_t>(node)].parent) {
    snapshot(node, scratch_);
    refresh(node);
    snapshot(node, scratch_after_);
    if (scratch_ == scratch_after_) break;
  }
}

int NormSearchTree::best_rank(std::span<const double> x) {
  int best = std::numeric_limits<int>::max();
  double best_value = std::numeric_limits<double>::infinity();
  // No rank below can beat (best_value, best): all cost at least the bound, and on a tie
  // the lowest rank below is no lower.
  auto hopeless = [&](int node, double b) {
    return b > best_value || (b == best_value && nodes_[static_cast<std::size_t>(node)].min_rank > best);
  };
  // The cheap bound orders the search; the corner, exact to the bit, settles ties.
  auto quick_bound = [&](int node) { return rotated_ ? box_bound(node) : corner_bound(node, x); };
  if (rotated_) rotate(x.data(), -1.0, query_.data());  // the query point is -x
  stack_.clear();
  stack_.emplace_back(0, quick_bound(0));
  while (!stack_.empty()) {
    const auto [node, quick] = stack_.back();
    stack_.pop_back();
    if (quick > best_value) continue;
    // Only a near tie needs the corner; the box bound's margin is 1e-9.
    const bool near_tie = quick >= best_value * (1 - 1e-8);
    if (hopeless(node, rotated_ && near_tie ? std::max(quick, corner_bound(node, x)) : quick)) continue;
    const Node& n = nodes_[static_cast<std::size_t>(node)];
    if (n.left < 0) {
      for (int i = n.begin; i < n.end; ++i) {
        const int r = order_[static_cast<std::size_t>(i)];
        const double v = cost_of(r, x);
        ++evaluations_;
        if (v < best_value || (v == best_value && r < best)) {
          best_value = v;
          best = r;
        }
      }
      continue;
    }
    const double bl = quick_bound(n.left), br = quick_bound(n.right);
    // The more promising child goes on top, to be searched first.
    const bool left_first = bl < br || (bl == br && nodes_[static_cast<std::size_t>(n.left)].min_rank <
                                                        nodes_[static_cast<std::size_t>(n.right)].min_rank);
    if (left_first) {
      stack_.emplace_back(n.right, br);
      stack_.emplace_back(n.left, bl);
    } else {
      stack_.emplace_back(n.left, bl);
      stack_.emplace_back(n.right, br);
    }
  }
  return best;
}

}  // namespace lbbench
