// Machine presets (scenarios/machines/*.yaml): what a simulated machine looks like, how
// ranks are laid out on it, and the SimGrid platform that models it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"

namespace lbbench {

enum class Topology { torus, fat_tree, crossbar };

// SimGrid's default bound on a TCP flow's rate: this window over the round trip
// (network/TCP-gamma), as a real TCP window bounds a long-distance flow. The model engine
// bounds its flows the same way.
inline constexpr double kTcpWindowBytes = 4194304.0;

struct MachinePreset {
  std::string name;
  std::string description;
  std::string file;  // where it was read from

  // A node.
  int cores = 1;
  // Ranks per core (a scenario's `machine.processes_per_core`): above 1, `cores` times this
  // many ranks share each node's cores, as in the rank-reorder mode of Keller et al.
  int processes_per_core = 1;
  double core_ghz = 1.0;
  double flops_per_cycle = 1.0;
  double loopback_bandwidth = 1e10;  // bytes/s between ranks of one node
  double loopback_latency = 1e-7;

  // The network of one site.
  Topology topology = Topology::crossbar;
  int torus_dims = 3;
  std::vector<int> fixed_dims;  // trailing torus dimensions of fixed size
  int leaf_nodes = 18;          // fat tree: nodes per leaf switch
  double link_bandwidth = 1e9;  // bytes/s per link and direction
  double link_latency = 1e-6;   // seconds per hop
  double send_overhead = 0;     // MPI software per message
  double recv_overhead = 0;
  // Messages below this size go eagerly: the send completes at once and the data leaves
  // without waiting for the receive. Larger ones rendezvous: the data leaves once the
  // receive is posted, and the send completes when it has arrived. SMPI's default.
  double eager_bytes = 65536;

  // Several sites joined by a wide-area link.
  int sites = 1;
  double wan_latency = 0;
  double wan_bandwidth = 0;
  // Whether every cross-site flow shares the one link's bandwidth (a real wide-area link),
  // or each flow gets up to wan_bandwidth on its own (SimGrid's FATPIPE): a delay added to
  // each node's own network, as Koenig & Kalé's delay device did.
  bool wan_shared = true;

  [[nodiscard]] double core_flops() const { return core_ghz * 1e9 * flops_per_cycle; }
  [[nodiscard]] int ranks_per_node() const { return cores * processes_per_core; }
  [[nodiscard]] Json to_json() const;
};

// Where ranks go: rank r on host rank_host[r] of site rank_site[r]. Ranks fill nodes in
// order, ranks_per_node() per node; with several sites, the first half of the ranks (rounded up)
// is on site 0, and so on.
struct RankLayout {
  int nranks = 0;
  int nodes_per_site = 0;        // nodes the ranks use on each site
  int hosts_per_site = 0;        // nodes the platform declares (a torus or fat tree rounds up)
  std::vector<int> torus_shape;  // torus dimensions, product == hosts_per_site
  int fat_tree_leaves = 0;
  std::vector<int> rank_host;  // global node index (site-major)
  std::vector<int> rank_site;
};

// Reads a preset by name. Presets are looked up in $LBBENCH_MACHINES_DIR, then in the
// `machines` folder next to the scenario (or its parent's), then in the source tree's
// scenarios/machines. Throws InputError with a "did you mean" for unknown names.
// A name that is a file's path (it ends in .yaml or holds a '/': a preset of one's own,
// as `lbbench calibrate --preset-out` writes it) is read from that file, relative to the
// scenario's folder.
MachinePreset load_machine_preset(const std::string& name, const std::string& scenario_file);
bool names_a_preset_file(const std::string& name);
// Names of every preset reachable from a scenario, with "local" first.
std::vector<std::string> machine_preset_names(const std::string& scenario_file);

RankLayout plan_layout(const MachinePreset& preset, int nranks);

// SimGrid platform XML (version 4.1) and hostfile for the layout.
std::string platform_xml(const MachinePreset& preset, const RankLayout& layout);
std::string hostfile(const MachinePreset& preset, const RankLayout& layout);

// smpirun --cfg flags: network factors off (the preset's figures are end-to-end), MPI
// software overheads, Open MPI's collective algorithms, realistic costs of polling calls,
// and the speed of the simulating
// host, in the preset's flops per cycle, so real code takes as many cycles on a simulated
// core as here.
std::vector<std::string> smpi_flags(const MachinePreset& preset, double host_ghz);

// GLIBC_TUNABLES for the simulating process, given the value the user's environment has
// (empty when unset): the user's settings, and a per-size cache of freed small blocks deep
// enough to hold what thousands of simulated ranks free in a protocol round
// (glibc.malloc.tcache_count=65535), unless the user chose that count. The ranks share one
// heap, and glibc's default cache holds 7 blocks per size: the rest of a round's frees go
// to one unsorted list, which glibc sorts at most 10,000 blocks per allocation, so with
// thousands of ranks a tiny handler spends longer in malloc than in its own work, and
// that is charged to the balancer's decision and migration.
std::string simulator_glibc_tunables(const std::string& user_tunables);

// SimGrid gives every simulated rank a stack with a guard page: two memory mappings per
// rank, so past the kernel's vm.max_map_count (65,530 by default, about 32,000 ranks) it
// aborts with "Failed to protect stack". Returns "contexts/guard-size:0" when `ranks`
// would exceed it and the user's settings (KEY:VALUE) choose no guard size.
std::optional<std::string> guard_page_setting(int ranks, long long max_map_count,
                                              const std::vector<std::string>& user_cfg);

}  // namespace lbbench
