// #if chains inside and around a kernel: conditions of each region are recorded per rule.
#ifndef MODE
#define MODE 2
#endif
#define FAST 1
#define USE_SHARED 0

__global__ void regions(float* out, int n)
{
    int i = threadIdx.x;
#if MODE == 1
    out[i] = 1.0f;
#elif MODE == 2
    out[i] = 2.0f;
#else
    out[i] = 3.0f;
#endif
#ifdef FAST
    out[i] *= 2.0f;
#ifndef SLOW
    out[i] += 1.0f;
#endif
#endif
#if USE_SHARED && !defined(NO_SHARED)
    __shared__ float s[64];
    s[i] = out[i];
#endif
#if defined(EXTRA_STEP) || FAST
    if (i < n) out[i] -= 1.0f;
#endif
}
