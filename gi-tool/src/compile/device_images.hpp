#pragma once
// Stage 5, compile: the CUDA device images (cubins: ELF64, machine EM_CUDA) a host object or
// program embeds in its fatbinary, found by their ELF headers where the fatbinary holds them
// uncompressed (nvcc's default for cubins). With same_device_code (cubin_sections.hpp) they tell
// which kernel a build shipped: `cache verify --program`, and the tests; the toolkit need not have
// cuobjdump. Pure.
#include <string>
#include <vector>

namespace gi {

std::vector<std::string> embedded_device_images(const std::string& bytes);

}  // namespace gi
