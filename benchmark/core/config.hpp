// A strict reader over a YAML tree: every error names file:line:column, the key path, what
// was expected, and a "did you mean"; keys nobody asked for are errors.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lbbench {

// Collects every key path a parser asks for (sequence indices written as "[]"), so a test
// can hold the documentation of the schema to what the parser really reads.
class SchemaRecorder {
 public:
  void add(std::string path) { paths_.insert(std::move(path)); }
  [[nodiscard]] const std::set<std::string>& paths() const { return paths_; }

 private:
  std::set<std::string> paths_;
};

// Parses YAML text, turning syntax errors into "file:line:col: ..." messages.
YAML::Node load_yaml_file(const std::string& path);
YAML::Node load_yaml_string(const std::string& text, const std::string& name);

class ConfigNode {
 public:
  ConfigNode(const YAML::Node& node, std::string file, SchemaRecorder* recorder = nullptr);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const { return *file_; }
  [[nodiscard]] const YAML::Node& yaml() const { return node_; }
  // "file:line:col" of this node, or "--set" for values given on the command line.
  [[nodiscard]] std::string where() const;
  // A value given on the command line (--set, --set-file), not read from the file.
  [[nodiscard]] bool given_on_command_line() const { return node_.Mark().is_null(); }
  // Throws InputError "where: path: message".
  [[noreturn]] void fail(std::string_view message) const;

  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  [[nodiscard]] bool is_sequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }
  // Fails unless this node is a mapping; `what` describes it ("the mesh section").
  void expect_map(std::string_view what) const;

  // --- mapping access; every key asked about becomes a known key ---------------------------
  [[nodiscard]] bool has(std::string_view key);
  [[nodiscard]] std::optional<ConfigNode> find(std::string_view key);
  [[nodiscard]] ConfigNode at(std::string_view key, std::string_view expected);

  // Typed values. Without a fallback the key is required.
  std::int64_t integer(std::string_view key, std::optional<std::int64_t> fallback = std::nullopt,
                       std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);
  std::uint64_t unsigned_integer(std::string_view key, std::optional<std::uint64_t> fallback = std::nullopt);
  double number(std::string_view key, std::optional<double> fallback = std::nullopt, double min = -HUGE_VAL,
                double max = HUGE_VAL);
  bool boolean(std::string_view key, std::optional<bool> fallback = std::nullopt);
  std::string string(std::string_view key, std::optional<std::string> fallback = std::nullopt);
  std::string choice(std::string_view key, std::span<const std::string> allowed,
                     std::optional<std::string> fallback = std::nullopt);
  std::vector<double> numbers(std::string_view key, std::optional<std::vector<double>> fallback, std::size_t size_min,
                              std::size_t size_max, double min = -HUGE_VAL, double max = HUGE_VAL);

  // --- this node as a scalar -----------------------------------------------------------------
  [[nodiscard]] std::int64_t as_integer(std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX) const;
  [[nodiscard]] double as_number(double min = -HUGE_VAL, double max = HUGE_VAL) const;
  [[nodiscard]] std::string as_string() const;
  [[nodiscard]] std::string as_choice(std::span<const std::string> allowed) const;

  // --- sequences -----------------------------------------------------------------------------
  [[nodiscard]] std::vector<ConfigNode> elements(std::string_view expected) const;

  // Errors on the first key that no reader asked for, with a suggestion among those asked.
  void finish() const;

  // A view of this node whose keys are not recorded (balancer params document themselves).
  [[nodiscard]] ConfigNode unrecorded() const;

 private:
  ConfigNode(const YAML::Node& node, std::shared_ptr<const std::string> file, std::string path,
             SchemaRecorder* recorder, std::string schema_path);
  [[nodiscard]] std::string child_path(std::string_view key) const;
  void note_key(std::string_view key);
  void check_duplicate_keys() const;
  [[nodiscard]] std::string missing_message(std::string_view key, std::string_view expected) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  std::string schema_path_;
  SchemaRecorder* recorder_ = nullptr;
  std::shared_ptr<std::vector<std::string>> asked_;
};

// Position of a YAML node as "file:line:col" (1-based), or "--set" for nodes made in code.
std::string yaml_location(const std::string& file, const YAML::Node& node);

}  // namespace lbbench
