// Strict scenario parsing: every key is read through ConfigNode, so misspellings, wrong
// types and out-of-range values are reported with file:line:column and the key path.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "balancers/plugins.hpp"
#include "balancers/reorder/methods.hpp"
#include "balancers/sdk/registry.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "meshes/mesh_spec.hpp"
#include "meshes/trace/trace.hpp"
#include "scenario/costs_file.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace {

namespace fs = std::filesystem;

// The value of an enumerated key, read against the one table of its names.
template <class E, std::size_t N>
E choose(ConfigNode& node, std::string_view key, const NameTable<E, N>& table, E fallback) {
  return value_named(table, node.choice(key, names_of(table), std::string(name_of(table, fallback))));
}

template <std::size_t N>
std::vector<std::string> strings_of(const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
}

std::string resolve_path(const std::string& scenario_file, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  const fs::path base = fs::path(scenario_file).parent_path();
  return (base / path).lexically_normal().string();
}

// Whether a trace source (a folder, a file, a %r pattern or a glob) names files here.
bool trace_source_exists(const std::string& source) {
  try {
    return !trace_files(source).empty();
  } catch (const InputError&) {
    return false;
  }
}

// A relative path of a scenario's, found next to the scenario or else in the folder the
// environment variable `folder_variable` names, where a collection (METIS's meshes, LBAF's
// traces) can live apart from the scenarios; an absolute path as it is. Null in neither.
template <class Exists>
std::optional<std::string> find_beside_or_in(const std::string& scenario_file, const std::string& path,
                                             const char* folder_variable, Exists exists) {
  const std::string here = resolve_path(scenario_file, path);
  if (fs::path(path).is_absolute() || exists(here)) return here;
  const char* dir = std::getenv(folder_variable);
  if (dir && *dir) {
    const std::string there = (fs::path(dir) / path).lexically_normal().string();
    if (exists(there)) return there;
  }
  return std::nullopt;
}

std::string resolve_trace_source(ConfigNode& mesh, const std::string& scenario_file, const std::string& path) {
  if (auto found = find_beside_or_in(scenario_file, path, "LBBENCH_TRACES_DIR", trace_source_exists)) return *found;
  const char* dir = std::getenv("LBBENCH_TRACES_DIR");
  mesh.at("file", "")
      .fail(fmt::format("no trace at {}{}", resolve_path(scenario_file, path),
                        dir && *dir ? fmt::format(" nor in LBBENCH_TRACES_DIR ({})", dir)
                                    : " (LBBENCH_TRACES_DIR, where traces are also looked for, is not set)"));
}

// A mesh file in neither place is left to the reader, which names the path it could not
// open. The look is the non-throwing one: a name the system refuses (too long, or behind a
// folder this user may not read) is a file that is not there, for the reader to report.
std::string resolve_mesh_file(const std::string& scenario_file, const std::string& path) {
  const auto exists = [](const std::string& p) {
    std::error_code refused;
    return fs::exists(p, refused);
  };
  return find_beside_or_in(scenario_file, path, "LBBENCH_MESHES_DIR", exists)
      .value_or(resolve_path(scenario_file, path));
}

void check_center_dim(ConfigNode& node, const std::vector<double>& v, int dim, std::string_view key) {
  if (dim > 0 && !v.empty() && static_cast<int>(v.size()) != dim) {
    node.at(key, "").fail(fmt::format("has {} entries but the mesh is {}-D", v.size(), dim));
  }
}

// The node an error about `key` of `parent` points at: the key when the scenario gave it,
// else its parent (the default came from there).
ConfigNode node_for(ConfigNode parent, std::string_view key) {
  if (auto n = parent.find(key)) return *n;
  return parent;
}

int read_dim(ConfigNode& node) { return static_cast<int>(node.integer("dim", 2, 2, 3)); }

// A block mesh's front: which keys belong to which shape is said by name.
FrontSpec parse_front(ConfigNode f, int dim) {
  f.expect_map("a front ({shape: sphere or plane, ...})");
  FrontSpec out;
  out.shape = choose(f, "shape", kFrontShapes, FrontShape::sphere);
  const bool sphere = out.shape == FrontShape::sphere;
  for (const char* key : sphere ? std::array{"axis", "position"} : std::array{"center", "radius"}) {
    if (f.has(key)) {
      f.at(key, "").fail(fmt::format("is a {} front's key; this front's shape is {}", sphere ? "plane" : "sphere",
                                     name_of(kFrontShapes, out.shape)));
    }
  }
  if (sphere) {
    out.center = f.numbers("center", std::vector<double>{}, 1, 3, 0.0, 1.0);
    check_center_dim(f, out.center, dim, "center");
    out.radius = f.number("radius", out.radius, 0.0, 10.0);
  } else {
    out.axis = static_cast<int>(f.integer("axis", out.axis, 0, dim - 1));
    out.position = f.number("position", out.position, -10.0, 10.0);
  }
  out.speed = f.number("speed", out.speed, -1.0, 1.0);
  out.buffer = f.number("buffer", out.buffer, 0.0, 64.0);
  f.finish();
  return out;
}

// An octree (quadtree in 2-D) of blocks; its ids must last the run's regrids
// (meshes/octree/geometry.hpp), which `steps` (read before the mesh) tells.
OctreeSpec parse_block_tree(ConfigNode& mesh, int dim, int steps) {
  OctreeSpec o;
  o.dim = dim;
  const int deepest = octree_deepest_level(dim);
  o.min_level = static_cast<int>(mesh.integer("min_level", o.min_level, 0, deepest));
  o.max_level = static_cast<int>(mesh.integer("max_level", std::max(o.max_level, o.min_level), 0, deepest));
  if (o.max_level < o.min_level) {
    mesh.at("max_level", "").fail(fmt::format("must be at least min_level ({})", o.min_level));
  }
  o.period = static_cast<int>(mesh.integer("period", o.period, 1));
  if (auto front = mesh.find("front")) o.front = parse_front(*front, dim);
  const std::int64_t generations = (steps - 1) / o.period + 1;
  const auto slots = static_cast<std::uint64_t>(octree_id_slots(dim, o.max_level));
  if (static_cast<std::uint64_t>(generations) > (std::uint64_t{1} << 63) / slots) {
    node_for(mesh, "max_level")
        .fail(fmt::format("{} levels and {} regrids need block ids beyond 2^63 (every regrid gives its new blocks "
                          "ids never used before); use fewer levels, fewer steps or a longer period",
                          o.max_level, generations - 1));
  }
  return o;
}

MeshSpec parse_generator(ConfigNode& mesh, const ConfigNode& generator_node, int steps) {
  const Generator generator = value_named(kGenerators, generator_node.as_choice(names_of(kGenerators)));
  if (generator == Generator::quadtree || generator == Generator::octree) {
    return parse_block_tree(mesh, generator == Generator::quadtree ? 2 : 3, steps);
  }
  if (generator == Generator::grid2d || generator == Generator::grid3d) {
    GridSpec g;
    g.dim = generator == Generator::grid2d ? 2 : 3;
    g.size[0] = mesh.integer("nx", std::nullopt, 1);
    g.size[1] = mesh.integer("ny", std::nullopt, 1);
    if (g.dim == 3) g.size[2] = mesh.integer("nz", std::nullopt, 1);
    return g;
  }
  if (generator == Generator::geometric) {
    GeometricSpec g;
    g.n = mesh.integer("n", std::nullopt, 1);
    g.dim = read_dim(mesh);
    g.radius = mesh.number("radius", std::nullopt, 1e-6, 1.0);
    return g;
  }
  DropletsSpec d;
  d.n = mesh.integer("n", std::nullopt, 1);
  d.dim = read_dim(mesh);
  d.radius = mesh.number("radius", std::nullopt, 1e-6, 1.0);
  d.droplets = static_cast<int>(mesh.integer("droplets", d.droplets, 1, 100000));
  d.droplet_radius = mesh.number("droplet_radius", d.droplet_radius, 1e-6, 1.0);
  d.fraction = mesh.number("fraction", d.fraction, 0.0, 1.0);
  return d;
}

MeshSpec parse_mesh(ConfigNode mesh, const std::string& file, int steps) {
  mesh.expect_map("the mesh section");
  const bool has_generator = mesh.has("generator");
  const bool has_file = mesh.has("file");
  if (has_generator == has_file) {
    mesh.fail(has_file ? "give either 'generator' or 'file', not both"
                       : fmt::format("missing 'generator' (one of: {}) or 'file' (a mesh file)",
                                     fmt::join(names_of(kGenerators), ", ")));
  }
  MeshSpec out;
  if (has_generator) {
    out = parse_generator(mesh, *mesh.find("generator"), steps);
  } else {
    MeshFileSpec f;
    f.path = mesh.string("file");
    f.format = choose(mesh, "format", kMeshFormats, MeshFormat::metis);
    f.resolved =
        f.format == MeshFormat::lbdatafile ? resolve_trace_source(mesh, file, f.path) : resolve_mesh_file(file, f.path);
    f.coords = mesh.string("coords", std::string());
    if (f.format == MeshFormat::lbdatafile && !f.coords.empty())
      mesh.at("coords", "").fail("a recorded run (lbdatafile) has no coordinates");
    f.coords_resolved = resolve_path(file, f.coords);
    out = f;
  }
  mesh.finish();
  return out;
}

WeightModel parse_weights(ConfigNode w, int dim) {
  w.expect_map("a weight model");
  const std::string model = w.choice("model", strings_of(kWeightModelNames));
  WeightModel out;
  if (model == "uniform") {
    UniformWeights u;
    u.min = w.number("min", u.min, 0.0);
    u.max = w.number("max", u.min, 0.0);
    if (u.max < u.min) w.at("max", "").fail(fmt::format("must be >= min ({})", u.min));
    out = u;
  } else if (model == "lognormal") {
    LognormalWeights l;
    l.mu = w.number("mu", l.mu, -50.0, 50.0);
    l.sigma = w.number("sigma", l.sigma, 0.0, 10.0);
    out = l;
  } else if (model == "hotspot") {
    HotspotWeights h;
    h.base = w.number("base", h.base, 0.0);
    h.peak = w.number("peak", h.peak, 0.0);
    h.radius = w.number("radius", h.radius, 1e-9);
    h.center = w.numbers("center", std::vector<double>{}, 1, 3, 0.0, 1.0);
    check_center_dim(w, h.center, dim, "center");
    out = h;
  } else if (model == "gradient") {
    GradientWeights g;
    g.axis = static_cast<int>(w.integer("axis", g.axis, 0, 2));
    if (dim > 0 && g.axis >= dim)
      w.at("axis", "").fail(fmt::format("axis {} does not exist in a {}-D mesh", g.axis, dim));
    g.from = w.number("from", g.from, 0.0);
    g.to = w.number("to", g.to, 0.0);
    out = g;
  } else if (model == "from-file") {
    FileWeights f;
    f.component = static_cast<int>(w.integer("component", f.component, 0, 1000));
    f.scale = w.number("scale", f.scale, 0.0);
    out = f;
  } else {
    TraceWeights t;
    if (auto part = w.find("subphase")) {
      if (part->is_scalar() && part->as_string() == "rest") {
        t.part = TraceWeights::Part::rest;
      } else {
        t.part = TraceWeights::Part::subphase;
        try {
          t.subphase = static_cast<int>(part->as_integer(0, 4095));
        } catch (const InputError&) {
          part->fail("expected a subphase id (an integer from 0) or rest (the time outside every subphase)");
        }
      }
    }
    t.scale = w.number("scale", t.scale, 0.0);
    out = t;
  }
  w.finish();
  return out;
}

bool is_spatial(const WeightModel& w) {
  return std::holds_alternative<HotspotWeights>(w) || std::holds_alternative<GradientWeights>(w);
}

Evolution parse_evolution(ConfigNode e, int dim, const std::optional<WeightModel>& weights) {
  // `evolution: static` is shorthand for `evolution: {kind: static}`.
  if (e.is_scalar()) {
    const std::string kind = e.as_choice(strings_of(kEvolutionNames));
    if (kind == "phases") e.fail("phases need a list: write evolution: {kind: phases, phases: [...]}");
    if (kind == "drift") e.fail("drift needs a velocity: write evolution: {kind: drift, velocity: [...]}");
    if (kind == "amr") return AmrEvolution{};
    if (kind == "trace") return TraceEvolution{};
    return StaticEvolution{};
  }
  e.expect_map("an evolution (static, drift, amr, phases or trace)");
  const std::string kind = e.choice("kind", strings_of(kEvolutionNames));
  Evolution out;
  if (kind == "static") {
    out = StaticEvolution{};
  } else if (kind == "drift") {
    if (!weights || !is_spatial(*weights)) {
      e.at("kind", "").fail("drift moves a spatial load field; use weights.model hotspot or gradient");
    }
    DriftEvolution d;
    d.velocity = e.numbers("velocity", std::nullopt, 1, 3, -1.0, 1.0);
    check_center_dim(e, d.velocity, dim, "velocity");
    out = d;
  } else if (kind == "amr") {
    AmrEvolution a;
    a.period = static_cast<int>(e.integer("period", a.period, 1));
    a.regions = static_cast<int>(e.integer("regions", a.regions, 1, 10000));
    a.radius = e.number("radius", a.radius, 1e-9, 1.0);
    a.factor = e.number("factor", a.factor, 0.0);
    a.levels = static_cast<int>(e.integer("levels", a.levels, 1, 10));
    out = a;
  } else if (kind == "trace") {
    TraceEvolution t;
    t.repeat = e.choice("after_last", std::vector<std::string>{"repeat", "hold"}, std::string("repeat")) == "repeat";
    out = t;
  } else {
    PhasesEvolution p;
    p.cycle = e.boolean("cycle", p.cycle);
    auto list = e.at("phases", "a list of {steps, weights}");
    for (auto& phase : list.elements("a list of {steps, weights}")) {
      phase.expect_map("a phase ({steps, weights})");
      Phase ph;
      ph.steps = static_cast<int>(phase.integer("steps", std::nullopt, 1));
      ph.weights = parse_weights(phase.at("weights", "a weight model"), dim);
      phase.finish();
      p.phases.push_back(std::move(ph));
    }
    if (p.phases.empty()) list.fail("expected at least one phase");
    out = p;
  }
  e.finish();
  return out;
}

std::vector<LoadComponent> parse_components(const ConfigNode& list, int dim) {
  const std::string expected = "a list of load components ({name, weights, evolution})";
  std::vector<LoadComponent> out;
  for (auto& c : list.elements(expected)) {
    c.expect_map("a load component ({name, weights, evolution})");
    LoadComponent comp;
    comp.name = c.string("name", fmt::format("phase{}", out.size()));
    std::optional<WeightModel> weights;
    if (auto node = c.find("weights")) weights = parse_weights(*node, dim);
    if (auto e = c.find("evolution")) {
      comp.evolution = parse_evolution(*e, dim, weights);
    } else if (weights && std::holds_alternative<TraceWeights>(*weights)) {
      comp.evolution = TraceEvolution{};
    }
    if (const auto* phases = std::get_if<PhasesEvolution>(&comp.evolution)) {
      if (weights)
        c.at("weights", "").fail("with evolution.kind phases, each phase gives its own weights; leave weights out");
      weights = phases->phases.front().weights;
    }
    comp.weights = weights ? *weights : parse_weights(c.at("weights", "a weight model"), dim);
    for (const auto& other : out) {
      if (other.name == comp.name) c.at("name", "").fail(fmt::format("'{}' names two components", comp.name));
    }
    c.finish();
    out.push_back(std::move(comp));
  }
  if (out.empty() || out.size() > 16) list.fail(fmt::format("expected 1 to 16 components, got {}", out.size()));
  return out;
}

// The workload a scenario gets by default: on a recorded run, its own times phase by phase
// and its own message sizes (edge weights are the recorded bytes).
WorkloadSpec default_workload(bool trace_mesh) {
  WorkloadSpec out;
  if (trace_mesh) {
    out.weights = TraceWeights{};
    out.evolution = TraceEvolution{};
    out.edge_bytes = 1;
  }
  return out;
}

WorkloadSpec parse_workload(ConfigNode w, int dim, bool trace_mesh) {
  w.expect_map("the workload section");
  WorkloadSpec out = default_workload(trace_mesh);
  out.unit_seconds = w.number("unit_seconds", out.unit_seconds, 0.0, 3600.0);
  std::optional<WeightModel> weights;
  if (auto node = w.find("weights")) {
    weights = parse_weights(*node, dim);
    if (!std::holds_alternative<TraceWeights>(*weights)) out.evolution = StaticEvolution{};
  }
  if (auto node = w.find("evolution")) {
    out.evolution = parse_evolution(*node, dim, weights);
  } else if (weights && std::holds_alternative<TraceWeights>(*weights)) {
    out.evolution = TraceEvolution{};
  }
  const bool phased = std::holds_alternative<PhasesEvolution>(out.evolution);
  if (phased && weights) w.at("weights", "").fail("with evolution.kind phases, each phase gives its own weights");
  if (weights) out.weights = *weights;
  if (phased) out.weights = std::get<PhasesEvolution>(out.evolution).phases.front().weights;
  out.edge_bytes = w.integer("edge_bytes", out.edge_bytes, 0, std::int64_t{1} << 30);
  out.element_bytes = w.integer("element_bytes", out.element_bytes, 0, std::int64_t{1} << 30);
  out.messages = choose(w, "messages", kMessageModes, MessageMode::per_edge);
  out.schedule = choose(w, "schedule", kSchedules, Schedule::bulk);
  if (auto list = w.find("components")) {
    for (const char* scalar_key : {"weights", "evolution"}) {
      if (w.has(scalar_key)) {
        w.at(scalar_key, "").fail("with components, each component gives its own weights and evolution");
      }
    }
    out.components = parse_components(*list, dim);
    out.weights = UniformWeights{};  // the components replace the scalar model
    out.evolution = StaticEvolution{};
    if (out.schedule == Schedule::message_driven) {
      w.at("schedule", "")
          .fail("message-driven runs one phase per step; load components run their phases in bulk order");
    }
  }
  w.finish();
  return out;
}

DistributionSpec parse_distribution(ConfigNode d, const std::string& file, const MeshSpec& mesh) {
  const int dim = known_mesh_dim(mesh);
  const bool trace_mesh = is_trace_mesh(mesh);
  DistributionSpec out;
  if (d.is_scalar()) {
    out.kind = value_named(kDistributionKinds, d.as_choice(names_of(kDistributionKinds)));
    if (out.kind == DistributionKind::file) {
      d.fail("a file distribution needs a path: write distribution: {kind: file, file: PATH}");
    }
  } else {
    d.expect_map("a distribution (block, cyclic, random, strips, sfc or file)");
    out.kind = value_named(kDistributionKinds, d.choice("kind", names_of(kDistributionKinds)));
    if (out.kind == DistributionKind::strips) out.axis = static_cast<int>(d.integer("axis", 0, 0, 2));
    if (out.kind == DistributionKind::file) {
      out.file = d.string("file");
      out.file_resolved = resolve_path(file, out.file);
    }
    if (out.kind == DistributionKind::sfc) out.curve = choose(d, "curve", kCurves, Curve::morton);
    d.finish();
  }
  if (out.kind == DistributionKind::sfc && !mesh_regrids(mesh)) {
    d.fail(
        "sfc cuts the blocks of an octree or quadtree mesh in equal parts along a space-filling curve; this mesh "
        "is not one (use block, cyclic, random, strips or file)");
  }
  if (out.kind == DistributionKind::file && mesh_regrids(mesh)) {
    d.fail(
        "a partition file gives a rank per vertex id in order, but a block mesh's ids are sparse and grow with "
        "every regrid (use sfc, block, cyclic, random or strips)");
  }
  if (out.kind == DistributionKind::strips && dim > 0 && out.axis >= dim) {
    d.fail(fmt::format("strips along axis {} need a mesh with at least {} coordinates", out.axis, out.axis + 1));
  }
  if (out.kind == DistributionKind::trace && !trace_mesh)
    d.fail("a trace distribution places a recorded run's tasks; the mesh needs format: lbdatafile");
  return out;
}

// The balancer and its params, parsed once into typed params; `dims` is the number of
// load components of the workload, which some params must match.
BalancerSpec parse_balancer(ConfigNode b, int dims) {
  BalancerSpec out;
  std::optional<ConfigNode> params;
  const ConfigNode* name_node = &b;
  std::optional<ConfigNode> name_holder;
  std::string name;
  if (b.is_scalar()) {
    name = b.as_string();
  } else {
    b.expect_map("a balancer ({name, period, params})");
    name_holder = b.at("name", "a registered balancer; see `lbbench list balancers`");
    name_node = &*name_holder;
    name = name_holder->as_string();
    out.period = static_cast<int>(b.integer("period", out.period, 1));
    params = b.find("params");
    b.finish();
  }
  const BalancerInfo& info = find_balancer(name, *name_node);
  out.config = parse_balancer_config(info, params ? params->unrecorded() : ConfigNode(YAML::Node(), b.file()));
  try {
    out.config.check_dims(dims);
  } catch (const InputError& e) {
    (params ? *params : b).fail(e.what());
  }
  return out;
}

// Reads the preset's file so that its errors surface at validation, not at run time. A
// preset file named in the scenario is found next to it; one given with --set, from the
// working folder, as a user typing the path expects.
void resolve_preset(MachineSpec& out, const ConfigNode& where) {
  if (out.preset == "local") return;
  try {
    out.definition = load_machine_preset(out.preset, where.given_on_command_line() ? std::string() : where.file());
  } catch (const InputError& e) {
    where.fail(e.what());
  }
}

// `latency`, `bandwidth` and `costs`, which every machine may give. A costs file named in
// the scenario is found next to it; one given with --set, from the working folder (where
// `lbbench report --costs-out` wrote it).
void parse_network(ConfigNode& m, MachineSpec& out) {
  if (auto latency = m.find("latency")) out.latency = latency->as_number(0.0, 10.0);
  if (auto bandwidth = m.find("bandwidth")) out.bandwidth = bandwidth->as_number(1.0, 1e15);
  if (auto costs = m.find("costs")) {
    out.costs_file = costs->as_string();
    out.costs_file_resolved = costs->given_on_command_line() ? out.costs_file : resolve_path(m.file(), out.costs_file);
    try {
      out.costs = read_costs_file(out.costs_file_resolved);
    } catch (const InputError& e) {
      costs->fail(e.what());
    }
  }
}

MachineSpec parse_machine(ConfigNode m) {
  MachineSpec out;
  const std::vector<std::string> presets = machine_preset_names(m.file());
  if (m.is_scalar()) {
    out.preset = names_a_preset_file(m.as_string()) ? m.as_string() : m.as_choice(presets);
    resolve_preset(out, m);
    return out;
  }
  m.expect_map("a machine (a preset name, and options)");
  const std::optional<ConfigNode> preset = m.find("preset");
  out.preset = preset && preset->is_scalar() && names_a_preset_file(preset->as_string())
                   ? preset->as_string()
                   : m.choice("preset", presets, std::string("local"));
  parse_network(m, out);
  if (out.preset != "local") {
    resolve_preset(out, *m.find("preset"));
    if (auto wan = m.find("wan_latency")) {
      if (out.definition->sites < 2)
        wan->fail(fmt::format("preset {} has a single site and no wide-area link", out.preset));
      out.wan_latency = wan->as_number(0.0, 100.0);
    }
    if (auto per_core = m.find("processes_per_core"))
      out.processes_per_core = static_cast<int>(per_core->as_integer(1, 1024));
    if (auto eager = m.find("eager_bytes")) out.eager_bytes = eager->as_number(0.0, 1e12);
    for (const char* key : {"sites", "speeds"}) {
      if (m.has(key))
        m.at(key, "").fail(
            fmt::format("{} are declared inline only for machine local; preset {} defines its own", key, out.preset));
    }
    m.finish();
    return out;
  }
  if (m.has("wan_latency"))
    m.at("wan_latency", "").fail("machine local has no wide-area link; use a preset with sites, such as grid-2site");
  if (m.has("eager_bytes"))
    m.at("eager_bytes", "").fail("is for simulated and modeled presets; on machine local the MPI library decides");
  if (m.has("processes_per_core"))
    m.at("processes_per_core", "")
        .fail(
            "is for simulated presets; on machine local the launcher places the processes (share real cores with "
            "`cores:`)");
  if (auto sites = m.find("sites")) {
    if (sites->is_scalar()) {
      out.site_groups = static_cast<int>(sites->as_integer(1, 1 << 20));
    } else {
      for (const auto& s : sites->elements("a number of sites, or a list with the site of each rank")) {
        out.sites.push_back(static_cast<int>(s.as_integer(0, 1 << 20)));
      }
      if (out.sites.empty()) sites->fail("expected at least one site");
    }
  }
  if (auto speeds = m.find("speeds")) {
    if (speeds->is_scalar()) {
      out.speeds.push_back(speeds->as_number(1e-6, 1e6));
    } else {
      for (const auto& s : speeds->elements("a speed, or a list with the speed of each rank")) {
        out.speeds.push_back(s.as_number(1e-6, 1e6));
      }
      if (out.speeds.empty()) speeds->fail("expected at least one speed");
    }
  }
  m.finish();
  return out;
}

CoresSpec parse_cores(const ConfigNode& c) {
  CoresSpec out;
  if (c.is_scalar()) {
    out.count = static_cast<int>(c.as_integer(1, 1 << 16));
    return out;
  }
  for (const auto& e : c.elements("a number of cores, or a list with the processes of each core")) {
    out.per_core.push_back(static_cast<int>(e.as_integer(1, 1 << 16)));
  }
  if (out.per_core.empty()) c.fail("expected at least one core");
  out.count = static_cast<int>(out.per_core.size());
  return out;
}

ReorderSpec parse_reorder(ConfigNode r) {
  const std::vector<std::string> methods = strings_of(reorder::kMethodNames);
  ReorderSpec out;
  if (r.is_scalar()) {
    out.method = r.as_choice(methods);
    return out;
  }
  r.expect_map("a reorder method, or a mapping {method: ..., t: ...}");
  out.method = r.choice("method", methods);
  out.levels = static_cast<int>(r.integer("t", out.levels, 2, 64));
  r.finish();
  return out;
}

ModelError parse_model_error(ConfigNode e) {
  e.expect_map("the model error (noise, omit)");
  ModelError out;
  out.noise = e.number("noise", 0.0, 0.0, 10.0);
  out.omit = e.number("omit", 0.0, 0.0, 0.99);
  e.finish();
  return out;
}

// A trace weight model replays a recorded run's phases: it needs the recorded run
// (mesh.format lbdatafile), the trace evolution, and a unit to turn seconds into weights.
void check_trace_model(const ConfigNode& where, const WeightModel& w, const Evolution& e, const Scenario& s) {
  const bool trace_weights = std::holds_alternative<TraceWeights>(w);
  const bool trace_evolution = std::holds_alternative<TraceEvolution>(e);
  if (trace_weights && !is_trace_mesh(s.mesh))
    node_for(where, "weights").fail("the trace weight model replays a recorded run; the mesh needs format: lbdatafile");
  if (trace_weights && !trace_evolution)
    node_for(where, "evolution")
        .fail(fmt::format("trace weights replay the recorded phases; write evolution: trace (not {})",
                          evolution_name(e)));
  if (trace_evolution && !trace_weights)
    node_for(where, "evolution")
        .fail(fmt::format("the trace evolution steps through a recorded run's phases; it needs weights.model trace "
                          "(not {})",
                          weight_model_name(w)));
  if (trace_weights && s.workload.unit_seconds <= 0)
    node_for(where, "unit_seconds").fail("trace weights are recorded seconds over unit_seconds, which must be > 0");
}

void check_trace_workload(ConfigNode& root, const Scenario& s) {
  const std::optional<ConfigNode> workload = root.find("workload");
  const ConfigNode where = workload ? *workload : root;
  if (s.workload.components.empty()) {
    check_trace_model(where, s.workload.weights, s.workload.evolution, s);
    return;
  }
  const auto list = ConfigNode(where).at("components", "").elements("");
  for (std::size_t k = 0; k < s.workload.components.size(); ++k) {
    const LoadComponent& c = s.workload.components[k];
    check_trace_model(list[k], c.weights, c.evolution, s);
  }
}

// Loads each library of a `plugins:` list, so that the balancer may name their strategies.
std::vector<PluginRef> load_plugins(ConfigNode& list, const std::string& file) {
  std::vector<PluginRef> out;
  for (const ConfigNode& entry : list.elements("a list of strategy library paths (relative to the scenario)")) {
    PluginRef ref{.path = entry.as_string(), .resolved = resolve_path(file, entry.as_string())};
    try {
      load_plugin(ref.resolved);
    } catch (const InputError& e) {
      entry.fail(e.what());
    }
    out.push_back(std::move(ref));
  }
  return out;
}

}  // namespace

Scenario parse_scenario(const YAML::Node& root_node, const std::string& file, SchemaRecorder* recorder) {
  if (!root_node.IsDefined() || root_node.IsNull()) throw InputError(fmt::format("{}: the scenario is empty", file));
  ConfigNode root(root_node, file, recorder);
  root.expect_map("a scenario");
  Scenario s;
  s.source = file;
  s.name = root.string("name");
  s.seed = root.unsigned_integer("seed", s.seed);
  s.steps = static_cast<int>(root.integer("steps", std::nullopt, 1, 100000000));
  if (root.has("ranks")) s.ranks = static_cast<int>(root.integer("ranks", std::nullopt, 1, 1 << 24));
  s.mesh = parse_mesh(root.at("mesh", "a generator or a file"), file, s.steps);
  const int dim = known_mesh_dim(s.mesh);
  const bool trace_mesh = is_trace_mesh(s.mesh);
  s.workload = default_workload(trace_mesh);
  if (auto w = root.find("workload")) s.workload = parse_workload(*w, dim, trace_mesh);
  check_trace_workload(root, s);
  if (trace_mesh) s.distribution.kind = DistributionKind::trace;
  if (mesh_regrids(s.mesh)) s.distribution.kind = DistributionKind::sfc;
  if (auto d = root.find("distribution")) s.distribution = parse_distribution(*d, file, s.mesh);
  const int dims = s.workload.components.empty() ? 1 : static_cast<int>(s.workload.components.size());
  if (auto p = root.find("plugins")) s.plugins = load_plugins(*p, file);
  if (auto b = root.find("balancer")) s.balancer = parse_balancer(*b, dims);
  if (auto m = root.find("machine")) s.machine = parse_machine(*m);
  s.model = choose(root, "model", kAppModels, AppModel::measured);
  s.forecast = choose(root, "forecast", kLoadForecasts, LoadForecast::mean);
  if (s.forecast == LoadForecast::trend && s.model != AppModel::measured) {
    node_for(root, "forecast")
        .fail(fmt::format("the trend forecast extrapolates measured times; it needs model: measured (not {})",
                          to_string(s.model)));
  }
  if (auto e = root.find("model_error")) s.model_error = parse_model_error(*e);
  if (auto c = root.find("cores")) s.cores = parse_cores(*c);
  if (auto r = root.find("reorder")) s.reorder = parse_reorder(*r);
  root.finish();
  return s;
}

namespace {

// A copy made in code, so its marks are null and errors about it say "--set" rather than
// pointing into the text of the override.
YAML::Node without_marks(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return YAML::Node(node.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& e : node) out.push_back(without_marks(e));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : node) out[kv.first.Scalar()] = without_marks(kv.second);
      return out;
    }
    default: return YAML::Node(YAML::NodeType::Null);
  }
}

}  // namespace

void apply_override(YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(fmt::format("--set {}: expected key.path=value", assignment));
  }
  const std::string path = assignment.substr(0, eq);
  const std::string value_text = assignment.substr(eq + 1);
  YAML::Node value = without_marks(load_yaml_string(value_text, "--set " + path));
  std::vector<std::string> keys;
  for (std::size_t start = 0;;) {
    const auto dot = path.find('.', start);
    keys.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  // yaml-cpp nodes are handles: walking with operator[] on copies edits the tree in place.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node next = chain.back()[keys[i]];
    if (next.IsDefined() && !next.IsNull() && !next.IsMap()) {
      // Scalar shorthands (`balancer: greedy`) become the mapping they stand for.
      const std::string shorthand_key = keys[i] == "balancer" ? "name" : keys[i] == "machine" ? "preset" : "kind";
      YAML::Node expanded(YAML::NodeType::Map);
      expanded[shorthand_key] = next;
      chain.back()[keys[i]] = expanded;
      next = chain.back()[keys[i]];
    }
    chain.push_back(next);
  }
  chain.back()[keys.back()] = value;
}

Scenario load_scenario(const std::string& path, std::span<const std::string> overrides, SchemaRecorder* recorder) {
  YAML::Node root = load_yaml_file(path);
  if (!overrides.empty() && !root.IsMap()) throw InputError(fmt::format("{}: the scenario is not a mapping", path));
  for (const auto& o : overrides) apply_override(root, o);
  return parse_scenario(root, path, recorder);
}

}  // namespace lbbench
