// Helpers shared by the MPI tests.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "core/local_graph.hpp"
#include "replay/engine.hpp"

namespace lbbench::test {

// A temporary folder every rank agrees on, removed at the end of the test.
class SharedTempDir {
 public:
  explicit SharedTempDir(MPI_Comm comm = MPI_COMM_WORLD);
  ~SharedTempDir();
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;
  // Writes `content` to `name` on rank 0 (all ranks wait for it) and returns its path.
  std::string write(const std::string& name, const std::string& content);
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  MPI_Comm comm_;
  std::string path_;
};

// The directory holding the METIS distribution's meshes, or "" when it is absent.
std::string shared_meshes_dir();

// Every undirected edge of the distributed graph, as (smaller id, larger id), sorted, on
// every rank. Only for small test graphs.
std::vector<std::pair<std::int64_t, std::int64_t>> all_edges(const LocalGraph& g, MPI_Comm comm);

// Every vertex id of the distributed graph, sorted, on every rank.
std::vector<std::int64_t> all_ids(const LocalGraph& g, MPI_Comm comm);

// Runs fn and checks that it throws an error whose message contains every one of `parts`,
// on every rank.
void expect_error_containing(const std::function<void()>& fn, const std::vector<std::string>& parts);

// A registered balancer by name, with its params given as YAML text.
std::unique_ptr<Balancer> balancer_from_yaml(const std::string& name, const std::string& params_yaml);
// The params a registered balancer runs with in the tests that run them all: none, but
// for `python`, which needs a module (the Hilbert-curve example).
std::string params_to_run(const std::string& name);

// This rank's LoadView of `loads` on g, with 64-byte edges, 128-byte elements and the
// global load sums reduced over comm. It refers to g, loads and machine.
LoadView load_view(const LocalGraph& g, std::span<const Load> loads, const MachineInfo& machine, std::uint64_t seed,
                   int invocation, MPI_Comm comm);

// The engine this test binary runs (Open MPI's), made once.
const Engine& native_engine();

// A GoogleTest parameter name from any text: letters and digits kept, the rest '_'.
std::string param_name(std::string text);

}  // namespace lbbench::test
