// Strategies from outside the tree (balancers/sdk/plugin.hpp), loaded by path at run time.
// A loaded plugin's strategy is a registry row like a built-in one: scenarios, sweeps,
// `auto`'s candidates and `lbbench list` find it by name. Loading links no MPI.
#pragma once

#include <string>
#include <vector>

#include "balancers/sdk/plugin_declaration.hpp"
#include "balancers/sdk/registry.hpp"
#include "core/config.hpp"

namespace lbbench {

struct LoadedPlugin {
  std::string path;    // as loaded: absolute and without symbolic links
  std::string sha256;  // of the library file
  const plugin::Declaration* declaration = nullptr;
};

// Loads the library at `path` and registers its strategy; loading the same file again does
// nothing. Throws InputError naming the path for a missing file, a library that cannot be
// loaded, one without the registration symbols, one built against another SDK version
// (both versions named, before any other symbol is used), and a name that a built-in
// strategy or another plugin already has.
const LoadedPlugin& load_plugin(const std::string& path);

// The MPI this binary's code runs on, which a general strategy's library must have been
// built against (plugin::kBuiltFor): "mpi" unless the native engine says otherwise at its
// start. A library's variant for it (NAME<variant_suffix>.so beside NAME.so) is loaded
// instead where there is one.
void set_plugins_mpi(std::string mpi, std::string variant_suffix);

// Every plugin loaded by this process, in the order loaded.
const std::vector<LoadedPlugin>& loaded_plugins();

// The loaded plugins' registry rows, in the order loaded.
std::vector<const BalancerInfo*> plugin_rows();

// A plugin strategy's params from a scenario's mapping: each declared key of its type, the
// default where absent; unknown keys and ill-typed values get the same errors as a
// built-in strategy's (file:line:column, "did you mean").
BalancerParams parse_plugin_params(const plugin::Declaration& declaration, ConfigNode& params);

// The validated values a config of a plugin strategy holds.
const plugin::Params& plugin_params(const BalancerConfig& config);

// The type of a param, as `lbbench list balancers` prints it.
const char* param_type_name(plugin::ParamType type);
// A param value as text.
std::string param_value_text(const plugin::ParamValue& value);

}  // namespace lbbench
