// A project header the kernel file includes from the project's include folder (not its own).
#pragma once
#define STENCIL_RADIUS 2
#define TILE_X 64

struct StencilWeights {
    float centre;
    float side;
};
