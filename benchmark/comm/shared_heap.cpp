// The heap of a process that runs many ranks at once (see shared_heap.hpp).
#include "comm/shared_heap.hpp"

#include <malloc.h>

namespace lbbench {

void turn_off_fastbins() { mallopt(M_MXFAST, 0); }

}  // namespace lbbench
