// JSON documents, plain or brotli-compressed, walked with path-naming errors (see
// json_text.hpp).
#include "meshes/trace/json_text.hpp"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the trace file", path));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// JSON text starts with '{' or '[' after optional white space (and a byte-order mark).
bool looks_like_json(std::string_view bytes) {
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
  const auto first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (bytes[first] == '{' || bytes[first] == '[');
}

// What a compressed trace may grow to: JSON compresses 10 to 20 times; far more is a
// decompression bomb, not a trace.
std::size_t decompressed_limit(std::size_t compressed) {
  return std::max<std::size_t>(std::size_t{64} << 20, 200 * compressed);
}

// Decompresses a whole brotli stream; nullopt when the bytes are not one.
std::optional<std::string> brotli_decompress(std::string_view in, const std::string& path) {
  std::unique_ptr<BrotliDecoderState, decltype(&BrotliDecoderDestroyInstance)> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr), &BrotliDecoderDestroyInstance);
  if (!state) throw std::bad_alloc();
  std::string out;
  std::array<std::uint8_t, 1 << 16> buffer{};
  std::size_t available_in = in.size();
  const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  while (true) {
    std::size_t available_out = buffer.size();
    std::uint8_t* next_out = buffer.data();
    const BrotliDecoderResult result =
        BrotliDecoderDecompressStream(state.get(), &available_in, &next_in, &available_out, &next_out, nullptr);
    out.append(reinterpret_cast<const char*>(buffer.data()), buffer.size() - available_out);
    if (out.size() > decompressed_limit(in.size())) {
      throw InputError(
          fmt::format("{}: the brotli stream decompresses to more than {} MB, {} times its size: not a "
                      "trace file lbbench reads",
                      path, decompressed_limit(in.size()) >> 20, decompressed_limit(in.size()) / in.size()));
    }
    if (result == BROTLI_DECODER_RESULT_SUCCESS) return available_in == 0 ? std::optional(out) : std::nullopt;
    if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
    return std::nullopt;  // an error, or a stream cut short
  }
}

// 1-based line and column of a byte offset.
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const auto begin = text.begin();
  const auto end = begin + static_cast<std::ptrdiff_t>(offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(begin, end, '\n'));
  const auto last_newline = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column = last_newline == std::string::npos || offset == 0 ? offset + 1 : offset - last_newline;
  return {line, column};
}

// A SAX reader of the document's `type`: the metadata's, where it stops, else the top
// level's (as the readers take them).
class TypePeek {
 public:
  using json = nlohmann::json;

  [[nodiscard]] std::optional<std::string> type() const { return metadata_type_ ? metadata_type_ : top_type_; }

  bool null() { return value(); }
  bool boolean(bool /*unused*/) { return value(); }
  bool number_integer(json::number_integer_t /*unused*/) { return value(); }
  bool number_unsigned(json::number_unsigned_t /*unused*/) { return value(); }
  bool number_float(json::number_float_t /*unused*/, const std::string& /*unused*/) { return value(); }
  bool binary(json::binary_t& /*unused*/) { return value(); }
  bool string(std::string& s) {
    if (wanted_) (in_metadata_ ? metadata_type_ : top_type_) = s;
    return !metadata_type_ && value();
  }
  bool start_object(std::size_t /*unused*/) {
    if (depth_ == 1) in_metadata_ = key_ == "metadata";
    return open();
  }
  bool start_array(std::size_t /*unused*/) { return open(); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    key_ = k;
    wanted_ = k == "type" && (depth_ == 1 || (depth_ == 2 && in_metadata_));
    return true;
  }
  bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                   const nlohmann::detail::exception& /*unused*/) {
    return false;
  }

 private:
  bool value() {
    wanted_ = false;
    return true;
  }
  bool open() {
    ++depth_;
    return value();
  }
  bool close() {
    if (--depth_ <= 1) in_metadata_ = false;
    return true;
  }
  int depth_ = 0;
  bool in_metadata_ = false;
  bool wanted_ = false;
  std::string key_;
  std::optional<std::string> top_type_;
  std::optional<std::string> metadata_type_;
};

std::optional<std::string> peek_type(const std::string& text) {
  TypePeek peek;
  (void)nlohmann::json::sax_parse(text, &peek);
  return peek.type();
}

}  // namespace

std::optional<std::string> json_document_type(const std::string& path) {
  const std::string bytes = read_bytes(path);
  if (looks_like_json(bytes)) {
    if (auto type = peek_type(bytes)) return type;
  }
  if (auto text = brotli_decompress(bytes, path)) return peek_type(*text);
  return std::nullopt;
}

nlohmann::json read_json_document(const std::string& path) {
  const std::string bytes = read_bytes(path);
  // A brotli stream may begin with '{' or '[' too: what does not parse as JSON is tried
  // as brotli before its JSON error is reported.
  std::optional<InputError> json_error;
  if (looks_like_json(bytes)) {
    try {
      return parse_json_text(bytes, path);
    } catch (const InputError& e) {
      json_error = e;
    }
  }
  if (auto text = brotli_decompress(bytes, path)) {
    if (looks_like_json(*text)) return parse_json_text(*text, path + " (decompressed)");
    throw InputError(fmt::format("{}: the file is brotli-compressed, but what it holds is not JSON", path));
  }
  if (json_error) throw *json_error;
  throw InputError(
      fmt::format("{}: expected an LBDatafile, plain JSON or brotli-compressed JSON; the file is neither{}", path,
                  bytes.empty() ? " (it is empty)" : ""));
}

std::string brotli_compress(std::string_view text) {
  std::string out(BrotliEncoderMaxCompressedSize(text.size()), '\0');
  std::size_t size = out.size();
  const int ok =
      BrotliEncoderCompress(8, 20, BROTLI_MODE_TEXT, text.size(), reinterpret_cast<const std::uint8_t*>(text.data()),
                            &size, reinterpret_cast<std::uint8_t*>(out.data()));
  if (ok != BROTLI_TRUE) throw std::runtime_error("brotli could not compress a trace file");
  out.resize(size);
  return out;
}

nlohmann::json parse_json_text(const std::string& text, const std::string& path) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    // nlohmann's message repeats "[json.exception.parse_error.101] parse error at line ...";
    // keep the part that says what was wrong.
    if (const auto colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(fmt::format("{}:{}:{}: not valid JSON: {}", path, line, column, what));
  } catch (const nlohmann::json::exception& e) {  // a number beyond double, found by fuzzing
    std::string what = e.what();
    if (const auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    throw InputError(fmt::format("{}: not valid JSON: {}", path, what));
  }
}

std::string describe_json(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: {
      std::string s = value.get<std::string>();
      if (s.size() > 40) s = s.substr(0, 37) + "...";
      return fmt::format("the string \"{}\"", s);
    }
    case nlohmann::json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_float: return fmt::format("the number {}", value.get<double>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return fmt::format("the integer {}", value.dump());
    default: return "an unreadable value";
  }
}

void JsonAt::fail(std::string_view message) const {
  throw InputError(fmt::format("{}: {}: {}", *file_, path_.empty() ? "(top level)" : path_, message));
}

std::string JsonAt::child(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonAt::expect_object(std::string_view what, std::initializer_list<std::string_view> known) const {
  if (!value_->is_object()) fail(fmt::format("expected {}, got {}", what, describe_json(*value_)));
  const std::vector<std::string> names(known.begin(), known.end());
  for (const auto& [key, _] : value_->items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    JsonAt(value_->at(key), *file_, child(key))
        .fail(fmt::format("unknown key '{}' in {}.{} Expected one of: {}", key, what, did_you_mean(key, names),
                          fmt::join(names, ", ")));
  }
}

bool JsonAt::has(std::string_view key) const { return value_->contains(key); }

JsonAt JsonAt::at(std::string_view key) const {
  const auto it = value_->find(key);
  if (it == value_->end()) fail(fmt::format("missing the required key '{}'", key));
  return JsonAt(*it, *file_, child(key));
}

std::optional<JsonAt> JsonAt::find(std::string_view key) const {
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonAt(*it, *file_, child(key));
}

std::vector<JsonAt> JsonAt::elements(std::string_view what) const {
  if (!value_->is_array()) fail(fmt::format("expected {}, got {}", what, describe_json(*value_)));
  std::vector<JsonAt> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i)
    out.emplace_back((*value_)[i], *file_, fmt::format("{}[{}]", path_, i));
  return out;
}

std::int64_t JsonAt::integer() const {
  if (value_->is_number_integer()) return value_->get<std::int64_t>();
  if (value_->is_number_unsigned()) {
    const auto u = value_->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<std::int64_t>(u);
  }
  fail(fmt::format("expected an integer, got {}", describe_json(*value_)));
}

double JsonAt::number() const {
  if (!value_->is_number()) fail(fmt::format("expected a number, got {}", describe_json(*value_)));
  const double x = value_->get<double>();
  if (!std::isfinite(x)) fail("expected a finite number");
  return x;
}

bool JsonAt::boolean() const {
  if (!value_->is_boolean()) fail(fmt::format("expected true or false, got {}", describe_json(*value_)));
  return value_->get<bool>();
}

std::string JsonAt::string() const {
  if (!value_->is_string()) fail(fmt::format("expected a string, got {}", describe_json(*value_)));
  return value_->get<std::string>();
}

}  // namespace lbbench
