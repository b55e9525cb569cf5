// convolutionSeparable_common.h: the filter's size and the functions main.cpp calls.
#ifndef CONVOLUTIONSEPARABLE_COMMON_H
#define CONVOLUTIONSEPARABLE_COMMON_H

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

// Image sizes must be multiples of these (the GPU passes process whole tiles).
#define IMAGE_W_MULTIPLE 256
#define IMAGE_H_MULTIPLE 64

// CPU reference (convolutionSeparable_gold.cpp).
extern "C" void convolutionRowCPU(float *h_Dst, const float *h_Src, const float *h_Kernel, int imageW,
                                  int imageH, int kernelR);
extern "C" void convolutionColumnCPU(float *h_Dst, const float *h_Src, const float *h_Kernel, int imageW,
                                     int imageH, int kernelR);

// GPU passes (convolutionSeparable.cu).
extern "C" void setConvolutionKernel(const float *h_Kernel);
extern "C" void convolutionRowsGPU(float *d_Dst, float *d_Src, int imageW, int imageH);
extern "C" void convolutionColumnsGPU(float *d_Dst, float *d_Src, int imageW, int imageH);

#endif
