// What every fuzz target shares: the input as a file (the readers read files), and the
// rule that bad input may only ever be an InputError. Any other exception, a crash or a
// sanitizer report is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>

#include "core/error.hpp"

namespace lbbench::fuzz {

// A folder of this process's own, in memory where the system has one, removed at exit.
class ScratchFolder {
 public:
  ScratchFolder() {
    const std::filesystem::path base =
        std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    path_ = base / ("lbbench-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline const std::filesystem::path& scratch() {
  static const ScratchFolder folder;
  return folder.path();
}

// Writes the input to `name` in the scratch folder and returns its path.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::string path = (scratch() / name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// Runs the reader: an InputError is the answer to bad input; anything else stops the fuzzer.
template <class F>
int expecting_input_errors(F&& read) {
  try {
    read();
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: not an input error: %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
  return 0;
}

}  // namespace lbbench::fuzz
