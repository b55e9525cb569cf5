#pragma once
// Internal to the grammar stage: the sites where a code transformation applies (issue 46), each
// one gene whose value is the transformation's parameter, named after the site's line:
//   unroll_<file>_<line>=1|2|4|8  a counted for loop (grammar/loop_shape.hpp) whose body can run
//                                 several times a trip: unrolled by hand, the remainder in the loop
//   hoist_<file>_<line>=0|1       a declaration at the top of a loop body whose initialiser reads
//                                 nothing the loop writes: moved before the loop
//   unguard_<file>_<line>=0|1     a kernel's bounds check outside loops (if (i < n) ..., if (i >= n)
//                                 return;) on an index derived from threadIdx/blockIdx: dropped;
//                                 whether the launch geometry makes it redundant is the evaluator's
//                                 to find out, on the recorded cases
//   vec_<file>_<line>=1|2|4      a unit-step counted loop whose body reads `const float*` kernel
//                                 parameters only as p[V] and calls nothing (stores nothing either,
//                                 unless they are __restrict__): 2 or 4 iterations a trip from one
//                                 float2/float4 load of each where p + V is aligned at run time
//                                 (grammar/vector_load.hpp)
//   shfl_<file>_<line>=0|1        a shared-memory tree reduction (for (s = blockDim.x / 2; s > 0;
//                                 s >>= 1) { if (tid < s) a[tid] += a[tid + s]; __syncthreads(); },
//                                 +, *, max or min) whose array the code after it reads only as
//                                 a[0]: its last six steps by __shfl_down_sync in the first warp,
//                                 where the start is a power of two >= 32 at run time, else as
//                                 written (grammar/warp_reduce.hpp)
//   coarsen_<file>_<line>=1|2|4   the file's one kernel, one-dimensional (i = blockIdx.x * blockDim.x
//                                 + threadIdx.x; if (i < n) ...), whose grid the file's one host
//                                 function dim3 *grid*(...) { return dim3(X ...); } computes: each
//                                 thread does K blocks' elements in turn, X and the evaluator's grid
//                                 divided by K (grammar/thread_coarsen.hpp)
//   stage_<file>_<line>=0|1       a kernel's stencil loop (for (int k = -R; k <= R; ++k) { int j = i + k;
//                                 if (j >= 0 && j < n) acc += w[k + R] * in[j]; }) re-reading a
//                                 `const T*` parameter no other code touches, R and the block size
//                                 (__launch_bounds__ or the file's <<<grid, B>>>) compile-time
//                                 constants: the block's window loaded once into a __shared__ tile
//                                 at the top of the body, where the block size allows it, the loop
//                                 reading the tile (grammar/shared_stage.hpp)
// A site is offered only where its premise holds in the original; the variant stage checks it
// again on the text edits left (variant/transform_apply.hpp).
#include <vector>

#include "grammar/genes.hpp"

namespace gi::grammar_detail {

std::vector<GeneDraft> make_transform_genes(const GeneInputs& inputs, const std::string& file_name);

}  // namespace gi::grammar_detail
