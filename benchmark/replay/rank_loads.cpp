// Every rank's load at chosen steps (see rank_loads.hpp).
#include "replay/rank_loads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>

#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "machine/preset.hpp"
#include "meshes/trace/json_text.hpp"
#include "replay/record_builder.hpp"

namespace lbbench {

namespace {

template <class T>
void append_binary(std::string& out, const std::vector<T>& values) {
  const auto* bytes = reinterpret_cast<const char*>(values.data());  // little-endian hosts only
  out.append(bytes, values.size() * sizeof(T));
}

const char* topology_name(const Scenario& s) {
  if (!s.machine.definition) return "local";
  switch (s.machine.effective_preset().topology) {
    case Topology::torus: return "torus";
    case Topology::fat_tree: return "fat-tree";
    case Topology::crossbar: return "crossbar";
  }
  return "local";
}

// Where the ranks sit, for the picture: the preset's torus shape and ranks per node on a
// simulated machine; on the real hosts, the nodes the engine found.
Json machine_json(const RankLoadsFile& f) {
  const Scenario& s = f.scenario;
  Json j{{"preset", s.machine.definition ? s.machine.effective_preset().name : std::string("local")},
         {"topology", topology_name(s)},
         {"sites", f.machine.sites}};
  if (s.machine.definition) {
    const MachinePreset preset = s.machine.effective_preset();
    const RankLayout layout = plan_layout(preset, f.nranks);
    j["ranks_per_node"] = preset.ranks_per_node();
    j["torus_shape"] = layout.torus_shape;
    j["hosts_per_site"] = layout.hosts_per_site;  // a site's node numbers: its torus's, every host
    j["nodes_per_site"] = layout.nodes_per_site;  // the nodes its ranks use
  } else {
    int per_node = 0;
    std::map<int, int> ranks_of;
    for (const int node : f.machine.rank_node) per_node = std::max(per_node, ++ranks_of[node]);
    j["ranks_per_node"] = std::max(1, per_node);
    j["torus_shape"] = Json::array();
    j["hosts_per_site"] = static_cast<int>(ranks_of.size());
    j["nodes_per_site"] = static_cast<int>(ranks_of.size());
  }
  return j;
}

}  // namespace

bool RankLoadSteps::may_record(const Scenario& s, int step) const {
  return (stride > 0 && step % stride == 0) || is_lb_point(s, step) || (step > 0 && is_lb_point(s, step - 1));
}

std::vector<RankLoadRow> label_rows(std::vector<RankLoadRow> candidates, const std::vector<LbEvent>& events,
                                    int stride) {
  std::map<int, std::vector<std::string>> labels;
  for (std::size_t k = 0; k < events.size(); ++k) {
    labels[events[k].step].push_back(fmt::format("before LB {}", k + 1));
    labels[events[k].step + 1].push_back(fmt::format("after LB {}", k + 1));
  }
  std::vector<RankLoadRow> out;
  for (auto& row : candidates) {
    if (auto it = labels.find(row.step); it != labels.end()) row.labels = it->second;
    if (stride > 0 && row.step % stride == 0) row.labels.emplace_back("stride");
    if (!row.labels.empty()) out.push_back(std::move(row));
  }
  return out;
}

void write_rank_loads(const std::string& path, const RankLoadsFile& f) {
  const int dims = f.components.empty() ? 1 : static_cast<int>(f.components.size());
  Json rows = Json::array();
  for (const auto& row : f.rows) rows.push_back(Json{{"step", row.step}, {"labels", row.labels}});
  const Json header{{"format", "lbbench.rank_loads/1"},
                    {"scenario", f.scenario.name},
                    {"engine", f.engine},
                    {"ranks", f.nranks},
                    {"steps", f.scenario.steps},
                    {"components", f.components},
                    {"dims", dims},
                    {"unit", "s"},
                    {"machine", machine_json(f)},
                    {"rows", rows}};
  std::string text = header.dump() + "\n";
  std::vector<std::int32_t> node(static_cast<std::size_t>(f.nranks), 0);
  std::vector<std::int32_t> site(static_cast<std::size_t>(f.nranks), 0);
  for (int r = 0; r < f.nranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (!f.machine.rank_node.empty()) node[i] = f.machine.rank_node[i];
    if (!f.machine.rank_site.empty()) site[i] = f.machine.rank_site[i];
  }
  append_binary(text, node);
  append_binary(text, site);
  for (const auto& row : f.rows) append_binary(text, row.loads);
  std::ofstream out(path, std::ios::binary);
  out << brotli_compress(text);
  if (!out) throw RunError(fmt::format("{}: could not write the ranks' loads", path));
}

std::vector<RankLoadRow> gather_rank_loads(const Scenario& s, const RankSteps& mine, int dims,
                                           const RankLoadSteps& which, MPI_Comm comm) {
  std::vector<int> steps;
  for (int step = 0; step < s.steps; ++step) {
    if (which.may_record(s, step)) steps.push_back(step);
  }
  const auto d = static_cast<std::size_t>(dims);
  std::vector<float> share;
  share.reserve(steps.size() * d);
  for (const int step : steps) {
    const auto t = static_cast<std::size_t>(step);
    for (std::size_t k = 0; k < d; ++k) {
      share.push_back(static_cast<float>(dims > 1 ? mine.phase_compute[k][t] : mine.compute[t]));
    }
  }
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  std::vector<float> all(me == 0 ? share.size() * static_cast<std::size_t>(nranks) : 0);
  MPI_Gather(share.data(), static_cast<int>(share.size()), MPI_FLOAT, all.data(), static_cast<int>(share.size()),
             MPI_FLOAT, 0, comm);
  std::vector<RankLoadRow> rows;
  if (me != 0) return rows;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    RankLoadRow row{.step = steps[i], .labels = {}, .loads = std::vector<float>(static_cast<std::size_t>(nranks) * d)};
    for (std::size_t r = 0; r < static_cast<std::size_t>(nranks); ++r) {
      std::memcpy(&row.loads[r * d], &all[r * share.size() + i * d], d * sizeof(float));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace lbbench
