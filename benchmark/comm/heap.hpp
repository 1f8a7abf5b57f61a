// How the engines set glibc's heap up before a run.
#pragma once

namespace lbbench {

// Freed memory stays in the heap for reuse. By default glibc serves large blocks (a
// migration's packed vertices, its receive buffers) from fresh mmap'ed pages and returns
// them when freed, so every migration would pay a page fault per 4 KiB touched, which can be
// most of its time where faults are dear. A long-running application migrates with a warm heap.
void keep_freed_memory();

// For a process that runs many ranks at once, each rank's code timed on its own (the SMPI
// and model engines): turns off glibc's fastbins. With them, glibc consolidates every
// rank's freed small chunks at once whenever one rank asks for a large block; with many
// ranks that outweighs a handler's or a regrid's own work, and it is charged to whichever
// rank triggered it.
void turn_off_fastbins();

}  // namespace lbbench
