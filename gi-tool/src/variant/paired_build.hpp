#pragma once
// One module for both builds of a variant (issue 3): the loop guard's preamble, the plain variant,
// then the same text loop-guarded inside `namespace gi_guarded`. The worker then loads one module
// per variant instead of two, and NVRTC compiles once instead of twice. It works because the
// second copy of the file re-includes only headers with include guards (skipped) and redefines its
// macros identically; the guarded kernel is `gi_guarded::NAME`.
//
// Not every file survives being compiled twice in one unit: extern "C" kernels clash with their
// guarded copies (cheap to see, so refused up front, as is a mangled --function name, which the
// guarded copy cannot share); a header without include guard, or constant memory over the limit
// once doubled, only shows when the paired compile fails, and the caller then builds separately.
#include <string>

#include "variant/hang_guard.hpp"

namespace gi {

inline constexpr const char* kGuardedNamespace = "gi_guarded";

// Why `source` with kernel `function` cannot be paired, or "" when it may be tried. Pure.
std::string paired_build_refusal(const std::string& source, const std::string& function);

// Pure. `source` is the translation unit described above; the `guarded` count and `unguarded`
// list are guard_loops' for the variant (`name` in its messages). Compiler messages keep the kernel's line
// numbers in both copies (`#line 1` before each), so the plain copy's errors read as the plain
// build's would.
// `guards`: as guard_hangs's, which guards the copy.
LoopGuardResult paired_source(const std::string& plain_source, const std::string& name = "variant.cu",
                              HangGuards guards = {});

}  // namespace gi
