// The normalized scenario: every default filled in, in a fixed key order, so that printing
// it gives a valid scenario and hashing it identifies the experiment.
#include <fmt/format.h>

#include "core/overloaded.hpp"
#include "core/sha256.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace {

Json front_json(const FrontSpec& f) {
  Json j{{"shape", name_of(kFrontShapes, f.shape)}};
  if (f.shape == FrontShape::sphere) {
    if (!f.center.empty()) j["center"] = f.center;
    j["radius"] = f.radius;
  } else {
    j["axis"] = f.axis;
    j["position"] = f.position;
  }
  j["speed"] = f.speed;
  j["buffer"] = f.buffer;
  return j;
}

Json mesh_json(const MeshSpec& mesh) {
  return std::visit(Overloaded{
                        [](const GridSpec& g) {
                          const Generator kind = g.dim == 2 ? Generator::grid2d : Generator::grid3d;
                          Json j{{"generator", name_of(kGenerators, kind)}, {"nx", g.size[0]}, {"ny", g.size[1]}};
                          if (g.dim == 3) j["nz"] = g.size[2];
                          return j;
                        },
                        [](const GeometricSpec& g) {
                          return Json{{"generator", name_of(kGenerators, Generator::geometric)},
                                      {"n", g.n},
                                      {"dim", g.dim},
                                      {"radius", g.radius}};
                        },
                        [](const DropletsSpec& d) {
                          return Json{{"generator", name_of(kGenerators, Generator::droplets)},
                                      {"n", d.n},
                                      {"dim", d.dim},
                                      {"radius", d.radius},
                                      {"droplets", d.droplets},
                                      {"droplet_radius", d.droplet_radius},
                                      {"fraction", d.fraction}};
                        },
                        [](const MeshFileSpec& f) {
                          Json j{{"file", f.path}, {"format", to_string(f.format)}};
                          if (!f.coords.empty()) j["coords"] = f.coords;
                          return j;
                        },
                        [](const OctreeSpec& o) {
                          const Generator kind = o.dim == 2 ? Generator::quadtree : Generator::octree;
                          return Json{{"generator", name_of(kGenerators, kind)},
                                      {"min_level", o.min_level},
                                      {"max_level", o.max_level},
                                      {"period", o.period},
                                      {"front", front_json(o.front)}};
                        },
                    },
                    mesh);
}

// The model's name first, then its keys (the order is part of the scenario's hash).
Json weights_json(const WeightModel& w) {
  Json j{{"model", weight_model_name(w)}};
  j.update(std::visit(Overloaded{
                          [](const UniformWeights& u) {
                            return Json{{"min", u.min}, {"max", u.max}};
                          },
                          [](const LognormalWeights& l) {
                            return Json{{"mu", l.mu}, {"sigma", l.sigma}};
                          },
                          [](const HotspotWeights& h) {
                            Json j{{"base", h.base}, {"peak", h.peak}, {"radius", h.radius}};
                            if (!h.center.empty()) j["center"] = h.center;
                            return j;
                          },
                          [](const GradientWeights& g) {
                            return Json{{"axis", g.axis}, {"from", g.from}, {"to", g.to}};
                          },
                          [](const FileWeights& f) {
                            return Json{{"component", f.component}, {"scale", f.scale}};
                          },
                          [](const TraceWeights& t) {
                            Json j = Json::object();
                            if (t.part == TraceWeights::Part::subphase) j["subphase"] = t.subphase;
                            if (t.part == TraceWeights::Part::rest) j["subphase"] = "rest";
                            j["scale"] = t.scale;
                            return j;
                          },
                      },
                      w));
  return j;
}

Json evolution_json(const Evolution& e) {
  Json j{{"kind", evolution_name(e)}};
  j.update(std::visit(Overloaded{
                          [](const StaticEvolution&) { return Json::object(); },
                          [](const DriftEvolution& d) {
                            return Json{{"velocity", d.velocity}};
                          },
                          [](const AmrEvolution& a) {
                            return Json{{"period", a.period},
                                        {"regions", a.regions},
                                        {"radius", a.radius},
                                        {"factor", a.factor},
                                        {"levels", a.levels}};
                          },
                          [](const PhasesEvolution& p) {
                            Json phases = Json::array();
                            for (const auto& ph : p.phases) {
                              phases.push_back(Json{{"steps", ph.steps}, {"weights", weights_json(ph.weights)}});
                            }
                            return Json{{"cycle", p.cycle}, {"phases", phases}};
                          },
                          [](const TraceEvolution& t) {
                            return Json{{"after_last", t.repeat ? "repeat" : "hold"}};
                          },
                      },
                      e));
  return j;
}

Json distribution_json(const DistributionSpec& d) {
  Json j{{"kind", to_string(d.kind)}};
  if (d.kind == DistributionKind::strips) j["axis"] = d.axis;
  if (d.kind == DistributionKind::file) j["file"] = d.file;
  if (d.kind == DistributionKind::sfc) j["curve"] = to_string(d.curve);
  return j;
}

}  // namespace

Json normalized(const Scenario& s) {
  Json j;
  j["name"] = s.name;
  j["seed"] = s.seed;
  j["steps"] = s.steps;
  if (s.ranks) j["ranks"] = *s.ranks;
  if (!s.plugins.empty()) {
    Json plugins = Json::array();
    for (const auto& p : s.plugins) plugins.push_back(p.path);
    j["plugins"] = plugins;
  }
  j["mesh"] = mesh_json(s.mesh);
  Json w;
  w["unit_seconds"] = s.workload.unit_seconds;
  if (s.workload.components.empty()) {
    if (!std::holds_alternative<PhasesEvolution>(s.workload.evolution)) w["weights"] = weights_json(s.workload.weights);
    w["evolution"] = evolution_json(s.workload.evolution);
  } else {
    Json components = Json::array();
    for (const auto& c : s.workload.components) {
      Json j{{"name", c.name}, {"evolution", evolution_json(c.evolution)}};
      if (!std::holds_alternative<PhasesEvolution>(c.evolution)) j["weights"] = weights_json(c.weights);
      components.push_back(j);
    }
    w["components"] = components;
  }
  w["edge_bytes"] = s.workload.edge_bytes;
  w["element_bytes"] = s.workload.element_bytes;
  w["messages"] = to_string(s.workload.messages);
  w["schedule"] = to_string(s.workload.schedule);
  j["workload"] = w;
  j["distribution"] = distribution_json(s.distribution);
  j["balancer"] =
      Json{{"name", s.balancer.name()}, {"period", s.balancer.period}, {"params", s.balancer.config.params_json()}};
  Json machine{{"preset", s.machine.preset}};
  if (s.machine.wan_latency) machine["wan_latency"] = *s.machine.wan_latency;
  if (s.machine.processes_per_core) machine["processes_per_core"] = *s.machine.processes_per_core;
  if (s.machine.latency) machine["latency"] = *s.machine.latency;
  if (s.machine.bandwidth) machine["bandwidth"] = *s.machine.bandwidth;
  if (s.machine.eager_bytes) machine["eager_bytes"] = *s.machine.eager_bytes;
  if (!s.machine.costs_file.empty()) machine["costs"] = s.machine.costs_file;
  if (s.machine.site_groups > 0) machine["sites"] = s.machine.site_groups;
  if (!s.machine.sites.empty()) machine["sites"] = s.machine.sites;
  if (s.machine.speeds.size() == 1) machine["speeds"] = s.machine.speeds.front();
  if (s.machine.speeds.size() > 1) machine["speeds"] = s.machine.speeds;
  j["machine"] = machine;
  j["model"] = to_string(s.model);
  if (s.forecast != LoadForecast::mean) j["forecast"] = to_string(s.forecast);
  // Only when set, so scenarios (and sweep run ids) without it normalize as before.
  if (s.model_error.any()) j["model_error"] = Json{{"noise", s.model_error.noise}, {"omit", s.model_error.omit}};
  if (s.cores) j["cores"] = s.cores->per_core.empty() ? Json(s.cores->count) : Json(s.cores->per_core);
  if (s.reorder) j["reorder"] = Json{{"method", s.reorder->method}, {"t", s.reorder->levels}};
  return j;
}

std::string scenario_sha256(const Scenario& s) { return sha256_hex(normalized(s).dump()); }

}  // namespace lbbench
