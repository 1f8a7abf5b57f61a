// The work kernel (see do_work.hpp).
#include "engines/mpi/do_work.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include "core/hash.hpp"

namespace lbbench {

namespace {

// Size of the highest-level cache from sysfs ("32768K"), which virtual machines report
// more faithfully than sysconf.
std::size_t last_level_cache_bytes() {
  std::size_t best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    std::size_t value = std::strtoull(text.c_str(), nullptr, 10);
    if (text.back() == 'K') value <<= 10;
    if (text.back() == 'M') value <<= 20;
    best = std::max(best, value);
  }
  if (best == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = static_cast<std::size_t>(l3);
  }
  return best ? best : std::size_t{32} << 20;
}

}  // namespace

std::size_t default_work_array_bytes() {
  if (const char* env = std::getenv("LBBENCH_WORK_ARRAY_MB")) {
    const auto mb = std::strtoull(env, nullptr, 10);
    if (mb > 0) return std::bit_floor(static_cast<std::size_t>(mb) << 20);
  }
  const std::size_t want =
      std::clamp<std::size_t>(4 * last_level_cache_bytes(), std::size_t{64} << 20, std::size_t{512} << 20);
  return std::bit_floor(want);
}

void WorkKernel::Free::operator()(std::uint64_t* p) const { std::free(p); }

// The array asks for transparent huge pages before it is first touched. Otherwise the
// kernel may collapse it into huge pages in the background during a run, which makes
// random reads faster mid-run and silently breaks the calibration.
WorkKernel::WorkKernel(std::size_t array_bytes) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  words_ = std::bit_floor(std::max<std::size_t>(array_bytes / sizeof(std::uint64_t), 1024));
  const std::size_t bytes = words_ * sizeof(std::uint64_t);
  void* p = std::aligned_alloc(bytes >= kHugePage ? kHugePage : 64, bytes);
  if (!p) throw std::bad_alloc();
  if (bytes >= kHugePage) ::madvise(p, bytes, MADV_HUGEPAGE);
  data_.reset(static_cast<std::uint64_t*>(p));
  for (std::size_t i = 0; i < words_; ++i) data_[i] = mix64(i);
  mask_ = words_ - 1;
}

void WorkKernel::access(std::uint64_t count) {
  std::uint64_t state = state_;
  std::uint64_t acc = sink_;
  for (std::uint64_t i = 0; i < count; ++i) {
    // A 64-bit LCG; its high bits index the array.
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    acc += data_[(state >> 24) & mask_];
  }
  state_ = state;
  sink_ = acc;
  reads_ += count;
}

}  // namespace lbbench
