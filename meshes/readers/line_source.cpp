// Reading mesh files line by line with line numbers (see line_source.hpp).
#include "meshes/readers/line_source.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace lbbench {

LineSource::LineSource(std::string path, char comment) : path_(std::move(path)), comment_(comment), in_(path_) {
  if (!in_) {
    throw InputError(
        fmt::format("{}: cannot open the mesh file (a relative mesh.file is looked for next to the "
                    "scenario, then in LBBENCH_MESHES_DIR)",
                    path_));
  }
}

bool LineSource::next(std::string& line) {
  while (std::getline(in_, line)) {
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == comment_) continue;
    return true;
  }
  return false;
}

void LineSource::fail(const std::string& message) const { fail_at(line_number_, message); }

void LineSource::fail_at(std::int64_t line, const std::string& message) const {
  throw InputError(fmt::format("{}:{}: {}", path_, line, message));
}

std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool parse_int(std::string_view token, std::int64_t& out) {
  const auto* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool parse_double(std::string_view token, double& out) {
  const auto* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace lbbench
