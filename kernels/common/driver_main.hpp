#pragma once
// main() of the gate corpus's drivers: the driver's own run(), with its errors turned into the exit
// statuses they all use (2 for a usage error, 1 and FAIL for any other failure), each message
// naming the driver.
#include <cstdio>
#include <exception>

#include "util/error.hpp"

namespace gi::kernels {

template <class Run>
int driver_main(const char* name, Run&& run, int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const gi::UsageError& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        std::puts("FAIL");
        return 1;
    }
}

}  // namespace gi::kernels
