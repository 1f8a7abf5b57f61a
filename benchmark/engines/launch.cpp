// The front end's launchers (see launch.hpp): one case per engine it does not run itself.
#include "engines/launch.hpp"

#include <stdexcept>

#include "engines/smpi/launch.hpp"

namespace lbbench {

int launch_engine(EngineKind kind, const LaunchRequest& request) {
  switch (kind) {
    case EngineKind::smpi: return launch_smpi(request);
    case EngineKind::mpi: break;  // in-process: started by mpirun or srun
  }
  throw std::logic_error("launch_engine: the mpi engine runs in-process");
}

}  // namespace lbbench
