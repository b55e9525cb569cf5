// Cubic B-spline deformation field in the style of NiftyReg's reg_spline_getDeformationField3D
// (seed 001, sections 2 and 3.1): from displacement vectors at control points placed every
// SPACING (5) voxels, the displacement of every active voxel of a 3D image.
//
// A voxel's displacement mixes the 4x4x4 control points around it, weighted by the product of three
// cubic basis functions of its offset from the control grid. Because the spacing is 5, only five
// offsets exist, so the y and z weights come from a precomputed table. Each active entry is a
// 1x5x5 block of voxels (one x, five y, five z, with y and z corners on control points) handled by
// one warp: those 25 voxels share their 64 control points and, sharing x, the x sums reduce them to
// 16 values, which 16 threads compute into shared memory; then 25 threads combine them with their
// own y and z weights and write 25 consecutive float4 results (7 threads of each warp idle).
//
// Genes (seed 001 3.1): constantBasis, directxBasis, BasisA, RemX, c_UseBSpline, BLOCK_SIZE.
// The file is self-contained (no #include) so NVRTC can compile variants of it.

// ---- tunable parameters ----------------------------------------------------------------------
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 32  // threads per block, a multiple of 32 (one warp per 1x5x5 block of voxels)
#endif
#ifndef constantBasis
#define constantBasis 0  // 1: basis table in __constant__ memory (and x weights from it too)
#endif
#ifndef directxBasis
#define directxBasis 0  // 1: x weights from the table instead of the cubic formulas
#endif
#ifndef BasisA
#define BasisA 0  // 0: table indexed [offset][weight]; 1: [weight][offset]
#endif
#ifndef RemX
#define RemX 0  // 1: x % SPACING computed once and kept in a variable
#endif
#ifndef c_UseBSpline
#define c_UseBSpline 0  // 1: the spline kind is fixed (B-spline) at compile time, not read from use_bspline
#endif

// ---- fixed by the algorithm (not genes) ------------------------------------------------------
#define SPACING 5  // voxels between control points

#if BLOCK_SIZE % 32 != 0
#error "BLOCK_SIZE must be a multiple of 32: each warp handles one block of voxels"
#endif
#define WARPS_PER_BLOCK (BLOCK_SIZE / 32)

#if c_UseBSpline
#define USE_BSPLINE 1
#else
#define USE_BSPLINE use_bspline
#endif

// Basis weights for the five offsets 0, 1/5 .. 4/5: cubic B-spline (kind 0) and Catmull-Rom
// (kind 1). BASIS(kind, offset, weight) reads the table in either layout.
#if BasisA
#define BASIS_INDEX(kind, offset, weight) ((kind) * 20 + (weight) * 5 + (offset))
#define BASIS_VALUES { \
    0.166666667f, 0.085333333f, 0.036000000f, 0.010666667f, 0.001333333f, \
    0.666666667f, 0.630666667f, 0.538666667f, 0.414666667f, 0.282666667f, \
    0.166666667f, 0.282666667f, 0.414666667f, 0.538666667f, 0.630666667f, \
    0.000000000f, 0.001333333f, 0.010666667f, 0.036000000f, 0.085333333f, \
    0.000000000f, -0.064000000f, -0.072000000f, -0.048000000f, -0.016000000f, \
    1.000000000f, 0.912000000f, 0.696000000f, 0.424000000f, 0.168000000f, \
    0.000000000f, 0.168000000f, 0.424000000f, 0.696000000f, 0.912000000f, \
    0.000000000f, -0.016000000f, -0.048000000f, -0.072000000f, -0.064000000f}
#else
#define BASIS_INDEX(kind, offset, weight) ((kind) * 20 + (offset) * 4 + (weight))
#define BASIS_VALUES { \
    0.166666667f, 0.666666667f, 0.166666667f, 0.000000000f, \
    0.085333333f, 0.630666667f, 0.282666667f, 0.001333333f, \
    0.036000000f, 0.538666667f, 0.414666667f, 0.010666667f, \
    0.010666667f, 0.414666667f, 0.538666667f, 0.036000000f, \
    0.001333333f, 0.282666667f, 0.630666667f, 0.085333333f, \
    0.000000000f, 1.000000000f, 0.000000000f, 0.000000000f, \
    -0.064000000f, 0.912000000f, 0.168000000f, -0.016000000f, \
    -0.072000000f, 0.696000000f, 0.424000000f, -0.048000000f, \
    -0.048000000f, 0.424000000f, 0.696000000f, -0.072000000f, \
    -0.016000000f, 0.168000000f, 0.912000000f, -0.064000000f}
#endif

#if constantBasis
__constant__ float basis_table[40] = BASIS_VALUES;
#define BASIS(kind, offset, weight) basis_table[BASIS_INDEX(kind, offset, weight)]
#else
// In global memory, read through the read-only cache as the original read its texture.
__device__ float basis_table[40] = BASIS_VALUES;
#define BASIS(kind, offset, weight) __ldg(&basis_table[BASIS_INDEX(kind, offset, weight)])
#endif

// The four weights of a cubic at fractional offset t: B-spline or Catmull-Rom.
__device__ void cubic_basis(float t, int bspline, float* w)
{
    float t2 = t * t;
    float t3 = t2 * t;
    if (bspline) {
        w[0] = (1.f - t) * (1.f - t) * (1.f - t) / 6.f;
        w[1] = (3.f * t3 - 6.f * t2 + 4.f) / 6.f;
        w[2] = (-3.f * t3 + 3.f * t2 + 3.f * t + 1.f) / 6.f;
        w[3] = t3 / 6.f;
    } else {
        w[0] = (-t3 + 2.f * t2 - t) / 2.f;
        w[1] = (3.f * t3 - 5.f * t2 + 2.f) / 2.f;
        w[2] = (-3.f * t3 + 4.f * t2 + t) / 2.f;
        w[3] = (t3 - t2) / 2.f;
    }
}

// control_points: grid_x*grid_y*grid_z displacements (w unused), x fastest; control point i sits at
// voxel (i - 1) * SPACING. active_blocks: (kb * blocks_y + jb) * image_x + x for each 1x5x5 block
// (x, 5jb..5jb+4, 5kb..5kb+4), blocks_y = ceil(image_y / SPACING). deformation: 25 float4 per entry,
// voxel (y offset u, z offset v) at index 5 * v + u.
__global__ void bspline_kernel(const float4* control_points, const int* active_blocks, float4* deformation,
                               int active_count, int image_x, int image_y, int grid_x, int grid_y,
                               int use_bspline)
{
    __shared__ float4 x_sums[WARPS_PER_BLOCK][16];
    const int thread = threadIdx.x & 31;
    const int warp = threadIdx.x / 32;
    const int tid = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int blocks_y = (image_y + SPACING - 1) / SPACING;
    int index;
    int x;
    int jb;
    int kb;
    int xPre;
#if RemX
    int remx;
#endif
    float relative;
    float xBasis[4];
    int kind;
    int a;
    int b;
    int c;
    int cp;
    int u;
    int v;
    float basis;
    float4 sum;
    float4 displacement;
    float4 node;

    if (tid < active_count) {
        index = active_blocks[tid];
        x = index % image_x;
        jb = (index / image_x) % blocks_y;
        kb = (index / image_x) / blocks_y;
        kind = USE_BSPLINE ? 0 : 1;
        xPre = x / SPACING;
#if RemX
        remx = x % SPACING;
#endif

        // Weights along x: from the table, or from the cubic formulas at the voxel's offset.
#if constantBasis || directxBasis
        for (a = 0; a < 4; a++) {
#if RemX
            xBasis[a] = BASIS(kind, remx, a);
#else
            xBasis[a] = BASIS(kind, x % SPACING, a);
#endif
        }
#else
#if RemX
        relative = (float)remx / (float)SPACING;
#else
        relative = (float)(x % SPACING) / (float)SPACING;
#endif
        relative = relative > 0 ? relative : 0.f;
        cubic_basis(relative, USE_BSPLINE, xBasis);
#endif

        // 16 threads: the x-weighted sum of one (y, z) column of four control points.
        if (thread < 16) {
            b = thread & 3;
            c = thread >> 2;
            cp = ((kb + c) * grid_y + jb + b) * grid_x + xPre;
            sum = make_float4(0.f, 0.f, 0.f, 0.f);
            for (a = 0; a < 4; a++) {
                node = control_points[cp + a];
                sum.x += node.x * xBasis[a];
                sum.y += node.y * xBasis[a];
                sum.z += node.z * xBasis[a];
            }
            x_sums[warp][thread] = sum;
        }
        __syncwarp();

        // 25 threads: one voxel each, from the 16 sums and its own y and z weights.
        if (thread < 25) {
            u = thread % 5;
            v = thread / 5;
            displacement = make_float4(0.f, 0.f, 0.f, 0.f);
            for (c = 0; c < 4; c++) {
                for (b = 0; b < 4; b++) {
                    basis = BASIS(kind, u, b) * BASIS(kind, v, c);
                    displacement.x += x_sums[warp][c * 4 + b].x * basis;
                    displacement.y += x_sums[warp][c * 4 + b].y * basis;
                    displacement.z += x_sums[warp][c * 4 + b].z * basis;
                }
            }
            deformation[tid * 25 + thread] = displacement;
        }
    }
}

#ifndef __CUDACC_RTC__
// Launch geometry as a function of the macros above (see registration.txt).
dim3 bspline_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 bspline_grid(int active_count)
{
    return dim3((active_count + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
}
#endif
