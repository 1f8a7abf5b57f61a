// `lbbench calibrate --overhead`: the smallest work per task the replay can still time,
// in Task Bench's terms (Slaughter et al., SC'20). METG(50%) is the smallest task
// granularity at which a run still does half the useful work per second it does with
// large tasks; granularity is elapsed time x ranks / tasks. The replay runs a chain of one
// task per rank with 16-byte messages and no balancing at work per task from 0 to about
// 1 ms, interleaved with Task Bench's MPI "nonblock" loop written out with the same
// do_work kernel (the bare loop), so that the two differ only by what the replay adds.
#pragma once

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

namespace lbbench {

struct OverheadPoint {
  double work_s = 0;         // do_work's target per task
  int steps = 0;             // steps each run took
  double replay_step_s = 0;  // the replay's seconds per step (median of the repetitions)
  double bare_step_s = 0;    // the bare loop's
  double do_work_s = 0;      // one call of do_work at that work, alone
};

struct Overhead {
  std::vector<OverheadPoint> points;  // work 0 first, then increasing
  double clock_seconds = 0;           // one clock read (the calibration's)
};

// How long and how often: `repetitions` runs of each loop at each work per task (0: 5,
// or 1 with `quick`), each run about 0.15 s (0.03 s with `quick`).
struct OverheadRequest {
  bool quick = false;
  int repetitions = 0;
  std::string json_path;  // where rank 0 also writes the table as JSON ("": nowhere)
};

// Collective over comm: runs the replay and the bare loop at each work per task.
Overhead measure_overhead(MPI_Comm comm, const OverheadRequest& request);

// Useful work per second at large granularity: the median over both loops' last few
// points. One peak for both, as Task Bench rates every system against one peak: the two
// run the same kernel, so their useful work per second is the same quantity, and a noisy
// large task in one loop does not move that loop's every efficiency alone.
double peak_rate(std::span<const OverheadPoint> points);

// The granularity (seconds per step, one task per rank) at which the efficiency of the
// replay (or of the bare loop) first reaches `level`, interpolated on a log scale between
// the points around it; efficiency is work per second relative to peak_rate.
// NaN when even the smallest nonzero work reaches it, or none does.
double efficiency_crossing(std::span<const OverheadPoint> points, bool replay, double level);

// Measures and prints the table, both METGs and the floor's breakdown; returns the exit code.
int overhead_command(const OverheadRequest& request);

}  // namespace lbbench
