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
  // Reads done so far.
  [[nodiscard]] std::uint64_t reads() const { return reads_; }

 private:
  struct Free {
    void operator()(std::uint64_t* p) const;
  };
  std::unique_ptr<std::uint64_t[], Free> data_;
  std::size_t words_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t state_ = 0x853c49e6748fea9bULL;
  std::uint64_t sink_ = 0;
  std::uint64_t reads_ = 0;
};

// Four times the last-level cache, kept between 64 MiB and 512 MiB; LBBENCH_WORK_ARRAY_MB
// overrides it. Rounded down to a power of two.
std::size_t default_work_array_bytes();

// do_work(w): w * unit_seconds of the kernel's reads. A call costs a fixed share beyond its
// reads (`call_seconds`, fitted by the calibration: its first reads wait out whole memory
// latencies before others overlap them, and a run that times each call reads the clock
// once more), so the reads are the target less that share. What one call cannot do, a fraction of a read
// or a target below the fixed share, is carried to the next: a weight worth less than a
// read then costs its share over many calls instead of nothing.
class DoWork {
 public:
  DoWork(WorkKernel& kernel, double accesses_per_second, double unit_seconds, double call_seconds)
      : kernel_(kernel),
        accesses_per_second_(accesses_per_second),
        unit_seconds_(unit_seconds),
        call_seconds_(call_seconds) {}
  void operator()(double weight) {
    if (!(weight > 0)) return;
    owed_ += weight * unit_seconds_;
    // A call without a read does not pay the fixed share either, so it waits for a whole one.
    if ((owed_ - call_seconds_) * accesses_per_second_ < 1) return;
    const auto reads = static_cast<std::uint64_t>((owed_ - call_seconds_) * accesses_per_second_);
    owed_ -= call_seconds_ + static_cast<double>(reads) / accesses_per_second_;
    kernel_.access(reads);
  }

 private:
  WorkKernel& kernel_;
  double accesses_per_second_;
  double unit_seconds_;
  double call_seconds_;
  double owed_ = 0;  // seconds of work asked for and not yet done
};

}  // namespace lbbench
