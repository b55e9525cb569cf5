#pragma once
// The vector-load transformation (vec_<file>_<line>, grammar/transforms.hpp) on a piece of kernel
// text: a unit-step counted loop whose body reads `const float*` parameters only as p[V] takes 2 or
// 4 iterations a trip from one float2/float4 load of each, where the addresses turn out aligned at
// run time. The grammar checks the original with these before it offers the site, the variant
// stage checks the text that edits left before it rewrites it.
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar.hpp"
#include "grammar/loop_shape.hpp"

namespace gi {

// Why the loads in `body` cannot be taken `width` at a time ("" when they can): anything
// unroll_blocker refuses; a step other than 1; a call (a barrier, an atomic, a helper that may
// store); a pointer in `reads` used other than as a plain read p[V] or not read at all; a store
// to memory while a pointer in `reads` is not __restrict__ (the store could change a value the
// vector load already read).
std::string vector_load_blocker(std::string_view body, const CountedLoop& loop, const std::vector<VectorRead>& reads);

// The body as one trip of `width` (2 or 4) iterations when V + width-1 is within the bound and
// every p + V is aligned to the vector, each p[V] of the k-th copy read from one vector's k-th
// lane (`lane_name`_p), the copies separated by `step`; otherwise the body as written, so a
// misaligned start runs single iterations until the address aligns and the tail runs them too.
// Call only where vector_load_blocker is "".
std::string vector_load_body(const std::string& body, const std::string& step, const CountedLoop& loop,
                             const std::vector<VectorRead>& reads, int width, const std::string& lane_name);

}  // namespace gi
