// The heap of a process that runs many ranks at once: the SMPI and model engines hold
// every simulated rank in one process, with one heap, and time each rank's code on its own.
#pragma once

namespace lbbench {

// Turns off glibc's fastbins. With them, glibc consolidates every rank's freed small
// chunks at once whenever one rank asks for a large block: with many ranks that outweighs
// a handler's or a restructure's own work, and it is charged to whichever rank triggered
// it, as its decision or regrid time.
void turn_off_fastbins();

}  // namespace lbbench
