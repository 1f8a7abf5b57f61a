// Host time: a monotonic clock for timers, UTC timestamps and the host name for provenance.
#pragma once

#include <string>

namespace lbbench {

// Seconds on this host's monotonic clock (not the simulated clock of a simulated run: the
// run's clock is its engine's).
double wall_seconds();
// CPU time of the calling thread, in seconds: what a piece of code cost, whatever else the
// host was doing meanwhile.
double thread_cpu_seconds();
// The calling thread's CPU seconds spent in its own code: thread_cpu_seconds() less its
// minor page faults (first touches of fresh memory) at what one costs on this host. Only
// differences mean anything. The engines charge simulated and modeled machines for real
// code by this clock: an application's heap is warm after its first steps (and Blue Gene's
// kernel maps memory up front), while what is fresh to the simulating process depends on
// the simulator, which one shared heap serves all ranks from. A fault costs 0.5-1 us on
// bare metal and 12 us on a virtual machine where this was measured: there, a balancer's
// charged decision could double with the heap's state alone.
double code_cpu_seconds();
// What one minor page fault costs this thread, measured on first use.
double page_fault_seconds();

// Times many short pieces of code, as code_cpu_seconds() would, at a fraction of its cost:
// a piece is timed by the monotonic clock (tens of nanoseconds), and only one that took
// longer than `long_s` by it (where a preemption or a page fault may hide) is timed again
// by the CPU clock, which costs a microsecond or two on a virtual machine: its CPU time is
// the CPU time since the last such reading less the wall time spent since then before the
// piece began. That holds where the thread ran all along between the pieces, as in the
// serial protocol driver, which times every rank's handler in every round with it:
// millions of pieces, most shorter than a microsecond. (Not under a simulator, whose
// ranks' threads wait between their pieces: mpi/code_time.hpp reads both clocks instead.)
class PieceTimer {
 public:
  explicit PieceTimer(double long_s = 5e-6);
  void start();
  // The piece's seconds since start().
  double stop();

 private:
  double long_s_;
  double started_ = 0;
  double cpu_mark_ = 0;   // code_cpu_seconds() at the last CPU reading
  double wall_mark_ = 0;  // wall_seconds() then
};

// The current UTC time in strftime's `format`; by default ISO 8601, "2026-11-21T20:59:00Z".
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");
// The real host this process runs on.
std::string host_name();

}  // namespace lbbench
