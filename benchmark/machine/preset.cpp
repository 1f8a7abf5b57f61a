// Machine presets (see preset.hpp).
#include "machine/preset.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "core/blocks.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopologies{"torus", "fat-tree", "crossbar"};
const std::vector<std::string> kWanSharing{"shared", "per-flow"};

// The presets an installed binary carries: PREFIX/share/lbbench/machines beside
// PREFIX/bin, found from this code's own file (lbbench, or lbbench-smpi, which smpirun
// loads as a library) and from the running program.
std::vector<fs::path> installed_machine_dirs() {
  std::vector<fs::path> binaries;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&installed_machine_dirs), &info) != 0 && info.dli_fname && *info.dli_fname) {
    binaries.emplace_back(info.dli_fname);
  }
  std::error_code error;
  if (fs::path self = fs::read_symlink("/proc/self/exe", error); !error) binaries.push_back(self);
  std::vector<fs::path> dirs;
  for (const auto& binary : binaries) {
    fs::path dir = fs::absolute(binary, error).parent_path().parent_path() / "share" / "lbbench" / "machines";
    if (!error && fs::is_directory(dir)) dirs.push_back(dir);
  }
  return dirs;
}

std::vector<fs::path> machine_dirs(const std::string& scenario_file) {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("LBBENCH_MACHINES_DIR"); env && *env) dirs.emplace_back(env);
  if (!scenario_file.empty()) {
    const fs::path here = fs::path(scenario_file).parent_path();
    dirs.push_back(here / "machines");
    dirs.push_back(here.parent_path() / "machines");
  }
  for (auto& dir : installed_machine_dirs()) dirs.push_back(std::move(dir));
  dirs.push_back(fs::path(LBBENCH_SOURCE_DIR) / "scenarios" / "machines");
  return dirs;
}

MachinePreset parse_preset(const std::string& file) {
  ConfigNode root(load_yaml_file(file), file);
  root.expect_map("a machine preset");
  MachinePreset p;
  p.file = file;
  p.name = root.string("name");
  p.description = root.string("description", std::string());
  auto node = root.at("node", "cores, core_ghz, flops_per_cycle");
  node.expect_map("the node section");
  p.cores = static_cast<int>(node.integer("cores", std::nullopt, 1, 1 << 16));
  p.core_ghz = node.number("core_ghz", std::nullopt, 1e-3, 1e3);
  p.flops_per_cycle = node.number("flops_per_cycle", std::nullopt, 1e-3, 1e4);
  p.loopback_bandwidth = node.number("loopback_bandwidth", p.loopback_bandwidth, 1.0);
  p.loopback_latency = node.number("loopback_latency", p.loopback_latency, 0.0);
  node.finish();
  auto net = root.at("network", "topology, link_bandwidth, link_latency");
  net.expect_map("the network section");
  const std::string topology = net.choice("topology", kTopologies);
  p.topology = topology == "torus" ? Topology::torus : topology == "fat-tree" ? Topology::fat_tree : Topology::crossbar;
  if (p.topology == Topology::torus) {
    p.torus_dims = static_cast<int>(net.integer("torus_dims", p.torus_dims, 1, 6));
    for (double d : net.numbers("fixed_dims", std::vector<double>{}, 0, 5, 1, 1024))
      p.fixed_dims.push_back(static_cast<int>(d));
    if (static_cast<int>(p.fixed_dims.size()) >= p.torus_dims)
      net.at("fixed_dims", "").fail("must leave at least one free dimension");
  }
  if (p.topology == Topology::fat_tree)
    p.leaf_nodes = static_cast<int>(net.integer("leaf_nodes", p.leaf_nodes, 1, 4096));
  p.link_bandwidth = net.number("link_bandwidth", std::nullopt, 1.0);
  p.link_latency = net.number("link_latency", std::nullopt, 0.0, 10.0);
  p.send_overhead = net.number("send_overhead", p.send_overhead, 0.0, 1.0);
  p.recv_overhead = net.number("recv_overhead", p.recv_overhead, 0.0, 1.0);
  p.eager_bytes = net.number("eager_bytes", p.eager_bytes, 0.0, 1e12);
  net.finish();
  if (auto sites = root.find("sites")) {
    sites->expect_map("the sites section");
    p.sites = static_cast<int>(sites->integer("count", std::nullopt, 1, 64));
    p.wan_latency = sites->number("wan_latency", std::nullopt, 0.0, 100.0);
    p.wan_bandwidth = sites->number("wan_bandwidth", std::nullopt, 1.0);
    p.wan_shared = sites->choice("wan_sharing", kWanSharing, std::string("shared")) == "shared";
    sites->finish();
  }
  root.finish();
  return p;
}

// Smallest shape with `dims` dimensions, the trailing ones fixed, whose product holds
// `nodes`: free dimensions double, the smallest first, as real tori grow.
std::vector<int> torus_shape(int dims, const std::vector<int>& fixed, int nodes) {
  const int free = dims - static_cast<int>(fixed.size());
  std::vector<int> shape(static_cast<std::size_t>(free), 1);
  std::int64_t fixed_product = 1;
  for (int f : fixed) fixed_product *= f;
  auto product = [&] {
    std::int64_t p = fixed_product;
    for (int s : shape) p *= s;
    return p;
  };
  while (product() < nodes) *std::min_element(shape.begin(), shape.end()) *= 2;
  std::sort(shape.rbegin(), shape.rend());
  shape.insert(shape.end(), fixed.begin(), fixed.end());
  // A dimension of size 1 is no dimension (SimGrid would wire a node to itself); a small
  // machine is a lower-dimensional torus.
  std::erase(shape, 1);
  if (shape.empty()) shape.push_back(1);
  return shape;
}

std::string join_ints(const std::vector<int>& v, char sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? std::string(1, sep) : "") + std::to_string(v[i]);
  return out;
}

// SimGrid's units: "Bps" for bytes per second, "s" for seconds, "Gf" for Gflop/s.
std::string bw(double bytes_per_s) { return fmt::format("{:.6g}Bps", bytes_per_s); }
std::string lat(double seconds) { return fmt::format("{:.6g}s", seconds); }

std::string cluster_xml(const MachinePreset& p, const RankLayout& l, int site) {
  const std::string id = fmt::format("site{}", site);
  std::string topology;
  if (p.topology == Topology::torus) {
    topology = fmt::format(R"( topology="TORUS" topo_parameters="{}")", join_ints(l.torus_shape, ','));
  } else if (p.topology == Topology::fat_tree) {
    // Two levels of switches with full bisection: leaf_nodes down and up at every leaf.
    topology = fmt::format(R"( topology="FAT_TREE" topo_parameters="2;{},{};1,{};1,1")", p.leaf_nodes,
                           l.fat_tree_leaves, p.leaf_nodes);
  } else {
    topology = fmt::format(R"( bb_bw="{}" bb_lat="0s")", bw(p.link_bandwidth * std::max(1, l.hosts_per_site)));
  }
  return fmt::format(
      R"(    <cluster id="{}" prefix="s{}-n" suffix="" radical="0-{}" speed="{:.6g}Gf" core="{}" bw="{}" lat="{}"{} loopback_bw="{}" loopback_lat="{}"/>)"
      "\n",
      id, site, l.hosts_per_site - 1, p.core_flops() / 1e9, p.cores, bw(p.link_bandwidth), lat(p.link_latency),
      topology, bw(p.loopback_bandwidth), lat(p.loopback_latency));
}

}  // namespace

Json MachinePreset::to_json() const {
  Json j{{"name", name},
         {"cores", cores},
         {"core_ghz", core_ghz},
         {"flops_per_cycle", flops_per_cycle},
         {"topology", topology == Topology::torus      ? "torus"
                      : topology == Topology::fat_tree ? "fat-tree"
                                                       : "crossbar"},
         {"link_bandwidth", link_bandwidth},
         {"link_latency", link_latency},
         {"send_overhead", send_overhead},
         {"recv_overhead", recv_overhead},
         {"eager_bytes", eager_bytes}};
  if (processes_per_core > 1) j["processes_per_core"] = processes_per_core;
  if (sites > 1) {
    j["sites"] = sites;
    j["wan_latency"] = wan_latency;
    j["wan_bandwidth"] = wan_bandwidth;
    if (!wan_shared) j["wan_sharing"] = "per-flow";
  }
  return j;
}

std::vector<std::string> machine_preset_names(const std::string& scenario_file) {
  std::vector<std::string> names{"local"};
  for (const auto& dir : machine_dirs(scenario_file)) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".yaml") continue;
      const std::string n = entry.path().stem().string();
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  std::sort(names.begin() + 1, names.end());
  return names;
}

bool names_a_preset_file(const std::string& name) {
  return name.find('/') != std::string::npos || fs::path(name).extension() == ".yaml";
}

MachinePreset load_machine_preset(const std::string& name, const std::string& scenario_file) {
  if (names_a_preset_file(name)) {
    const fs::path given(name);
    const fs::path file =
        given.is_absolute() || scenario_file.empty() ? given : fs::path(scenario_file).parent_path() / given;
    std::error_code error;
    if (!fs::is_regular_file(file, error)) {
      throw InputError(
          fmt::format("no machine preset file at {} (make one of this machine with `mpirun -np N lbbench "
                      "calibrate --preset-out FILE`)",
                      file.string()));
    }
    return parse_preset(file.string());
  }
  for (const auto& dir : machine_dirs(scenario_file)) {
    const fs::path file = dir / (name + ".yaml");
    std::error_code error;  // a name the system refuses is simply not found here
    if (fs::exists(file, error)) {
      MachinePreset p = parse_preset(file.string());
      if (p.name != name) {
        throw InputError(
            fmt::format("{}: the preset is named '{}', but its file says '{}'", file.string(), name, p.name));
      }
      return p;
    }
  }
  const auto names = machine_preset_names(scenario_file);
  throw InputError(fmt::format("unknown machine preset '{}'.{} Known presets: {}", name, did_you_mean(name, names),
                               fmt::join(names, ", ")));
}

RankLayout plan_layout(const MachinePreset& p, int nranks) {
  RankLayout l;
  l.nranks = nranks;
  const int ranks_per_site = (nranks + p.sites - 1) / p.sites;
  const int per_node = p.ranks_per_node();
  l.nodes_per_site = std::max(1, (ranks_per_site + per_node - 1) / per_node);
  if (p.topology == Topology::torus) {
    l.torus_shape = torus_shape(p.torus_dims, p.fixed_dims, l.nodes_per_site);
    l.hosts_per_site = 1;
    for (int s : l.torus_shape) l.hosts_per_site *= s;
  } else if (p.topology == Topology::fat_tree) {
    l.fat_tree_leaves = (l.nodes_per_site + p.leaf_nodes - 1) / p.leaf_nodes;
    l.hosts_per_site = l.fat_tree_leaves * p.leaf_nodes;
  } else {
    l.hosts_per_site = l.nodes_per_site;
  }
  for (int r = 0; r < nranks; ++r) {
    const int site = block_owner(r, nranks, p.sites);
    const int within = r - static_cast<int>(block_begin(site, nranks, p.sites));
    l.rank_site.push_back(site);
    l.rank_host.push_back(site * l.hosts_per_site + within / per_node);
  }
  return l;
}

std::string platform_xml(const MachinePreset& p, const RankLayout& l) {
  std::string xml = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Generated by lbbench from machine preset ')" +
                    p.name + "' for " + std::to_string(l.nranks) + R"( ranks. -->
<platform version="4.1">
)";
  if (p.sites == 1) {
    xml += cluster_xml(p, l, 0);
  } else {
    xml += "  <zone id=\"world\" routing=\"Full\">\n";
    for (int s = 0; s < p.sites; ++s) xml += cluster_xml(p, l, s);
    xml += fmt::format("    <link id=\"wan\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"{}\"/>\n",
                       bw(p.wan_bandwidth), lat(p.wan_latency), p.wan_shared ? "SHARED" : "FATPIPE");
    for (int a = 0; a < p.sites; ++a) {
      for (int b = a + 1; b < p.sites; ++b) {
        xml += fmt::format(
            "    <zoneRoute src=\"site{0}\" dst=\"site{1}\" gw_src=\"s{0}-nsite{0}_router\" "
            "gw_dst=\"s{1}-nsite{1}_router\">"
            "<link_ctn id=\"wan\"/></zoneRoute>\n",
            a, b);
      }
    }
    xml += "  </zone>\n";
  }
  xml += "</platform>\n";
  return xml;
}

std::string hostfile(const MachinePreset& p, const RankLayout& l) {
  std::string out;
  for (int r = 0; r < l.nranks; ++r) {
    const int site = l.rank_site[static_cast<std::size_t>(r)];
    out += fmt::format("s{}-n{}\n", site, l.rank_host[static_cast<std::size_t>(r)] - site * l.hosts_per_site);
  }
  (void)p;
  return out;
}

std::vector<std::string> smpi_flags(const MachinePreset& p, double host_ghz) {
  return {
      "--cfg=smpi/lat-factor:0:1",
      "--cfg=smpi/bw-factor:0:1",
      fmt::format("--cfg=smpi/os:0:{:.6g}:0", p.send_overhead),
      fmt::format("--cfg=smpi/or:0:{:.6g}:0", p.recv_overhead),
      fmt::format("--cfg=smpi/send-is-detached-thresh:{:.0f}", p.eager_bytes),
      "--cfg=smpi/coll-selector:ompi",
      // Code is charged by lbbench itself, by its own CPU time (comm/code_time.hpp):
      // do_work, the balancers' decisions and the migration engine. SimGrid's automatic
      // benchmarking also charges what it spends between calls on its own behalf, which
      // grows with the rank count until it outweighs the code's own time.
      "--cfg=smpi/simulate-computation:no",
      // Charge every piece, however short: SimGrid drops computations under 1 us by default,
      // and most of a protocol round's handlers are shorter. Dropping them changes the
      // order in which SimGrid runs the ranks, so a decision's time varies over identical runs.
      "--cfg=smpi/cpu-threshold:0",
      // Every new communicator broadcasts its id; SMPI's default broadcast there is
      // SMP-aware and builds node maps with an allgather, O(P^2) messages per
      // communicator. A binomial tree is what Open MPI uses for such small messages.
      "--cfg=smpi/bcast:binomial_tree",
      // One copy of lbbench's globals for all ranks instead of one per rank (dlopen
      // copies take seconds per hundred ranks). Safe: lbbench keeps no mutable global
      // state, and a simulated rank runs without interruption between MPI calls.
      "--cfg=smpi/privatization:0",
      // SMPI charges 100 us per MPI_Iprobe and MPI_Test by default, to keep busy loops from
      // stalling the simulation; a real call costs about a microsecond, and the polling
      // loops of the sparse exchange and the step's wait would otherwise dominate.
      "--cfg=smpi/iprobe:1e-6",
      "--cfg=smpi/test:1e-6",
      fmt::format("--cfg=smpi/host-speed:{:.6g}f", host_ghz * 1e9 * p.flops_per_cycle),
      "--log=root.thres:warning",
  };
}

std::string simulator_glibc_tunables(const std::string& user_tunables) {
  constexpr std::string_view kCount = "glibc.malloc.tcache_count";
  const bool chosen = user_tunables.find(kCount) != std::string::npos;
  if (chosen) return user_tunables;
  const std::string ours = fmt::format("{}=65535", kCount);
  return user_tunables.empty() ? ours : user_tunables + ":" + ours;
}

std::optional<std::string> guard_page_setting(int ranks, long long max_map_count,
                                              const std::vector<std::string>& user_cfg) {
  const bool chosen = std::any_of(user_cfg.begin(), user_cfg.end(),
                                  [](const std::string& c) { return c.rfind("contexts/guard-size:", 0) == 0; });
  constexpr long long kOtherMappings = 4096;  // libraries, heap arenas, SimGrid's own
  if (chosen || 2LL * ranks + kOtherMappings <= max_map_count) return std::nullopt;
  return "contexts/guard-size:0";
}

}  // namespace lbbench
