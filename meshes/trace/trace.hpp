// A recorded application run in vt's LBDatafile format, the one LBAF reads: every rank's
// tasks per phase with their times and subphase times, and the communications between
// tasks. lbbench replays it as a graph: tasks are vertices, communications are edges, and
// phase k of the trace is step k of the replay.
//
// The format (vt's LB data, LBAF's schema): a JSON object per rank with `type:
// "LBDatafile"` (at the top or under `metadata`) and `phases`; a phase has an `id`,
// `tasks` and optional `communications`; a task has an `entity` (`id` or `seq_id`, `home`,
// `migratable`, ...), the `node` that ran it, its `time` in seconds and optional
// `subphases`; a communication has a `type`, `from` and `to` entities, `bytes` and
// `messages`. Files are plain JSON or brotli-compressed (vt's default), told apart by
// their content. LBAF's own output reads too: it writes a migrated task's new rank as its
// `home`, where vt keeps the first (the reader keeps the first, and notes the change).
//
// vt may write its own statistics of the run beside the data: an LBStatsfile (`type:
// "LBStatsfile"`, vt names it vt_lb_statistics.<time>.json[.br]), per phase the pre-LB
// (and post-LB) statistics of rank and object loads. The reader sets it aside from the
// data and keeps the rank-load imbalance vt recorded per phase, to compare with a replay's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace lbbench {

// Who a task is, as the trace names it, so that an exported trace names the same ones.
struct TraceEntity {
  std::optional<std::int64_t> id;      // vt's bit-packed id
  std::optional<std::int64_t> seq_id;  // LBAF's sequential id; one of the two is given
  std::string type = "object";         // "node" for a whole rank named in a communication
  int home = 0;                        // of its first phase: LBAF rewrites it after a migration, vt does not
  bool migratable = true;
  std::optional<std::int64_t> collection_id;
  std::optional<std::int64_t> objgroup_id;
  std::vector<std::int64_t> index;
  friend bool operator==(const TraceEntity&, const TraceEntity&) = default;
};

// The rank-load imbalance vt's LBStatsfile recorded per phase of the trace: its pre-LB
// statistic's `imb`, max/avg - 1 as vt defines it.
struct TraceStats {
  std::string file;
  std::string statistic;  // "Rank_load_raw" (measured), or "Rank_load_modeled" where the file lacks it
  // Per phase of the trace (TraceLayout::phase_ids' order); none where the file has no
  // statistics of that phase.
  std::vector<std::optional<double>> imbalance;
  friend bool operator==(const TraceStats&, const TraceStats&) = default;
};

// What the replay needs of a trace besides its graph, the same on every rank. Tasks are
// vertices 0..V-1 in this order: the migratable ones by (the rank that ran them first,
// entity), then the non-migratable ones (vt's object groups) likewise, which stay on
// their rank for the whole run.
struct TraceLayout {
  int ranks = 1;                            // ranks of the recorded run
  int files = 0;                            // the files it was read from
  std::vector<std::int64_t> phase_ids;      // the recorded phases, in order: step k replays phase_ids[k]
  int subphases = 0;                        // subphase ids run 0..subphases-1
  std::int64_t pinned_from = 0;             // the first non-migratable vertex
  std::vector<int> first_rank;              // per vertex: the rank that ran it in its first phase
  std::vector<std::int64_t> movable_begin;  // per recorded rank + 1: its migratable vertices' range
  // Per vertex, per phase, slots_per_phase() times in seconds: the task's time, each
  // subphase's, and the time outside every subphase ("rest"). 0 where a task is absent.
  std::vector<double> times;
  // Per vertex, per phase: the rank that ran the task, -1 where it is absent. The replay
  // starts from the first phase's; the later ones say where the recorded run moved it.
  std::vector<int> nodes;
  std::vector<TraceEntity> entity;  // per vertex
  std::optional<TraceStats> stats;  // where the trace's files included vt's LBStatsfile

  [[nodiscard]] std::int64_t vertices() const { return static_cast<std::int64_t>(first_rank.size()); }
  [[nodiscard]] int phases() const { return static_cast<int>(phase_ids.size()); }
  [[nodiscard]] int slots_per_phase() const { return subphases + 2; }
  [[nodiscard]] static int time_slot() { return 0; }
  [[nodiscard]] static int subphase_slot(int subphase) { return 1 + subphase; }
  [[nodiscard]] int rest_slot() const { return subphases + 1; }
  [[nodiscard]] double time(VertexId v, int phase, int slot) const {
    return times[(static_cast<std::size_t>(v.value()) * static_cast<std::size_t>(phases()) +
                  static_cast<std::size_t>(phase)) *
                     static_cast<std::size_t>(slots_per_phase()) +
                 static_cast<std::size_t>(slot)];
  }
  [[nodiscard]] int node(VertexId v, int phase) const {
    return nodes[static_cast<std::size_t>(v.value()) * static_cast<std::size_t>(phases()) +
                 static_cast<std::size_t>(phase)];
  }
  [[nodiscard]] bool is_pinned(VertexId v) const { return v.value() >= pinned_from; }
  // Where the vertex starts on a run of `nranks` ranks. The recorded ranks map onto the
  // run's by blocks: with fewer run ranks, recorded rank t goes to t·P/T; with more, the
  // run ranks t·P/T to (t+1)·P/T − 1 share recorded rank t's migratable tasks in equal
  // blocks, and its non-migratable ones stay on the first of them.
  [[nodiscard]] Rank start_rank(VertexId v, int nranks) const;
};

// An undirected edge between two vertices (a < b) and the bytes one message of it carries
// each step: the trace's bytes in both directions over all its phases, divided by twice
// the phase count, so that a step's two messages carry a mean phase's traffic.
struct TraceEdge {
  std::int64_t a = 0;
  std::int64_t b = 0;
  std::int64_t bytes = 0;
  friend bool operator==(const TraceEdge&, const TraceEdge&) = default;
};

// Each recorded rank's work in `phase` (an index into phase_ids) where the trace placed
// the tasks then: the sum of their times, pinned ones included, as LBAF sums a rank's.
std::vector<double> recorded_rank_work(const TraceLayout& trace, int phase);
// Their max/avg - 1 (0 for no work): the imbalance LBAF reports of that phase.
double recorded_imbalance(const TraceLayout& trace, int phase);

struct Trace {
  std::shared_ptr<const TraceLayout> layout;
  std::vector<TraceEdge> edges;  // sorted by (a, b)
  std::vector<std::string> files;
  std::int64_t communications = 0;       // records read
  std::int64_t self_communications = 0;  // from a task to itself: nothing crosses, no edge
  std::int64_t messages = 0;             // the trace's message count over all phases
  // What the reader took leniently or the replay leaves out, one line each, for rank 0 to
  // print (not sent to the other ranks).
  std::vector<std::string> notes;
};

// The files a trace source names: a folder (its *.json files), a pattern with %r (rank
// numbers from 0 up to the first missing file) or a glob. Sorted by the rank number in
// their names where there is one. Throws InputError when nothing matches. A folder holds
// one data set and, besides it, may hold vt's LBStatsfile, which is listed too (the
// reader tells it by its type).
std::vector<std::string> trace_files(const std::string& source);

// Reads and checks a whole trace. Every error names the file, the JSON path and what was
// expected; nothing is returned half-read. Files typed LBStatsfile are read as the
// trace's statistics (one at most is compared; files of statistics alone are an error).
Trace read_trace(const std::string& source);
// The same, read once per process while its files stay as they were (same names, sizes and
// modification times): the front end, the memory estimate and the simulated ranks of one
// process share it.
std::shared_ptr<const Trace> read_trace_once(const std::string& source);
Trace read_trace_files(const std::vector<std::string>& files);

// The trace as bytes and back, for sending it from the rank that read it to the others.
std::vector<std::byte> serialize_trace(const Trace& trace);
Trace deserialize_trace(std::span<const std::byte> bytes);

}  // namespace lbbench
