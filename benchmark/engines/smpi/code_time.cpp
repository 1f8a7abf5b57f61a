// Under SMPI, charged code is simulated computation (see comm/code_time.hpp).
#include "comm/code_time.hpp"

#include <smpi/smpi.h>

#include "engines/smpi/code_time.hpp"

namespace lbbench {

namespace {

// Off when SimGrid benchmarks all code itself (smpi/simulate-computation:yes), which would
// otherwise charge these regions twice. One setting for every simulated rank.
bool g_charging = true;

}  // namespace

void charge_code_explicitly(bool on) { g_charging = on; }

bool code_is_charged() { return g_charging; }

void charge_code(double host_cpu_s) {
  // smpi_execute takes seconds of this host's time and scales them by smpi/host-speed over
  // the simulated core's speed, the same rule SimGrid applies to the code it benchmarks.
  if (g_charging && host_cpu_s > 0) smpi_execute(host_cpu_s);
}

}  // namespace lbbench
