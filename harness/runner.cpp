// Running a sweep's runs (see runner.hpp).
#include "harness/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/process.hpp"
#include "core/version.hpp"
#include "engines/catalog.hpp"
#include "harness/store.hpp"
#include "record/run_record.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

std::string duration_text(double seconds) {
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
}

// A line per finished run, and on a terminal a bar with the ETA under them.
class Progress {
 public:
  Progress(std::size_t total, bool bar) : total_(total), bar_(bar), start_(clock::now()) {}

  void running(const SweepRun& run) {
    current_ = run.label();
    run_start_ = clock::now();
    redraw();
  }

  void finished(const SweepRun& run, bool ok, double seconds, const std::string& why) {
    ++done_;
    if (!ok) ++failed_;
    busy_seconds_ += seconds;
    clear();
    fmt::print(stderr, "[{:>{}}/{}] {} {:>7.1f} s  {}  {}{}\n", done_, digits(), total_, ok ? "ok    " : "FAILED",
               seconds, run.id, run.label(), why.empty() ? "" : "  (" + why + ")");
    std::fflush(stderr);
  }

  void redraw() {
    if (!bar_) return;
    constexpr int kWidth = 24;
    const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
    const double elapsed = seconds_since(start_);
    std::string eta = "--";
    if (done_ > 0) {
      const double per_run = busy_seconds_ / static_cast<double>(done_);
      const double remaining = per_run * static_cast<double>(total_ - done_) - seconds_since(run_start_);
      eta = duration_text(std::max(0.0, remaining));
    }
    fmt::print(stderr, "\r\x1b[K[{}{}] {}/{}{} · {} elapsed · ETA {} · {}", std::string(filled, '#'),
               std::string(kWidth - filled, '.'), done_, total_, failed_ ? fmt::format(" · {} failed", failed_) : "",
               duration_text(elapsed), eta, current_);
    std::fflush(stderr);
  }

  void clear() const {
    if (bar_) fmt::print(stderr, "\r\x1b[K");
  }

 private:
  using clock = std::chrono::steady_clock;
  static double seconds_since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }
  [[nodiscard]] int digits() const { return static_cast<int>(std::to_string(total_).size()); }

  std::size_t total_;
  bool bar_;
  clock::time_point start_;
  clock::time_point run_start_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  double busy_seconds_ = 0;
  std::string current_;
};

// The run's own record, read back from its scratch file: the last line, if it is a whole
// run record.
std::optional<Json> read_run_record(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  if (last.empty()) return std::nullopt;
  Json record = Json::parse(last, nullptr, false);
  if (record.is_discarded() || !is_run_record(record)) return std::nullopt;
  try {
    (void)run_record_from_json(record);
  } catch (const InputError&) {
    return std::nullopt;
  }
  return record;
}

std::string failure_reason(const ProcessResult& r, double timeout_s) {
  if (r.timed_out) return fmt::format("timed out after {} s", timeout_s);
  if (r.exit_code > 128) return fmt::format("killed by signal {}", r.exit_code - 128);
  if (r.exit_code == 2) return "bad input (exit 2)";
  if (r.exit_code == 3) return "a broken invariant stopped the run (exit 3)";
  if (r.exit_code == 0) return "the run exited 0 but wrote no record";
  return fmt::format("exit code {}", r.exit_code);
}

void write_log_header(const fs::path& log, const std::vector<std::string>& command) {
  std::ofstream out(log, std::ios::app);
  std::string joined;
  for (const auto& a : command) joined += (joined.empty() ? "" : " ") + a;
  out << "=== " << utc_timestamp() << " " << joined << "\n";
}

}  // namespace

std::string self_binary() { return fs::read_symlink("/proc/self/exe").string(); }

std::vector<std::string> run_command(const SweepRun& run, const RunnerOptions& options, const fs::path& record_out) {
  std::vector<std::string> cmd;
  const std::string ranks = std::to_string(run.ranks);
  const EngineInfo& engine = find_engine(run.engine);
  if (engine.process_per_rank) {
    if (options.launcher == "srun") {
      cmd = {"srun", "--mpi=" + options.srun_mpi, "-n", ranks};
    } else {
      cmd = {"mpirun", "-np", ranks, "--oversubscribe"};
      if (::geteuid() == 0) cmd.emplace_back("--allow-run-as-root");
    }
  }
  // Paths relative to the working folder where they can be, so records made in a source
  // tree read the same on every machine.
  cmd.insert(cmd.end(), {fs::proximate(options.lbbench).string(), "run", fs::proximate(run.scenario).string()});
  if (!engine.process_per_rank) cmd.insert(cmd.end(), {"--engine", run.engine, "--ranks", ranks});
  for (const auto& plugin : options.plugins) cmd.insert(cmd.end(), {"--plugin", plugin});
  if (options.recalibrate && engine.kind == EngineKind::mpi) cmd.emplace_back("--recalibrate");
  for (const auto& o : run.overrides) cmd.insert(cmd.end(), {"--set", o});
  cmd.insert(cmd.end(), {"--out", fs::proximate(record_out).string()});
  return cmd;
}

SweepInfo sweep_info(const Sweep& sweep, const SweepRun& run, const std::string& status) {
  return SweepInfo{.name = sweep.name,
                   .id = run.id,
                   .index = run.index,
                   .repetition = run.repetition,
                   .engine = run.engine,
                   .axes = run.axes,
                   .status = status,
                   .elapsed_s = std::nullopt};
}

Json failure_record(const Sweep& sweep, const SweepRun& run, int exit_code, const std::string& reason,
                    const std::vector<std::string>& error_tail, double seconds, const std::string& started,
                    const std::vector<std::string>& command) {
  const Json& c = run.config;
  FailureRecord r;
  r.scenario = c.value("name", "");
  r.balancer = c.contains("balancer") ? c["balancer"].value("name", "") : "";
  r.engine = run.engine;
  r.machine = c.contains("machine") ? c["machine"].value("preset", "local") : "local";
  r.ranks = run.ranks;
  r.exit_code = exit_code;
  r.reason = reason;
  r.error_tail = error_tail;
  r.elapsed_s = seconds;
  r.time = utc_timestamp();
  r.config = c;
  r.sweep = sweep_info(sweep, run, "failed");
  r.provenance = Provenance{.git = git_describe(),
                            .host = host_name(),
                            .mpi_library = "",
                            .mpi_thread_level = "",
                            .start_time = started,
                            .command = fmt::format("{}", fmt::join(command, " ")),
                            .work = nullptr,
                            .plugins = loaded_plugin_provenance()};
  return to_json(r);
}

RunnerSummary run_runs(const Sweep& sweep, const std::vector<const SweepRun*>& todo, const RunnerOptions& options) {
  const RecordStore store(options.records);
  if (store.repaired_bytes() > 0) {
    fmt::print(stderr, "lbbench sweep: {}: cut an incomplete last line ({} bytes) left by an earlier crash\n",
               store.file().string(), store.repaired_bytes());
  }
  const fs::path logs = options.results / "logs";
  const fs::path scratch = options.results / "scratch";
  fs::create_directories(logs);
  fs::create_directories(scratch);
  catch_stop_signals();
  Progress progress(todo.size(), options.bar);
  RunnerSummary summary;
  for (const SweepRun* run : todo) {
    if (stop_requested()) {  // between two runs: nothing is lost, the rest waits for a resume
      summary.interrupted = true;
      break;
    }
    const fs::path out = scratch / (run->id + ".record");  // not *.jsonl: reports read those
    const fs::path log = logs / (run->id + ".log");
    fs::remove(out);
    const auto command = run_command(*run, options, out);
    write_log_header(log, command);
    const std::string started = utc_timestamp();
    progress.running(*run);
    const ProcessResult result = run_process(command, log, sweep.timeout_s, [&] { progress.redraw(); });
    if (result.interrupted) {
      summary.interrupted = true;
      break;
    }
    const auto record = result.exit_code == 0 && !result.timed_out ? read_run_record(out) : std::nullopt;
    if (record) {
      // The sweep annotates the record the run wrote; it does not write it anew.
      Json r = *record;
      SweepInfo info = sweep_info(sweep, *run, "ok");
      info.elapsed_s = result.seconds;
      r["sweep"] = to_json(info);
      store.append(r);
      ++summary.ok;
      progress.finished(*run, true, result.seconds, "");
    } else {
      const std::string why = failure_reason(result, sweep.timeout_s);
      store.append(failure_record(sweep, *run, result.exit_code, why, tail_lines(log, kErrorTailLines), result.seconds,
                                  started, command));
      ++summary.failed;
      progress.finished(*run, false, result.seconds, why + "; log " + log.string());
    }
    fs::remove(out);
  }
  progress.clear();
  return summary;
}

}  // namespace lbbench
