// What a plugin declares of its strategy (see plugin.hpp): its name, family, description,
// params and shape. Plain data with no MPI, so that the registry, scenarios and the
// harness read it without linking any strategy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "balancers/sdk/config.hpp"

namespace lbbench::plugin {

// Raised whenever a declaration or a shape changes how lbbench and a plugin talk: a
// plugin built against another version is refused before any of its code runs.
// 3: LocalGraph (in LoadView) gained sparse_ids, for block meshes that regrid.
// 4: CallOutlook gained stepwise_max_load_s and steps_measured, what a look sees of the
//    slowest rank step by step.
// 5: NetworkFacts gained scattered_exchange_s_per_byte and CallOutlook edge_bytes, what a
//    placement that cuts every edge makes a step's exchange cost.
// 6: CallOutlook gained first_step_max_load_s and first_step_mean_load_s, what the last
//    call left before the loads moved on.
inline constexpr int kAbiVersion = 6;

// The two symbols lbbench looks up (LBBENCH_BALANCER defines them): the ABI version first,
// which it checks before it touches anything else, then the declaration.
inline constexpr const char* kAbiSymbol = "lbbench_plugin_abi_version";
inline constexpr const char* kDeclarationSymbol = "lbbench_plugin_declaration";

// --- params: declared once, validated by lbbench like a built-in strategy's -----------------

enum class ParamType { integer, number, boolean, text };

// A param's value: an integer, a number, a boolean or a text, as its type says.
using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

struct ParamSpec {
  std::string key;
  ParamType type = ParamType::number;
  ParamValue fallback;  // the default; of the param's type
  std::string doc;      // one line, for `lbbench list balancers`
};

// A param of each type, for the declaration's list.
inline ParamSpec integer_param(std::string key, std::int64_t fallback, std::string doc) {
  return {std::move(key), ParamType::integer, fallback, std::move(doc)};
}
inline ParamSpec number_param(std::string key, double fallback, std::string doc) {
  return {std::move(key), ParamType::number, fallback, std::move(doc)};
}
inline ParamSpec boolean_param(std::string key, bool fallback, std::string doc) {
  return {std::move(key), ParamType::boolean, fallback, std::move(doc)};
}
inline ParamSpec text_param(std::string key, std::string fallback, std::string doc) {
  return {std::move(key), ParamType::text, std::move(fallback), std::move(doc)};
}

// The validated values of every declared param, defaults filled in.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, ParamValue> values) : values_(std::move(values)) {}
  [[nodiscard]] std::int64_t integer(const std::string& key) const { return get<std::int64_t>(key); }
  [[nodiscard]] double number(const std::string& key) const { return get<double>(key); }
  [[nodiscard]] bool boolean(const std::string& key) const { return get<bool>(key); }
  [[nodiscard]] const std::string& text(const std::string& key) const { return get<std::string>(key); }
  [[nodiscard]] const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  template <class T>
  [[nodiscard]] const T& get(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end() || !std::holds_alternative<T>(it->second)) {
      throw std::logic_error("plugin param '" + key + "' is not declared with that type");
    }
    return std::get<T>(it->second);
  }
  std::map<std::string, ParamValue> values_;
};

class Centralized;
class Protocol;
class General;

enum class Shape { centralized, protocol, general };

// What a plugin registers: its name, family, one-line description and params, and how to
// make its strategy of one shape from the validated params.
struct Declaration {
  int abi = kAbiVersion;
  std::string name;
  Family family = Family::global;
  std::string description;
  std::vector<ParamSpec> params;
  Shape shape = Shape::centralized;
  std::string built_for;  // the MPI its code was compiled against: "mpi" or "smpi"
  std::unique_ptr<Centralized> (*make_centralized)(const Params&) = nullptr;
  std::unique_ptr<Protocol> (*make_protocol)(const Params&) = nullptr;
  std::unique_ptr<General> (*make_general)(const Params&) = nullptr;
};

}  // namespace lbbench::plugin
