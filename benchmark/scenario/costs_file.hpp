// Reading a costs file (`lbbench report --costs-out`): the decision and migration costs of
// Pearce et al.'s cost model, fitted per platform from recorded runs. A scenario names one
// with `machine.costs`; the run takes the fits of its own engine and machine.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "balancers/sdk/fitted_costs.hpp"

namespace lbbench {

// (engine, machine) -> its fits.
using CostsByPlatform = std::map<std::pair<std::string, std::string>, FittedCosts>;

// Throws InputError naming file, line, column and key for anything malformed: JSON
// syntax, unknown keys, a schema or term list of another version, negative coefficients.
CostsByPlatform read_costs_file(const std::string& path);

}  // namespace lbbench
