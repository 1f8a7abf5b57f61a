// Charging the machine for real code. On real MPI, code takes its own time and there is
// nothing to charge. Under a simulator, code runs on the simulating host, outside
// simulated time: the balancers' decisions and the migration engine's packing must then be
// charged as computation on the simulated core, and only they. Charging exactly the code's
// own thread CPU time keeps out what the simulator spends between calls on its own behalf
// (SimGrid's automatic benchmarking charges that too, and it grows with the rank count).
//
// The native engine implements charge_code (engines/<engine>/code_time.cpp).
#pragma once

namespace lbbench {

// Charges `host_cpu_s` seconds of this host's CPU time, spent by code that made no MPI
// call meanwhile.
void charge_code(double host_cpu_s);

// Charges the code that runs while it lives, as code_cpu_seconds() (core/clock.hpp) times
// it; a region shorter than a few microseconds by the monotonic clock (a protocol round
// charges every rank's handler, most of them shorter than the CPU clock's own cost). The
// scope must make no MPI call: under a simulator the thread's CPU time then includes
// other simulated ranks' work.
class ChargedCode {
 public:
  ChargedCode();
  ~ChargedCode();
  ChargedCode(const ChargedCode&) = delete;
  ChargedCode& operator=(const ChargedCode&) = delete;

 private:
  double cpu_start_;
  double wall_start_;
};

}  // namespace lbbench
