// Calibrating do_work: how many random reads per second this host does, measured once and
// cached per host and per number of ranks reading at once on it (ranks share the memory
// system, so one rank alone reads faster than each of two together), and how accurately
// do_work(w) then hits its target time.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"
#include "engines/mpi/do_work.hpp"

namespace lbbench {

struct Calibration {
  double accesses_per_second = 0;
  std::size_t array_bytes = 0;
  std::string host;
  std::string cpu;
  std::string measured_at;
  std::string source;        // "measured" or "cached"
  int ranks_per_node = 1;    // how many ranks on the host read at once (see readers_on_node)
  double call_seconds = 0;   // a short call's cost beyond its reads at the rate (see DoWork)
  double clock_seconds = 0;  // one read of the wall clock, which a run pays per call it times
};

// How many of `node`'s ranks (one host's) read at once: all of them, or as many as the host
// has cores when they outnumber them and take turns.
int readers_on_node(MPI_Comm node);
// Whether `node`'s ranks outnumber its cores, so that they take turns while measuring, which
// skews do_work's rate: such a rate is never cached.
bool ranks_take_turns(MPI_Comm node);

Json to_json(const Calibration& c);

// Times batches of ~10 ms for about `seconds` and takes the median rate; then times short
// calls back to back, one clock read each, as a run that times its vertices makes them,
// for their fixed cost, and the clock read alone, which a run that does not time them
// does not pay.
Calibration measure_calibration(WorkKernel& kernel, double seconds);

// The cache file: $LBBENCH_CACHE_DIR, else $XDG_CACHE_HOME/lbbench, else ~/.cache/lbbench,
// one JSON file per host and number of ranks per node (calibration-HOST.json for one,
// calibration-HOST-N-per-node.json for N).
std::string calibration_cache_path(int ranks_per_node);
// Only a calibration made with as many ranks on the node as now reading at once.
std::optional<Calibration> load_cached_calibration(std::size_t array_bytes, int ranks_per_node);
void save_calibration(const Calibration& c);  // atomic: write then rename

// The calibration a run's ranks use, collective over comm: each node's ranks take the
// cached one for as many readers as they are, or measure together when there is none (or
// `recalibrate`), and every rank then uses the mean rate and fixed costs, so that a weight
// is the same number of reads everywhere. Leaves the kernel's array paged in.
Calibration calibration_for_run(WorkKernel& kernel, bool recalibrate, MPI_Comm comm);

// The process's work kernel and its calibration for runs over communicators of comm's
// size, collective over comm: the array is allocated and paged in once per process and
// calibrated (calibration_for_run) once per communicator size, so that several runs in one
// process (calibrate --overhead makes dozens, next to a loop of its own) pay for neither
// again and all read at the same rate.
struct ProcessKernel {
  WorkKernel& kernel;
  const Calibration& calibration;
};
ProcessKernel process_kernel(bool recalibrate, MPI_Comm comm);

struct AccuracyRow {
  double target_s = 0;
  int repetitions = 0;
  double mean_s = 0;
  double error_pct = 0;  // (mean - target) / target
  double cv_pct = 0;     // standard deviation / mean
  double p5_s = 0;
  double p95_s = 0;
  // The median call against the target: a host that interrupts a few calls (other
  // tenants, the kernel) moves the mean and not the median, so where the two errors part
  // the host's noise, not the calibration, is what is off.
  double median_s = 0;
  double median_error_pct = 0;
};

// Runs do_work for targets from 1 us to 1 s (or up to 10 ms when quick).
std::vector<AccuracyRow> measure_accuracy(WorkKernel& kernel, const Calibration& c, bool quick);

std::string cpu_model();

}  // namespace lbbench
