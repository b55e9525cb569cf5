#pragma once
// One replacement in a kernel's source text, as the guard rewriters (barrier_guard, shared_guard)
// collect them while scanning and then apply from the back, so earlier offsets stay valid.
#include <cstddef>
#include <string>

namespace gi {

struct SourceEdit {
    std::size_t at;
    std::size_t erase = 0;  // bytes replaced at `at`
    std::string text;
};

}  // namespace gi
