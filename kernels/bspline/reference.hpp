#pragma once
// CPU side of the B-spline example: test volumes in the style of seed 001 section 4.1 (a randomly
// squashed ball of active voxels in a cube, random control-point displacements) and a double-
// precision reference of what bspline.cu computes.
#include <array>
#include <cstdint>
#include <vector>

namespace gi::bspline {

inline constexpr int kSpacing = 5;          // voxels between control points (SPACING in bspline.cu)
inline constexpr double kTolerance = 1e-3;  // absolute, per component (seed 001 section 3.8)

struct Float4 {
    float x = 0, y = 0, z = 0, w = 0;
};

struct DeformationCase {
    int image_x = 0, image_y = 0, image_z = 0;  // voxels
    int grid_x = 0, grid_y = 0, grid_z = 0;     // control points: ceil(image / kSpacing) + 3 per axis
    std::vector<Float4> control_points;         // displacement at each control point, x fastest
    std::vector<int> active_blocks;             // encode_block() of each active 1x5x5 block, ascending
    int active_voxels = 0;                      // voxels of the ball itself (each block holds 25 outputs)
};

// Control points needed along an axis of `voxels` voxels.
int control_points_for(int voxels);

// (x, jb, kb) <-> the kernel's integer: (kb * blocks_y + jb) * image_x + x, blocks_y = ceil(image_y / 5).
int encode_block(int x, int jb, int kb, int image_x, int image_y);
std::array<int, 3> decode_block(int code, int image_x, int image_y);

// A cube of side `size` whose active voxels form a ball of diameter 140/217 of the side, its centre,
// radius and squash along each axis varied by up to 5% at random; control-point displacements
// uniform in [-max_displacement, max_displacement] voxels. Throws gi::Error unless 10 <= size <= 1000.
DeformationCase make_case(int size, std::uint64_t seed, double max_displacement = 4.0);

// The four weights at fractional offset t in [0, 1): cubic B-spline or Catmull-Rom.
std::array<double, 4> cubic_basis(double t, bool bspline);

// Displacement of voxel (x, y, z): the 4x4x4 control points around it, weighted by the basis.
std::array<double, 3> displacement_at(const DeformationCase& c, int x, int y, int z, bool bspline);

// 25 values per active block in the kernel's order (voxel (x, 5jb+u, 5kb+v) at 25*block + 5v + u),
// computed block by block in double. Throws gi::Error for an inconsistent case.
std::vector<std::array<double, 3>> deformation_reference(const DeformationCase& c, bool bspline);

}  // namespace gi::bspline
