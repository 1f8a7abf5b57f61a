// Sweep files: parsing, expansion and validation (see sweep.hpp).
#include "harness/sweep.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <utility>

#include "balancers/plugins.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/suggest.hpp"
#include "engines/catalog.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kLaunchers{"mpirun", "srun"};

// A setting as written in the sweep file: key, YAML value, and where it was written.
struct Setting {
  std::string key;
  YAML::Node value;
  std::string where;
};

// One axis: its key and its values, each remembered with its position for error messages.
struct Axis {
  std::string key;
  std::vector<Setting> values;
};

// The value as one line of flow-style YAML, which `--set` parses back to the same node.
std::string flow_yaml(const YAML::Node& value) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << value;
  return out.c_str();
}

// Whether a whole number read as a double converts to long long without overflow (2^63 is
// exact as a double, so the bounds are too).
bool fits_long_long(double v) { return v >= -0x1p63 && v < 0x1p63; }

Json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& e : node) out.push_back(yaml_to_json(e));
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = yaml_to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Scalar: {
      // Numbers stay numbers in the record, so plots can put them on an axis.
      const std::string& text = node.Scalar();
      if (node.Tag() != "!") {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v)) {
            if (text.find_first_of(".eE") == std::string::npos && fits_long_long(v)) return static_cast<long long>(v);
            return v;
          }
        } catch (const std::exception&) {
        }
      }
      return text;
    }
    default: return nullptr;
  }
}

// The `--set` assignments one setting stands for. `balancer` and `machine` accept the
// scenario's shorthands: a bare balancer name replaces the strategy and its params but
// keeps the period; a bare machine name is the preset.
std::vector<std::string> assignments(const Setting& s) {
  std::vector<std::string> out;
  auto spread = [&](const std::string& prefix) {
    for (const auto& kv : s.value) out.push_back(prefix + "." + kv.first.Scalar() + "=" + flow_yaml(kv.second));
  };
  if (s.key == "balancer") {
    if (s.value.IsMap()) {
      if (!s.value["name"]) throw InputError(fmt::format("{}: balancer: a balancer mapping needs a name", s.where));
      spread("balancer");
      if (!s.value["params"]) out.emplace_back("balancer.params={}");
    } else {
      out.push_back("balancer.name=" + flow_yaml(s.value));
      out.emplace_back("balancer.params={}");
    }
  } else if (s.key == "machine") {
    if (s.value.IsMap()) {
      spread("machine");
    } else {
      out.push_back("machine.preset=" + flow_yaml(s.value));
    }
  } else if (s.key != "engine") {
    out.push_back(s.key + "=" + flow_yaml(s.value));
  }
  return out;
}

std::vector<Setting> read_settings(ConfigNode node, const std::string& file) {
  node.expect_map("a mapping of scenario key paths to values");
  std::vector<Setting> out;
  for (const auto& kv : node.yaml()) {
    const std::string key = kv.first.Scalar();
    (void)node.has(key);  // every key is known here: they are scenario paths, checked later
    out.push_back({key, kv.second, yaml_location(file, kv.second)});
  }
  return out;
}

std::vector<Axis> read_axes(ConfigNode node, const std::string& file) {
  node.expect_map("a mapping of key paths to lists of values");
  std::vector<Axis> out;
  for (const auto& kv : node.yaml()) {
    const std::string key = kv.first.Scalar();
    // An axis given no value (`ranks:`) is null, which find() counts as absent.
    const std::optional<ConfigNode> found = node.find(key);
    if (!found)
      node.fail(fmt::format("'{}' has no values: expected a non-empty list of values, e.g. [greedy, refine]", key));
    const ConfigNode& values = *found;
    if (!values.is_sequence() || values.yaml().size() == 0) {
      values.fail("expected a non-empty list of values, e.g. [greedy, refine]");
    }
    Axis axis{key, {}};
    for (const auto& v : values.yaml()) {
      const auto& node = static_cast<const YAML::Node&>(v);
      axis.values.push_back({key, node, yaml_location(file, node)});
    }
    out.push_back(std::move(axis));
  }
  return out;
}

SlurmSettings read_slurm(ConfigNode node) {
  node.expect_map("the Slurm settings");
  SlurmSettings s;
  s.partition = node.string("partition", "");
  s.time = node.string("time", "");
  s.account = node.string("account", "");
  s.nodes = static_cast<int>(node.integer("nodes", 0, 0, 1 << 20));
  s.ntasks = static_cast<int>(node.integer("ntasks", 0, 0, 1 << 24));
  s.runs_per_task = static_cast<int>(node.integer("runs_per_task", 1, 1, 1 << 20));
  s.mpi = node.string("mpi", s.mpi);
  if (auto extra = node.find("sbatch_args")) {
    for (const auto& e : extra->elements("a list of sbatch options such as --qos=debug")) {
      s.sbatch_args.push_back(e.as_string());
    }
  }
  node.finish();
  return s;
}

// Which setting an error about a scenario key path most likely came from: the last axis or
// fixed setting whose key starts the path the message names.
const Setting* culprit(const std::string& message, const std::vector<const Setting*>& settings) {
  const Setting* best = nullptr;
  for (const Setting* s : settings) {
    if (message.find(" " + s->key) != std::string::npos || message.find(s->key + ".") != std::string::npos) best = s;
  }
  return best;
}

struct Configuration {
  std::vector<const Setting*> settings;  // fixed settings, then one value per axis
};

std::vector<Configuration> product(const std::vector<Setting>& fixed, const std::vector<Axis>& axes) {
  std::vector<Configuration> out(1);
  for (const auto& s : fixed) out[0].settings.push_back(&s);
  for (const auto& axis : axes) {
    std::vector<Configuration> next;
    for (const auto& c : out) {
      for (const auto& v : axis.values) {
        Configuration grown = c;
        grown.settings.push_back(&v);
        next.push_back(std::move(grown));
      }
    }
    out = std::move(next);
  }
  return out;
}

// The engine and rank count of one configuration; later settings win, as in the overrides.
void engine_and_ranks(const Configuration& c, SweepRun& run, const std::optional<int>& scenario_ranks) {
  run.engine = "mpi";
  std::optional<int> ranks = scenario_ranks;
  for (const Setting* s : c.settings) {
    if (s->key == "engine") {
      try {
        run.engine = std::string(find_engine(s->value.IsScalar() ? s->value.Scalar() : "").name);
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: engine: {}", s->where, e.what()));
      }
    } else if (s->key == "ranks") {
      try {
        ranks = s->value.as<int>();
      } catch (const YAML::Exception&) {
        throw InputError(fmt::format("{}: ranks: expected a positive integer", s->where));
      }
      if (*ranks < 1) throw InputError(fmt::format("{}: ranks: expected a positive integer", s->where));
    }
  }
  if (!ranks) {
    throw InputError("the sweep gives no rank count: set `ranks` under `set:` or `axes:`, or in the scenario");
  }
  run.ranks = *ranks;
}

// Whether a key path lies under an axis's key (`balancer.params.near_tie` under `balancer`).
bool under(const std::string& key, const Axis& axis) { return key.starts_with(axis.key + "."); }

// A fixed setting under an axis's key (`--set balancer.params.near_tie=0.05` beside a
// `balancer` axis) refines each of that axis's values.
bool refines_an_axis(const Setting& s, const std::vector<Axis>& axes) {
  return std::any_of(axes.begin(), axes.end(), [&](const Axis& a) { return under(s.key, a); });
}

// The configuration's settings in the order they apply: the fixed ones, the axes' values,
// then the fixed ones that refine an axis. Before its axis, a refinement would be undone
// without a word: a bare balancer name resets the params.
std::vector<const Setting*> in_order_of_application(const Configuration& c, const std::vector<Axis>& axes) {
  const auto axes_from = c.settings.end() - static_cast<std::ptrdiff_t>(axes.size());
  std::vector<const Setting*> out(c.settings.begin(), axes_from);
  const auto refinements =
      std::stable_partition(out.begin(), out.end(), [&](const Setting* s) { return !refines_an_axis(*s, axes); });
  out.insert(refinements, axes_from, c.settings.end());
  return out;
}

SweepRun expand_one(const fs::path& scenario, const Configuration& c, int repetition, const std::vector<Axis>& axes,
                    const std::optional<int>& base_ranks) {
  SweepRun run;
  run.scenario = scenario;
  run.repetition = repetition;
  engine_and_ranks(c, run, base_ranks);
  for (const Setting* s : in_order_of_application(c, axes)) {
    for (auto& a : assignments(*s)) run.overrides.push_back(std::move(a));
  }
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const Setting* v = c.settings[c.settings.size() - axes.size() + k];
    run.axes[v->key] = yaml_to_json(v->value);
  }
  try {
    const Scenario s = load_scenario(scenario.string(), run.overrides);
    find_engine(run.engine).check(s);
    run.config = normalized(s);
  } catch (const InputError& e) {
    const Setting* s = culprit(e.what(), c.settings);
    throw InputError(fmt::format("{}: run {} of {}: {}", s ? s->where : "the sweep", run.label(),
                                 scenario.filename().string(), e.what()));
  }
  run.id = run_id(run.config, run.engine, repetition);
  return run;
}

// One file or a list of them, relative to the sweep file.
std::vector<fs::path> read_scenarios(const ConfigNode& node, const fs::path& sweep_file) {
  std::vector<ConfigNode> items;
  if (node.is_sequence()) {
    items = node.elements("a list of scenario files");
  } else {
    items.push_back(node);
  }
  std::vector<fs::path> out;
  for (const auto& item : items) {
    const fs::path path = fs::absolute(sweep_file).parent_path() / item.as_string();
    // The non-throwing overloads: a name the system refuses (too long, no permission) is bad input, not a crash.
    std::error_code error;
    fs::path found = fs::canonical(path, error);
    if (error) item.fail(fmt::format("cannot open the scenario file {}: {}", path.string(), error.message()));
    out.push_back(std::move(found));
  }
  if (out.empty()) node.fail("expected a scenario file or a non-empty list of them");
  return out;
}

std::string checked_name(ConfigNode& root, const fs::path& file) {
  std::string name = root.string("name", file.stem().string());
  static const std::regex safe("[A-Za-z0-9._-]+");
  if (!std::regex_match(name, safe) || name == "." || name == "..") {
    root.at("name", "").fail("expected a folder name: letters, digits, '.', '_' and '-'");
  }
  return name;
}

// A value as text that never throws: yaml-cpp can hand back a string that is not UTF-8 (a
// sweep file with a NUL byte in a scalar), and the label of a run whose scenario failed to
// load is what its error names.
std::string text_of(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Whether the node holds the dotted key path (`params.near_tie` in `{name: auto, params: {...}}`).
bool holds_path(const YAML::Node& node, const std::string& path) {
  YAML::Node at;
  at.reset(node);  // rebinds; assigning would write into the tree
  std::size_t from = 0;
  while (from <= path.size()) {
    const std::size_t dot = std::min(path.find('.', from), path.size());
    if (!at.IsMap()) return false;
    const YAML::Node next = std::as_const(at)[path.substr(from, dot - from)];  // const: looks, adds nothing
    if (!next.IsDefined()) return false;
    at.reset(next);
    from = dot + 1;
  }
  return true;
}

// Whether an axis's value sets the key path: one of the assignments it stands for (its
// short forms spelled out) sets that key, or a mapping above it that holds it.
bool sets_key(const Setting& value, const std::string& key) {
  for (const std::string& a : assignments(value)) {
    const auto eq = a.find('=');
    const std::string set = a.substr(0, eq);
    if (set == key) return true;
    if (key.starts_with(set + ".") &&
        holds_path(load_yaml_string(a.substr(eq + 1), "--set"), key.substr(set.size() + 1))) {
      return true;
    }
  }
  return false;
}

// A fixed setting that refines an axis, where one of the axis's values sets the same key,
// would override that value's own choice: the sweep asks for two things at once.
void check_not_set_by_a_value(const Setting& fixed, const Axis& axis) {
  if (!under(fixed.key, axis)) return;
  for (const auto& v : axis.values) {
    if (sets_key(v, fixed.key)) {
      throw InputError(fmt::format("{}: {} is set both here and by the {} axis's value at {}; keep one", fixed.where,
                                   fixed.key, axis.key, v.where));
    }
  }
}

}  // namespace

std::string SweepRun::label() const {
  std::string out = config.is_object() ? config.value("name", "") : "";
  for (const auto& [key, value] : axes.items())
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, text_of(value));
  return out + fmt::format("{}#{}", out.empty() ? "" : " ", repetition + 1);
}

std::string run_id(const Json& normalized_scenario, const std::string& engine, int repetition) {
  const std::string text = fmt::format("{}\n{}\n{}", text_of(normalized_scenario), engine, repetition);
  return sha256_hex(text).substr(0, 12);
}

namespace {

// Loads the command line's libraries, then the sweep file's (relative to it), before any
// scenario is read: their strategies may be named anywhere in the sweep.
std::vector<std::string> load_sweep_plugins(ConfigNode& root, const fs::path& file,
                                            const std::vector<std::string>& given) {
  std::vector<std::string> out;
  out.reserve(given.size());
  for (const auto& path : given) out.push_back(load_plugin(path).path);
  auto list = root.find("plugins");
  if (!list) return out;
  for (const ConfigNode& entry : list->elements("a list of strategy library paths (relative to the sweep file)")) {
    const fs::path path = fs::absolute(file).parent_path() / entry.as_string();
    try {
      out.push_back(load_plugin(path.lexically_normal().string()).path);
    } catch (const InputError& e) {
      entry.fail(e.what());
    }
  }
  return out;
}

}  // namespace

Sweep load_sweep(const fs::path& file, const std::vector<std::string>& extra_sets, int repetitions,
                 const std::vector<std::string>& plugins) {
  const std::string path = file.string();
  const YAML::Node yaml = load_yaml_file(path);
  if (!yaml.IsDefined() || yaml.IsNull()) throw InputError(fmt::format("{}: the sweep is empty", path));
  ConfigNode root(yaml, path);
  root.expect_map("a sweep");
  Sweep sweep;
  sweep.file = fs::absolute(file);
  sweep.name = checked_name(root, file);
  sweep.plugins = load_sweep_plugins(root, file, plugins);
  sweep.scenarios = read_scenarios(root.at("scenario", "the base scenario's file, relative to the sweep file"), file);
  sweep.repetitions = static_cast<int>(root.integer("repetitions", 1, 1, 10000));
  if (repetitions > 0) sweep.repetitions = repetitions;
  sweep.timeout_s = root.number("timeout", sweep.timeout_s, 1);
  sweep.launcher = root.choice("launcher", kLaunchers, sweep.launcher);
  sweep.recalibrate = root.boolean("recalibrate", sweep.recalibrate);
  std::vector<Setting> fixed;
  if (auto s = root.find("set")) fixed = read_settings(*s, path);
  for (const auto& assignment : extra_sets) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(fmt::format("--set {}: expected key.path=value", assignment));
    fixed.push_back({assignment.substr(0, eq), load_yaml_string(assignment.substr(eq + 1), "--set"), "--set"});
  }
  std::vector<Axis> axes;
  if (auto a = root.find("axes")) axes = read_axes(*a, path);
  if (auto s = root.find("slurm")) sweep.slurm = read_slurm(*s);
  root.finish();
  for (const auto& axis : axes) {
    sweep.axis_keys.push_back(axis.key);
    for (const auto& f : fixed) {
      if (f.key == axis.key) {
        throw InputError(fmt::format("{}: {} is both a fixed setting and an axis; keep one", f.where, f.key));
      }
      check_not_set_by_a_value(f, axis);
    }
  }
  const auto configurations = product(fixed, axes);
  std::vector<std::optional<int>> base_ranks;  // each base scenario's own `ranks`, read once
  for (const auto& scenario : sweep.scenarios) base_ranks.push_back(load_scenario(scenario.string()).ranks);
  for (int rep = 0; rep < sweep.repetitions; ++rep) {
    for (std::size_t k = 0; k < sweep.scenarios.size(); ++k) {
      for (const auto& c : configurations) {
        SweepRun run = expand_one(sweep.scenarios[k], c, rep, axes, base_ranks[k]);
        run.index = static_cast<int>(sweep.runs.size());
        sweep.runs.push_back(std::move(run));
      }
    }
  }
  // Two axis values that normalize to the same scenario would be one run recorded twice.
  std::vector<std::string> ids;
  for (const auto& r : sweep.runs) ids.push_back(r.id);
  std::sort(ids.begin(), ids.end());
  if (auto dup = std::adjacent_find(ids.begin(), ids.end()); dup != ids.end()) {
    const auto& a = *std::find_if(sweep.runs.begin(), sweep.runs.end(), [&](const auto& r) { return r.id == *dup; });
    throw InputError(
        fmt::format("{}: two runs are the same scenario (id {}, {}): an axis repeats a value, or sets "
                    "something the scenario already has",
                    path, *dup, a.label()));
  }
  return sweep;
}

}  // namespace lbbench
