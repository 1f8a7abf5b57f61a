// Reading a JSON document that may be brotli-compressed, and walking it with errors that
// name the file, the JSON path and what was expected.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lbbench {

// The file's JSON document: plain, or brotli-compressed (told by the content, not the
// name). Throws InputError naming the file, and the line and column of a syntax error.
nlohmann::json read_json_document(const std::string& path);

// The document's `type`: its metadata's where it has one, else the top level's, parsed
// only as far as the metadata's (vt writes it first): tells a folder's data sets from vt's
// statistics without reading them whole. nullopt where there is none, or the JSON breaks
// off before one.
std::optional<std::string> json_document_type(const std::string& path);

// Compresses text as vt does (brotli, quality 8, window 20).
std::string brotli_compress(std::string_view text);

// Parses the text, turning a syntax error into "path:line:column: ...".
nlohmann::json parse_json_text(const std::string& text, const std::string& path);

// One value of a parsed document with its path ("phases[3].tasks[0].time"), for checks
// whose errors read "FILE: PATH: expected ..., got ...".
class JsonAt {
 public:
  JsonAt(const nlohmann::json& value, const std::string& file, std::string path = "")
      : value_(&value), file_(&file), path_(std::move(path)) {}

  [[nodiscard]] const nlohmann::json& value() const { return *value_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const { return *file_; }
  [[noreturn]] void fail(std::string_view message) const;

  // An object whose keys must all be among `known` (the rest is an error with a "did you
  // mean"); `what` describes it in errors.
  void expect_object(std::string_view what, std::initializer_list<std::string_view> known) const;
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] JsonAt at(std::string_view key) const;  // required
  [[nodiscard]] std::optional<JsonAt> find(std::string_view key) const;
  [[nodiscard]] std::vector<JsonAt> elements(std::string_view what) const;  // an array's

  [[nodiscard]] std::int64_t integer() const;
  [[nodiscard]] double number() const;  // integers too: a time of 1 is 1.0 s
  [[nodiscard]] bool boolean() const;
  [[nodiscard]] std::string string() const;

 private:
  [[nodiscard]] std::string child(std::string_view key) const;
  const nlohmann::json* value_;
  const std::string* file_;
  std::string path_;
};

// A JSON value's kind for error messages: "a string \"abc\"", "an object", ...
std::string describe_json(const nlohmann::json& value);

}  // namespace lbbench
