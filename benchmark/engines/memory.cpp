// Refusing a run that cannot fit (see memory.hpp).
//
// The per-item sizes below come from the peak resident sizes of the scale runs
// (tests/fixtures/scale-peaks.csv): a 3-D grid's vertex with its 6 edge ends costs about
// 170 bytes on the model engine; SimGrid SMPI holds 0.45 GB of its own plus about 120 kB per
// simulated rank; a protocol's serial states on the model engine cost 1.5 kB per rank for
// tree, 300 bytes per vertex for diffusion, and 16 bytes per known rank for gossip. The
// estimate aims to be within a third of the peak (a test holds it to that on every run in
// that fixture), enough to refuse what cannot fit rather than plan capacity.
#include "engines/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "balancers/gossip/params.hpp"
#include "core/error.hpp"
#include "core/overloaded.hpp"
#include "meshes/trace/trace.hpp"

namespace lbbench {

namespace {

constexpr double kVertexBytes = 64;     // id, CSR offset, loads and the replay's arrays
constexpr double kEdgeEndBytes = 16;    // neighbor id, its owner, its weight
constexpr double kPackedVertex = 24;    // a packed vertex's header, besides its payload
constexpr double kPackedEdgeEnd = 12;   // a packed neighbor: id and weight
constexpr double kGatheredVertex = 64;  // a centralized call's gathered graph and partitioner
constexpr double kGatheredEdgeEnd = 32;
constexpr double kDiffusionVertex = 300;  // a rank's locality rows, per vertex
constexpr double kTreeRank = 1.5e3;
// One entry of gossip's list of known ranks, packed (balancers/gossip/known_ranks.hpp):
// the gap to the previous rank, in the bits of the largest gap (taken as 4 x the mean), and
// the load, in the bits of the largest (taken as 2^31 quanta).
constexpr double kKnownLoadBits = 32;
double known_rank_bytes(double ranks, double known) {
  return (std::ceil(std::log2(4 * ranks / known + 1)) + kKnownLoadBits) / 8;
}
constexpr double kToldRankBytes = 12;  // one entry as a gossip message carries it
constexpr double kSmpiBase = 0.45e9;
constexpr double kSmpiPerRank = 120e3;
constexpr double kModelBase = 0.1e9;
constexpr double kModelPerRank = 300;
constexpr double kTraceTaskBytes = 120;  // a task's entity, first rank, and its edges' share

std::string bytes_text(double b) {
  if (b >= 1e12) return fmt::format("{:.1f} TB", b / 1e12);
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  return fmt::format("{:.0f} MB", b / 1e6);
}

// The first line of a file that is not a comment (METIS and Chaco: "n m ...").
std::string first_data_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos && line[first] != '%') return line;
  }
  return {};
}

// A recorded run is read whole: its tasks, edges, and every task's times per phase, which
// every rank holds (the load field needs them wherever a task moves).
MeshSize trace_mesh_size(const MeshFileSpec& f) {
  const Trace& trace = *read_trace_once(f.resolved);
  const TraceLayout& l = *trace.layout;
  MeshSize m;
  m.vertices = static_cast<double>(l.vertices());
  m.edge_ends = 2.0 * static_cast<double>(trace.edges.size());
  m.whole_per_rank = static_cast<double>(l.times.size()) * 8 + static_cast<double>(l.nodes.size()) * 4 +
                     m.vertices * kTraceTaskBytes + static_cast<double>(trace.edges.size()) * sizeof(TraceEdge);
  return m;
}

MeshSize file_mesh_size(const MeshFileSpec& f) {
  if (f.format == MeshFormat::lbdatafile) return trace_mesh_size(f);
  std::istringstream header(first_data_line(f.resolved));
  MeshSize m;
  if (f.format == MeshFormat::matrix_market) {
    double rows = 0;
    double cols = 0;
    double entries = 0;
    header >> rows >> cols >> entries;
    m.vertices = rows;
    m.edge_ends = 2 * entries;  // a symmetric file lists each edge once; a general one at most twice
  } else {
    double edges = 0;
    header >> m.vertices >> edges;
    m.edge_ends = 2 * edges;
  }
  return m;
}

double ball_volume(int dim, double radius) {
  return dim == 2 ? std::numbers::pi * radius * radius : 4.0 / 3.0 * std::numbers::pi * std::pow(radius, 3);
}

// Expected neighbors within `radius` of a point among `n` uniform in the unit box.
double expected_degree(double n, int dim, double radius) { return std::min(n - 1, n * ball_volume(dim, radius)); }

// The share of the vertices one LB call moves, at most: a repartition (greedy, METIS,
// Zoltan, prefix, the vector strategies that place from scratch) may move nearly all of
// them; a refinement moves off the overloaded ranks only (tree, gossip, refine; diffusion,
// which passes load on from neighbor to neighbor, more).
double moved_share(BalancerKind kind) {
  switch (kind) {
    case BalancerKind::none: return 0;
    case BalancerKind::tree:
    case BalancerKind::gossip:
    case BalancerKind::refine:
    case BalancerKind::vector_refine: return 0.1;
    case BalancerKind::diffusion: return 0.25;
    default: return 1;
  }
}

// A block mesh's largest size over the run, as its front says: the uniform coarsest
// level, and at each finer level the blocks of a band about the front, (buffer + 1) of
// their widths to each side, over the largest area the front has inside the box. Each
// block's face neighbours are 2·dim, a few more across levels.
MeshSize block_mesh_size(const OctreeSpec& o, int steps) {
  const int d = o.dim;
  const FrontSpec& f = o.front;
  double area = 1.0;  // a plane crossing the unit box
  if (f.shape == FrontShape::sphere) {
    const double r = std::max({0.0, f.radius, f.radius + f.speed * steps});
    area = d == 2 ? std::min(2 * std::numbers::pi * r, 4.0) : std::min(4 * std::numbers::pi * r * r, 6.0);
  }
  double blocks = std::pow(2.0, d * o.min_level);
  for (int l = o.min_level + 1; l <= o.max_level; ++l) {
    blocks += 2 * (f.buffer + 1) * area * std::pow(2.0, l * (d - 1));
  }
  blocks = std::min(blocks, std::pow(2.0, d * o.max_level));
  return MeshSize{blocks, blocks * (2 * d + 2)};
}

}  // namespace

MeshSize expected_mesh_size(const MeshSpec& mesh, int steps) {
  return std::visit(
      Overloaded{
          [](const GridSpec& g) {
            MeshSize m;
            const auto nx = static_cast<double>(g.size[0]);
            const auto ny = static_cast<double>(g.size[1]);
            const auto nz = g.dim == 3 ? static_cast<double>(g.size[2]) : 1.0;
            m.vertices = nx * ny * nz;
            const double edges = (nx - 1) * ny * nz + nx * (ny - 1) * nz + (g.dim == 3 ? nx * ny * (nz - 1) : 0.0);
            m.edge_ends = 2 * std::max(0.0, edges);
            return m;
          },
          [](const GeometricSpec& g) {
            const auto n = static_cast<double>(g.n);
            return MeshSize{n, n * expected_degree(n, g.dim, g.radius)};
          },
          [](const DropletsSpec& d) {
            // The droplets' points crowd into their balls (twice as densely at a Gaussian's
            // core); the vapor spreads over the box.
            const auto n = static_cast<double>(d.n);
            const double per_droplet = d.fraction * n / std::max(1, d.droplets);
            const double inside =
                std::min(n - 1, 2 * per_droplet * ball_volume(d.dim, d.radius) / ball_volume(d.dim, d.droplet_radius));
            const double degree = d.fraction * inside + (1 - d.fraction) * expected_degree(n, d.dim, d.radius);
            return MeshSize{n, n * degree};
          },
          [](const MeshFileSpec& f) { return file_mesh_size(f); },
          [&](const OctreeSpec& o) { return block_mesh_size(o, steps); },
      },
      mesh);
}

std::string MemoryNeed::parts() const {
  return fmt::format("mesh {}, migration {}, balancer {}, engine {}", bytes_text(graph), bytes_text(migration),
                     bytes_text(balancer), bytes_text(engine));
}

MemoryNeed memory_needed(const Scenario& s, int ranks, EngineKind engine, int ranks_here, double process_bytes,
                         std::optional<MeshSize> mesh_measured) {
  const MeshSize mesh = mesh_measured ? *mesh_measured : expected_mesh_size(s.mesh, s.steps);
  const double p = std::max(1, ranks);
  const double share = engine == EngineKind::mpi ? std::min(1.0, ranks_here / p) : 1.0;
  const double here = engine == EngineKind::mpi ? ranks_here : p;
  const int dim = known_mesh_dim(s.mesh);
  const double degree = mesh.vertices > 0 ? mesh.edge_ends / mesh.vertices : 0;
  const double components = std::max<double>(1, static_cast<double>(s.workload.components.size()));

  MemoryNeed need;
  need.graph =
      share * (mesh.vertices * (kVertexBytes + 8.0 * dim + 8.0 * components) + mesh.edge_ends * kEdgeEndBytes) +
      // every rank's copy, and the copy the process read (kept for its other readers)
      ((engine == EngineKind::model ? 1.0 : here) + 1.0) * mesh.whole_per_rank;
  const BalancerConfig& b = s.balancer.config;
  // Sent and received copies of the moved vertices; the model engine moves owners only.
  if (engine != EngineKind::model) {
    const double packed = static_cast<double>(s.workload.element_bytes) + kPackedVertex + kPackedEdgeEnd * degree;
    need.migration = share * moved_share(b.kind) * mesh.vertices * packed * 2;
  }
  switch (b.family()) {
    case Family::baseline:
    case Family::reorder: break;
    case Family::diffusive: need.balancer = share * mesh.vertices * kDiffusionVertex; break;
    case Family::tree: need.balancer = here * kTreeRank; break;
    case Family::gossip: {
      const GossipParams g = b.params.get_if<GossipParams>() ? b.params.get<GossipParams>() : GossipParams{};
      const double limit = g.info_limit;
      const double fanout = std::max(2, g.fanout);
      const double rounds = g.rounds > 0 ? g.rounds : std::ceil(std::log(p) / std::log(fanout));
      // With a limit a rank hears `fanout` lists of at most `limit` entries a round, on average
      // (the largest run longer; tests/fixtures/scale-peaks.csv holds the peaks it is checked on).
      const double known = limit > 0 ? std::min(p, 1 + limit * fanout * rounds) : p / 2;
      // Without a limit every message carries the sender's whole list, and the copies of
      // a call's messages add up (this term is fitted to gossip's peak memory under SMPI).
      need.balancer = here * known * (known_rank_bytes(p, known) + (limit > 0 ? 0 : kToldRankBytes * fanout * rounds));
      if (limit == 0) {
        need.balancer_lighter =
            "limit the entries of a gossip message (balancer.params.info_limit=64, as Charm++'s "
            "kPartialInfoCount)";
      }
      break;
    }
    case Family::prefix: need.balancer = share * mesh.vertices * 16; break;
    case Family::model:  // `auto` predicts every candidate in one process, at rank 0
      need.balancer = mesh.vertices * (kGatheredVertex + kDiffusionVertex) + mesh.edge_ends * kGatheredEdgeEnd;
      break;
    case Family::global:
    case Family::vector:  // gathered to rank 0, whose node is the fullest
      need.balancer = mesh.vertices * (kGatheredVertex + 8 * components) + mesh.edge_ends * kGatheredEdgeEnd;
      break;
  }
  switch (engine) {
    case EngineKind::smpi: need.engine = kSmpiBase + p * kSmpiPerRank; break;
    case EngineKind::model: need.engine = kModelBase + p * kModelPerRank; break;
    case EngineKind::mpi: need.engine = ranks_here * process_bytes; break;
  }
  return need;
}

std::optional<MemoryLimit> memory_limit(std::optional<double> max_memory) {
  if (max_memory) return MemoryLimit{*max_memory, "--max-memory"};
  std::optional<MemoryLimit> limit;
  const auto consider = [&](double bytes, std::string source) {
    if (bytes > 0 && (!limit || bytes < limit->bytes)) limit = MemoryLimit{bytes, std::move(source)};
  };
  {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    double kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit) {
      if (key == "MemAvailable:") consider(kib * 1024, "MemAvailable in /proc/meminfo");
    }
  }
  // cgroup v2, then v1: the limit less what the group already uses ("max": none).
  const auto read_number = [](const char* path) -> std::optional<double> {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return std::nullopt;
    try {
      return std::stod(text);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  if (const auto max = read_number("/sys/fs/cgroup/memory.max")) {
    consider(*max - read_number("/sys/fs/cgroup/memory.current").value_or(0), "the cgroup's memory.max");
  } else if (const auto v1 = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes"); v1 && *v1 < 1e18) {
    consider(*v1 - read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes").value_or(0),
             "the cgroup's memory.limit_in_bytes");
  }
  return limit;
}

void refuse_what_cannot_fit(const MemoryNeed& need, const std::optional<MemoryLimit>& limit, int ranks,
                            EngineKind engine) {
  if (!limit || need.total() <= limit->bytes) return;
  const bool one_process = engine != EngineKind::mpi;
  throw InputError(fmt::format(
      "this run needs about {} of memory{} ({}), more than the {} allowed here ({}). Make the mesh smaller "
      "(mesh.nx, mesh.ny, mesh.nz or mesh.n){}, {}choose a balancer that keeps less; --max-memory SIZE sets the "
      "limit when the estimate is wrong",
      bytes_text(need.total()), one_process ? fmt::format(" for {} ranks in one process", ranks) : " on one node",
      need.parts(), bytes_text(limit->bytes), limit->source,
      one_process ? ", use fewer ranks" : ", or start fewer ranks per node",
      need.balancer_lighter.empty() ? "or " : need.balancer_lighter + ", or "));
}

}  // namespace lbbench
