// lbbench-smpi launches nothing (see launch.hpp): smpirun starts it as the smpi engine.
#include "app/launch.hpp"
#include "core/error.hpp"

namespace lbbench {

int launch_engine(EngineKind /*kind*/, const LaunchRequest& /*request*/, const RunOutputs& /*outputs*/) {
  throw InputError("lbbench-smpi only runs under smpirun, as the smpi engine; start runs with lbbench");
}

}  // namespace lbbench
