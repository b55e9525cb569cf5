#include "hydro/reference.hpp"

#include <algorithm>
#include <cmath>

#include "common/random.hpp"
#include "util/error.hpp"

namespace gi::hydro {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSoundAmplitude = 1e-5;

// The kernel's building blocks, in the kernel's order of operations so float results stay close.
template <class Real>
struct Prim {
    Real rho, vx, vy, p;
};

template <class Real>
struct Flux {
    Real rho, mx, my, e;
};

int boundary_index(int k, int n, bool periodic) {
    if (periodic) {
        k %= n;
        return k < 0 ? k + n : k;
    }
    return std::clamp(k, 0, n - 1);
}

template <class Real>
Prim<Real> load(const State<Real>& s, int i, int j, Real gamma, Boundaries b) {
    const int ii = boundary_index(i, s.nx, b.periodic_x), jj = boundary_index(j, s.ny, b.periodic_y);
    const Real rho = s.at(0, ii, jj), mx = s.at(1, ii, jj), my = s.at(2, ii, jj), e = s.at(3, ii, jj);
    Prim<Real> v;
    v.rho = rho;
    v.vx = mx / rho;
    v.vy = my / rho;
    v.p = (gamma - Real(1)) * (e - Real(0.5) * (mx * v.vx + my * v.vy));
    return v;
}

template <class Real>
Real minbee_slope(Real left, Real centre, Real right) {
    const Real d01 = centre - left, d12 = right - centre;
    if (d01 * d12 <= Real(0)) return Real(0);
    return std::abs(d01) < std::abs(d12) ? d01 : d12;
}

template <class Real>
void interpolate(const Prim<Real>& a, const Prim<Real>& b, const Prim<Real>& c, Prim<Real>& lo, Prim<Real>& hi) {
    const Real half(0.5);
    Real d = minbee_slope(a.rho, b.rho, c.rho);
    lo.rho = b.rho - half * d;
    hi.rho = b.rho + half * d;
    d = minbee_slope(a.vx, b.vx, c.vx);
    lo.vx = b.vx - half * d;
    hi.vx = b.vx + half * d;
    d = minbee_slope(a.vy, b.vy, c.vy);
    lo.vy = b.vy - half * d;
    hi.vy = b.vy + half * d;
    d = minbee_slope(a.p, b.p, c.p);
    lo.p = b.p - half * d;
    hi.p = b.p + half * d;
}

// HLLC (Toro ch. 10) with Davis's wave speeds, normal to x.
template <class Real>
Flux<Real> hllc_flux(const Prim<Real>& l, const Prim<Real>& r, Real gamma) {
    const Real half(0.5), one(1), zero(0);
    const Real cl = std::sqrt(gamma * l.p / l.rho), cr = std::sqrt(gamma * r.p / r.rho);
    const Real sl = std::min(l.vx - cl, r.vx - cr), sr = std::max(l.vx + cl, r.vx + cr);
    const Real el = l.p / (gamma - one) + half * l.rho * (l.vx * l.vx + l.vy * l.vy);
    const Real er = r.p / (gamma - one) + half * r.rho * (r.vx * r.vx + r.vy * r.vy);
    const Real ml = l.rho * (sl - l.vx), mr = r.rho * (sr - r.vx);
    const Real sm = (r.p - l.p + l.rho * l.vx * (sl - l.vx) - r.rho * r.vx * (sr - r.vx)) / (ml - mr);
    Flux<Real> f;
    const auto physical = [](const Prim<Real>& s, Real e) {
        return Flux<Real>{s.rho * s.vx, s.rho * s.vx * s.vx + s.p, s.rho * s.vx * s.vy, s.vx * (e + s.p)};
    };
    if (sl >= zero) return physical(l, el);
    if (sr <= zero) return physical(r, er);
    const bool left_star = sm >= zero;
    const Prim<Real>& s = left_star ? l : r;
    const Real e = left_star ? el : er, speed = left_star ? sl : sr, m = left_star ? ml : mr;
    const Real scale = m / (speed - sm);
    const Flux<Real> base = physical(s, e);
    f.rho = base.rho + speed * (scale - s.rho);
    f.mx = base.mx + speed * (scale * sm - s.rho * s.vx);
    f.my = base.my + speed * (scale * s.vy - s.rho * s.vy);
    f.e = base.e + speed * (scale * (e / s.rho + (sm - s.vx) * (sm + s.p / m)) - e);
    return f;
}

template <class Real>
Flux<Real> x_face(const State<Real>& s, int i, int j, Real gamma, Boundaries b) {
    const Prim<Real> p0 = load(s, i - 2, j, gamma, b), p1 = load(s, i - 1, j, gamma, b), p2 = load(s, i, j, gamma, b),
                     p3 = load(s, i + 1, j, gamma, b);
    Prim<Real> unused, left, right;
    interpolate(p0, p1, p2, unused, left);
    interpolate(p1, p2, p3, right, unused);
    return hllc_flux(left, right, gamma);
}

template <class Real>
Flux<Real> y_face(const State<Real>& s, int i, int j, Real gamma, Boundaries b) {
    const Prim<Real> p0 = load(s, i, j - 2, gamma, b), p1 = load(s, i, j - 1, gamma, b), p2 = load(s, i, j, gamma, b),
                     p3 = load(s, i, j + 1, gamma, b);
    Prim<Real> unused, below, above;
    interpolate(p0, p1, p2, unused, below);
    interpolate(p1, p2, p3, above, unused);
    std::swap(below.vx, below.vy);
    std::swap(above.vx, above.vy);
    const Flux<Real> g = hllc_flux(below, above, gamma);
    return {g.rho, g.my, g.mx, g.e};
}

void require_grid(int nx, int ny) {
    if (nx < 1 || ny < 1 || nx > 65536 || ny > 65536) {
        throw Error("hydro: grid " + std::to_string(nx) + "x" + std::to_string(ny) +
                    " is outside 1..65536 cells per side; choose a size in that range");
    }
}

// Seeded parameters of the benchmark flows.
struct FlowSeed {
    double phase[4], amplitude[4];
    double blast_x[6], blast_y[6], blast_r[6];
    explicit FlowSeed(std::uint64_t seed) {
        kernels::SplitMix64 rng(seed);
        for (int k = 0; k < 4; ++k) {
            phase[k] = rng.uniform(0, 2 * kPi);
            amplitude[k] = rng.uniform(0.002, 0.01);
        }
        for (int k = 0; k < 6; ++k) {
            blast_x[k] = rng.uniform(0.1, 0.9);
            blast_y[k] = rng.uniform(0.1, 0.9);
            blast_r[k] = rng.uniform(0.03, 0.08);
        }
    }
};

std::array<double, 3> sod(double position, double t, double gamma) {
    const std::array<double, 3> left{1.0, 0.0, 1.0}, right{0.125, 0.0, 0.1};
    if (t <= 0) return position < 0.5 ? left : right;
    return exact_riemann(left, right, gamma, (position - 0.5) / t);
}

}  // namespace

ProblemSetup setup_for(Problem problem) {
    ProblemSetup s;
    s.problem = problem;
    switch (problem) {
    case Problem::SodX:
        s.end_time = 0.125;
        s.boundaries = {false, true};
        break;
    case Problem::SodY:
        s.end_time = 0.125;
        s.boundaries = {true, false};
        break;
    case Problem::KelvinHelmholtz: s.end_time = 0.5; break;
    case Problem::Blasts: s.end_time = 0.05; break;
    default: break;
    }
    return s;
}

std::string to_string(Problem problem) {
    switch (problem) {
    case Problem::EntropyWaveX: return "entropy-wave-x";
    case Problem::EntropyWaveY: return "entropy-wave-y";
    case Problem::SoundWaveX: return "sound-wave-x";
    case Problem::SodX: return "sod-x";
    case Problem::SodY: return "sod-y";
    case Problem::KelvinHelmholtz: return "kelvin-helmholtz";
    case Problem::Blasts: return "blasts";
    }
    return "unknown";
}

Primitive exact_solution(Problem problem, double x, double y, double t, double gamma, std::uint64_t seed) {
    switch (problem) {
    case Problem::EntropyWaveX: return {2 + std::sin(2 * kPi * (x - t)), 1, 0, 1};
    case Problem::EntropyWaveY: return {2 + std::sin(2 * kPi * (y - t)), 0, 1, 1};
    case Problem::SoundWaveX: {
        // Linear: density gamma, pressure 1, so the sound speed is 1.
        const double s = kSoundAmplitude * std::sin(2 * kPi * (x - t));
        return {gamma * (1 + s), s, 0, 1 + gamma * s};
    }
    case Problem::SodX: {
        const auto w = sod(x, t, gamma);
        return {w[0], w[1], 0, w[2]};
    }
    case Problem::SodY: {
        const auto w = sod(y, t, gamma);
        return {w[0], 0, w[1], w[2]};
    }
    case Problem::KelvinHelmholtz:
    case Problem::Blasts: break;
    }
    if (t != 0) {
        throw Error("hydro: " + to_string(problem) + " has no analytic solution after t = 0 (asked for t = " +
                    std::to_string(t) + ")");
    }
    const FlowSeed f(seed);
    if (problem == Problem::KelvinHelmholtz) {
        const bool band = std::abs(y - 0.5) < 0.25;
        double vy = 0;
        for (int k = 0; k < 4; ++k) vy += f.amplitude[k] * std::sin(2 * kPi * (k + 1) * x + f.phase[k]);
        return {band ? 2.0 : 1.0, band ? 0.5 : -0.5, vy, 2.5};
    }
    Primitive w{1, 0, 0, 0.1};
    for (int k = 0; k < 6; ++k) {
        const double dx = x - f.blast_x[k], dy = y - f.blast_y[k];
        if (dx * dx + dy * dy < f.blast_r[k] * f.blast_r[k]) w.p = 10;
    }
    return w;
}

template <class Real>
State<Real> initial_state(Problem problem, int nx, int ny, std::uint64_t seed) {
    require_grid(nx, ny);
    const double gamma = setup_for(problem).gamma;
    State<Real> s{nx, ny, std::vector<Real>(static_cast<std::size_t>(4) * nx * ny)};
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const Primitive w = exact_solution(problem, (i + 0.5) / nx, (j + 0.5) / ny, 0, gamma, seed);
            s.at(0, i, j) = static_cast<Real>(w.rho);
            s.at(1, i, j) = static_cast<Real>(w.rho * w.vx);
            s.at(2, i, j) = static_cast<Real>(w.rho * w.vy);
            s.at(3, i, j) = static_cast<Real>(w.p / (gamma - 1) + 0.5 * w.rho * (w.vx * w.vx + w.vy * w.vy));
        }
    }
    return s;
}

template <class Real>
void stage(const State<Real>& in, const State<Real>& base, State<Real>& out, Real dt_dx, Real dt_dy, Real gamma,
           Boundaries boundaries) {
    const int nx = in.nx, ny = in.ny;
    if (base.nx != nx || base.ny != ny || out.nx != nx || out.ny != ny ||
        in.u.size() != static_cast<std::size_t>(4) * nx * ny || base.u.size() != in.u.size() ||
        out.u.size() != in.u.size()) {
        throw Error("hydro::stage: the input, base and output states differ in size; pass states of one grid");
    }
    // Every face once: x faces i = 0..nx (face i between cells i-1 and i), y faces likewise.
    std::vector<Flux<Real>> fx(static_cast<std::size_t>(nx + 1) * ny), fy(static_cast<std::size_t>(nx) * (ny + 1));
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i <= nx; ++i) fx[static_cast<std::size_t>(j) * (nx + 1) + i] = x_face(in, i, j, gamma, boundaries);
    for (int j = 0; j <= ny; ++j)
        for (int i = 0; i < nx; ++i) fy[static_cast<std::size_t>(j) * nx + i] = y_face(in, i, j, gamma, boundaries);
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const Flux<Real>& xl = fx[static_cast<std::size_t>(j) * (nx + 1) + i];
            const Flux<Real>& xh = fx[static_cast<std::size_t>(j) * (nx + 1) + i + 1];
            const Flux<Real>& yl = fy[static_cast<std::size_t>(j) * nx + i];
            const Flux<Real>& yh = fy[static_cast<std::size_t>(j + 1) * nx + i];
            out.at(0, i, j) = base.at(0, i, j) + dt_dx * (xl.rho - xh.rho) + dt_dy * (yl.rho - yh.rho);
            out.at(1, i, j) = base.at(1, i, j) + dt_dx * (xl.mx - xh.mx) + dt_dy * (yl.mx - yh.mx);
            out.at(2, i, j) = base.at(2, i, j) + dt_dx * (xl.my - xh.my) + dt_dy * (yl.my - yh.my);
            out.at(3, i, j) = base.at(3, i, j) + dt_dx * (xl.e - xh.e) + dt_dy * (yl.e - yh.e);
        }
    }
}

template <class Real>
double cfl_time_step(const State<Real>& s, double gamma, double cfl) {
    double rate = 0;  // max over cells of (|vx| + c) / dx + (|vy| + c) / dy
    for (int j = 0; j < s.ny; ++j) {
        for (int i = 0; i < s.nx; ++i) {
            const double rho = s.at(0, i, j), vx = s.at(1, i, j) / rho, vy = s.at(2, i, j) / rho;
            const double p = (gamma - 1) * (s.at(3, i, j) - 0.5 * rho * (vx * vx + vy * vy));
            const double c = std::sqrt(gamma * p / rho);
            if (!(c >= 0) || !std::isfinite(c)) {
                throw Error("hydro: cell (" + std::to_string(i) + "," + std::to_string(j) +
                            ") has no valid sound speed (density " + std::to_string(rho) + ", pressure " +
                            std::to_string(p) + "); the state has broken down");
            }
            rate = std::max(rate, (std::abs(vx) + c) * s.nx + (std::abs(vy) + c) * s.ny);
        }
    }
    return cfl / rate;
}

template <class Real>
void step(State<Real>& s, double dt, double gamma, Boundaries boundaries) {
    State<Real> half = s;
    const Real g = static_cast<Real>(gamma);
    stage(s, s, half, static_cast<Real>(0.5 * dt * s.nx), static_cast<Real>(0.5 * dt * s.ny), g, boundaries);
    State<Real> next = s;
    stage(half, s, next, static_cast<Real>(dt * s.nx), static_cast<Real>(dt * s.ny), g, boundaries);
    s = std::move(next);
}

template <class Real>
void evolve(State<Real>& s, double end_time, double gamma, Boundaries boundaries, double cfl) {
    double t = 0;
    while (t < end_time) {
        double dt = cfl_time_step(s, gamma, cfl);
        if (t + dt > end_time) dt = end_time - t;
        step(s, dt, gamma, boundaries);
        t += dt;
    }
}

double density_l1_error(const State<double>& s, Problem problem, double t, double gamma) {
    double sum = 0;
    for (int j = 0; j < s.ny; ++j)
        for (int i = 0; i < s.nx; ++i)
            sum += std::abs(s.at(0, i, j) - exact_solution(problem, (i + 0.5) / s.nx, (j + 0.5) / s.ny, t, gamma).rho);
    return sum / (static_cast<double>(s.nx) * s.ny);
}

std::array<double, 3> exact_riemann(std::array<double, 3> left, std::array<double, 3> right, double gamma,
                                    double speed) {
    const double rl = left[0], ul = left[1], pl = left[2], rr = right[0], ur = right[1], pr = right[2];
    const double cl = std::sqrt(gamma * pl / rl), cr = std::sqrt(gamma * pr / rr);
    const double g1 = (gamma - 1) / (2 * gamma), g2 = (gamma + 1) / (2 * gamma), g3 = 2 * gamma / (gamma - 1),
                 g4 = 2 / (gamma - 1), g5 = 2 / (gamma + 1), g6 = (gamma - 1) / (gamma + 1);
    if (g4 * (cl + cr) <= ur - ul) {
        throw Error("hydro::exact_riemann: the states generate a vacuum; this solver does not handle it");
    }
    // f_K(p) and its derivative: shock (p > p_K) or rarefaction branch.
    const auto f = [&](double p, double rk, double pk, double ck, double& derivative) {
        if (p > pk) {
            const double a = g5 / rk, b = g6 * pk, q = std::sqrt(a / (b + p));
            derivative = q * (1 - 0.5 * (p - pk) / (b + p));
            return (p - pk) * q;
        }
        const double ratio = p / pk;
        derivative = std::pow(ratio, -g2) / (rk * ck);
        return g4 * ck * (std::pow(ratio, g1) - 1);
    };
    double p = std::max(1e-10, 0.5 * (pl + pr));
    for (int iteration = 0; iteration < 100; ++iteration) {
        double dl = 0, dr = 0;
        const double value = f(p, rl, pl, cl, dl) + f(p, rr, pr, cr, dr) + (ur - ul);
        const double next = std::max(1e-10, p - value / (dl + dr));
        const double change = std::abs(next - p) / (0.5 * (next + p));
        p = next;
        if (change < 1e-14) break;
    }
    double dl = 0, dr = 0;
    const double u = 0.5 * (ul + ur) + 0.5 * (f(p, rr, pr, cr, dr) - f(p, rl, pl, cl, dl));
    if (speed <= u) {
        if (p > pl) {
            const double shock = ul - cl * std::sqrt(g2 * p / pl + g1);
            if (speed <= shock) return left;
            return {rl * (p / pl + g6) / (g6 * p / pl + 1), u, p};
        }
        const double head = ul - cl, tail = u - cl * std::pow(p / pl, g1);
        if (speed <= head) return left;
        if (speed > tail) return {rl * std::pow(p / pl, 1 / gamma), u, p};
        const double c = g5 * (cl + (gamma - 1) / 2 * (ul - speed));
        return {rl * std::pow(c / cl, g4), g5 * (cl + (gamma - 1) / 2 * ul + speed), pl * std::pow(c / cl, g3)};
    }
    if (p > pr) {
        const double shock = ur + cr * std::sqrt(g2 * p / pr + g1);
        if (speed >= shock) return right;
        return {rr * (p / pr + g6) / (g6 * p / pr + 1), u, p};
    }
    const double head = ur + cr, tail = u + cr * std::pow(p / pr, g1);
    if (speed >= head) return right;
    if (speed < tail) return {rr * std::pow(p / pr, 1 / gamma), u, p};
    const double c = g5 * (cr - (gamma - 1) / 2 * (ur - speed));
    return {rr * std::pow(c / cr, g4), g5 * (-cr + (gamma - 1) / 2 * ur + speed), pr * std::pow(c / cr, g3)};
}

#define GI_HYDRO_INSTANTIATE(Real)                                                                              \
    template State<Real> initial_state<Real>(Problem, int, int, std::uint64_t);                                \
    template void stage<Real>(const State<Real>&, const State<Real>&, State<Real>&, Real, Real, Real, Boundaries); \
    template double cfl_time_step<Real>(const State<Real>&, double, double);                                   \
    template void step<Real>(State<Real>&, double, double, Boundaries);                                        \
    template void evolve<Real>(State<Real>&, double, double, Boundaries, double);

GI_HYDRO_INSTANTIATE(float)
GI_HYDRO_INSTANTIATE(double)

}  // namespace gi::hydro
