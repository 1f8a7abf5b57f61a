// What this rank is doing, kept where a signal handler can read it. When one rank of a job
// dies, the MPI launcher stops the others with a signal (Open MPI's mpirun sends SIGTERM);
// each of them then says at which step it was and which ranks it exchanges messages with,
// next to the launcher's own word on which rank died, instead of vanishing silently.
#pragma once

#include <span>

namespace lbbench::run_status {

// Installs the handler (SIGTERM, and SIGHUP unless it is ignored, as under nohup) for a
// process that runs one rank, `rank`.
void watch(int rank);
// Whether watch() was called in this process.
bool watching();
// The step the rank is in (-1 while it sets up); it stays at the last step to the end.
void at_step(int step);
// The ranks this one exchanges step messages with (the first 16 are kept).
void exchanges_with(std::span<const int> peers);

}  // namespace lbbench::run_status
