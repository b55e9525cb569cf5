// reduction.h: what reduction.cpp calls in reduction_kernel.cu.
#ifndef REDUCTION_H
#define REDUCTION_H

// Threads a block may have (the kernel is instantiated for 32..512).
#define REDUCTION_MAX_THREADS 512
#define REDUCTION_MIN_THREADS 32

// One pass of the sum: `blocks` blocks of `threads` threads reduce `size` elements of d_idata to
// `blocks` partial sums in d_odata (which may be d_idata).
template <class T>
void reduce(int size, int threads, int blocks, const T *d_idata, T *d_odata);

#endif
