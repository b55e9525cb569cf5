// Stereo disparity in the style of StereoCamera's stereoKernel (seed 000, sections 8.8-8.13):
// for every pixel of the left image, the horizontal shift 0..STEREO_MAXD of the right image that
// minimises the sum of squared differences (SSD) over an 11x11 window, or -1 when even the best
// shift's SSD is not below STEREO_MAX_SSD.
//
// Written as a careful engineer wrote it for 2008-era GPUs: one block of BLOCK_W threads per
// vertical stripe, each thread owning one column and ROWS_PER_THREAD rows. For every disparity the
// threads put their 11-row column sums in shared memory and add up 11 neighbouring columns; moving
// one row down only adds the new bottom row and subtracts the old top row of each column (a
// rolling window), in integers so no rounding creeps in. The best disparity and SSD found so far
// for each of a thread's rows live in global memory, as in the original.
//
// Everything tunable is a macro below (the genes gi-optimize searches); alternative code paths are
// #if blocks. The file is self-contained (no #include) so NVRTC can compile variants of it.

// ---- tunable parameters ----------------------------------------------------------------------
#ifndef BLOCK_W
#define BLOCK_W 64  // threads per block along x; >= 2*RADIUS
#endif
#ifndef ROWS_PER_THREAD
#define ROWS_PER_THREAD 40  // rows each thread walks down with the rolling window
#endif
#ifndef XHALO
#define XHALO 0  // 1: the 2*RADIUS halo columns get threads of their own instead of reusing the first ones
#endif
#ifndef DPER
#define DPER 1  // disparities tried side by side by one block (threadIdx.y picks one)
#endif
#ifndef STORE_DISPARITY_PIXEL
#define STORE_DISPARITY_PIXEL 0  // where the best disparity so far lives: 0 global, 1 shared, 2 local
#endif
#ifndef STORE_MIN_SSD
#define STORE_MIN_SSD 0  // where the smallest SSD so far lives: 0 global, 1 shared, 2 local
#endif
#ifndef OUT_TYPE
#define OUT_TYPE float  // type of the best disparity while it is kept in shared or local memory
#endif
#ifndef USE_MUL24
#define USE_MUL24 1  // 24-bit multiplies for addresses, fast on 2008 hardware
#endif

// ---- fixed by the algorithm (not genes) ------------------------------------------------------
#define RADIUS 5                 // the SSD window is (2*RADIUS+1) squared
#define STEREO_MAXD 50           // largest disparity tried
#define STEREO_MAX_SSD 200000    // a best SSD at or above this is "no match": disparity -1

#if USE_MUL24
#define IMUL(a, b) __mul24(a, b)
#else
#define IMUL(a, b) ((a) * (b))
#endif

// Width of the stripe of output columns one block writes, and of the column sums it needs.
#if XHALO
#define TILE_W (BLOCK_W - 2 * RADIUS)
#else
#define TILE_W BLOCK_W
#endif
#define COLS (TILE_W + 2 * RADIUS)
#if BLOCK_W <= 2 * RADIUS
#error "BLOCK_W must be larger than 2*RADIUS: the first 2*RADIUS threads (or, with XHALO, the halo threads) cover the halo columns"
#endif

// Where the per-row best disparity and SSD are kept (0 global, 1 shared, 2 local); i is the row
// within the thread's rows. The #if tests use the numbers themselves, not named constants, so the
// grammar does not mistake the names for on/off genes.
#if STORE_DISPARITY_PIXEL == 0  // global
#define DISPARITY_PIXEL(i) disparity[IMUL(Y + (i), width) + X]
#elif STORE_DISPARITY_PIXEL == 1  // shared
#define DISPARITY_PIXEL(i) disparity_pixel[i][tid]
#else
#define DISPARITY_PIXEL(i) disparity_pixel[i]
#endif
#if STORE_MIN_SSD == 0  // global
#define MIN_SSD(i) min_ssd[IMUL(Y + (i), width) + X]
#elif STORE_MIN_SSD == 1  // shared
#define MIN_SSD(i) disparity_min_ssd[i][tid]
#else
#define MIN_SSD(i) disparity_min_ssd[i]
#endif

// Squared difference between left pixel (x, y) and right pixel (x - d, y), coordinates clamped to
// the image as the original's clamp-mode textures did.
__device__ int squared_difference(const unsigned char* left, const unsigned char* right, int x, int y,
                                  int d, int width, int height)
{
    int xl = min(max(x, 0), width - 1);
    int xr = min(max(x - d, 0), width - 1);
    int yc = min(max(y, 0), height - 1);
    int row = IMUL(yc, width);
    int diff = (int)left[row + xl] - (int)right[row + xr];
    return IMUL(diff, diff);
}

// SSD of one column of the window: rows y-RADIUS..y+RADIUS at column x, disparity d.
__device__ int column_ssd(const unsigned char* left, const unsigned char* right, int x, int y, int d,
                          int width, int height)
{
    int sum = 0;
    for (int r = -RADIUS; r <= RADIUS; r++) {
        sum += squared_difference(left, right, x, y + r, d, width, height);
    }
    return sum;
}

__global__ void stereo_kernel(const unsigned char* left, const unsigned char* right, float* disparity,
                              int* min_ssd, int width, int height)
{
    __shared__ int col_ssd[DPER][COLS];
#if DPER > 1
    __shared__ int reduce_ssd[DPER][BLOCK_W];
#endif
#if STORE_DISPARITY_PIXEL == 1  // shared
    __shared__ OUT_TYPE disparity_pixel[ROWS_PER_THREAD][TILE_W];
#endif
#if STORE_DISPARITY_PIXEL == 2  // local
    OUT_TYPE disparity_pixel[ROWS_PER_THREAD];
#endif
#if STORE_MIN_SSD == 1  // shared
    __shared__ int disparity_min_ssd[ROWS_PER_THREAD][TILE_W];
#endif
#if STORE_MIN_SSD == 2  // local
    int disparity_min_ssd[ROWS_PER_THREAD];
#endif
    const int tid = threadIdx.x;
    const int lane = threadIdx.y;
    const int X0 = IMUL(blockIdx.x, TILE_W);
    const int X = X0 + tid;
    const int Y = IMUL(blockIdx.y, ROWS_PER_THREAD);
    const int col_x = X - RADIUS;
    const bool writer = lane == 0 && tid < TILE_W;
#if !XHALO
    const int extra_col = BLOCK_W + tid;
    const int extra_x = X0 + extra_col - RADIUS;
#endif
    int i;
    int j;
    int d0;
    int d;
    int ssd;
    int best_d;
#if DPER > 1
    int k;
#endif

    // Nothing found yet for any of this thread's rows.
    if (writer) {
        for (i = 0; i < ROWS_PER_THREAD; i++) {
            if (X < width && Y + i < height) {
                DISPARITY_PIXEL(i) = -1;
                MIN_SSD(i) = STEREO_MAX_SSD;
            }
        }
    }

    for (d0 = 0; d0 <= STEREO_MAXD; d0 += DPER) {
        d = d0 + lane;
        // Column sums of the first row's window.
        if (d <= STEREO_MAXD) {
            col_ssd[lane][tid] = column_ssd(left, right, col_x, Y, d, width, height);
#if !XHALO
            if (tid < 2 * RADIUS) {
                col_ssd[lane][extra_col] = column_ssd(left, right, extra_x, Y, d, width, height);
            }
#endif
        }
        __syncthreads();

        for (i = 0; i < ROWS_PER_THREAD && Y + i < height; i++) {
            if (i > 0) {
                // Roll the window one row down: add the new bottom row, drop the old top row.
                if (d <= STEREO_MAXD) {
                    col_ssd[lane][tid] += squared_difference(left, right, col_x, Y + i + RADIUS, d, width, height);
                    col_ssd[lane][tid] -= squared_difference(left, right, col_x, Y + i - RADIUS - 1, d, width, height);
#if !XHALO
                    if (tid < 2 * RADIUS) {
                        col_ssd[lane][extra_col] += squared_difference(left, right, extra_x, Y + i + RADIUS, d, width, height);
                        col_ssd[lane][extra_col] -= squared_difference(left, right, extra_x, Y + i - RADIUS - 1, d, width, height);
                    }
#endif
                }
                __syncthreads();
            }

            ssd = 0x7fffffff;
            best_d = d;
            if (d <= STEREO_MAXD && tid < TILE_W) {
                ssd = 0;
                for (j = 0; j <= 2 * RADIUS; j++) {
                    ssd += col_ssd[lane][tid + j];
                }
            }
#if DPER > 1
            // Lane 0 keeps the smallest of the DPER sums; lower lanes win ties, as the
            // one-disparity-at-a-time loop would.
            reduce_ssd[lane][tid] = ssd;
            __syncthreads();
            if (lane == 0) {
                for (k = 1; k < DPER; k++) {
                    if (reduce_ssd[k][tid] < ssd) {
                        ssd = reduce_ssd[k][tid];
                        best_d = d0 + k;
                    }
                }
            }
#endif
            if (writer) {
                if (X < width && Y + i < height) {
                    if (ssd < MIN_SSD(i)) {
                        MIN_SSD(i) = ssd;
                        DISPARITY_PIXEL(i) = best_d;
                    }
                }
            }
            __syncthreads();
        }
    }

#if STORE_DISPARITY_PIXEL != 0 || STORE_MIN_SSD != 0  // kept on chip
    // The results kept on chip go out to the caller's arrays.
    if (writer && X < width) {
        for (i = 0; i < ROWS_PER_THREAD && Y + i < height; i++) {
#if STORE_DISPARITY_PIXEL != 0  // kept on chip
            disparity[IMUL(Y + i, width) + X] = (float)DISPARITY_PIXEL(i);
#endif
#if STORE_MIN_SSD != 0  // kept on chip
            min_ssd[IMUL(Y + i, width) + X] = MIN_SSD(i);
#endif
        }
    }
#endif
}

#ifndef __CUDACC_RTC__
// Launch geometry as a function of the macros above, so a variant compiled with other values
// launches correctly. The registration (registration.txt) states the same expressions.
dim3 stereo_block()
{
    return dim3(BLOCK_W, DPER);
}

dim3 stereo_grid(int width, int height)
{
    return dim3((width + TILE_W - 1) / TILE_W, (height + ROWS_PER_THREAD - 1) / ROWS_PER_THREAD);
}
#endif
