// The record store (see store.hpp).
#include "harness/store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>

#include "core/error.hpp"

namespace lbbench {

namespace fs = std::filesystem;

namespace {

class Fd {
 public:
  Fd(const fs::path& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
      throw RunError(fmt::format("{}: cannot open the record file: {}", path.string(), std::strerror(errno)));
  }
  ~Fd() { ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

// Length of the file up to and including its last newline.
std::uintmax_t complete_length(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  constexpr std::streamoff kChunk = 4096;
  for (std::streamoff end = size; end > 0;) {
    const std::streamoff start = std::max<std::streamoff>(0, end - kChunk);
    std::string buffer(static_cast<std::size_t>(end - start), '\0');
    in.seekg(start);
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (const auto nl = buffer.rfind('\n'); nl != std::string::npos) return static_cast<std::uintmax_t>(start) + nl + 1;
    end = start;
  }
  return 0;
}

}  // namespace

RecordStore::RecordStore(fs::path file) : file_(std::move(file)) {
  if (file_.has_parent_path()) fs::create_directories(file_.parent_path());
  { Fd create(file_, O_WRONLY | O_CREAT | O_APPEND); }
  const std::uintmax_t size = fs::file_size(file_);
  const std::uintmax_t keep = complete_length(file_);
  if (keep < size) {
    repaired_bytes_ = static_cast<std::size_t>(size - keep);
    fs::resize_file(file_, keep);
  }
}

void RecordStore::append(const Json& record) const {
  // Invalid UTF-8 (a failed run's output quoted in its record) is replaced, not fatal.
  const std::string line = record.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  Fd fd(file_, O_WRONLY | O_APPEND);
  // One write() of the whole line: readers and a later resume see all of it or none.
  const ssize_t written = ::write(fd.get(), line.data(), line.size());
  if (written != static_cast<ssize_t>(line.size())) {
    throw RunError(fmt::format("{}: could not append a record: {}", file_.string(),
                               written < 0 ? std::strerror(errno) : "short write"));
  }
  ::fsync(fd.get());
}

RecordSet read_records(const fs::path& file_or_folder) {
  RecordSet out;
  std::vector<fs::path> files;
  std::error_code error;
  const fs::file_status status = fs::status(file_or_folder, error);
  if (fs::is_directory(status)) {
    for (const auto& e : fs::recursive_directory_iterator(file_or_folder)) {
      if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else if (fs::exists(status)) {
    files.push_back(file_or_folder);
  } else {
    throw InputError(fmt::format("{}: no such file or folder", file_or_folder.string()));
  }
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (line.empty()) continue;
      Json record = Json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (record.is_discarded() || !record.is_object()) {
        out.skipped.push_back(fmt::format("{}:{}: not a JSON object", f.string(), number));
        continue;
      }
      out.records.push_back(std::move(record));
    }
  }
  return out;
}

std::map<std::string, std::string> run_statuses(const std::vector<Json>& records) {
  std::map<std::string, std::string> out;
  for (const auto& r : records) {
    const auto sweep = r.find("sweep");
    if (sweep == r.end() || !sweep->contains("id")) continue;
    const std::string id = (*sweep)["id"].get<std::string>();
    const std::string status = sweep->value("status", "ok");
    auto& slot = out[id];
    if (slot != "ok") slot = status;
  }
  return out;
}

std::map<std::string, std::string> recorded_statuses(const fs::path& results) {
  if (!fs::exists(results)) return {};
  return run_statuses(read_records(results).records);
}

std::vector<std::string> tail_lines(const fs::path& file, std::size_t lines) {
  std::ifstream in(file);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  return {last.begin(), last.end()};
}

}  // namespace lbbench
