// Every rank's load at chosen steps (`lbbench run --rank-loads FILE`): the step before and
// the step after each LB call, and every `stride`-th step, each rank's do_work time per
// load component, with where the ranks sit on the machine, for `plot.py ranks`.
//
// The file is one brotli stream: a line of JSON (the header: the run, the machine's
// layout, the rows' steps and labels), then little-endian binary columns: int32 node and
// int32 site per rank, then float32 loads, row by row, rank-major, components fastest.
// Compact at 10^5 ranks (4 bytes per rank and row, before compression).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "record/run_record.hpp"
#include "replay/step_loop.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// Which steps a run records: those that end before an LB call and the ones after them,
// and every `stride`-th step (0: none).
struct RankLoadSteps {
  int stride = 0;
  [[nodiscard]] bool may_record(const Scenario& s, int step) const;
};

struct RankLoadRow {
  int step = 0;
  std::vector<std::string> labels;  // "before LB 1", "after LB 1", "stride"
  std::vector<float> loads;         // nranks x dims, rank-major
};

// Keeps the rows of the steps that were recorded: labels from the run's LB calls.
std::vector<RankLoadRow> label_rows(std::vector<RankLoadRow> candidates, const std::vector<LbEvent>& events,
                                    int stride);

struct RankLoadsFile {
  const Scenario& scenario;
  std::string engine;
  const MachineInfo& machine;
  int nranks = 1;
  std::vector<std::string> components;
  std::vector<RankLoadRow> rows;
};

// Throws RunError when the file cannot be written.
void write_rank_loads(const std::string& path, const RankLoadsFile& file);

// An MPI engine's rows: every rank's own times of the recorded steps gathered to rank 0
// after the run (no collective during it). Collective; the rows are rank 0's.
std::vector<RankLoadRow> gather_rank_loads(const Scenario& s, const RankSteps& mine, int dims,
                                           const RankLoadSteps& which, MPI_Comm comm);

}  // namespace lbbench
