#pragma once
// How a message names one of a case's buffers, for the worker's reports.
#include <cstddef>
#include <string>

#include "testcase/test_case.hpp"

namespace gi::worker {

// "buffer 1 (read-only input, kernel argument 2)", "buffer 3 (output, module variable 'counter')",
// "buffer 4 (output, reached through kernel argument 0)": the case records no parameter names, so
// the arguments that point into the buffer (or hold a pointer to it) stand for it.
std::string buffer_label(const TestCase& tc, std::size_t b);

}  // namespace gi::worker
