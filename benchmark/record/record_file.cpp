// Appending a record (see record_file.hpp).
#include "record/record_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace lbbench {

void check_writable(const std::string& path, const char* what, bool append) {
  if (path.empty()) return;
  const int fd = ::open(path.c_str(), (append ? O_APPEND : O_TRUNC) | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot write the {}: {}", path, what, std::strerror(errno)));
  ::close(fd);
}

void append_record(const std::string& path, const Json& record) {
  // Invalid UTF-8 (a run's output quoted in a failure record) is replaced, not fatal.
  const std::string line = record.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open the record file: {}", path, std::strerror(errno)));
  ::flock(fd, LOCK_EX);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {  // without the size, a failed write could not be taken back
    const int saved = errno;
    ::flock(fd, LOCK_UN);
    ::close(fd);
    throw RunError(fmt::format("{}: cannot read the record file's size: {}", path, std::strerror(saved)));
  }
  // A write that stops short (a disk that fills up mid-line) is continued, so that the
  // next one says why; whatever was written of the line is then taken back.
  std::size_t written = 0;
  int saved = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      saved = n < 0 ? errno : ENOSPC;
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  const bool complete = written == line.size();
  if (!complete) {
    if (::ftruncate(fd, st.st_size) != 0) { /* nothing more we can do; the error below says why */
    }
    ::flock(fd, LOCK_UN);
    ::close(fd);
    throw RunError(fmt::format("{}: could not append the record: {}", path, std::strerror(saved)));
  }
  ::fsync(fd);
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

}  // namespace lbbench
