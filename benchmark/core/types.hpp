// Strong aliases for the ids and quantities that are easy to mix up: global vertex ids,
// MPI ranks and loads in seconds.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace lbbench {

// A value that only converts to and from its underlying type on purpose, so a rank can
// never be passed where a vertex id is expected.
template <class T, class Tag>
class Strong {
 public:
  using value_type = T;
  constexpr Strong() = default;
  constexpr explicit Strong(T value) : value_(value) {}
  [[nodiscard]] constexpr T value() const { return value_; }
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 a defaulted <=> compares with
  friend constexpr auto operator<=>(Strong, Strong) = default;

 private:
  T value_{};
};

struct VertexIdTag {};
struct RankTag {};

// Global vertex id, 0-based, dense over the whole mesh.
using VertexId = Strong<std::int64_t, VertexIdTag>;
// An MPI rank in the benchmark's communicator.
using Rank = Strong<int, RankTag>;
// Index of a vertex in this rank's local arrays; plain because it only ever indexes arrays.
using LocalIndex = std::int32_t;

// Time a piece of work takes, in seconds. Arithmetic is allowed; mixing with ids is not.
class Load {
 public:
  constexpr Load() = default;
  constexpr explicit Load(double seconds) : s_(seconds) {}
  [[nodiscard]] constexpr double seconds() const { return s_; }
  constexpr Load& operator+=(Load o) {
    s_ += o.s_;
    return *this;
  }
  constexpr Load& operator-=(Load o) {
    s_ -= o.s_;
    return *this;
  }
  friend constexpr Load operator+(Load a, Load b) { return Load(a.s_ + b.s_); }
  friend constexpr Load operator-(Load a, Load b) { return Load(a.s_ - b.s_); }
  friend constexpr Load operator*(Load a, double k) { return Load(a.s_ * k); }
  friend constexpr Load operator*(double k, Load a) { return Load(a.s_ * k); }
  friend constexpr Load operator/(Load a, double k) { return Load(a.s_ / k); }
  friend constexpr double operator/(Load a, Load b) { return a.s_ / b.s_; }
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 a defaulted <=> compares with
  friend constexpr auto operator<=>(Load, Load) = default;

 private:
  double s_ = 0.0;
};

static_assert(sizeof(VertexId) == sizeof(std::int64_t), "VertexId is sent over MPI as int64");
static_assert(sizeof(Rank) == sizeof(int), "Rank is sent over MPI as int");
static_assert(sizeof(Load) == sizeof(double), "Load is sent over MPI as double");

}  // namespace lbbench

template <class T, class Tag>
struct std::hash<lbbench::Strong<T, Tag>> {
  std::size_t operator()(lbbench::Strong<T, Tag> s) const noexcept { return std::hash<T>{}(s.value()); }
};
