// A centralized strategy written in Python: rank 0 hands the gathered problem to a Python
// function as NumPy arrays and takes the new owners back (balancer `python`). The
// interpreter is the CPython lbbench was built with, embedded; its time is charged as C++
// code's is.
#pragma once

#include <memory>

#include "balancers/global/params.hpp"
#include "balancers/sdk/centralized.hpp"

namespace lbbench {

class PythonBalancer final : public CentralizedBalancer {
 public:
  explicit PythonBalancer(PythonParams params);
  ~PythonBalancer() override;
  PythonBalancer(const PythonBalancer&) = delete;
  PythonBalancer& operator=(const PythonBalancer&) = delete;

  // Starts the interpreter and loads the module on rank 0, before the run's clock: what
  // a decision is charged is the function's own time.
  void prepare(MPI_Comm comm) override;
  // Throws RunError with the Python traceback where the function raises, and where the
  // owners it returns are not one rank of 0..P-1 per object.
  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override;
  [[nodiscard]] bool needs_graph() const override { return params_.graph; }
  [[nodiscard]] bool needs_vectors() const override { return params_.vectors; }
  [[nodiscard]] bool needs_coords() const override { return true; }

 private:
  struct Function;  // the loaded module's function, held while the interpreter lives
  void load_function() const;
  [[nodiscard]] std::string who() const;
  PythonParams params_;
  mutable std::unique_ptr<Function> function_;
};

}  // namespace lbbench
