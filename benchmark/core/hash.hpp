// Counter-based randomness: every random quantity in a scenario is a pure function of
// (seed, ids...), so any rank computes it without communication, also after migration.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numbers>

namespace lbbench {

// SplitMix64 finalizer: a bijective mix with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// hash_of a sequence one part longer than the one whose hash is `h`: hash_of({a, b, c})
// equals hash_more(hash_of({a, b}), c), so many draws that share their leading parts can
// hash those once.
constexpr std::uint64_t hash_more(std::uint64_t h, std::uint64_t part) { return mix64(h ^ mix64(part)); }

// Hash of a sequence of integers, order-sensitive.
constexpr std::uint64_t hash_of(std::initializer_list<std::uint64_t> parts) {
  std::uint64_t h = 0x6a09e667f3bcc909ULL;
  for (auto p : parts) h = hash_more(h, p);
  return h;
}

// One vertex's term of a placement digest: the sum over all vertices (mod 2^64) of
// placement_term(id, owner) names where every vertex is, in any order of summing, so
// ranks add their own vertices' terms and one reduction gives the whole placement's.
constexpr std::uint64_t placement_term(std::int64_t id, int owner) {
  return hash_of({static_cast<std::uint64_t>(id), static_cast<std::uint64_t>(owner)});
}

// A double in [0, 1) from 53 high-quality bits.
constexpr double to_unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

inline double uniform01(std::initializer_list<std::uint64_t> parts) { return to_unit(hash_of(parts)); }

// A standard normal deviate by Box-Muller from two independent hashed uniforms.
inline double standard_normal(std::uint64_t h) {
  const double u1 = 1.0 - to_unit(mix64(h ^ 0x1ULL));  // in (0, 1], so log is finite
  const double u2 = to_unit(mix64(h ^ 0x2ULL));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Stable tags that keep the streams of different random quantities apart.
enum class Stream : std::uint64_t {
  weight_uniform = 1,
  weight_lognormal,
  amr_region,
  distribution_random,
  point_position,
  droplet_center,
  droplet_radius,
  payload,
  test_plan,
  balancer_random,
  protocol_random,
  model_error,
};

constexpr std::uint64_t tag(Stream s) { return static_cast<std::uint64_t>(s); }

}  // namespace lbbench
