// Child processes for sweeps (see process.hpp).
#include "core/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"

extern char** environ;

namespace lbbench {

namespace fs = std::filesystem;

namespace {

std::atomic<int> g_stop_signal{0};

void on_stop_signal(int sig) { g_stop_signal.store(sig); }

std::vector<char*> c_argv(const std::vector<std::string>& args) {
  std::vector<char*> out;
  out.reserve(args.size() + 1);
  for (const auto& a : args) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// posix_spawn's attributes and file actions, released on scope exit.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attr_);
    posix_spawn_file_actions_init(&actions_);
  }
  ~SpawnSetup() {
    posix_spawnattr_destroy(&attr_);
    posix_spawn_file_actions_destroy(&actions_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  posix_spawnattr_t attr_{};
  posix_spawn_file_actions_t actions_{};
};

pid_t spawn(const std::vector<std::string>& args, SpawnSetup& setup) {
  auto argv = c_argv(args);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &setup.actions_, &setup.attr_, argv.data(), environ);
  if (rc != 0) throw InputError(fmt::format("cannot start {}: {}", args[0], std::strerror(rc)));
  return pid;
}

// Whether `name` would start: a path to an executable, or one found on the PATH.
bool executable_found(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (::access(((dir.empty() ? "." : dir) + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// A child that dies with this process: when a sweep is killed (even with SIGKILL) the run
// it started gets SIGTERM, and an mpirun or smpirun under it stops its ranks, rather than
// running on beside the sweep that resumes. Its own process group when `own_group`; stdin
// from /dev/null and stdout and stderr to `log` when one is given.
pid_t spawn_tied(const std::vector<std::string>& args, bool own_group, const fs::path* log) {
  if (!executable_found(args[0])) throw InputError(fmt::format("cannot start {}: not found", args[0]));
  auto argv = c_argv(args);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw InputError(fmt::format("cannot start {}: {}", args[0], std::strerror(errno)));
  if (pid > 0) {
    if (own_group) ::setpgid(pid, pid);  // as the child does, so a signal to the group cannot come first
    return pid;
  }
  // The child: only calls that are safe after fork, then exec.
  if (own_group) ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(128 + SIGTERM);  // the parent died before prctl
  if (log) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(log->c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0) ::_exit(127);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
  }
  ::execvp(argv[0], argv.data());
  const char message[] = "lbbench: cannot start a run's program\n";
  (void)!::write(STDERR_FILENO, message, sizeof message - 1);
  ::_exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// SIGTERM to the group, then SIGKILL if it is still there after a grace period.
int stop_group(pid_t pid) {
  ::kill(-pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ::kill(-pid, SIGKILL);  // stragglers of the group
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_stop_signal.load() != 0; }

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& log, double timeout_s,
                          const std::function<void()>& tick) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // Its own process group, so the terminal's Ctrl-C reaches the sweep, which decides.
  const pid_t pid = spawn_tied(argv, true, &log);
  ProcessResult result;
  auto last_tick = start;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      result.exit_code = exit_code_of(status);
      break;
    }
    const auto now = clock::now();
    result.seconds = std::chrono::duration<double>(now - start).count();
    if (stop_requested() || result.seconds > timeout_s) {
      result.interrupted = stop_requested();
      result.timed_out = !result.interrupted;
      result.exit_code = exit_code_of(stop_group(pid));
      break;
    }
    if (tick && now - last_tick > std::chrono::milliseconds(500)) {
      tick();
      last_tick = now;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  result.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

int run_in_foreground(const std::vector<std::string>& argv) {
  const pid_t pid = spawn_tied(argv, false, nullptr);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw RunError(fmt::format("waiting for {}: {}", argv[0], std::strerror(errno)));
  }
  return exit_code_of(status);
}

std::string capture_output(const std::vector<std::string>& argv) {
  std::string out_name = (fs::temp_directory_path() / "lbbench-cmd-XXXXXX").string();
  const int fd = ::mkstemp(out_name.data());
  if (fd < 0) throw RunError("cannot create a temporary file");
  ::close(fd);
  const fs::path out_file = out_name;
  const fs::path err_file = out_file.string() + ".err";
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions_, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&setup.actions_, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  int status = 0;
  try {
    const pid_t pid = spawn(argv, setup);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  } catch (...) {
    fs::remove(out_file);
    fs::remove(err_file);
    throw;
  }
  std::string out = slurp(out_file);
  const std::string err = slurp(err_file);
  fs::remove(out_file);
  fs::remove(err_file);
  if (exit_code_of(status) != 0) {
    throw InputError(fmt::format("{} failed (exit {}): {}", argv[0], exit_code_of(status), err.empty() ? out : err));
  }
  return out;
}

}  // namespace lbbench
