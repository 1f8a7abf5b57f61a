// A run written out as vt's LBDatafile, the format LBAF reads: one file per rank, each
// step a phase with the rank's tasks (its vertices), their loads that step and, for a
// vector workload, each component's load as a subphase, and the messages they sent.
// Reading the files again (mesh.format lbdatafile) gives the same tasks, loads and
// communications back, and the placement of the first step.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_yaml.hpp"
#include "core/local_graph.hpp"
#include "record/run_record.hpp"
#include "replay/step_loop.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// The subphase id each load component is written as: a trace component keeps its
// recorded subphase id, its "rest" (time outside every subphase) is no subphase (-1), and
// the other components take the lowest ids the recorded ones leave free, in order. One
// component (a scalar workload): none.
std::vector<int> exported_subphases(const WorkloadSpec& workload);

// One rank's phase: its vertices `positions` of `g` (a rank's own graph, or one rank's
// share of a whole graph), their loads per component (loads[k][i] for positions[i]), and
// every edge's message from them, edge_bytes times the edge's weight. A recorded run's
// tasks (`trace`, null for other meshes) keep their entities.
struct PhaseOfRank {
  int step = 0;
  int rank = 0;
  int nranks = 1;
  const LocalGraph& graph;
  const TraceLayout* trace = nullptr;
  std::span<const std::int64_t> positions;
  const std::vector<std::vector<double>>& loads;
  std::span<const int> subphases;
  std::int64_t edge_bytes = 0;
};
Json phase_json(const PhaseOfRank& phase);

// Appends phases to DIR/data.<rank>.json as they come, so a long run holds none of them.
// One process writing many ranks' files (the model engine) opens each for every phase
// (keep_open false) rather than holding thousands of files open.
class LbDatafileWriter {
 public:
  LbDatafileWriter(const std::string& dir, int rank, bool keep_open = true);
  void add(const Json& phase);
  // Ends the phases list; throws RunError when the file could not be written.
  void close();
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void append(std::string_view text);
  std::string path_;
  std::unique_ptr<std::ofstream> open_;  // kept open only when asked
  bool first_ = true;
};

// What the record says of a replayed trace, on a run of `nranks` ranks.
TraceInfo trace_info(const TraceLayout& trace, int nranks);

// What one rank of an MPI engine writes: after every step, its vertices' loads that step
// (do_work's measured times with `model: measured`, otherwise weight × unit_seconds, the
// figure the application gives) and their messages. A failure to write is kept until
// close(), which every rank calls together, so one rank's full disk cannot leave the
// others waiting in the next step. Simulated ranks share one process: each then opens its
// file only to append (keep_open false).
class RankExport {
 public:
  RankExport(const std::string& dir, const Scenario& s, const TraceLayout* trace, int rank, int nranks, bool keep_open);
  void step(const LocalGraph& g, const StepLoop& loop, int step);
  // Throws RunError when a step could not be written.
  void close();

 private:
  void write_step(const LocalGraph& g, const StepLoop& loop, int step);
  LbDatafileWriter writer_;
  std::string error_;
  const Scenario& s_;
  const TraceLayout* trace_;
  std::vector<int> subphases_;
  std::vector<std::vector<double>> previous_;  // the loop's summed times after the last step
  int rank_;
  int nranks_;
};

// The file of one rank in an export folder.
std::string lbdatafile_path(const std::string& dir, int rank);

}  // namespace lbbench
