#pragma once
// What the CUDA toolkit gives the tests here: tests that need nvcc skip (and say so) without it.
#include "compile/nvcc_compiler.hpp"
#include "util/error.hpp"

namespace gi::test {

inline bool have_nvcc() {
    try {
        find_nvcc();
        return true;
    } catch (const Error&) {
        return false;
    }
}

}  // namespace gi::test
