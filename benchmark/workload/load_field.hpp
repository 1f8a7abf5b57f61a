// Vertex weights as a pure function of (vertex, position, file weights, step, seed), so an
// owner computes them without communication, also after migration.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/local_graph.hpp"
#include "meshes/trace/trace.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

class LoadField {
 public:
  // Throws InputError when the workload asks for something the mesh lacks (file weights,
  // a center with the wrong number of coordinates, trace weights without a trace). `trace`
  // is the recorded run the mesh was read from, or null.
  LoadField(const WorkloadSpec& spec, const LocalGraph& graph, std::uint64_t seed,
            std::shared_ptr<const TraceLayout> trace = nullptr);

  // Work units of one vertex at `step`; do_work(w) takes w * unit_seconds.
  [[nodiscard]] double weight(VertexId v, std::span<const double> coords, std::span<const double> file_weights,
                              int step) const;

  // Weights of every local vertex at `step`.
  void weights(const LocalGraph& g, int step, std::vector<double>& out) const;

  // True when weights never change with the step, so they need computing only after a migration.
  [[nodiscard]] bool is_static() const { return std::holds_alternative<StaticEvolution>(spec_.evolution); }

  // Coordinates per vertex the field sees: the mesh's, or 1 (the scaled vertex id) when
  // the mesh has none.
  [[nodiscard]] int dim() const { return dim_; }

 private:
  [[nodiscard]] double base_weight(const WeightModel& model, VertexId v, const std::array<double, 3>& x,
                                   std::span<const double> file_weights, int step) const;
  [[nodiscard]] const WeightModel& model_at(int step) const;
  [[nodiscard]] double amr_factor(const std::array<double, 3>& x, int step) const;
  void check_model(const WeightModel& model, const LocalGraph& graph) const;

  [[nodiscard]] int trace_phase(int step) const;

  WorkloadSpec spec_;
  std::shared_ptr<const TraceLayout> trace_;  // a recorded run's times (trace weights)
  std::uint64_t seed_;
  int dim_;
  bool has_coords_;
  std::int64_t n_;
  Box bounds_;
  int cycle_steps_ = 0;
};

// The workload's load vector: one LoadField per component, or one for a scalar workload.
// Each component's random models draw from their own stream, so two lognormal phases
// are independent.
class WorkloadField {
 public:
  WorkloadField(const WorkloadSpec& spec, const LocalGraph& graph, std::uint64_t seed,
                const std::shared_ptr<const TraceLayout>& trace = nullptr);

  [[nodiscard]] int dims() const { return static_cast<int>(fields_.size()); }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  [[nodiscard]] bool is_static() const;

  // Weights of every local vertex at `step`, one array per component.
  void weights(const LocalGraph& g, int step, std::vector<std::vector<double>>& out) const;
  // The sum of one vertex's components: its whole work per step.
  [[nodiscard]] double total_weight(VertexId v, std::span<const double> coords, std::span<const double> file_weights,
                                    int step) const;

 private:
  std::vector<LoadField> fields_;
  std::vector<std::string> names_;
};

}  // namespace lbbench
