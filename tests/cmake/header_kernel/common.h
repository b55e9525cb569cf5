// Beside main.cu: its copy in the build folder must still find it.
#ifndef COMMON_H
#define COMMON_H
int scale_doubles(double* data, int n);  // other/other.cu
#endif
