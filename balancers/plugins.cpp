// Loading strategies from outside the tree (see plugins.hpp).
#include "balancers/plugins.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.hpp"
#include "core/sha256.hpp"

namespace lbbench {

namespace {

namespace fs = std::filesystem;

// The MPI this binary runs on, and the suffix of the library variants built against it.
struct ThisMpi {
  std::string name = "mpi";
  std::string variant_suffix;  // none: a library as given is built for it
};

ThisMpi& this_mpi() {
  static ThisMpi mpi;
  return mpi;
}

std::vector<LoadedPlugin>& plugins() {
  static std::vector<LoadedPlugin> loaded;
  return loaded;
}
// Stable addresses: configs point at their rows for the process's life.
std::deque<BalancerInfo>& rows() {
  static std::deque<BalancerInfo> r;
  return r;
}

// What a plugin strategy's config holds: the declaration it answers to, and the values.
struct PluginParamsValue {
  const plugin::Declaration* declaration = nullptr;
  plugin::Params values;

  [[nodiscard]] Json to_json() const {
    Json out = Json::object();
    for (const auto& spec : declaration->params) {
      std::visit([&](const auto& v) { out[spec.key] = v; }, values.values().at(spec.key));
    }
    return out;
  }
};

std::string file_sha256(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return sha256_hex(bytes);
}

bool holds_type(const plugin::ParamValue& value, plugin::ParamType type) {
  switch (type) {
    case plugin::ParamType::integer: return std::holds_alternative<std::int64_t>(value);
    case plugin::ParamType::number: return std::holds_alternative<double>(value);
    case plugin::ParamType::boolean: return std::holds_alternative<bool>(value);
    case plugin::ParamType::text: return std::holds_alternative<std::string>(value);
  }
  return false;
}

// A declaration lbbench can use: a name, the maker of its shape, params of their types.
void check_declaration(const plugin::Declaration& d, const std::string& path) {
  if (d.name.empty()) throw InputError(fmt::format("{}: the plugin declares a strategy without a name", path));
  const bool made = (d.shape == plugin::Shape::centralized && d.make_centralized) ||
                    (d.shape == plugin::Shape::protocol && d.make_protocol) ||
                    (d.shape == plugin::Shape::general && d.make_general);
  if (!made) throw InputError(fmt::format("{}: the plugin's strategy '{}' has no maker of its shape", path, d.name));
  for (const auto& spec : d.params) {
    if (!holds_type(spec.fallback, spec.type)) {
      throw InputError(fmt::format("{}: the default of param '{}' of '{}' is not a {}", path, spec.key, d.name,
                                   param_type_name(spec.type)));
    }
  }
}

void refuse_a_taken_name(const plugin::Declaration& d, const std::string& path) {
  if (find_builtin_balancer(d.name) != nullptr) {
    throw InputError(
        fmt::format("{}: the plugin's strategy is named '{}', which is a built-in strategy's name; "
                    "rename it in its LBBENCH_BALANCER line",
                    path, d.name));
  }
  for (const auto& other : plugins()) {
    if (other.declaration->name == d.name) {
      throw InputError(
          fmt::format("{}: the plugin's strategy '{}' is also registered by {}", path, d.name, other.path));
    }
  }
}

template <class F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

// The declaration of the library at `path`, its ABI version checked before anything else
// of it is used.
const plugin::Declaration& open_declaration(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw InputError(fmt::format("{}: cannot load the plugin: {}", path, dlerror()));
  const auto abi = symbol<int (*)()>(handle, plugin::kAbiSymbol);
  const auto declaration = symbol<const plugin::Declaration* (*)()>(handle, plugin::kDeclarationSymbol);
  if (abi == nullptr || declaration == nullptr) {
    dlclose(handle);
    throw InputError(fmt::format(
        "{}: not an lbbench plugin: it has no {} symbol (register its strategy with one LBBENCH_BALANCER line)", path,
        abi == nullptr ? plugin::kAbiSymbol : plugin::kDeclarationSymbol));
  }
  if (const int version = abi(); version != plugin::kAbiVersion) {
    dlclose(handle);
    throw InputError(
        fmt::format("{}: the plugin was built against lbbench SDK ABI version {}, and this lbbench has version {}; "
                    "rebuild it against this lbbench's installed package",
                    path, version, plugin::kAbiVersion));
  }
  // The library stays loaded for the process's life: its strategy's code is in use.
  return *declaration();
}

// The library this binary loads for `path`: under another MPI than Open MPI (SMPI), the
// variant built against it beside it (NAME-smpi.so), where there is one.
fs::path variant_for_this_mpi(const fs::path& path) {
  const std::string& suffix = this_mpi().variant_suffix;
  if (suffix.empty()) return path;
  fs::path variant = path.parent_path() / (path.stem().string() + suffix + path.extension().string());
  return fs::is_regular_file(variant) ? variant : path;
}

// A general strategy calls MPI: it runs only where its MPI is this binary's.
void refuse_another_mpi(const plugin::Declaration& d, const std::string& path) {
  const ThisMpi& mpi = this_mpi();
  if (d.shape != plugin::Shape::general || d.built_for == mpi.name) return;
  throw InputError(fmt::format(
      "{}: '{}' has the general shape (plan() calls MPI) and was built against {}, but this engine runs on {}; "
      "build its {} variant beside it (lbbench_add_balancer makes NAME{}.so where SimGrid is installed)",
      path, d.name, d.built_for, mpi.name, mpi.name, mpi.variant_suffix));
}

}  // namespace

const LoadedPlugin& load_plugin(const std::string& path) {
  std::error_code error;
  const fs::path resolved = variant_for_this_mpi(fs::canonical(path, error));
  if (error || !fs::is_regular_file(resolved)) {
    throw InputError(fmt::format("{}: no plugin library there{}", path, error ? ": " + error.message() : ""));
  }
  const std::string where = resolved.string();
  for (const auto& p : plugins()) {
    if (p.path == where) return p;
  }
  const plugin::Declaration& d = open_declaration(where);
  check_declaration(d, where);
  refuse_another_mpi(d, where);
  refuse_a_taken_name(d, where);
  plugins().push_back(LoadedPlugin{.path = where, .sha256 = file_sha256(resolved), .declaration = &d});
  rows().push_back(BalancerInfo{.name = d.name,
                                .kind = BalancerKind::plugin,
                                .family = d.family,
                                .description = d.description,
                                .parse = nullptr,
                                .plugin = &d});
  return plugins().back();
}

void set_plugins_mpi(std::string mpi, std::string variant_suffix) {
  this_mpi() = ThisMpi{.name = std::move(mpi), .variant_suffix = std::move(variant_suffix)};
}

const std::vector<LoadedPlugin>& loaded_plugins() { return plugins(); }

std::vector<const BalancerInfo*> plugin_rows() {
  std::vector<const BalancerInfo*> out;
  for (const auto& row : rows()) out.push_back(&row);
  return out;
}

BalancerParams parse_plugin_params(const plugin::Declaration& declaration, ConfigNode& params) {
  std::map<std::string, plugin::ParamValue> values;
  for (const auto& spec : declaration.params) {
    plugin::ParamValue& v = values[spec.key];
    switch (spec.type) {
      case plugin::ParamType::integer: v = params.integer(spec.key, std::get<std::int64_t>(spec.fallback)); break;
      case plugin::ParamType::number: v = params.number(spec.key, std::get<double>(spec.fallback)); break;
      case plugin::ParamType::boolean: v = params.boolean(spec.key, std::get<bool>(spec.fallback)); break;
      case plugin::ParamType::text: v = params.string(spec.key, std::get<std::string>(spec.fallback)); break;
    }
  }
  params.finish();
  return PluginParamsValue{&declaration, plugin::Params(std::move(values))};
}

const plugin::Params& plugin_params(const BalancerConfig& config) {
  return config.params.get<PluginParamsValue>().values;
}

const char* param_type_name(plugin::ParamType type) {
  switch (type) {
    case plugin::ParamType::integer: return "integer";
    case plugin::ParamType::number: return "number";
    case plugin::ParamType::boolean: return "boolean";
    case plugin::ParamType::text: return "text";
  }
  return "?";
}

std::string param_value_text(const plugin::ParamValue& value) {
  std::ostringstream out;
  std::visit(
      [&](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, bool>) {
          out << (v ? "true" : "false");
        } else {
          out << v;
        }
      },
      value);
  return out.str();
}

}  // namespace lbbench
