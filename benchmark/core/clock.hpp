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
// the simulator, which one shared heap serves all ranks from. A fault costs far more on a
// virtual machine than on bare metal, enough there for the heap's state alone to sway a
// balancer's charged decision.
double code_cpu_seconds();
// What one minor page fault costs this thread, measured on first use.
double page_fault_seconds();

// The current UTC time in strftime's `format`; by default ISO 8601, "2026-11-21T20:59:00Z".
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");
// The real host this process runs on.
std::string host_name();

// Cycles per second of one core of this host, in GHz, measured with a chain of dependent
// adds (one per cycle on any current core): the fastest of three runs of about 0.1 s.
double measured_host_ghz();

}  // namespace lbbench
