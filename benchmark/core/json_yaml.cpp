// Prints JSON values as block-style YAML (see json_yaml.hpp).
#include "core/json_yaml.hpp"

#include <yaml-cpp/yaml.h>

namespace lbbench {

namespace {

bool is_flat_list(const Json& v) {
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (e.is_object() || e.is_array()) return false;
  }
  return true;
}

void emit(YAML::Emitter& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, value] : v.items()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      // Short lists of scalars (coordinates, velocities) read best inline.
      if (is_flat_list(v)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& e : v) emit(out, e);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: out << v.get<std::string>(); break;
    case Json::value_t::boolean: out << v.get<bool>(); break;
    case Json::value_t::number_integer: out << v.get<std::int64_t>(); break;
    case Json::value_t::number_unsigned: out << v.get<std::uint64_t>(); break;
    case Json::value_t::number_float: out << v.dump(); break;  // shortest round-trip form
    case Json::value_t::null: out << YAML::Null; break;
    default: out << v.dump(); break;
  }
}

}  // namespace

std::string to_yaml(const Json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

}  // namespace lbbench
