// A strict reader over a YAML tree (see config.hpp).
#include "core/config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace {

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "'" + node.Scalar() + "'";
}

std::string format_mark(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return "--set";
  return fmt::format("{}:{}:{}", file, mark.line + 1, mark.column + 1);
}

std::string format_range(double min, double max) {
  if (min == -HUGE_VAL && max == HUGE_VAL) return "";
  if (max == HUGE_VAL) return fmt::format(" >= {}", min);
  if (min == -HUGE_VAL) return fmt::format(" <= {}", max);
  return fmt::format(" in [{}, {}]", min, max);
}

}  // namespace

std::string yaml_location(const std::string& file, const YAML::Node& node) { return format_mark(file, node.Mark()); }

namespace {

// The offset of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or npos.
std::size_t first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + static_cast<std::size_t>(extra) >= text.size()) return i;  // cut short
    for (int k = 1; k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
    }
    i += static_cast<std::size_t>(extra) + 1;
  }
  return std::string_view::npos;
}

// YAML is UTF-8 text here; anything else is named where it starts.
void check_utf8(const std::string& text, const std::string& name) {
  const std::size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
  const std::size_t column = line_start == std::string::npos || bad == 0 ? bad + 1 : bad - line_start;
  throw InputError(fmt::format("{}:{}:{}: not UTF-8 text (byte 0x{:02X}); the file must be UTF-8", name, line, column,
                               static_cast<unsigned char>(text[bad])));
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return load_yaml_string(buffer.str(), path);
}

YAML::Node load_yaml_string(const std::string& text, const std::string& name) {
  check_utf8(text, name);
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}: YAML syntax error: {}", format_mark(name, e.mark), e.msg));
  }
}

ConfigNode::ConfigNode(const YAML::Node& node, std::string file, SchemaRecorder* recorder)
    : ConfigNode(node, std::make_shared<const std::string>(std::move(file)), "", recorder, "") {}

ConfigNode::ConfigNode(const YAML::Node& node, std::shared_ptr<const std::string> file, std::string path,
                       SchemaRecorder* recorder, std::string schema_path)
    : node_(node),
      file_(std::move(file)),
      path_(std::move(path)),
      schema_path_(std::move(schema_path)),
      recorder_(recorder),
      asked_(std::make_shared<std::vector<std::string>>()) {
  check_duplicate_keys();
}

std::string ConfigNode::where() const { return format_mark(*file_, node_.Mark()); }

void ConfigNode::fail(std::string_view message) const {
  const std::string label = path_.empty() ? std::string("(top level)") : path_;
  throw InputError(fmt::format("{}: {}: {}", where(), label, message));
}

void ConfigNode::expect_map(std::string_view what) const {
  if (!node_.IsMap()) fail(fmt::format("expected {} (a mapping of keys), got {}", what, describe_node(node_)));
}

std::string ConfigNode::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void ConfigNode::note_key(std::string_view key) {
  if (std::find(asked_->begin(), asked_->end(), key) == asked_->end()) asked_->emplace_back(key);
  if (recorder_) recorder_->add(schema_path_.empty() ? std::string(key) : schema_path_ + "." + std::string(key));
}

void ConfigNode::check_duplicate_keys() const {
  if (!node_.IsMap()) return;
  std::vector<std::string> seen;
  for (const auto& kv : node_) {
    // Found by fuzzing: an empty key (` : x`) or a list as a key named "" and read as one.
    if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
      throw InputError(fmt::format("{}: {}: expected a key name, got {}", format_mark(*file_, kv.first.Mark()),
                                   path_.empty() ? "(top level)" : path_, describe_node(kv.first)));
    }
    const std::string key = kv.first.Scalar();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw InputError(fmt::format("{}: {}: key '{}' appears twice in the same mapping",
                                   format_mark(*file_, kv.first.Mark()), child_path(key), key));
    }
    seen.push_back(key);
  }
}

bool ConfigNode::has(std::string_view key) {
  note_key(key);
  if (!node_.IsMap()) return false;
  // Through a const node: yaml-cpp's non-const lookup of a missing key adds it to the map,
  // which moves the map under any loop over it (a use after free the sweep fuzzer found).
  const YAML::Node& tree = node_;
  const YAML::Node child = tree[std::string(key)];
  return child.IsDefined() && !child.IsNull();
}

std::optional<ConfigNode> ConfigNode::find(std::string_view key) {
  if (!has(key)) return std::nullopt;
  const std::string child_schema = schema_path_.empty() ? std::string(key) : schema_path_ + "." + std::string(key);
  return ConfigNode(node_[std::string(key)], file_, child_path(key), recorder_, child_schema);
}

std::string ConfigNode::missing_message(std::string_view key, std::string_view expected) const {
  // A required key that is missing is most often misspelled: point at the misspelling.
  // Stricter than did_you_mean, because the present key may be another valid key not read
  // yet (`ny` is not a typo of a missing `nx`).
  if (node_.IsMap()) {
    for (const auto& kv : node_) {
      const std::string present = kv.first.Scalar();
      if (present == key || 3 * edit_distance(present, key) > key.size()) continue;
      return fmt::format("{}: {}: unknown key '{}'. Did you mean '{}'? ('{}' is required: {})",
                         format_mark(*file_, kv.first.Mark()), child_path(present), present, key, key, expected);
    }
  }
  return fmt::format("{}: {}: missing required key '{}' ({})", where(), path_.empty() ? "(top level)" : path_, key,
                     expected);
}

ConfigNode ConfigNode::at(std::string_view key, std::string_view expected) {
  if (auto child = find(key)) return *child;
  throw InputError(missing_message(key, expected));
}

std::int64_t ConfigNode::integer(std::string_view key, std::optional<std::int64_t> fallback, std::int64_t min,
                                 std::int64_t max) {
  if (auto child = find(key)) return child->as_integer(min, max);
  if (fallback) return *fallback;
  throw InputError(missing_message(key, "an integer" + format_range(double(min == INT64_MIN ? -HUGE_VAL : min),
                                                                    double(max == INT64_MAX ? HUGE_VAL : max))));
}

std::uint64_t ConfigNode::unsigned_integer(std::string_view key, std::optional<std::uint64_t> fallback) {
  if (auto child = find(key)) {
    std::uint64_t v = 0;
    if (!child->node_.IsScalar() || !YAML::convert<std::uint64_t>::decode(child->node_, v) ||
        child->node_.Scalar().starts_with("-")) {
      child->fail(fmt::format("expected a non-negative integer, got {}", describe_node(child->node_)));
    }
    return v;
  }
  if (fallback) return *fallback;
  throw InputError(missing_message(key, "a non-negative integer"));
}

double ConfigNode::number(std::string_view key, std::optional<double> fallback, double min, double max) {
  if (auto child = find(key)) return child->as_number(min, max);
  if (fallback) return *fallback;
  throw InputError(missing_message(key, "a number" + format_range(min, max)));
}

bool ConfigNode::boolean(std::string_view key, std::optional<bool> fallback) {
  if (auto child = find(key)) {
    bool v = false;
    if (!child->node_.IsScalar() || !YAML::convert<bool>::decode(child->node_, v)) {
      child->fail(fmt::format("expected true or false, got {}", describe_node(child->node_)));
    }
    return v;
  }
  if (fallback) return *fallback;
  throw InputError(missing_message(key, "true or false"));
}

std::string ConfigNode::string(std::string_view key, std::optional<std::string> fallback) {
  if (auto child = find(key)) return child->as_string();
  if (fallback) return *fallback;
  throw InputError(missing_message(key, "a string"));
}

std::string ConfigNode::choice(std::string_view key, std::span<const std::string> allowed,
                               std::optional<std::string> fallback) {
  if (auto child = find(key)) return child->as_choice(allowed);
  if (fallback) return *fallback;
  throw InputError(missing_message(key, fmt::format("one of: {}", fmt::join(allowed, ", "))));
}

std::vector<double> ConfigNode::numbers(std::string_view key, std::optional<std::vector<double>> fallback,
                                        std::size_t size_min, std::size_t size_max, double min, double max) {
  auto child = find(key);
  if (!child) {
    if (fallback) return *fallback;
    throw InputError(missing_message(key, "a list of numbers"));
  }
  const std::string expected = size_min == size_max ? fmt::format("a list of {} numbers", size_min)
                                                    : fmt::format("a list of {} to {} numbers", size_min, size_max);
  if (!child->node_.IsSequence())
    child->fail(fmt::format("expected {}, got {}", expected, describe_node(child->node_)));
  std::vector<double> out;
  for (const auto& element : child->elements(expected)) out.push_back(element.as_number(min, max));
  if (out.size() < size_min || out.size() > size_max) {
    child->fail(fmt::format("expected {}, got {} numbers", expected, out.size()));
  }
  return out;
}

std::int64_t ConfigNode::as_integer(std::int64_t min, std::int64_t max) const {
  std::int64_t v = 0;
  const std::string range =
      format_range(min == INT64_MIN ? -HUGE_VAL : double(min), max == INT64_MAX ? HUGE_VAL : double(max));
  if (!node_.IsScalar() || !YAML::convert<std::int64_t>::decode(node_, v)) {
    // Accept integral floating forms such as 1e6, which YAML users write for sizes.
    double d = 0;
    if (node_.IsScalar() && YAML::convert<double>::decode(node_, d) && std::isfinite(d) && d == std::floor(d) &&
        std::abs(d) < 9.0e15) {
      v = static_cast<std::int64_t>(d);
    } else {
      fail(fmt::format("expected an integer{}, got {}", range, describe_node(node_)));
    }
  }
  if (v < min || v > max) fail(fmt::format("expected an integer{}, got {}", range, v));
  return v;
}

double ConfigNode::as_number(double min, double max) const {
  double v = 0;
  if (!node_.IsScalar() || !YAML::convert<double>::decode(node_, v) || !std::isfinite(v)) {
    fail(fmt::format("expected a number{}, got {}", format_range(min, max), describe_node(node_)));
  }
  if (v < min || v > max) fail(fmt::format("expected a number{}, got {}", format_range(min, max), v));
  return v;
}

std::string ConfigNode::as_string() const {
  if (!node_.IsScalar()) fail(fmt::format("expected a string, got {}", describe_node(node_)));
  return node_.Scalar();
}

std::string ConfigNode::as_choice(std::span<const std::string> allowed) const {
  std::string value = as_string();
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
  fail(fmt::format("unknown value '{}'.{} Expected one of: {}", value, did_you_mean(value, allowed),
                   fmt::join(allowed, ", ")));
}

std::vector<ConfigNode> ConfigNode::elements(std::string_view expected) const {
  if (!node_.IsSequence()) fail(fmt::format("expected {}, got {}", expected, describe_node(node_)));
  std::vector<ConfigNode> out;
  std::size_t i = 0;
  for (const auto& element : node_) {
    out.push_back(ConfigNode(static_cast<const YAML::Node&>(element), file_, fmt::format("{}[{}]", path_, i++),
                             recorder_, schema_path_ + "[]"));
  }
  return out;
}

void ConfigNode::finish() const {
  if (!node_.IsMap()) return;
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (std::find(asked_->begin(), asked_->end(), key) != asked_->end()) continue;
    std::vector<std::string> known = *asked_;
    std::sort(known.begin(), known.end());
    const std::string where_key = format_mark(*file_, kv.first.Mark());
    const std::string expected = known.empty() ? std::string(" This mapping takes no keys.")
                                               : fmt::format(" Expected one of: {}.", fmt::join(known, ", "));
    throw InputError(fmt::format("{}: {}: unknown key '{}'.{}{}", where_key, child_path(key), key,
                                 did_you_mean(key, known), expected));
  }
}

ConfigNode ConfigNode::unrecorded() const {
  ConfigNode copy = *this;
  copy.recorder_ = nullptr;
  return copy;
}

}  // namespace lbbench
