#pragma once
// When two variants are the same program before the compiler sees them. A parameter sweep sets
// genes that no live code reads under the rest of the point (stereo's OUT_TYPE while the disparity
// is kept in global memory; bspline's directxBasis once constantBasis is on): such points differ
// in a `#define` line only, compile to the same module, and lie far apart in the sweep's order, so
// no batch holds both. The tuner measures each distinct program once (tune/tune.hpp).
//
// The identity covers the code lines the preprocessor keeps, the live directives it passes on
// (#pragma, #error, #line) and the definitions of the macros that code uses, directly or through
// other macros. It errs one way only: two texts with one identity are the same program (modulo
// the compile options, which the caller adds); two with different identities may still be.
#include <string>

namespace gi {

// sha256 of the above, or "" when it cannot be told safely: an #include (its contents are not
// seen), token pasting, a #define or #undef inside a region whose condition cannot be evaluated
// (a compiler-defined macro such as __CUDA_ARCH__, a function-like macro), unbalanced #if/#endif,
// or text that cannot be scanned. Regions whose conditions cannot be evaluated count as kept,
// every branch of them. Pure.
std::string preprocessed_identity(const std::string& source);

}  // namespace gi
