// The smpi engine's switch for charging code explicitly (see comm/code_time.hpp).
#pragma once

namespace lbbench {

// On by default. Off when SimGrid's own benchmarking charges all code.
void charge_code_explicitly(bool on);

}  // namespace lbbench
