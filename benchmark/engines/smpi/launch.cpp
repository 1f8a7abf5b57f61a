// `lbbench run --engine smpi` (see launch.hpp).
#include "engines/smpi/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.hpp"
#include "core/process.hpp"
#include "engines/memory.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

// lbbench-smpi is built next to lbbench.
std::string smpi_binary() {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path candidate = self.parent_path() / "lbbench-smpi";
  if (!fs::exists(candidate)) {
    throw InputError(
        fmt::format("{} was not built: SimGrid (libsimgrid-dev, smpicxx) was not found when lbbench "
                    "was configured; install it and re-run the build",
                    candidate.string()));
  }
  return fs::proximate(candidate).string();  // as the user would type it, in the record
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw InputError(fmt::format("{}: cannot write the platform file", path.string()));
}

// A temporary folder removed on scope exit, or a kept folder the user named.
class PlatformDir {
 public:
  explicit PlatformDir(const std::string& keep) {
    if (!keep.empty()) {
      path_ = keep;
      fs::create_directories(path_);
      return;
    }
    std::string templ = (fs::temp_directory_path() / "lbbench-smpi-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw RunError("cannot create a temporary folder for the platform");
    path_ = templ;
    temporary_ = true;
  }
  ~PlatformDir() {
    std::error_code ec;
    if (temporary_) fs::remove_all(path_, ec);
  }
  PlatformDir(const PlatformDir&) = delete;
  PlatformDir& operator=(const PlatformDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool temporary_ = false;
};

// SimGrid's guard pages cost two memory mappings per simulated rank; past
// vm.max_map_count it aborts ("Failed to protect stack"), so they go, with a note.
std::optional<std::string> guard_pages_off(int ranks, const std::vector<std::string>& cfg) {
  long long max_maps = 65530;
  std::ifstream("/proc/sys/vm/max_map_count") >> max_maps;
  auto setting = guard_page_setting(ranks, max_maps, cfg);
  if (setting) {
    fmt::print(stderr,
               "lbbench: note: {} simulated ranks need {} stack mappings, more than vm.max_map_count ({}) allows; "
               "running without stack guard pages ({}). Raise vm.max_map_count to keep them.\n",
               ranks, 2LL * ranks, max_maps, *setting);
  }
  return setting;
}

// SimGrid's benchmarking of code is lbbench's --code-charge simulator, so that lbbench
// never charges code that SimGrid charges too.
void refuse_simulate_computation(const std::vector<std::string>& cfg) {
  for (const auto& c : cfg) {
    if (c.rfind("smpi/simulate-computation:", 0) == 0) {
      throw InputError(fmt::format(
          "--smpi-cfg {}: give --code-charge simulator (SimGrid benchmarks all code) or --code-charge none instead",
          c));
    }
  }
}

}  // namespace

int launch_smpi(const LaunchRequest& launch) {
  const Scenario s = load_run_scenario(launch.scenario, launch.trace, launch.overrides);
  engine_info(EngineKind::smpi).check(s);
  refuse_simulate_computation(launch.cfg);
  const int ranks = requested_ranks(launch, s, "smpi");
  refuse_what_cannot_fit(memory_needed(s, ranks, EngineKind::smpi), memory_limit(launch.max_memory), ranks,
                         EngineKind::smpi);
  const std::string binary = smpi_binary();
  const MachinePreset preset = s.machine.effective_preset();
  const RankLayout layout = plan_layout(preset, ranks);
  PlatformDir dir(launch.platform_dir);
  const fs::path platform = dir.path() / "platform.xml";
  const fs::path hosts = dir.path() / "hostfile";
  write_file(platform, platform_xml(preset, layout));
  write_file(hosts, hostfile(preset, layout));

  std::vector<std::string> args{"smpirun",         "-np",       std::to_string(ranks), "-platform",
                                platform.string(), "-hostfile", hosts.string()};
  const double ghz = host_ghz(launch);
  for (const auto& flag : smpi_flags(preset, ghz)) args.push_back(flag);
  for (const auto& setting : launch.cfg) {
    if (setting.find(':') == std::string::npos) {
      throw InputError(
          fmt::format("--smpi-cfg {}: expected KEY:VALUE, for example smpi/send-is-detached-thresh:0", setting));
    }
    args.push_back("--cfg=" + setting);  // after the preset's flags, so it wins
  }
  if (auto guard = guard_pages_off(ranks, launch.cfg)) args.push_back("--cfg=" + *guard);
  // SimGrid benchmarks code only when asked to; lbbench then charges none itself.
  if (launch.code_charge == "simulator") args.emplace_back("--cfg=smpi/simulate-computation:yes");
  args.insert(args.end(), {binary, "run"});
  for (const auto& plugin : launch.plugins) args.insert(args.end(), {"--plugin", plugin});
  if (launch.trace.empty()) {
    args.push_back(launch.scenario);
  } else {
    args.insert(args.end(), {"--trace", launch.trace});
  }
  // smpirun re-splits its program's arguments on blanks, so overrides such as
  // `balancer.params={p: 2}` travel in a file instead.
  const fs::path sets = dir.path() / "overrides.json";
  write_file(sets, nlohmann::json(launch.overrides).dump());
  args.insert(args.end(), {"--set-file", sets.string()});
  args.insert(args.end(), {"--set", "ranks=" + std::to_string(ranks)});
  // How SimGrid will charge real code (balancers, the framework): a host second costs
  // host_ghz / core_ghz simulated seconds. Cost models that time code need the same scale.
  args.insert(args.end(), {"--code-time-scale", fmt::format("{:.9g}", ghz / preset.core_ghz)});
  args.insert(args.end(), {"--code-charge", launch.code_charge == "explicit" ? "explicit" : "none"});
  if (!launch.record_out.empty()) args.insert(args.end(), {"--out", launch.record_out});
  if (!launch.steps_csv.empty()) args.insert(args.end(), {"--steps-csv", launch.steps_csv});
  if (!launch.lbdatafile_out.empty()) args.insert(args.end(), {"--lbdatafile-out", launch.lbdatafile_out});
  if (!launch.rank_loads_out.empty()) {
    args.insert(args.end(), {"--rank-loads", launch.rank_loads_out, "--rank-loads-stride",
                             std::to_string(launch.rank_loads_stride)});
  }
  if (launch.verify) args.emplace_back("--verify");
  args.insert(args.end(), {"--watchdog", fmt::format("{}", launch.watchdog_seconds)});
  // Read by the simulating process's C library at its start, so set here for smpirun.
  const char* user_tunables = std::getenv("GLIBC_TUNABLES");
  ::setenv("GLIBC_TUNABLES", simulator_glibc_tunables(user_tunables ? user_tunables : "").c_str(), 1);
  try {
    return run_in_foreground(args);
  } catch (const InputError&) {
    throw InputError("cannot start smpirun: is SimGrid installed (smpirun on the PATH)?");
  }
}

}  // namespace lbbench
