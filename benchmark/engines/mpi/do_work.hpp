// The work kernel: random reads over an array larger than the last-level cache (as in
// Pearce et al.), calibrated so that do_work(w) takes w * unit_seconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace lbbench {

class WorkKernel {
 public:
  explicit WorkKernel(std::size_t array_bytes);
  // Performs `count` reads at pseudo-random positions. The addresses do not depend on the
  // data read, so the core overlaps misses as a real irregular code would.
  void access(std::uint64_t count);
  [[nodiscard]] std::size_t array_bytes() const { return words_ * sizeof(std::uint64_t); }
  // Folds everything read, so the compiler cannot drop the reads.
  [[nodiscard]] std::uint64_t sink() const { return sink_; }

 private:
  struct Free {
    void operator()(std::uint64_t* p) const;
  };
  std::unique_ptr<std::uint64_t[], Free> data_;
  std::size_t words_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t state_ = 0x853c49e6748fea9bULL;
  std::uint64_t sink_ = 0;
};

// Four times the last-level cache, kept between 64 MiB and 512 MiB; LBBENCH_WORK_ARRAY_MB
// overrides it. Rounded down to a power of two.
std::size_t default_work_array_bytes();

class DoWork {
 public:
  DoWork(WorkKernel& kernel, double accesses_per_second, double unit_seconds)
      : kernel_(kernel), accesses_per_unit_(accesses_per_second * unit_seconds) {}
  void operator()(double weight) {
    if (weight > 0) kernel_.access(static_cast<std::uint64_t>(weight * accesses_per_unit_ + 0.5));
  }

 private:
  WorkKernel& kernel_;
  double accesses_per_unit_;
};

}  // namespace lbbench
