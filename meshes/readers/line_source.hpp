// Reading mesh files line by line with line numbers, and parsing numbers with errors that
// name the file, the line and the token.
#pragma once

#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace lbbench {

class LineSource {
 public:
  // `comment` starts lines to skip ('%' for METIS, Chaco and Matrix Market).
  LineSource(std::string path, char comment);
  // Next line that is not a comment; blank lines are returned (a blank METIS line is a
  // vertex without neighbors). False at the end of the file.
  bool next(std::string& line);
  [[nodiscard]] std::int64_t line_number() const { return line_number_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Throws InputError "path:line: message".
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(std::int64_t line, const std::string& message) const;

 private:
  std::string path_;
  char comment_;
  std::ifstream in_;
  std::int64_t line_number_ = 0;
};

// Whitespace-separated tokens of one line.
std::vector<std::string_view> split_tokens(std::string_view line);

bool parse_int(std::string_view token, std::int64_t& out);
bool parse_double(std::string_view token, double& out);

}  // namespace lbbench
