// Packing plain values into byte buffers for MPI messages, with bounds-checked reads.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace lbbench {

using Bytes = std::vector<std::byte>;

class ByteWriter {
 public:
  explicit ByteWriter(Bytes& out) : out_(out) {}

  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    out_.insert(out_.end(), p, p + sizeof(T));
  }

  template <class T>
  void put_span(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    out_.insert(out_.end(), p, p + values.size_bytes());
  }

  // Reserves n bytes at the end and returns where they start, for in-place filling.
  std::byte* grow(std::size_t n) {
    const std::size_t at = out_.size();
    out_.resize(at + n);
    return out_.data() + at;
  }

 private:
  Bytes& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}

  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value{};
    std::memcpy(&value, take(sizeof(T)).data(), sizeof(T));
    return value;
  }

  template <class T>
  void get_into(std::vector<T>& out, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto bytes = take(count * sizeof(T));
    const std::size_t at = out.size();
    out.resize(at + count);
    if (count) std::memcpy(out.data() + at, bytes.data(), bytes.size());
  }

  std::span<const std::byte> take(std::size_t n) {
    if (n > in_.size() - pos_) throw std::runtime_error("message truncated: read past the end of a buffer");
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

  [[nodiscard]] bool done() const { return pos_ == in_.size(); }

 private:
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
};

}  // namespace lbbench
