// One stage of an explicit 2D compressible Euler solver in the style of Paraiso's hydrodynamics
// example (seed 003, sections 3.1 and 4.1): second-order finite volumes, piecewise-linear
// reconstruction of the primitive variables with the minbee limiter, the HLLC approximate Riemann
// solver at every cell face, and u_out = u_base + dt * (flux divergence of u_in). Two launches make
// the seed's two-stage step: u1 = stage(u0, u0, dt/2), u2 = stage(u1, u0, dt).
//
// Paraiso tuned three kinds of choice, here genes: whether the interpolated face states and the
// Riemann fluxes are stored (Manifest, in shared memory for the block's tile) or recomputed where
// needed (Delayed: every face state and flux is computed by each cell that uses it, straight from
// global memory); where extra __syncthreads() sit; and the launch configuration (the tile size).
// The default is the all-Delayed implementation (Paraiso's "Izanami").
//
// State layout: four planes of nx*ny values (density, x momentum, y momentum, total energy), x
// fastest. Boundaries per axis: periodic, or outflow (zero gradient: indices clamped).
// The file is self-contained (no #include) so NVRTC can compile variants of it.

// ---- tunable parameters ----------------------------------------------------------------------
#ifndef BLOCK_X
#define BLOCK_X 16  // tile width: threads (and cells) per block along x
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 8  // tile height
#endif
#ifndef MANIFEST_INTERP
#define MANIFEST_INTERP 0  // 1: interpolated face states computed once per tile into shared memory
#endif
#ifndef MANIFEST_FLUX
#define MANIFEST_FLUX 0  // 1: Riemann fluxes computed once per face into shared memory
#endif
#ifndef SYNC_LOAD
#define SYNC_LOAD 0  // 1: a barrier before each thread reads its cell's u_base
#endif
#ifndef SYNC_STORE
#define SYNC_STORE 0  // 1: a barrier before the results are stored
#endif

#define THREADS (BLOCK_X * BLOCK_Y)
// Shared tiles, as planes of four values (density, vx, vy, p or the four flux components):
#define XS_W (BLOCK_X + 2)             // x face states: cells -1..BLOCK_X of each row
#define XS_N (BLOCK_Y * XS_W)
#define YS_N ((BLOCK_Y + 2) * BLOCK_X)  // y face states: rows -1..BLOCK_Y
#define FX_W (BLOCK_X + 1)             // x faces: 0..BLOCK_X of each row
#define FX_N (BLOCK_Y * FX_W)
#define FY_N ((BLOCK_Y + 1) * BLOCK_X)  // y faces

typedef float Real;

struct Prim {
    Real rho;
    Real vx;
    Real vy;
    Real p;
};

struct Flux {
    Real rho;
    Real mx;
    Real my;
    Real e;
};

// Index k along an axis of n cells, for the stencil's reach past the edges.
__device__ int boundary_index(int k, int n, int periodic)
{
    if (periodic) {
        k = k % n;
        return k < 0 ? k + n : k;
    }
    return min(max(k, 0), n - 1);
}

__device__ Prim load_primitive(const Real* u, int i, int j, int nx, int ny, int periodic_x, int periodic_y,
                               Real gamma)
{
    int n = nx * ny;
    int c = boundary_index(j, ny, periodic_y) * nx + boundary_index(i, nx, periodic_x);
    Real rho = u[c];
    Real mx = u[n + c];
    Real my = u[2 * n + c];
    Real e = u[3 * n + c];
    Prim v;
    v.rho = rho;
    v.vx = mx / rho;
    v.vy = my / rho;
    v.p = (gamma - 1.0f) * (e - 0.5f * (mx * v.vx + my * v.vy));
    return v;
}

// Minbee (minmod) limited slope of the middle of three values.
__device__ Real minbee_slope(Real left, Real centre, Real right)
{
    Real d01 = centre - left;
    Real d12 = right - centre;
    if (d01 * d12 <= 0.0f) {
        return 0.0f;
    }
    return fabsf(d01) < fabsf(d12) ? d01 : d12;
}

// States at the low and high faces of cell b, from its neighbours a and c along one axis.
__device__ void interpolate(const Prim& a, const Prim& b, const Prim& c, Prim& lo, Prim& hi)
{
    Real d;
    d = minbee_slope(a.rho, b.rho, c.rho);
    lo.rho = b.rho - 0.5f * d;
    hi.rho = b.rho + 0.5f * d;
    d = minbee_slope(a.vx, b.vx, c.vx);
    lo.vx = b.vx - 0.5f * d;
    hi.vx = b.vx + 0.5f * d;
    d = minbee_slope(a.vy, b.vy, c.vy);
    lo.vy = b.vy - 0.5f * d;
    hi.vy = b.vy + 0.5f * d;
    d = minbee_slope(a.p, b.p, c.p);
    lo.p = b.p - 0.5f * d;
    hi.p = b.p + 0.5f * d;
}

// HLLC flux through a face normal to x, between left state l and right state r (Toro, ch. 10,
// with Davis's wave-speed estimates). For a y face the caller swaps vx and vy going in and
// mx and my coming out.
__device__ Flux hllc_flux(const Prim& l, const Prim& r, Real gamma)
{
    Real cl = sqrtf(gamma * l.p / l.rho);
    Real cr = sqrtf(gamma * r.p / r.rho);
    Real sl = fminf(l.vx - cl, r.vx - cr);
    Real sr = fmaxf(l.vx + cl, r.vx + cr);
    Real el = l.p / (gamma - 1.0f) + 0.5f * l.rho * (l.vx * l.vx + l.vy * l.vy);
    Real er = r.p / (gamma - 1.0f) + 0.5f * r.rho * (r.vx * r.vx + r.vy * r.vy);
    Real ml = l.rho * (sl - l.vx);
    Real mr = r.rho * (sr - r.vx);
    Real sm = (r.p - l.p + l.rho * l.vx * (sl - l.vx) - r.rho * r.vx * (sr - r.vx)) / (ml - mr);
    Flux f;
    if (sl >= 0.0f) {
        f.rho = l.rho * l.vx;
        f.mx = l.rho * l.vx * l.vx + l.p;
        f.my = l.rho * l.vx * l.vy;
        f.e = l.vx * (el + l.p);
    } else if (sr <= 0.0f) {
        f.rho = r.rho * r.vx;
        f.mx = r.rho * r.vx * r.vx + r.p;
        f.my = r.rho * r.vx * r.vy;
        f.e = r.vx * (er + r.p);
    } else if (sm >= 0.0f) {
        // F*L = FL + SL (U*L - UL)
        Real scale = ml / (sl - sm);
        f.rho = l.rho * l.vx + sl * (scale - l.rho);
        f.mx = l.rho * l.vx * l.vx + l.p + sl * (scale * sm - l.rho * l.vx);
        f.my = l.rho * l.vx * l.vy + sl * (scale * l.vy - l.rho * l.vy);
        f.e = l.vx * (el + l.p) + sl * (scale * (el / l.rho + (sm - l.vx) * (sm + l.p / ml)) - el);
    } else {
        Real scale = mr / (sr - sm);
        f.rho = r.rho * r.vx + sr * (scale - r.rho);
        f.mx = r.rho * r.vx * r.vx + r.p + sr * (scale * sm - r.rho * r.vx);
        f.my = r.rho * r.vx * r.vy + sr * (scale * r.vy - r.rho * r.vy);
        f.e = r.vx * (er + r.p) + sr * (scale * (er / r.rho + (sm - r.vx) * (sm + r.p / mr)) - er);
    }
    return f;
}

__device__ void put_state(Real* dst, int plane, int index, const Prim& v)
{
    dst[index] = v.rho;
    dst[plane + index] = v.vx;
    dst[2 * plane + index] = v.vy;
    dst[3 * plane + index] = v.p;
}

__device__ Prim get_state(const Real* src, int plane, int index)
{
    Prim v;
    v.rho = src[index];
    v.vx = src[plane + index];
    v.vy = src[2 * plane + index];
    v.p = src[3 * plane + index];
    return v;
}

__device__ void put_flux(Real* dst, int plane, int index, const Flux& f)
{
    dst[index] = f.rho;
    dst[plane + index] = f.mx;
    dst[2 * plane + index] = f.my;
    dst[3 * plane + index] = f.e;
}

__device__ Flux get_flux(const Real* src, int plane, int index)
{
    Flux f;
    f.rho = src[index];
    f.mx = src[plane + index];
    f.my = src[2 * plane + index];
    f.e = src[3 * plane + index];
    return f;
}

// Flux through the x face at tile position (face, row): between the tile's cells face-1 and face of
// that row; the tile's first cell is global (i0, j0). Face states from the shared tiles (Manifest)
// or interpolated here from four cells of u (Delayed).
__device__ Flux x_face_flux(const Real* u, const Real* x_lo, const Real* x_hi, int face, int row, int i0, int j0,
                            int nx, int ny, int periodic_x, int periodic_y, Real gamma)
{
    Prim left;
    Prim right;
#if MANIFEST_INTERP
    left = get_state(x_hi, XS_N, row * XS_W + face);
    right = get_state(x_lo, XS_N, row * XS_W + face + 1);
#else
    Prim p0 = load_primitive(u, i0 + face - 2, j0 + row, nx, ny, periodic_x, periodic_y, gamma);
    Prim p1 = load_primitive(u, i0 + face - 1, j0 + row, nx, ny, periodic_x, periodic_y, gamma);
    Prim p2 = load_primitive(u, i0 + face, j0 + row, nx, ny, periodic_x, periodic_y, gamma);
    Prim p3 = load_primitive(u, i0 + face + 1, j0 + row, nx, ny, periodic_x, periodic_y, gamma);
    Prim unused;
    interpolate(p0, p1, p2, unused, left);
    interpolate(p1, p2, p3, right, unused);
#endif
    return hllc_flux(left, right, gamma);
}

// Flux through the y face at tile position (face, row): between the tile's cells (face, row-1) and
// (face, row).
__device__ Flux y_face_flux(const Real* u, const Real* y_lo, const Real* y_hi, int face, int row, int i0, int j0,
                            int nx, int ny, int periodic_x, int periodic_y, Real gamma)
{
    Prim below;
    Prim above;
#if MANIFEST_INTERP
    below = get_state(y_hi, YS_N, row * BLOCK_X + face);
    above = get_state(y_lo, YS_N, (row + 1) * BLOCK_X + face);
#else
    Prim p0 = load_primitive(u, i0 + face, j0 + row - 2, nx, ny, periodic_x, periodic_y, gamma);
    Prim p1 = load_primitive(u, i0 + face, j0 + row - 1, nx, ny, periodic_x, periodic_y, gamma);
    Prim p2 = load_primitive(u, i0 + face, j0 + row, nx, ny, periodic_x, periodic_y, gamma);
    Prim p3 = load_primitive(u, i0 + face, j0 + row + 1, nx, ny, periodic_x, periodic_y, gamma);
    Prim unused;
    interpolate(p0, p1, p2, unused, below);
    interpolate(p1, p2, p3, above, unused);
#endif
    // The solver works normal to x: swap the velocity components in and the momenta out.
    Real t = below.vx;
    below.vx = below.vy;
    below.vy = t;
    t = above.vx;
    above.vx = above.vy;
    above.vy = t;
    Flux g = hllc_flux(below, above, gamma);
    Flux h;
    h.rho = g.rho;
    h.mx = g.my;
    h.my = g.mx;
    h.e = g.e;
    return h;
}

// u_out = u_base + dt_dx * (x flux in - x flux out) + dt_dy * (y flux in - y flux out), fluxes
// computed from u_in. u_in and u_base may be the same array; u_out must differ from both.
__global__ void hydro_stage(const Real* u_in, const Real* u_base, Real* u_out, int nx, int ny, Real dt_dx,
                            Real dt_dy, Real gamma, int periodic_x, int periodic_y)
{
#if MANIFEST_INTERP
    __shared__ Real x_lo[4 * XS_N];
    __shared__ Real x_hi[4 * XS_N];
    __shared__ Real y_lo[4 * YS_N];
    __shared__ Real y_hi[4 * YS_N];
#else
    const Real* x_lo = 0;
    const Real* x_hi = 0;
    const Real* y_lo = 0;
    const Real* y_hi = 0;
#endif
#if MANIFEST_FLUX
    __shared__ Real flux_x[4 * FX_N];
    __shared__ Real flux_y[4 * FY_N];
#endif
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * BLOCK_X + tx;
    const int i0 = blockIdx.x * BLOCK_X;
    const int j0 = blockIdx.y * BLOCK_Y;
    const int i = i0 + tx;
    const int j = j0 + ty;
    const int n = nx * ny;
    const bool inside = i < nx && j < ny;
    int k;
    int fi;
    int fj;
    int c;
    Prim a;
    Prim b;
    Prim m;
    Prim lo;
    Prim hi;
    Flux flux;
    Flux f_xlo;
    Flux f_xhi;
    Flux f_ylo;
    Flux f_yhi;
    Real base_rho;
    Real base_mx;
    Real base_my;
    Real base_e;

#if MANIFEST_INTERP
    // Face states of every cell the tile's faces need, once each.
    for (k = tid; k < XS_N; k += THREADS) {
        fi = k % XS_W;
        fj = k / XS_W;
        a = load_primitive(u_in, i0 + fi - 2, j0 + fj, nx, ny, periodic_x, periodic_y, gamma);
        m = load_primitive(u_in, i0 + fi - 1, j0 + fj, nx, ny, periodic_x, periodic_y, gamma);
        b = load_primitive(u_in, i0 + fi, j0 + fj, nx, ny, periodic_x, periodic_y, gamma);
        interpolate(a, m, b, lo, hi);
        put_state(x_lo, XS_N, k, lo);
        put_state(x_hi, XS_N, k, hi);
    }
    for (k = tid; k < YS_N; k += THREADS) {
        fi = k % BLOCK_X;
        fj = k / BLOCK_X;
        a = load_primitive(u_in, i0 + fi, j0 + fj - 2, nx, ny, periodic_x, periodic_y, gamma);
        m = load_primitive(u_in, i0 + fi, j0 + fj - 1, nx, ny, periodic_x, periodic_y, gamma);
        b = load_primitive(u_in, i0 + fi, j0 + fj, nx, ny, periodic_x, periodic_y, gamma);
        interpolate(a, m, b, lo, hi);
        put_state(y_lo, YS_N, k, lo);
        put_state(y_hi, YS_N, k, hi);
    }
    __syncthreads();
#endif

#if MANIFEST_FLUX
    // Every face of the tile solved once.
    for (k = tid; k < FX_N; k += THREADS) {
        fi = k % FX_W;
        fj = k / FX_W;
        flux = x_face_flux(u_in, x_lo, x_hi, fi, fj, i0, j0, nx, ny, periodic_x, periodic_y, gamma);
        put_flux(flux_x, FX_N, k, flux);
    }
    for (k = tid; k < FY_N; k += THREADS) {
        fi = k % BLOCK_X;
        fj = k / BLOCK_X;
        flux = y_face_flux(u_in, y_lo, y_hi, fi, fj, i0, j0, nx, ny, periodic_x, periodic_y, gamma);
        put_flux(flux_y, FY_N, k, flux);
    }
    __syncthreads();
    f_xlo = get_flux(flux_x, FX_N, ty * FX_W + tx);
    f_xhi = get_flux(flux_x, FX_N, ty * FX_W + tx + 1);
    f_ylo = get_flux(flux_y, FY_N, ty * BLOCK_X + tx);
    f_yhi = get_flux(flux_y, FY_N, (ty + 1) * BLOCK_X + tx);
#else
    // Each cell solves its own four faces (each face is solved by both of its cells).
    f_xlo = x_face_flux(u_in, x_lo, x_hi, tx, ty, i0, j0, nx, ny, periodic_x, periodic_y, gamma);
    f_xhi = x_face_flux(u_in, x_lo, x_hi, tx + 1, ty, i0, j0, nx, ny, periodic_x, periodic_y, gamma);
    f_ylo = y_face_flux(u_in, y_lo, y_hi, tx, ty, i0, j0, nx, ny, periodic_x, periodic_y, gamma);
    f_yhi = y_face_flux(u_in, y_lo, y_hi, tx, ty + 1, i0, j0, nx, ny, periodic_x, periodic_y, gamma);
#endif

    c = j * nx + i;
#if SYNC_LOAD
    __syncthreads();
#endif
    if (inside) {
        base_rho = u_base[c];
        base_mx = u_base[n + c];
        base_my = u_base[2 * n + c];
        base_e = u_base[3 * n + c];
    }
#if SYNC_STORE
    __syncthreads();
#endif
    if (inside) {
        u_out[c] = base_rho + dt_dx * (f_xlo.rho - f_xhi.rho) + dt_dy * (f_ylo.rho - f_yhi.rho);
        u_out[n + c] = base_mx + dt_dx * (f_xlo.mx - f_xhi.mx) + dt_dy * (f_ylo.mx - f_yhi.mx);
        u_out[2 * n + c] = base_my + dt_dx * (f_xlo.my - f_xhi.my) + dt_dy * (f_ylo.my - f_yhi.my);
        u_out[3 * n + c] = base_e + dt_dx * (f_xlo.e - f_xhi.e) + dt_dy * (f_ylo.e - f_yhi.e);
    }
}

#ifndef __CUDACC_RTC__
// Launch geometry as a function of the macros above (see registration.txt).
dim3 hydro_block()
{
    return dim3(BLOCK_X, BLOCK_Y);
}

dim3 hydro_grid(int nx, int ny)
{
    return dim3((nx + BLOCK_X - 1) / BLOCK_X, (ny + BLOCK_Y - 1) / BLOCK_Y);
}
#endif
