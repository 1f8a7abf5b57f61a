// Vertex weights as a pure function of (vertex, position, file weights, step, seed).
//
// Positions are normalized to the unit box from the mesh's bounds. A mesh without
// coordinates gets a 1-D position, the vertex id scaled to [0, 1); mesh files usually
// number vertices with spatial locality, so hotspots and gradients stay meaningful.
#include "workload/load_field.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/hash.hpp"

namespace lbbench {

namespace {

double wrap01(double x) { return x - std::floor(x); }

}  // namespace

LoadField::LoadField(const WorkloadSpec& spec, const LocalGraph& graph, std::uint64_t seed,
                     std::shared_ptr<const TraceLayout> trace)
    : spec_(spec),
      trace_(std::move(trace)),
      seed_(seed),
      dim_(graph.dim > 0 ? graph.dim : 1),
      has_coords_(graph.dim > 0),
      n_(graph.global_vertices),
      bounds_(graph.bounds) {
  if (const auto* phases = std::get_if<PhasesEvolution>(&spec_.evolution)) {
    for (const auto& p : phases->phases) {
      check_model(p.weights, graph);
      cycle_steps_ += p.steps;
    }
  } else {
    check_model(spec_.weights, graph);
  }
  if (const auto* drift = std::get_if<DriftEvolution>(&spec_.evolution)) {
    if (static_cast<int>(drift->velocity.size()) != dim_) {
      throw InputError(fmt::format(
          "workload.evolution.velocity has {} entries, but the mesh positions are {}-D{}", drift->velocity.size(), dim_,
          has_coords_ ? "" : " (the mesh has no coordinates; positions are scaled vertex ids)"));
    }
  }
}

void LoadField::check_model(const WeightModel& model, const LocalGraph& graph) const {
  const std::string no_coords = has_coords_ ? "" : " (the mesh has no coordinates; positions are scaled vertex ids)";
  if (const auto* h = std::get_if<HotspotWeights>(&model)) {
    if (!h->center.empty() && static_cast<int>(h->center.size()) != dim_) {
      throw InputError(fmt::format("workload.weights.center has {} entries, but the mesh positions are {}-D{}",
                                   h->center.size(), dim_, no_coords));
    }
  }
  if (const auto* g = std::get_if<GradientWeights>(&model)) {
    if (g->axis >= dim_) {
      throw InputError(
          fmt::format("workload.weights.axis is {}, but the mesh positions are {}-D{}", g->axis, dim_, no_coords));
    }
  }
  if (const auto* f = std::get_if<FileWeights>(&model)) {
    if (graph.ncon == 0) {
      throw InputError(
          "workload.weights.model is from-file, but the mesh file has no vertex weights "
          "(METIS/Chaco format code with the tens digit set)");
    }
    if (f->component >= graph.ncon) {
      throw InputError(fmt::format("workload.weights.component is {}, but the mesh has {} weight(s) per vertex",
                                   f->component, graph.ncon));
    }
  }
  if (const auto* t = std::get_if<TraceWeights>(&model)) {
    if (!trace_) throw InputError("workload.weights.model is trace, but the mesh is not a recorded run (lbdatafile)");
    if (t->part == TraceWeights::Part::subphase && t->subphase >= trace_->subphases) {
      throw InputError(
          trace_->subphases == 0
              ? fmt::format("workload.weights.subphase is {}, but the trace records no subphases", t->subphase)
              : fmt::format("workload.weights.subphase is {}, but the trace records subphases 0..{}", t->subphase,
                            trace_->subphases - 1));
    }
  }
}

int LoadField::trace_phase(int step) const {
  const int phases = trace_->phases();
  const auto* e = std::get_if<TraceEvolution>(&spec_.evolution);
  return e && !e->repeat ? std::min(step, phases - 1) : step % phases;
}

const WeightModel& LoadField::model_at(int step) const {
  const auto* phases = std::get_if<PhasesEvolution>(&spec_.evolution);
  if (!phases) return spec_.weights;
  int s = phases->cycle ? step % cycle_steps_ : std::min(step, cycle_steps_ - 1);
  for (const auto& p : phases->phases) {
    if (s < p.steps) return p.weights;
    s -= p.steps;
  }
  return phases->phases.back().weights;
}

double LoadField::base_weight(const WeightModel& model, VertexId v, const std::array<double, 3>& x,
                              std::span<const double> file_weights, int step) const {
  const auto id = static_cast<std::uint64_t>(v.value());
  if (const auto* u = std::get_if<UniformWeights>(&model)) {
    return u->min + (u->max - u->min) * uniform01({seed_, tag(Stream::weight_uniform), id});
  }
  if (const auto* l = std::get_if<LognormalWeights>(&model)) {
    return std::exp(l->mu + l->sigma * standard_normal(hash_of({seed_, tag(Stream::weight_lognormal), id})));
  }
  if (const auto* f = std::get_if<FileWeights>(&model)) return f->scale * file_weights[f->component];
  if (const auto* t = std::get_if<TraceWeights>(&model)) {
    const int slot = t->part == TraceWeights::Part::time       ? TraceLayout::time_slot()
                     : t->part == TraceWeights::Part::subphase ? TraceLayout::subphase_slot(t->subphase)
                                                               : trace_->rest_slot();
    return t->scale * trace_->time(v, trace_phase(step), slot) / spec_.unit_seconds;
  }

  // Spatial models; drift evaluates them at a shifted position, with periodic distance.
  const auto* drift = std::get_if<DriftEvolution>(&spec_.evolution);
  std::array<double, 3> p = x;
  if (drift) {
    for (int a = 0; a < dim_; ++a) p[a] = wrap01(x[a] - drift->velocity[a] * step);
  }
  if (const auto* g = std::get_if<GradientWeights>(&model)) return g->from + (g->to - g->from) * p[g->axis];
  const auto& h = std::get<HotspotWeights>(model);
  double d2 = 0.0;
  for (int a = 0; a < dim_; ++a) {
    const double c = h.center.empty() ? 0.5 : h.center[a];
    double d = std::abs(p[a] - c);
    if (drift) d = std::min(d, 1.0 - d);
    d2 += d * d;
  }
  return h.base + h.peak * std::exp(-d2 / (h.radius * h.radius));
}

// A vertex inside region i's ball of radius r / 2^(l-1) is refined to level l; its work
// grows by factor^level, the deepest level over all regions. Regions are re-drawn every
// `period` steps (epoch), which coarsens the old ones.
double LoadField::amr_factor(const std::array<double, 3>& x, int step) const {
  const auto* amr = std::get_if<AmrEvolution>(&spec_.evolution);
  if (!amr) return 1.0;
  const auto epoch = static_cast<std::uint64_t>(step / amr->period);
  int level = 0;
  for (int i = 0; i < amr->regions; ++i) {
    double d2 = 0.0;
    for (int a = 0; a < dim_; ++a) {
      const double c = uniform01(
          {seed_, tag(Stream::amr_region), epoch, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(a)});
      d2 += (x[a] - c) * (x[a] - c);
    }
    const double d = std::sqrt(d2);
    double r = amr->radius;
    for (int l = 1; l <= amr->levels && d < r; ++l, r /= 2.0) level = std::max(level, l);
  }
  return std::pow(amr->factor, level);
}

double LoadField::weight(VertexId v, std::span<const double> coords, std::span<const double> file_weights,
                         int step) const {
  std::array<double, 3> x{0, 0, 0};
  if (has_coords_) {
    for (int a = 0; a < dim_; ++a) {
      const double extent = bounds_.hi[a] - bounds_.lo[a];
      x[a] = extent > 0 ? (coords[a] - bounds_.lo[a]) / extent : 0.5;
    }
  } else {
    x[0] = (static_cast<double>(v.value()) + 0.5) / static_cast<double>(n_);
  }
  return base_weight(model_at(step), v, x, file_weights, step) * amr_factor(x, step);
}

void LoadField::weights(const LocalGraph& g, int step, std::vector<double>& out) const {
  out.resize(static_cast<std::size_t>(g.num_local()));
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    out[static_cast<std::size_t>(v)] = weight(g.gid[v], g.coords_of(v), g.vweights_of(v), step);
  }
}

WorkloadField::WorkloadField(const WorkloadSpec& spec, const LocalGraph& graph, std::uint64_t seed,
                             const std::shared_ptr<const TraceLayout>& trace) {
  if (spec.components.empty()) {
    fields_.emplace_back(spec, graph, seed, trace);
    names_.emplace_back("work");
    return;
  }
  for (std::size_t k = 0; k < spec.components.size(); ++k) {
    WorkloadSpec one = spec;
    one.weights = spec.components[k].weights;
    one.evolution = spec.components[k].evolution;
    one.components.clear();
    fields_.emplace_back(one, graph, hash_of({seed, 0x636f6d70u, k}), trace);
    names_.push_back(spec.components[k].name);
  }
}

bool WorkloadField::is_static() const {
  return std::all_of(fields_.begin(), fields_.end(), [](const LoadField& f) { return f.is_static(); });
}

void WorkloadField::weights(const LocalGraph& g, int step, std::vector<std::vector<double>>& out) const {
  out.resize(fields_.size());
  for (std::size_t k = 0; k < fields_.size(); ++k) fields_[k].weights(g, step, out[k]);
}

double WorkloadField::total_weight(VertexId v, std::span<const double> coords, std::span<const double> file_weights,
                                   int step) const {
  double sum = 0;
  for (const auto& f : fields_) sum += f.weight(v, coords, file_weights, step);
  return sum;
}

}  // namespace lbbench
