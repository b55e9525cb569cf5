#include "bspline/reference.hpp"

#include <cmath>
#include <string>

#include "common/random.hpp"
#include "util/error.hpp"

namespace gi::bspline {

int control_points_for(int voxels) { return (voxels + kSpacing - 1) / kSpacing + 3; }

int encode_block(int x, int jb, int kb, int image_x, int image_y) {
    const int blocks_y = (image_y + kSpacing - 1) / kSpacing;
    return (kb * blocks_y + jb) * image_x + x;
}

std::array<int, 3> decode_block(int code, int image_x, int image_y) {
    const int blocks_y = (image_y + kSpacing - 1) / kSpacing;
    return {code % image_x, (code / image_x) % blocks_y, (code / image_x) / blocks_y};
}

DeformationCase make_case(int size, std::uint64_t seed, double max_displacement) {
    if (size < 10 || size > 1000) {
        throw Error("bspline::make_case: volume side " + std::to_string(size) +
                    " is outside 10..1000; choose a side in that range (the seed used 217)");
    }
    kernels::SplitMix64 rng(seed);
    DeformationCase c;
    c.image_x = c.image_y = c.image_z = size;
    c.grid_x = c.grid_y = c.grid_z = control_points_for(size);

    // The squashed ball (seed 001 4.1: diameter 140 in a 217 cube, each property varied by 5%).
    const double radius = 70.0 / 217.0 * size * rng.uniform(0.95, 1.05);
    double centre[3], squash[3];
    for (int a = 0; a < 3; ++a) {
        centre[a] = 0.5 * (size - 1) * rng.uniform(0.95, 1.05);
        squash[a] = rng.uniform(0.95, 1.05);
    }
    const auto inside = [&](int x, int y, int z) {
        const double p[3] = {double(x), double(y), double(z)};
        double r2 = 0;
        for (int a = 0; a < 3; ++a) {
            const double d = (p[a] - centre[a]) / (radius * squash[a]);
            r2 += d * d;
        }
        return r2 <= 1.0;
    };
    const int blocks_y = (size + kSpacing - 1) / kSpacing;
    const int blocks_z = blocks_y;
    for (int kb = 0; kb < blocks_z; ++kb) {
        for (int jb = 0; jb < blocks_y; ++jb) {
            for (int x = 0; x < size; ++x) {
                int hits = 0;
                for (int v = 0; v < kSpacing; ++v) {
                    for (int u = 0; u < kSpacing; ++u) {
                        const int y = jb * kSpacing + u, z = kb * kSpacing + v;
                        if (y < size && z < size && inside(x, y, z)) ++hits;
                    }
                }
                if (hits > 0) {
                    c.active_blocks.push_back(encode_block(x, jb, kb, size, size));
                    c.active_voxels += hits;
                }
            }
        }
    }
    c.control_points.resize(static_cast<std::size_t>(c.grid_x) * c.grid_y * c.grid_z);
    for (Float4& p : c.control_points) {
        p.x = static_cast<float>(rng.uniform(-max_displacement, max_displacement));
        p.y = static_cast<float>(rng.uniform(-max_displacement, max_displacement));
        p.z = static_cast<float>(rng.uniform(-max_displacement, max_displacement));
        p.w = 0.0f;
    }
    return c;
}

std::array<double, 4> cubic_basis(double t, bool bspline) {
    const double t2 = t * t, t3 = t2 * t;
    if (bspline) {
        return {(1 - t) * (1 - t) * (1 - t) / 6, (3 * t3 - 6 * t2 + 4) / 6, (-3 * t3 + 3 * t2 + 3 * t + 1) / 6, t3 / 6};
    }
    return {(-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2};
}

namespace {

void require_consistent(const DeformationCase& c) {
    if (c.image_x <= 0 || c.image_y <= 0 || c.image_z <= 0 || c.grid_x != control_points_for(c.image_x) ||
        c.grid_y != control_points_for(c.image_y) || c.grid_z != control_points_for(c.image_z) ||
        c.control_points.size() != static_cast<std::size_t>(c.grid_x) * c.grid_y * c.grid_z) {
        throw Error("bspline: case of " + std::to_string(c.image_x) + "x" + std::to_string(c.image_y) + "x" +
                    std::to_string(c.image_z) + " voxels has a control grid of " + std::to_string(c.grid_x) + "x" +
                    std::to_string(c.grid_y) + "x" + std::to_string(c.grid_z) + " (" +
                    std::to_string(c.control_points.size()) +
                    " points); it needs ceil(side/5)+3 points per axis, as make_case() builds");
    }
}

const Float4& node(const DeformationCase& c, int i, int j, int k) {
    return c.control_points[(static_cast<std::size_t>(k) * c.grid_y + j) * c.grid_x + i];
}

}  // namespace

std::array<double, 3> displacement_at(const DeformationCase& c, int x, int y, int z, bool bspline) {
    const auto wx = cubic_basis(double(x % kSpacing) / kSpacing, bspline);
    const auto wy = cubic_basis(double(y % kSpacing) / kSpacing, bspline);
    const auto wz = cubic_basis(double(z % kSpacing) / kSpacing, bspline);
    std::array<double, 3> sum{0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        for (int j = 0; j < 4; ++j) {
            for (int i = 0; i < 4; ++i) {
                const Float4& p = node(c, x / kSpacing + i, y / kSpacing + j, z / kSpacing + k);
                const double w = wx[i] * wy[j] * wz[k];
                sum[0] += w * p.x;
                sum[1] += w * p.y;
                sum[2] += w * p.z;
            }
        }
    }
    return sum;
}

std::vector<std::array<double, 3>> deformation_reference(const DeformationCase& c, bool bspline) {
    require_consistent(c);
    const int blocks_y = (c.image_y + kSpacing - 1) / kSpacing;
    const int blocks_z = (c.image_z + kSpacing - 1) / kSpacing;
    std::array<std::array<double, 4>, kSpacing> offset_basis;
    for (int r = 0; r < kSpacing; ++r) offset_basis[r] = cubic_basis(double(r) / kSpacing, bspline);

    std::vector<std::array<double, 3>> out(c.active_blocks.size() * 25);
    for (std::size_t n = 0; n < c.active_blocks.size(); ++n) {
        const int code = c.active_blocks[n];
        const auto [x, jb, kb] = decode_block(code, c.image_x, c.image_y);
        if (code < 0 || jb >= blocks_y || kb >= blocks_z) {
            throw Error("bspline: active block " + std::to_string(n) + " has code " + std::to_string(code) +
                        ", outside the " + std::to_string(c.image_x) + "x" + std::to_string(c.image_y) + "x" +
                        std::to_string(c.image_z) + " volume");
        }
        // The 25 voxels share x, so the x sums reduce the 64 control points to 16.
        const auto& wx = offset_basis[x % kSpacing];
        std::array<double, 3> sums[4][4];
        for (int k = 0; k < 4; ++k) {
            for (int j = 0; j < 4; ++j) {
                sums[k][j] = {0, 0, 0};
                for (int i = 0; i < 4; ++i) {
                    const Float4& p = node(c, x / kSpacing + i, jb + j, kb + k);
                    sums[k][j][0] += wx[i] * p.x;
                    sums[k][j][1] += wx[i] * p.y;
                    sums[k][j][2] += wx[i] * p.z;
                }
            }
        }
        for (int v = 0; v < kSpacing; ++v) {
            for (int u = 0; u < kSpacing; ++u) {
                std::array<double, 3>& d = out[n * 25 + v * 5 + u];
                d = {0, 0, 0};
                for (int k = 0; k < 4; ++k) {
                    for (int j = 0; j < 4; ++j) {
                        const double w = offset_basis[u][j] * offset_basis[v][k];
                        for (int a = 0; a < 3; ++a) d[a] += w * sums[k][j][a];
                    }
                }
            }
        }
    }
    return out;
}

}  // namespace gi::bspline
