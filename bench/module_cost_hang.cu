// A kernel that never ends, for `module_cost --hang` (bench/module_cost.cpp): gi-tool kills a worker
// whose variant hangs, and the driver must then tear that context down.
extern "C" __global__ void hang() { volatile int x = 0; while (x == 0) { } }
