// The front end's launchers (see launch.hpp): one case per engine it does not run itself.
#include <stdexcept>

#include "app/launch.hpp"
#include "engines/model/launch.hpp"
#include "engines/smpi/launch.hpp"

namespace lbbench {

int launch_engine(EngineKind kind, const LaunchRequest& request, const RunOutputs& outputs) {
  switch (kind) {
    case EngineKind::smpi: return launch_smpi(request);  // lbbench-smpi reports the run itself
    case EngineKind::model: report_run(launch_model(request), "", outputs); return 0;
    case EngineKind::mpi: break;  // in-process: started by mpirun or srun
  }
  throw std::logic_error("launch_engine: the mpi engine runs in-process");
}

}  // namespace lbbench
