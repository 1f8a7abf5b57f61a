// A run written out as LBDatafile JSON (see trace_export.hpp).
#include "replay/trace_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/blocks.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

// A recorded run's tasks keep the entity the trace gave them; any other vertex is an
// object named by its id, at home on the rank the mesh builders gave it. A whole rank
// named in the trace's communications is named by the rank that holds it now (`on`), so
// that a run with fewer ranks than the trace reads back.
Json entity_json(const LocalGraph& g, const TraceLayout* trace, VertexId v, int nranks, Rank on) {
  if (trace == nullptr) {
    return Json{{"type", "object"},
                {"id", v.value()},
                {"home", block_owner(v.value(), g.global_vertices, nranks)},
                {"migratable", true}};
  }
  const TraceEntity& e = trace->entity[static_cast<std::size_t>(v.value())];
  if (e.type == "node") return Json{{"type", "node"}, {"id", on.value()}};
  Json j{{"type", e.type}};
  if (e.id) j["id"] = *e.id;
  if (e.seq_id) j["seq_id"] = *e.seq_id;
  j["home"] = e.home;
  j["migratable"] = e.migratable;
  if (e.collection_id) j["collection_id"] = *e.collection_id;
  if (!e.index.empty()) j["index"] = e.index;
  if (e.objgroup_id) j["objgroup_id"] = *e.objgroup_id;
  return j;
}

// A whole rank named in a recorded run's communications is no task of it.
bool is_node_end(const TraceLayout* trace, VertexId v) {
  return trace != nullptr && trace->entity[static_cast<std::size_t>(v.value())].type == "node";
}

}  // namespace

std::vector<int> exported_subphases(const WorkloadSpec& workload) {
  std::vector<int> out;
  if (workload.components.empty()) return out;
  // Other components take the lowest ids no recorded subphase uses, so no two share one
  // and all stay within what the reader takes (at most 16 components).
  std::set<int> used;
  for (const auto& c : workload.components) {
    const auto* t = std::get_if<TraceWeights>(&c.weights);
    if (t && t->part == TraceWeights::Part::subphase) used.insert(t->subphase);
  }
  int next = 0;
  for (const auto& c : workload.components) {
    const auto* t = std::get_if<TraceWeights>(&c.weights);
    if (t) {
      out.push_back(t->part == TraceWeights::Part::subphase ? t->subphase : -1);
      continue;
    }
    while (used.contains(next)) ++next;
    out.push_back(next++);
  }
  return out;
}

Json phase_json(const PhaseOfRank& p) {
  const LocalGraph& g = p.graph;
  Json tasks = Json::array();
  Json communications = Json::array();
  for (std::size_t i = 0; i < p.positions.size(); ++i) {
    const auto v = static_cast<LocalIndex>(p.positions[i]);
    const VertexId id = g.gid[static_cast<std::size_t>(v)];
    const Json self = entity_json(g, p.trace, id, p.nranks, Rank{p.rank});
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const VertexId to = g.adj[static_cast<std::size_t>(e)];
      // vt's names for messages between an object and a whole rank.
      const char* type = is_node_end(p.trace, id)   ? "NodeToCollection"
                         : is_node_end(p.trace, to) ? "CollectionToNode"
                                                    : "SendRecv";
      communications.push_back(
          Json{{"type", type},
               {"from", self},
               {"to", entity_json(g, p.trace, to, p.nranks, g.adj_owner[static_cast<std::size_t>(e)])},
               {"messages", 1},
               {"bytes", static_cast<double>(p.edge_bytes * g.edge_weight(e))}});
    }
    if (is_node_end(p.trace, id)) continue;
    double time = 0;
    Json subphases = Json::array();
    for (std::size_t k = 0; k < p.loads.size(); ++k) {
      const double t = p.loads[k][i];
      time += t;
      if (k < p.subphases.size() && p.subphases[k] >= 0) subphases.push_back(Json{{"id", p.subphases[k]}, {"time", t}});
    }
    Json task{{"entity", self}, {"node", p.rank}, {"resource", "cpu"}, {"time", time}};
    if (!subphases.empty()) task["subphases"] = subphases;
    tasks.push_back(std::move(task));
  }
  return Json{{"id", p.step}, {"tasks", std::move(tasks)}, {"communications", std::move(communications)}};
}

RankExport::RankExport(const std::string& dir, const Scenario& s, const TraceLayout* trace, int rank, int nranks,
                       bool keep_open)
    : writer_(dir, rank, keep_open),
      s_(s),
      trace_(trace),
      subphases_(exported_subphases(s.workload)),
      rank_(rank),
      nranks_(nranks) {}

void RankExport::step(const LocalGraph& g, const StepLoop& loop, int step) {
  if (!error_.empty()) return;
  try {
    write_step(g, loop, step);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

void RankExport::close() {
  if (!error_.empty()) throw RunError(error_);
  writer_.close();
}

void RankExport::write_step(const LocalGraph& g, const StepLoop& loop, int step) {
  const auto& cumulative = loop.phase_time();
  std::vector<std::vector<double>> loads = cumulative;
  if (s_.model != AppModel::measured) {
    // The application's own figure: each vertex's weight times the unit, what do_work was
    // asked to spend.
    for (std::size_t k = 0; k < loads.size(); ++k) {
      for (std::size_t v = 0; v < loads[k].size(); ++v) loads[k][v] = loop.weights()[k][v] * s_.workload.unit_seconds;
    }
  } else if (loop.steps_since_rebuild() > 1) {
    // Times add up since the last migration: this step's is the difference.
    for (std::size_t k = 0; k < loads.size(); ++k) {
      for (std::size_t v = 0; v < loads[k].size(); ++v) loads[k][v] -= previous_[k][v];
    }
  }
  previous_ = cumulative;
  std::vector<std::int64_t> positions(static_cast<std::size_t>(g.num_local()));
  for (std::size_t v = 0; v < positions.size(); ++v) positions[v] = static_cast<std::int64_t>(v);
  writer_.add(phase_json(PhaseOfRank{.step = step,
                                     .rank = rank_,
                                     .nranks = nranks_,
                                     .graph = g,
                                     .trace = trace_,
                                     .positions = positions,
                                     .loads = loads,
                                     .subphases = subphases_,
                                     .edge_bytes = s_.workload.edge_bytes}));
}

std::string lbdatafile_path(const std::string& dir, int rank) {
  return (std::filesystem::path(dir) / fmt::format("data.{}.json", rank)).string();
}

LbDatafileWriter::LbDatafileWriter(const std::string& dir, int rank, bool keep_open)
    : path_(lbdatafile_path(dir, rank)) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream out(path_, std::ios::trunc);
  if (!out) throw InputError(fmt::format("{}: cannot write the LBDatafile here", path_));
  out << R"({"metadata":{"type":"LBDatafile","rank":)" << rank << R"(},"phases":[)";
  out.close();
  if (!out) throw RunError(fmt::format("{}: writing the LBDatafile failed (disk full?)", path_));
  if (keep_open) open_ = std::make_unique<std::ofstream>(path_, std::ios::app);
}

void LbDatafileWriter::append(std::string_view text) {
  std::ofstream own;
  if (!open_) own.open(path_, std::ios::app);
  std::ofstream& out = open_ ? *open_ : own;
  out << text;
  out.flush();
  if (!out) throw RunError(fmt::format("{}: writing the LBDatafile failed (disk full?)", path_));
}

void LbDatafileWriter::add(const Json& phase) {
  append((first_ ? "\n" : ",\n") + phase.dump());
  first_ = false;
}

void LbDatafileWriter::close() {
  append("\n]}\n");
  if (open_) {
    open_->close();
    if (!*open_) throw RunError(fmt::format("{}: writing the LBDatafile failed (disk full?)", path_));
    open_.reset();
  }
}

TraceInfo trace_info(const TraceLayout& trace, int nranks) {
  TraceInfo t;
  t.files = trace.files;
  t.ranks = trace.ranks;
  t.phases = trace.phases();
  t.subphases = trace.subphases;
  t.tasks = trace.vertices();
  t.pinned = trace.vertices() - trace.pinned_from;
  if (trace.stats) {
    t.stats_file = trace.stats->file;
    t.recorded_statistic = trace.stats->statistic;
    for (int k = 0; k < trace.phases(); ++k) {
      const auto& imb = trace.stats->imbalance[static_cast<std::size_t>(k)];
      if (imb) t.recorded_imbalance.push_back(RecordedImbalance{k, trace.phase_ids[static_cast<std::size_t>(k)], *imb});
    }
  }
  if (nranks == trace.ranks) {
    t.mapping = "one to one";
  } else if (nranks < trace.ranks) {
    t.mapping = fmt::format("by blocks: the {} recorded ranks onto {}, recorded rank t on rank t*{}/{}", trace.ranks,
                            nranks, nranks, trace.ranks);
  } else {
    t.mapping = fmt::format(
        "by blocks: each of the {} recorded ranks onto about {} of the {} ranks, its migratable tasks split in equal "
        "blocks, its pinned ones on the first",
        trace.ranks, nranks / trace.ranks, nranks);
  }
  return t;
}

}  // namespace lbbench
