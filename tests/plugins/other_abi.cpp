// A library that says it was built against another SDK version: lbbench must refuse it
// before it calls anything else of it (its declaration would crash).
extern "C" __attribute__((visibility("default"))) int lbbench_plugin_abi_version() { return 999; }
extern "C" __attribute__((visibility("default"))) const void* lbbench_plugin_declaration() { __builtin_trap(); }
