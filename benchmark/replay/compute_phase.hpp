// The compute phase of a step (Algorithm 3, lines 6-8): do_work(w) for every local vertex.
// The engine decides what that means (replay/engine.hpp): real random reads under Open
// MPI, simulated compute under SMPI. The step loop and the balancers never know which.
#pragma once

#include <memory>
#include <span>

#include "core/json_yaml.hpp"
#include "core/types.hpp"

namespace lbbench {

class ComputePhase {
 public:
  virtual ~ComputePhase() = default;
  // Runs every vertex's work and adds each vertex's time to vertex_time; an empty
  // vertex_time means no one needs them, and a real engine then does not read the clock
  // per vertex.
  virtual void run(std::span<const double> weights, std::span<double> vertex_time) = 0;
  // The same for some vertices only (message-driven execution).
  virtual void run_some(std::span<const LocalIndex> which, std::span<const double> weights,
                        std::span<double> vertex_time) = 0;
  // How work is produced, for the record's provenance.
  [[nodiscard]] virtual Json describe() const = 0;
  // A value that depends on all work done, so a compiler cannot drop it.
  [[nodiscard]] virtual std::uint64_t checksum() const { return 0; }
};

}  // namespace lbbench
