// Wall-clock helpers (see clock.hpp).
#include "core/clock.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <vector>

namespace lbbench {

double wall_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double thread_cpu_seconds() {
  timespec t{};
  // Parenthesized, so that a simulator's clock_gettime macro (SMPI's answers with simulated
  // time) does not replace the host's clock.
  (clock_gettime)(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

namespace {

long minor_faults_of_this_thread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// Touches every page of fresh anonymous memory, five times over, and keeps the median
// per-page cost: the cheapest would leave faults that cost more later under-subtracted.
double measure_page_fault_seconds() {
  constexpr std::size_t kPages = 512;
  constexpr int kTrials = 5;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<double> per_fault;
  for (int trial = 0; trial < kTrials; ++trial) {
    void* block = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) return 0.0;
    auto* bytes = static_cast<volatile unsigned char*>(block);
    const long faults0 = minor_faults_of_this_thread();
    const double t0 = thread_cpu_seconds();
    for (std::size_t i = 0; i < kPages; ++i) bytes[i * page] = 1;
    const double spent = thread_cpu_seconds() - t0;
    const long faults = minor_faults_of_this_thread() - faults0;
    munmap(block, kPages * page);
    if (faults > 0) per_fault.push_back(spent / static_cast<double>(faults));
  }
  if (per_fault.empty()) return 0.0;
  std::nth_element(per_fault.begin(), per_fault.begin() + static_cast<std::ptrdiff_t>(per_fault.size() / 2),
                   per_fault.end());
  return per_fault[per_fault.size() / 2];
}

}  // namespace

double page_fault_seconds() {
  static const double cost = measure_page_fault_seconds();
  return cost;
}

double code_cpu_seconds() {
  const double per_fault = page_fault_seconds();  // measured before the readings below
  const long faults = minor_faults_of_this_thread();
  return thread_cpu_seconds() - static_cast<double>(faults) * per_fault;
}

std::string utc_timestamp(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 64> buffer{};
  std::strftime(buffer.data(), buffer.size(), format, &tm);
  return buffer.data();
}

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

double measured_host_ghz() {
  using clock = std::chrono::steady_clock;
  constexpr std::uint64_t kAdds = std::uint64_t{1} << 28;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::uint64_t x = 0;
    // Dependent adds, not folded away, eight to an iteration: the chain's latency (one add
    // a cycle) sets the pace. With one add to an iteration the loop's own branch set it,
    // and that depends on where the build aligns the loop: up to half the host's clock.
    const auto add = [&x] {
      x += 1;
      asm volatile("" : "+r"(x));
    };
    const auto t0 = clock::now();
    for (std::uint64_t i = 0; i < kAdds; i += 8) {
      add(), add(), add(), add(), add(), add(), add(), add();
    }
    const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
    best = std::max(best, static_cast<double>(kAdds) / seconds / 1e9);
  }
  return best;
}

}  // namespace lbbench
