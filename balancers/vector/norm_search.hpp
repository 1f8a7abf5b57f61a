// The search at the heart of the Norm strategy: which rank r minimizes the norm of its
// load vector after taking an object x, ||(L_r + x) · scale / s_r||_p? One answer is the
// exhaustive scan over ranks; NormSearchTree gives the identical answer quickly.
//
// Buch speeds the scan up with a random relaxed k-d tree, deleting and reinserting a
// rank's point after every placement. This is our own exact pruning instead, and it is
// simpler: the query point -x lies in the negative orthant and every load in the
// positive one, so the nearest point of any box to -x is the box's lower corner. A
// subtree therefore needs only the component-wise minimum of its points (and the
// smallest 1/speed) to bound every rank in it from below. A placement recomputes only
// the minima its point held and moved away from, on the path to the root, so they stay
// exact while points move without the tree's membership changing; the tree is rebuilt
// from the current points once every rank has moved about once, to keep its subtrees
// spatially tight.
//
// For p = 2 the corner alone bounds poorly: balanced ranks lie along the plane where
// their components sum to the same value, and an axis-aligned box around such points
// has its lower corner far below all of them. The Euclidean norm does not change under
// rotation, so each leaf also keeps its bounding box in a rotated frame whose first
// axis is the diagonal (a Helmert basis); the distance from the rotated query to that box
// is a tight bound. The tree splits only on the diagonal, so its leaves are slabs of the
// distance that dominates the cost, and the search needs no tree: it takes the leaves in
// the order they start along the diagonal (kept by a few swaps after each placement) and
// stops at the first that starts too far out for any of it, or any later leaf, to win.
// A second bound comes from expanding the square: a rank's cost is ||u||² + 2 u·x + ||x||²
// (u its scaled load), so a leaf's smallest ||u||² plus twice its lower corner's dot
// product with x bounds every rank in it; it is tighter where a leaf's points spread
// across the diagonal, and it is used from 4,096 ranks on.
// Both are computed differently from the cost itself, so they are used with a relative
// margin of 1e-9 that rounding cannot exceed; exact ties are left to the corner.
//
// The leaves hold up to 32 ranks each (64 from 8,192 ranks on), laid out component by
// component, so a leaf's costs are one loop the compiler vectorizes (NormCost::batch, the
// same bits as the cost of each rank alone), which also gives their least. Taking the
// leaves in order prunes as well as walking a tree over them (the vector benchmark's
// costed/object shows both).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace lbbench {

// What the strategies compare: the p-th power sum Σ_k ((L_k + x_k) · scale_k · inv)^p,
// which has the p-norm's argmin, or the maximum over k when p is infinite. For p = 1..4
// it uses only + and ×, so it is exactly monotone in every argument, which makes the
// tree's pruning exact to the last bit; other p use std::pow.
class NormCost {
 public:
  explicit NormCost(double p, std::vector<double> scale = {});
  // Instead of the norm after, how much taking x raises the squared 2-norm:
  // Σ_k (u_k + x̂_k)² - u_k², with u = L · scale · inv and x̂ = x · scale · inv. Also
  // monotone in the load, so the tree finds its argmin exactly as well.
  static NormCost squared_increase(std::vector<double> scale);
  [[nodiscard]] double operator()(const double* load, std::span<const double> x, double inv_speed) const;
  [[nodiscard]] double p() const { return p_; }
  // The squared Euclidean norm, which does not change under rotation.
  [[nodiscard]] bool is_squared_euclidean() const { return integer_p_ == 2 && !increase_; }
  [[nodiscard]] double scale(std::size_t k) const { return scale_.empty() ? 1.0 : scale_[k]; }
  // The costs of n points at once, their loads laid out by component (component k of
  // point i at loads[k * stride + i]): per point the same operations in the same order as
  // operator(), so the same bits, in loops a compiler can vectorize. Returns the least of
  // them, or nothing (and writes nothing) where only operator() computes the cost (a p
  // other than 1..4 and ∞, which needs std::pow).
  std::optional<double> batch(const double* loads, std::size_t stride, const double* inv, int n,
                              std::span<const double> x, double* out) const;

 private:
  [[nodiscard]] double term(double t) const;
  double p_;
  int integer_p_;  // 1..4, or 0
  bool infinite_;
  bool increase_ = false;
  std::vector<double> scale_;  // per component; empty means 1
};

// The exhaustive reference: the rank with the smallest cost after adding x, the lowest
// rank among equals. loads is rank-major (ranks x dims).
int best_rank_exhaustive(const NormCost& cost, std::span<const double> loads, std::span<const double> inv_speed,
                         std::span<const double> x);

class NormSearchTree {
 public:
  // loads: rank-major (ranks x dims), the starting points; inv_speed: 1 / speed per rank.
  NormSearchTree(int dims, NormCost cost, std::vector<double> loads, std::vector<double> inv_speed);

  // Exactly best_rank_exhaustive on the current loads.
  [[nodiscard]] int best_rank(std::span<const double> x);
  // L_rank += sign * x.
  void add(int rank, std::span<const double> x, double sign = 1.0);
  [[nodiscard]] std::span<const double> load(int rank) const {
    return {loads_.data() + static_cast<std::size_t>(rank) * dims_, static_cast<std::size_t>(dims_)};
  }
  [[nodiscard]] double cost_of(int rank, std::span<const double> x) const {
    return cost_(loads_.data() + static_cast<std::size_t>(rank) * dims_, x, inv_speed_[static_cast<std::size_t>(rank)]);
  }
  // Ranks whose cost was evaluated, over all searches (for the benchmark's counters).
  [[nodiscard]] std::int64_t evaluations() const { return evaluations_; }

 private:
  struct Node {
    int left = -1, right = -1;  // children, or -1 for a leaf
    int begin = 0, end = 0;     // a leaf's ranks: order_[begin, end)
    int parent = -1;
    int min_rank = 0;    // the lowest rank below, for exact tie-breaking
    double min_inv = 0;  // the smallest 1/speed below
  };

  [[nodiscard]] int search(std::span<const double> x);
  template <int D>
  [[nodiscard]] int search_slabs(std::span<const double> x);
  void remember_winner(int best);
  void rebuild();
  void order_slabs();
  [[nodiscard]] bool slab_before(int a, int b) const;
  void reorder_slab(int leaf);
  // Where a leaf's points start along the diagonal: the low end of its rotated box's first axis.
  [[nodiscard]] double diagonal_low(int leaf) const { return box_[static_cast<std::size_t>(leaf) * 2 * dims_]; }
  void rotate(const double* v, double sign, double* out) const;
  void rotate_point(int rank);
  void add_nodes(int count);
  void build(int id);
  void lay_out(int begin, int end);
  // Recompute a leaf's bounds from its points' loads (at a build).
  void refresh_leaf(int node);
  // The smallest squared norm of the rotated points at positions [begin, end) of order_.
  [[nodiscard]] double least_norm2(std::size_t begin, std::size_t end);
  // Recompute an inner node's bounds from its children; false when nothing changed, so
  // its ancestors need nothing either.
  bool refresh_inner(int node);
  // Lower bounds on the cost of every rank below a node: from its lower corner (exact to
  // the bit), and from its rotated box (p = 2; needs query_ rotated first).
  [[nodiscard]] double corner_bound(int node, std::span<const double> x) const;
  template <int D>
  [[nodiscard]] double box_bound(int node) const;
  // p = 2: the smallest squared norm below plus twice the lower corner's dot product with
  // the query, plus the query's squared norm (x_norm2), at the smallest 1/speed.
  [[nodiscard]] double lifted_bound(int node, std::span<const double> x, double x_norm2) const;
  void scan_leaf(const Node& leaf, std::span<const double> x, double& best_value, int& best);

  int dims_;
  NormCost cost_;
  std::vector<double> loads_;      // rank-major
  std::vector<double> inv_speed_;  // per rank
  std::vector<int> order_;         // ranks, grouped by leaf
  std::vector<int> position_;      // per rank: its index in order_
  std::vector<int> leaf_of_;       // per rank
  // By position in order_, component-major, so a leaf's points sit side by side: the
  // loads, 1/speed, and (p = 2) the rotated points.
  std::vector<double> point_load_, point_inv_, point_y_;
  std::vector<Node> nodes_;
  std::vector<double> lo_;  // per node: the component-wise minimum of its points
  // Per node (p = 2): the smallest squared norm of its points' scaled loads.
  std::vector<double> least_norm2_;
  // The rotated frame (p = 2 only): basis rows, each rank's rotated scaled load
  // (rank-major), each node's rotated box (its d lower ends, then its d upper ends), and the
  // current rotated query.
  bool rotated_ = false;
  bool expanded_ = false;
  int leaf_size_ = 0;  // a leaf holds up to this many ranks, and at least half  // p = 2 at many ranks: the expanded
                       // square's bound too
  std::vector<double> basis_;
  std::vector<double> y_;
  std::vector<double> box_;
  std::vector<double> query_;
  std::vector<double> leaf_costs_;
  // p = 2: the leaves by diagonal_low, the lowest first; and per node, its place there
  // (-1 for an inner node).
  std::vector<int> slabs_;
  std::vector<int> slab_at_;
  int last_leaf_ = -1;  // where the last search's winner is
  std::int64_t updates_since_build_ = 0;
  std::int64_t evaluations_ = 0;
};

}  // namespace lbbench
