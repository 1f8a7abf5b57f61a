// Helpers shared by the MPI tests (see mpi_test_util.hpp).
#include "mpi_test_util.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "balancers/sdk/factory.hpp"
#include "balancers/sdk/registry.hpp"
#include "comm/mpi.hpp"

namespace lbbench::test {

namespace fs = std::filesystem;

SharedTempDir::SharedTempDir(MPI_Comm comm) : comm_(comm) {
  std::string path(4096, '\0');
  if (comm_rank(comm) == 0) {
    std::string templ = (fs::temp_directory_path() / "lbbench-test-XXXXXX").string();
    if (!::mkdtemp(templ.data())) std::abort();
    path = templ;
    path.resize(4096, '\0');
  }
  MPI_Bcast(path.data(), 4096, MPI_CHAR, 0, comm);
  path_ = path.c_str();
}

SharedTempDir::~SharedTempDir() {
  MPI_Barrier(comm_);
  if (comm_rank(comm_) == 0) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

std::string SharedTempDir::write(const std::string& name, const std::string& content) {
  const std::string file = (fs::path(path_) / name).string();
  if (comm_rank(comm_) == 0) std::ofstream(file) << content;
  MPI_Barrier(comm_);
  return file;
}

std::string shared_meshes_dir() {
  if (const char* env = std::getenv("LBBENCH_MESHES_DIR")) return fs::is_directory(env) ? env : "";
  const fs::path dir = fs::path(LBBENCH_SOURCE_DIR) / ".." / "shared" / "meshes";
  return fs::is_directory(dir) ? dir.lexically_normal().string() : "";
}

namespace {

template <class T>
std::vector<T> allgather_all(const std::vector<T>& mine, MPI_Comm comm) {
  const int n = comm_size(comm);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<T> all(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0)));
  MPI_Allgatherv(mine.data(), count, mpi_type<T>(), all.data(), counts.data(), displs.data(), mpi_type<T>(), comm);
  return all;
}

}  // namespace

std::vector<std::pair<std::int64_t, std::int64_t>> all_edges(const LocalGraph& g, MPI_Comm comm) {
  std::vector<std::int64_t> flat;
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (auto u : g.neighbors(v)) {
      flat.push_back(g.gid[v].value());
      flat.push_back(u.value());
    }
  }
  const auto all = allgather_all(flat, comm);
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  for (std::size_t i = 0; i < all.size(); i += 2) {
    if (all[i] < all[i + 1]) edges.emplace_back(all[i], all[i + 1]);
  }
  std::sort(edges.begin(), edges.end());
  return edges;
}

std::vector<std::int64_t> all_ids(const LocalGraph& g, MPI_Comm comm) {
  std::vector<std::int64_t> mine;
  for (auto id : g.gid) mine.push_back(id.value());
  auto all = allgather_all(mine, comm);
  std::sort(all.begin(), all.end());
  return all;
}

void expect_error_containing(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error, but none was thrown";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "missing '" << p << "' in: " << what;
  }
}

const Engine& native_engine() {
  static const std::unique_ptr<Engine> engine = make_native_engine(EngineSettings{});
  return *engine;
}

std::string param_name(std::string text) {
  for (auto& c : text) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return text;
}

std::unique_ptr<Balancer> balancer_from_yaml(const std::string& name, const std::string& params_yaml) {
  const BalancerInfo& info = find_balancer(name, ConfigNode(YAML::Node(), "test"));
  return make_balancer(parse_balancer_config(info, ConfigNode(YAML::Load(params_yaml), "test")));
}

LoadView load_view(const LocalGraph& g, std::span<const Load> loads, const MachineInfo& machine, std::uint64_t seed,
                   int invocation, MPI_Comm comm) {
  const Load mine = std::accumulate(loads.begin(), loads.end(), Load{});
  return LoadView{.graph = g,
                  .vertex_load = loads,
                  .vertex_load_vec = {},
                  .vertex_load_trend = {},
                  .trend_origin = {},
                  .background = {},
                  .fixed_peers = {},
                  .edge_bytes = 64,
                  .element_bytes = 128,
                  .machine = machine,
                  .rank = Rank{comm_rank(comm)},
                  .nranks = comm_size(comm),
                  .seed = seed,
                  .invocation = invocation,
                  .rank_load = mine,
                  .total_load = Load(allreduce(mine.seconds(), MPI_SUM, comm)),
                  .max_rank_load = Load(allreduce(mine.seconds(), MPI_MAX, comm)),
                  .step_exchange = {}};
}

std::string params_to_run(const std::string& name) {
  if (name == "python") return "{module: " LBBENCH_SOURCE_DIR "/balancers/examples/hilbert_sfc.py}";
  return "{}";
}

}  // namespace lbbench::test
