// Charging the machine for real code. On real MPI, code takes its own time and there is
// nothing to charge. Under a simulator, code runs on the simulating host, outside
// simulated time: the balancers' decisions and the migration engine's packing must then be
// charged as computation on the simulated core, and only they. Charging exactly the code's
// own thread CPU time keeps out what the simulator spends between calls on its own behalf
// (SimGrid's automatic benchmarking charges that too, and it grows with the rank count).
//
// The native engine implements charge_code (engines/<engine>/code_time.cpp).
#pragma once

#include <algorithm>
#include <optional>

#include "core/clock.hpp"

namespace lbbench {

// Charges `host_cpu_s` seconds of this host's CPU time, spent by code that made no MPI
// call meanwhile.
void charge_code(double host_cpu_s);
// Whether this engine charges code at all (a simulator charging it explicitly); on real MPI
// code takes its own time.
bool code_is_charged();

// Below this a region is timed by the monotonic clock alone: too short to hold a page fault
// or a preemption, and shorter than the CPU clock's own cost.
inline constexpr double kShortRegionSeconds = 5e-6;

// Times code as ChargedCode charges it, without charging: a region shorter than
// kShortRegionSeconds by the monotonic clock is its wall time; a longer one is its
// code_cpu_seconds() (core/clock.hpp), never more than its wall time (the thread CPU clock
// of a virtual machine jumps by tens of microseconds now and then). The region must make
// no MPI call: under a simulator the thread's CPU time then includes other simulated
// ranks' work.
class CodeStopwatch {
 public:
  CodeStopwatch();
  [[nodiscard]] double seconds() const;

 private:
  double cpu_start_;
  double wall_start_;
};

// Charges the code that runs while it lives, as CodeStopwatch times it.
class ChargedCode {
 public:
  ChargedCode() = default;
  ~ChargedCode() { charge_code(watch_.seconds()); }
  ChargedCode(const ChargedCode&) = delete;
  ChargedCode& operator=(const ChargedCode&) = delete;

 private:
  CodeStopwatch watch_;
};

// The time of code that runs twice alike, `once` then `again` (the same pure code twice, or
// one step on a copy of its state and then for real), with `between` run untimed in
// between to free what the first run made: the shorter of the two runs.
//  - A simulator's host is interrupted by what the simulated machine does not have (on a
//    virtual machine often, for stretches that no guest clock can tell from the code's
//    own time), and whichever rank's code runs then would be charged for
//    it; a collective after the code charges the slowest rank to all, so with a thousand
//    ranks nearly every collective would.
//  - The second run finds the code's data in cache, as a rank on its own core would, where
//    a simulator's ranks share one core with the simulator; and it reuses the memory the
//    first freed, where the first touched fresh pages (a page fault costs a little on bare
//    metal, much more on a virtual machine, and nothing on Blue Gene, whose kernel maps
//    memory up front; the CPU clock only subtracts an estimate of it).
//  - Short runs are timed by the monotonic clock alone: reading the CPU clock is a system
//    call, dearer than most handlers. Only when the first run was long is the second timed
//    as CodeStopwatch does.
template <class Once, class Between, class Again>
double shorter_of_two(Once&& once, Between&& between, Again&& again) {
  const double start = wall_seconds();
  once();
  const double first = wall_seconds() - start;
  between();
  if (first >= kShortRegionSeconds) {
    const CodeStopwatch watch;
    again();
    return std::min(first, watch.seconds());
  }
  const double restart = wall_seconds();
  again();
  return std::min(first, wall_seconds() - restart);
}

// Runs pure code (the same inputs give the same result, and it changes nothing else)
// twice and sets `seconds` to the shorter run's time (see shorter_of_two), as charge_pure
// charges it.
template <class Code>
auto time_pure(Code&& code, double& seconds) -> decltype(code()) {
  std::optional<decltype(code())> result;
  seconds = shorter_of_two([&] { result.emplace(code()); }, [&] { result.reset(); }, [&] { result.emplace(code()); });
  return std::move(*result);
}

// Runs pure code and charges it. Where code is charged, it runs twice and the shorter run
// is charged (time_pure).
template <class Code>
auto charge_pure(Code&& code) -> decltype(code()) {
  if (!code_is_charged()) return code();
  double seconds = 0;
  auto result = time_pure(code, seconds);
  charge_code(seconds);
  return result;
}

}  // namespace lbbench
