// Run records (see run_record.hpp): the one place that maps them to and from JSON.
#include "record/run_record.hpp"

#include <fmt/format.h>

#include <charconv>

#include "balancers/plugins.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

// Reads one JSON object's fields, naming the field (with its path) in every error.
class Fields {
 public:
  Fields(const Json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) throw InputError(fmt::format("record: {} is not an object", path_.empty() ? "it" : path_));
  }

  // A field every record of the schema has.
  template <class T>
  T need(const char* key) const {
    if (!j_.contains(key)) throw InputError(fmt::format("record: the field '{}' is missing", name(key)));
    return as<T>(j_[key], key);
  }
  // A field that old records, or some runs, leave out.
  template <class T>
  T get(const char* key, T fallback) const {
    const auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? fallback : as<T>(*it, key);
  }
  template <class T>
  std::optional<T> maybe(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    return as<T>(*it, key);
  }
  [[nodiscard]] Json raw(const char* key) const { return j_.contains(key) ? j_[key] : Json(nullptr); }
  [[nodiscard]] bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  [[nodiscard]] Fields at(const char* key) const {
    if (!j_.contains(key)) throw InputError(fmt::format("record: the field '{}' is missing", name(key)));
    return Fields(j_[key], name(key));
  }
  [[nodiscard]] std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  template <class T>
  T as(const Json& v, const char* key) const {
    try {
      return v.get<T>();
    } catch (const Json::exception&) {
      throw InputError(fmt::format("record: the field '{}' holds {}, of the wrong type", name(key), v.dump()));
    }
  }

  const Json& j_;
  std::string path_;
};

// A 64-bit digest, written as 16 hex digits (JSON numbers past 2^53 lose digits in
// JavaScript and in many readers).
std::uint64_t parse_digest(const std::string& text, const std::string& field) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc{} || end != text.data() + text.size() || text.size() != 16) {
    throw InputError(fmt::format("record: the field '{}' holds \"{}\", not 16 hex digits", field, text));
  }
  return value;
}

template <class T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

LoadMoments load_moments_from(const Fields& f) {
  LoadMoments m;
  m.mean = f.need<double>("mean_s");
  m.imbalance_pct = f.need<double>("imbalance_pct");
  m.max_over_avg = f.need<double>("max_over_avg");
  m.max = m.max_over_avg * m.mean;
  m.sigma = f.need<double>("sigma");
  m.skewness = f.maybe<double>("skewness");
  m.kurtosis = f.maybe<double>("kurtosis");
  return m;
}

CommCensus census_from(const Fields& f) {
  return CommCensus{f.need<std::int64_t>("edge_cut"), f.need<std::int64_t>("edge_cut_bytes"),
                    f.need<std::int64_t>("messages_per_step"), f.get<std::int64_t>("cross_site_messages_per_step", 0)};
}

ProtocolStats protocol_from(const Fields& f) {
  ProtocolStats p;
  p.rounds = f.need<int>("rounds");
  p.reductions = f.need<int>("reductions");
  p.messages = f.need<std::int64_t>("messages");
  p.bytes = f.need<std::int64_t>("bytes");
  p.largest_message = f.need<std::int64_t>("largest_message");
  p.largest_list = f.need<std::int64_t>("largest_list");
  return p;
}

Json to_json(const LbMetrics& m) {
  return Json{{"model", to_json(m.model)},
              {"measured", to_json(m.measured)},
              {"rank_correlation", optional_json(m.rank_correlation)}};
}

Json to_json(const LbVector& v) {
  return Json{{"objective_before_s", v.objective_before_s},
              {"objective_after_s", v.objective_after_s},
              {"max_over_avg_before", v.max_over_avg_before},
              {"max_over_avg_after", v.max_over_avg_after},
              {"model_objective_before_s", v.model_objective_before_s},
              {"model_objective_predicted_after_s", v.model_objective_predicted_after_s}};
}

LbVector lb_vector_from(const Fields& f) {
  LbVector v;
  v.objective_before_s = f.need<double>("objective_before_s");
  v.objective_after_s = f.need<double>("objective_after_s");
  v.max_over_avg_before = f.need<std::vector<double>>("max_over_avg_before");
  v.max_over_avg_after = f.need<std::vector<double>>("max_over_avg_after");
  v.model_objective_before_s = f.need<double>("model_objective_before_s");
  v.model_objective_predicted_after_s = f.need<double>("model_objective_predicted_after_s");
  return v;
}

Json to_json(const LbEvent& e) {
  Json j{{"step", e.step},
         {"imbalance_before", e.imbalance_before},
         {"imbalance_after", e.imbalance_after},
         {"model_imbalance_before", e.model_imbalance_before},
         {"model_imbalance_predicted_after", e.model_imbalance_predicted_after},
         {"migrations", e.migrations},
         {"migrated_bytes", e.migrated_bytes}};
  if (e.elements_moved_max) j["elements_moved_max"] = *e.elements_moved_max;
  if (e.owners_digest) j["owners_digest"] = fmt::format("{:016x}", *e.owners_digest);
  j["decision_s"] = e.decision_s;
  j["migration_s"] = e.migration_s;
  j["before"] = to_json(e.before);
  j["after"] = to_json(e.after);
  if (e.protocol) j["protocol"] = to_json(*e.protocol);
  if (!e.prediction.is_null()) j["prediction"] = e.prediction;
  if (e.metrics) j["metrics"] = to_json(*e.metrics);
  if (e.vector) j["vector"] = to_json(*e.vector);
  return j;
}

LbEvent lb_event_from(const Fields& f) {
  LbEvent e;
  e.step = f.need<int>("step");
  e.imbalance_before = f.need<double>("imbalance_before");
  e.imbalance_after = f.need<double>("imbalance_after");
  e.model_imbalance_before = f.get<double>("model_imbalance_before", 0.0);
  e.model_imbalance_predicted_after = f.get<double>("model_imbalance_predicted_after", 0.0);
  e.migrations = f.need<std::int64_t>("migrations");
  e.migrated_bytes = f.get<std::int64_t>("migrated_bytes", 0);
  e.elements_moved_max = f.maybe<std::int64_t>("elements_moved_max");
  if (const auto digest = f.maybe<std::string>("owners_digest"))
    e.owners_digest = parse_digest(*digest, f.name("owners_digest"));
  e.decision_s = f.get<double>("decision_s", 0.0);
  e.migration_s = f.get<double>("migration_s", 0.0);
  if (f.has("before")) e.before = census_from(f.at("before"));
  if (f.has("after")) e.after = census_from(f.at("after"));
  if (f.has("protocol")) e.protocol = protocol_from(f.at("protocol"));
  e.prediction = f.raw("prediction");
  if (f.has("metrics")) {
    const Fields m = f.at("metrics");
    e.metrics = LbMetrics{load_moments_from(m.at("model")), load_moments_from(m.at("measured")),
                          m.maybe<double>("rank_correlation")};
  }
  if (f.has("vector")) e.vector = lb_vector_from(f.at("vector"));
  return e;
}

Json to_json(const PerStep& p) {
  Json j{{"wall_max_s", p.wall_max_s}, {"compute_max_s", p.compute_max_s}, {"imbalance", p.imbalance}};
  if (!p.compute_avg_s.empty()) j["compute_avg_s"] = p.compute_avg_s;
  if (!p.wait_avg_s.empty()) j["wait_avg_s"] = p.wait_avg_s;
  if (!p.vertices.empty()) j["vertices"] = p.vertices;
  if (!p.edges.empty()) j["edges"] = p.edges;
  if (!p.regrid_bytes.empty()) j["regrid_bytes"] = p.regrid_bytes;
  return j;
}

PerStep per_step_from(const Fields& f) {
  PerStep p;
  p.wall_max_s = f.get<std::vector<double>>("wall_max_s", {});
  p.compute_max_s = f.get<std::vector<double>>("compute_max_s", {});
  p.compute_avg_s = f.get<std::vector<double>>("compute_avg_s", {});
  p.wait_avg_s = f.get<std::vector<double>>("wait_avg_s", {});
  p.imbalance = f.get<std::vector<double>>("imbalance", {});
  p.vertices = f.get<std::vector<std::int64_t>>("vertices", {});
  p.edges = f.get<std::vector<std::int64_t>>("edges", {});
  p.regrid_bytes = f.get<std::vector<std::int64_t>>("regrid_bytes", {});
  return p;
}

Json to_json(const RegridEvent& e) {
  Json j{{"step", e.step},
         {"vertices_before", e.vertices_before},
         {"vertices_after", e.vertices_after},
         {"refined", e.refined},
         {"merged", e.merged},
         {"created", e.created},
         {"destroyed", e.destroyed},
         {"rounds", e.rounds},
         {"split_rounds", e.split_rounds},
         {"messages", e.messages},
         {"bytes", e.bytes},
         {"migrations", e.migrations},
         {"migrated_bytes", e.migrated_bytes},
         {"elements_moved_max", e.elements_moved_max},
         {"time_s", e.time_s},
         {"migration_s", e.migration_s},
         {"after", to_json(e.after)},
         {"owners_digest", fmt::format("{:016x}", e.owners_digest)}};
  // Records made before the parts were recorded read back without them; a regrid that
  // kept its blocks has none.
  if (e.decision_s != 0 || e.rebuild_s != 0) {
    j["decision_s"] = e.decision_s;
    j["rebuild_s"] = e.rebuild_s;
  }
  return j;
}

RegridEvent regrid_event_from(const Fields& f) {
  RegridEvent e;
  e.step = f.need<int>("step");
  e.vertices_before = f.need<std::int64_t>("vertices_before");
  e.vertices_after = f.need<std::int64_t>("vertices_after");
  e.refined = f.need<std::int64_t>("refined");
  e.merged = f.need<std::int64_t>("merged");
  e.created = f.need<std::int64_t>("created");
  e.destroyed = f.need<std::int64_t>("destroyed");
  e.rounds = f.need<int>("rounds");
  e.split_rounds = f.get<int>("split_rounds", 0);
  e.messages = f.need<std::int64_t>("messages");
  e.bytes = f.need<std::int64_t>("bytes");
  e.migrations = f.need<std::int64_t>("migrations");
  e.migrated_bytes = f.need<std::int64_t>("migrated_bytes");
  e.elements_moved_max = f.get<std::int64_t>("elements_moved_max", 0);
  e.time_s = f.need<double>("time_s");
  e.decision_s = f.get<double>("decision_s", 0.0);
  e.migration_s = f.get<double>("migration_s", 0.0);
  e.rebuild_s = f.get<double>("rebuild_s", 0.0);
  if (f.has("after")) e.after = census_from(f.at("after"));
  if (const auto digest = f.maybe<std::string>("owners_digest"))
    e.owners_digest = parse_digest(*digest, f.name("owners_digest"));
  return e;
}

RegridRecord regrid_record_from(const Fields& f, const Json& j) {
  RegridRecord r;
  r.period = f.need<int>("period");
  r.time_s = f.need<double>("time_s");
  r.migrations = f.need<std::int64_t>("migrations");
  r.migrated_bytes = f.need<std::int64_t>("migrated_bytes");
  r.messages = f.need<std::int64_t>("messages");
  r.bytes = f.need<std::int64_t>("bytes");
  const Json& events = j["events"];
  for (std::size_t i = 0; events.is_array() && i < events.size(); ++i)
    r.events.push_back(regrid_event_from(Fields(events[i], fmt::format("{}[{}]", f.name("events"), i))));
  return r;
}

// Per-component series as a JSON object keyed by component name, in the components' order.
Json by_component(const std::vector<std::string>& names, const std::vector<std::vector<double>>& series) {
  Json j = Json::object();
  for (std::size_t k = 0; k < names.size() && k < series.size(); ++k) j[names[k]] = series[k];
  return j;
}

std::vector<std::vector<double>> per_component(const Fields& f, const char* key,
                                               const std::vector<std::string>& names) {
  const Fields series = f.at(key);
  std::vector<std::vector<double>> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(series.need<std::vector<double>>(n.c_str()));
  return out;
}

Json to_json(const LoadVectorRecord& v) {
  return Json{{"components", v.components},
              {"objective_mean_s", v.objective_mean_s},
              {"objective_per_step_s", v.objective_per_step_s},
              {"perfect_per_step_s", v.perfect_per_step_s},
              {"phase_max_s", by_component(v.components, v.phase_max_s)},
              {"phase_avg_s", by_component(v.components, v.phase_avg_s)}};
}

LoadVectorRecord load_vector_from(const Fields& f) {
  LoadVectorRecord v;
  v.components = f.need<std::vector<std::string>>("components");
  v.objective_mean_s = f.need<double>("objective_mean_s");
  v.objective_per_step_s = f.need<std::vector<double>>("objective_per_step_s");
  v.perfect_per_step_s = f.need<std::vector<double>>("perfect_per_step_s");
  v.phase_max_s = per_component(f, "phase_max_s", v.components);
  v.phase_avg_s = per_component(f, "phase_avg_s", v.components);
  return v;
}

Json to_json(const RunPrediction& p) {
  Json calls = Json::object();
  for (const auto& [name, n] : p.calls) calls[name] = n;
  Json j{{"chosen", p.chosen},
         {"calls", calls},
         {"predicted_gain_s", p.predicted_gain_s},
         {"delivered_gain_s", p.delivered_gain_s},
         {"spent_s", p.spent_s}};
  if (!p.points.empty()) j["points"] = p.points;  // records made before the points were kept have none
  return j;
}

RunPrediction prediction_from(const Fields& f) {
  RunPrediction p;
  p.chosen = f.need<std::string>("chosen");
  // Records made before the closed loop name their candidates under `candidates`.
  const Json calls = f.has("calls") ? f.raw("calls") : f.raw("candidates");
  if (calls.is_object()) {
    for (const auto& [name, n] : calls.items()) p.calls.emplace_back(name, n.is_number() ? n.get<int>() : 0);
  }
  p.predicted_gain_s = f.get<double>("predicted_gain_s", 0.0);
  p.delivered_gain_s = f.get<double>("delivered_gain_s", 0.0);
  p.spent_s = f.get<double>("spent_s", 0.0);
  const Json points = f.has("points") ? f.raw("points") : Json::array();
  if (points.is_array()) p.points.assign(points.begin(), points.end());
  return p;
}

// vt's statistics go in only where a stats file was read, so other records stay as they were.
Json to_json(const TraceInfo& t) {
  Json j{{"files", t.files}, {"ranks", t.ranks},   {"phases", t.phases},  {"subphases", t.subphases},
         {"tasks", t.tasks}, {"pinned", t.pinned}, {"mapping", t.mapping}};
  if (t.stats_file.empty()) return j;
  Json recorded = Json::array();
  for (const auto& p : t.recorded_imbalance)
    recorded.push_back(Json{{"step", p.step}, {"phase", p.phase}, {"imbalance", p.imbalance}});
  j["stats_file"] = t.stats_file;
  j["recorded_statistic"] = t.recorded_statistic;
  j["recorded_imbalance"] = recorded;
  return j;
}

TraceInfo trace_info_from(const Fields& f) {
  TraceInfo t{.files = f.get<int>("files", 0),
              .ranks = f.get<int>("ranks", 0),
              .phases = f.get<int>("phases", 0),
              .subphases = f.get<int>("subphases", 0),
              .tasks = f.get<std::int64_t>("tasks", 0),
              .pinned = f.get<std::int64_t>("pinned", 0),
              .mapping = f.get<std::string>("mapping", ""),
              .stats_file = f.get<std::string>("stats_file", ""),
              .recorded_statistic = f.get<std::string>("recorded_statistic", ""),
              .recorded_imbalance = {}};
  const Json recorded = f.raw("recorded_imbalance");
  for (std::size_t i = 0; recorded.is_array() && i < recorded.size(); ++i) {
    const Fields p(recorded[i], fmt::format("{}[{}]", f.name("recorded_imbalance"), i));
    t.recorded_imbalance.push_back(
        RecordedImbalance{p.need<int>("step"), p.need<std::int64_t>("phase"), p.need<double>("imbalance")});
  }
  return t;
}

}  // namespace

std::vector<PluginProvenance> loaded_plugin_provenance() {
  std::vector<PluginProvenance> out;
  for (const LoadedPlugin& p : loaded_plugins()) {
    out.push_back(PluginProvenance{.name = p.declaration->name, .path = p.path, .sha256 = p.sha256});
  }
  return out;
}

namespace {

Json to_json(const Provenance& p) {
  Json j{{"git", p.git},
         {"host", p.host},
         {"mpi_library", p.mpi_library},
         {"mpi_thread_level", p.mpi_thread_level},
         {"start_time", p.start_time},
         {"command", p.command},
         {"work", p.work}};
  if (p.plugins.empty()) return j;
  Json plugins = Json::array();
  for (const auto& plugin : p.plugins) {
    plugins.push_back(Json{{"name", plugin.name}, {"path", plugin.path}, {"sha256", plugin.sha256}});
  }
  j["plugins"] = std::move(plugins);
  return j;
}

Provenance provenance_from(const Fields& f) {
  Provenance p;
  p.git = f.get<std::string>("git", "");
  p.host = f.get<std::string>("host", "");
  p.mpi_library = f.get<std::string>("mpi_library", "");
  p.mpi_thread_level = f.get<std::string>("mpi_thread_level", "");
  p.start_time = f.get<std::string>("start_time", "");
  p.command = f.get<std::string>("command", "");
  p.work = f.raw("work");
  if (f.has("plugins")) {
    for (const Json& plugin : f.raw("plugins")) {
      p.plugins.push_back(PluginProvenance{
          .name = plugin.value("name", ""), .path = plugin.value("path", ""), .sha256 = plugin.value("sha256", "")});
    }
  }
  return p;
}

}  // namespace

Json to_json(const CommCensus& c) {
  return Json{{"edge_cut", c.edge_cut},
              {"edge_cut_bytes", c.edge_cut_bytes},
              {"messages_per_step", c.messages_per_step},
              {"cross_site_messages_per_step", c.cross_site_messages_per_step}};
}

Json to_json(const RegridRecord& r) {
  Json events = Json::array();
  for (const auto& e : r.events) events.push_back(to_json(e));
  return Json{{"period", r.period},
              {"time_s", r.time_s},
              {"migrations", r.migrations},
              {"migrated_bytes", r.migrated_bytes},
              {"messages", r.messages},
              {"bytes", r.bytes},
              {"events", events}};
}

Json to_json(const ProtocolStats& p) {
  return Json{{"rounds", p.rounds}, {"reductions", p.reductions},           {"messages", p.messages},
              {"bytes", p.bytes},   {"largest_message", p.largest_message}, {"largest_list", p.largest_list}};
}

Json to_json(const LoadMoments& m) {
  return Json{{"mean_s", m.mean}, {"imbalance_pct", m.imbalance_pct},      {"max_over_avg", m.max_over_avg},
              {"sigma", m.sigma}, {"skewness", optional_json(m.skewness)}, {"kurtosis", optional_json(m.kurtosis)}};
}

Json to_json(const SweepInfo& s) {
  Json j{{"name", s.name},     {"id", s.id},     {"index", s.index},  {"repetition", s.repetition},
         {"engine", s.engine}, {"axes", s.axes}, {"status", s.status}};
  if (s.elapsed_s) j["elapsed_s"] = *s.elapsed_s;
  return j;
}

SweepInfo sweep_info_from_json(const Json& j) {
  const Fields f(j, "sweep");
  SweepInfo s;
  s.name = f.get<std::string>("name", "");
  s.id = f.get<std::string>("id", "");
  s.index = f.get<int>("index", 0);
  s.repetition = f.get<int>("repetition", 0);
  s.engine = f.get<std::string>("engine", "");
  s.axes = f.has("axes") ? f.raw("axes") : Json::object();
  s.status = f.get<std::string>("status", "");
  s.elapsed_s = f.maybe<double>("elapsed_s");
  return s;
}

Json to_json(const RunRecord& r) {
  Json j;
  j["schema"] = kRunSchema;
  j["scenario"] = r.scenario;
  j["scenario_sha256"] = r.scenario_sha256;
  j["scenario_file"] = r.scenario_file;
  j["balancer"] = r.balancer;
  j["balancer_family"] = r.balancer_family;
  j["balancer_params"] = r.balancer_params;
  j["lb_period"] = r.lb_period;
  j["model"] = r.model;
  j["forecast"] = r.forecast;
  j["engine"] = r.engine;
  j["machine"] = r.machine;
  j["ranks"] = r.ranks;
  j["nodes"] = r.nodes;
  j["vertices"] = r.vertices;
  j["edges"] = r.edges;
  j["steps"] = r.steps;
  j["seed"] = r.seed;
  j["total_time_s"] = r.total_time_s;
  j["compute_time_s"] = r.compute_time_s;
  j["compute_time_max_s"] = r.compute_time_max_s;
  j["wait_time_s"] = r.wait_time_s;
  j["lb_time_s"] = r.lb_time_s;
  j["migration_time_s"] = r.migration_time_s;
  j["perfect_balance_time_s"] = r.perfect_balance_time_s;
  j["migrations"] = r.migrations;
  j["migrated_bytes"] = r.migrated_bytes;
  j["lb_invocations"] = r.lb_invocations;
  if (r.lb_points) j["lb_points"] = *r.lb_points;
  j["imbalance_before"] = r.imbalance_before;
  j["imbalance_after"] = r.imbalance_after;
  j["imbalance_predicted_after"] = r.imbalance_predicted_after;
  j["imbalance_mean"] = r.imbalance_mean;
  j["edge_cut_initial"] = r.edge_cut_initial;
  j["edge_cut"] = r.edge_cut;
  j["edge_cut_bytes"] = r.edge_cut_bytes;
  j["messages_per_step"] = r.messages_per_step;
  if (r.cross_site_messages_per_step) j["cross_site_messages_per_step"] = *r.cross_site_messages_per_step;
  Json lb = Json::array();
  for (const auto& e : r.lb) lb.push_back(to_json(e));
  j["lb"] = lb;
  j["per_step"] = to_json(r.per_step);
  if (!r.machine_preset.is_null()) j["machine_preset"] = r.machine_preset;
  if (r.simulation) {
    j["simulation"] = Json{{"wall_s", r.simulation->wall_s},
                           {"peak_rss_mb", r.simulation->peak_rss_mb},
                           {"setup_s", r.simulation->setup_s}};
  }
  if (r.load_vector) j["load_vector"] = to_json(*r.load_vector);
  if (r.modeling) {
    j["modeling"] = Json{{"code_time_scale", r.modeling->code_time_scale},
                         {"decision_costs", r.modeling->decision_costs},
                         {"network", r.modeling->network}};
  }
  if (r.trace) j["trace"] = to_json(*r.trace);
  if (r.regrid) j["regrid"] = to_json(*r.regrid);
  j["prediction"] = r.prediction ? to_json(*r.prediction) : Json(nullptr);
  j["config"] = r.config;
  j["provenance"] = to_json(r.provenance);
  if (!r.reorder.is_null()) j["reorder"] = r.reorder;
  if (r.sweep) j["sweep"] = to_json(*r.sweep);
  return j;
}

RunRecord run_record_from_json(const Json& j) {
  const Fields f(j, "");
  if (f.need<std::string>("schema") != kRunSchema) {
    throw InputError(fmt::format("record: schema '{}' is not {}", f.need<std::string>("schema"), kRunSchema));
  }
  RunRecord r;
  r.scenario = f.need<std::string>("scenario");
  r.scenario_sha256 = f.need<std::string>("scenario_sha256");
  r.scenario_file = f.get<std::string>("scenario_file", "");
  r.balancer = f.need<std::string>("balancer");
  r.balancer_family = f.get<std::string>("balancer_family", "");
  r.balancer_params = f.need<Json>("balancer_params");
  r.lb_period = f.get<int>("lb_period", 0);
  r.model = f.get<std::string>("model", "");
  r.forecast = f.get<std::string>("forecast", "mean");
  r.engine = f.need<std::string>("engine");
  r.machine = f.need<std::string>("machine");
  r.ranks = f.need<int>("ranks");
  r.nodes = f.get<int>("nodes", 0);
  r.vertices = f.need<std::int64_t>("vertices");
  r.edges = f.need<std::int64_t>("edges");
  r.steps = f.need<int>("steps");
  r.seed = f.need<std::uint64_t>("seed");
  r.total_time_s = f.need<double>("total_time_s");
  r.compute_time_s = f.need<double>("compute_time_s");
  r.compute_time_max_s = f.get<double>("compute_time_max_s", 0.0);
  r.wait_time_s = f.get<double>("wait_time_s", 0.0);
  r.lb_time_s = f.need<double>("lb_time_s");
  r.migration_time_s = f.need<double>("migration_time_s");
  r.perfect_balance_time_s = f.get<double>("perfect_balance_time_s", 0.0);
  r.migrations = f.need<std::int64_t>("migrations");
  r.migrated_bytes = f.need<std::int64_t>("migrated_bytes");
  r.lb_invocations = f.need<int>("lb_invocations");
  if (f.has("lb_points")) r.lb_points = f.need<int>("lb_points");
  r.imbalance_before = f.need<std::vector<double>>("imbalance_before");
  r.imbalance_after = f.need<std::vector<double>>("imbalance_after");
  r.imbalance_predicted_after = f.get<std::vector<double>>("imbalance_predicted_after", {});
  r.imbalance_mean = f.get<double>("imbalance_mean", 0.0);
  r.edge_cut_initial = f.get<std::int64_t>("edge_cut_initial", 0);
  r.edge_cut = f.need<std::int64_t>("edge_cut");
  r.edge_cut_bytes = f.get<std::int64_t>("edge_cut_bytes", 0);
  r.messages_per_step = f.get<std::int64_t>("messages_per_step", 0);
  r.cross_site_messages_per_step = f.maybe<std::int64_t>("cross_site_messages_per_step");
  if (f.has("lb")) {
    const Json& calls = j["lb"];
    for (std::size_t i = 0; i < calls.size(); ++i)
      r.lb.push_back(lb_event_from(Fields(calls[i], fmt::format("lb[{}]", i))));
  }
  if (f.has("per_step")) r.per_step = per_step_from(f.at("per_step"));
  r.machine_preset = f.raw("machine_preset");
  if (f.has("simulation")) {
    const Fields s = f.at("simulation");
    r.simulation =
        SimulationInfo{s.get<double>("wall_s", 0.0), s.get<double>("peak_rss_mb", 0.0), s.get<double>("setup_s", 0.0)};
  }
  if (f.has("load_vector")) r.load_vector = load_vector_from(f.at("load_vector"));
  if (f.has("modeling")) {
    const Fields m = f.at("modeling");
    r.modeling = ModelingInfo{m.get<double>("code_time_scale", 1.0), m.get<std::string>("decision_costs", ""),
                              m.get<std::string>("network", "")};
  }
  if (f.has("trace")) r.trace = trace_info_from(f.at("trace"));
  if (f.has("regrid")) r.regrid = regrid_record_from(f.at("regrid"), j["regrid"]);
  if (f.has("prediction")) r.prediction = prediction_from(f.at("prediction"));
  r.config = f.raw("config");
  r.reorder = f.raw("reorder");
  r.provenance = provenance_from(f.at("provenance"));
  if (f.has("sweep")) r.sweep = sweep_info_from_json(j["sweep"]);
  return r;
}

std::pair<std::int64_t, std::int64_t> mesh_size_at_call(const RunRecord& r, int step) {
  const auto after = static_cast<std::size_t>(step) + 1;
  if (after < r.per_step.vertices.size() && after < r.per_step.edges.size())
    return {r.per_step.vertices[after], r.per_step.edges[after]};
  return {r.vertices, r.edges};
}

Json to_json(const FailureRecord& r) {
  Json j;
  j["schema"] = kFailureSchema;
  j["scenario"] = r.scenario;
  j["balancer"] = r.balancer;
  j["engine"] = r.engine;
  j["machine"] = r.machine;
  j["ranks"] = r.ranks;
  j["exit_code"] = r.exit_code;
  j["reason"] = r.reason;
  j["error_tail"] = r.error_tail;
  j["elapsed_s"] = r.elapsed_s;
  j["time"] = r.time;
  j["config"] = r.config;
  if (r.provenance) j["provenance"] = to_json(*r.provenance);
  if (r.sweep) j["sweep"] = to_json(*r.sweep);
  return j;
}

FailureRecord failure_record_from_json(const Json& j) {
  const Fields f(j, "");
  if (f.need<std::string>("schema") != kFailureSchema) {
    throw InputError(fmt::format("record: schema '{}' is not {}", f.need<std::string>("schema"), kFailureSchema));
  }
  FailureRecord r;
  r.scenario = f.get<std::string>("scenario", "");
  r.balancer = f.get<std::string>("balancer", "");
  r.engine = f.get<std::string>("engine", "");
  r.machine = f.get<std::string>("machine", "");
  r.ranks = f.get<int>("ranks", 0);
  r.exit_code = f.get<int>("exit_code", 0);
  r.reason = f.get<std::string>("reason", "");
  r.error_tail = f.get<std::vector<std::string>>("error_tail", {});
  r.elapsed_s = f.get<double>("elapsed_s", 0.0);
  r.time = f.get<std::string>("time", "");
  r.config = f.raw("config");
  if (f.has("provenance")) r.provenance = provenance_from(f.at("provenance"));
  if (f.has("sweep")) r.sweep = sweep_info_from_json(j["sweep"]);
  return r;
}

bool is_run_record(const Json& j) { return j.is_object() && j.value("schema", "") == kRunSchema; }
bool is_failure_record(const Json& j) { return j.is_object() && j.value("schema", "") == kFailureSchema; }

}  // namespace lbbench
