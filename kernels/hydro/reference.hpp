#pragma once
// CPU side of the hydrodynamics example: the same finite-volume scheme as hydro.cu (minbee
// reconstruction of primitives, HLLC fluxes, two-stage step), initial conditions including the
// seed's convergence tests (003 section 4.1: entropy wave, sound wave, Sod shock tube) and their
// analytic solutions, and a few seeded flows for benchmarking. Templated on the floating type:
// float to compare with the kernel, double for the convergence tests.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gi::hydro {

// Conserved variables on an nx x ny grid over the unit square: four planes (density, x momentum,
// y momentum, total energy), x fastest, as hydro.cu stores them.
template <class Real>
struct State {
    int nx = 0;
    int ny = 0;
    std::vector<Real> u;
    Real& at(int plane, int i, int j) { return u[(static_cast<std::size_t>(plane) * ny + j) * nx + i]; }
    Real at(int plane, int i, int j) const { return u[(static_cast<std::size_t>(plane) * ny + j) * nx + i]; }
};

struct Boundaries {
    bool periodic_x = true;
    bool periodic_y = true;  // false: outflow (zero gradient)
};

struct Primitive {
    double rho = 1, vx = 0, vy = 0, p = 1;
};

enum class Problem {
    EntropyWaveX,      // rho = 2 + sin 2pi(x - t), v = (1, 0), p = 1 (periodic)
    EntropyWaveY,      // the same along y
    SoundWaveX,        // linear sound wave, amplitude 1e-5, speed 1 (periodic)
    SodX,              // Sod's shock tube, membrane at x = 0.5 (outflow in x)
    SodY,              // the same along y
    KelvinHelmholtz,   // shear layers with a seeded perturbation (periodic)
    Blasts,            // seeded hot spots in a uniform gas (periodic)
};

struct ProblemSetup {
    Problem problem = Problem::EntropyWaveX;
    double gamma = 1.4;
    double end_time = 1.0;  // the seed's: 1 for the waves, 0.125 for the shock tube
    Boundaries boundaries;
};

ProblemSetup setup_for(Problem problem);
std::string to_string(Problem problem);

// Primitive variables of the problem at point (x, y), time t: the analytic solution for the test
// problems; for KelvinHelmholtz and Blasts only t = 0 is defined (others throw gi::Error).
Primitive exact_solution(Problem problem, double x, double y, double t, double gamma, std::uint64_t seed = 1);

// The initial state, sampled at cell centres. Throws gi::Error for nx or ny outside 1..65536.
template <class Real>
State<Real> initial_state(Problem problem, int nx, int ny, std::uint64_t seed = 1);

// One stage: out = base + dt_dx (F(i-1/2) - F(i+1/2)) + dt_dy (G(j-1/2) - G(j+1/2)), fluxes of `in`.
template <class Real>
void stage(const State<Real>& in, const State<Real>& base, State<Real>& out, Real dt_dx, Real dt_dy, Real gamma,
           Boundaries boundaries);

// The largest stable step for CFL number `cfl` (max over cells of |v_a| + c, per axis).
template <class Real>
double cfl_time_step(const State<Real>& s, double gamma, double cfl);

// Two-stage step of size dt: u1 = stage(u, u, dt/2), u = stage(u1, u, dt).
template <class Real>
void step(State<Real>& s, double dt, double gamma, Boundaries boundaries);

// Advances to `end_time` with CFL-limited steps (the last one shortened to land on it).
template <class Real>
void evolve(State<Real>& s, double end_time, double gamma, Boundaries boundaries, double cfl = 0.4);

// L1 norm of the density error against the analytic solution at cell centres, per unit area.
double density_l1_error(const State<double>& s, Problem problem, double t, double gamma);

// Exact solution of a 1D Riemann problem (Toro ch. 4) sampled at x/t = speed: left and right
// states (rho, u, p) -> (rho, u, p). Throws gi::Error when the states create a vacuum.
std::array<double, 3> exact_riemann(std::array<double, 3> left, std::array<double, 3> right, double gamma,
                                    double speed);

}  // namespace gi::hydro
