// A shared library that registers no strategy.
extern "C" __attribute__((visibility("default"))) int not_a_strategy() { return 1; }
