// How the engines set glibc's heap up (see heap.hpp).
#include "comm/heap.hpp"

// SMPI's compiler wrapper turns malloc and its kin into macros for the application's own
// C calls; glibc's declarations need the plain names.
#pragma push_macro("malloc")
#pragma push_macro("calloc")
#pragma push_macro("realloc")
#pragma push_macro("free")
#undef malloc
#undef calloc
#undef realloc
#undef free
#include <malloc.h>
#pragma pop_macro("free")
#pragma pop_macro("realloc")
#pragma pop_macro("calloc")
#pragma pop_macro("malloc")

#include <limits>

namespace lbbench {

void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void turn_off_fastbins() { mallopt(M_MXFAST, 0); }

}  // namespace lbbench
