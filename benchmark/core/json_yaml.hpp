// Prints JSON values as block-style YAML, so normalized scenarios read like the input files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace lbbench {
using Json = nlohmann::ordered_json;
std::string to_yaml(const Json& value);
}  // namespace lbbench
