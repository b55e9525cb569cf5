// convolutionSeparable_gold.cpp: the CPU reference of both passes (zero outside the image).
#include "convolutionSeparable_common.h"

extern "C" void convolutionRowCPU(float *h_Dst, const float *h_Src, const float *h_Kernel, int imageW,
                                  int imageH, int kernelR) {
  for (int y = 0; y < imageH; y++)
    for (int x = 0; x < imageW; x++) {
      float sum = 0;
      for (int k = -kernelR; k <= kernelR; k++) {
        const int d = x + k;
        if (d >= 0 && d < imageW) sum += h_Src[y * imageW + d] * h_Kernel[kernelR - k];
      }
      h_Dst[y * imageW + x] = sum;
    }
}

extern "C" void convolutionColumnCPU(float *h_Dst, const float *h_Src, const float *h_Kernel, int imageW,
                                     int imageH, int kernelR) {
  for (int y = 0; y < imageH; y++)
    for (int x = 0; x < imageW; x++) {
      float sum = 0;
      for (int k = -kernelR; k <= kernelR; k++) {
        const int d = y + k;
        if (d >= 0 && d < imageH) sum += h_Src[d * imageW + x] * h_Kernel[kernelR - k];
      }
      h_Dst[y * imageW + x] = sum;
    }
}
