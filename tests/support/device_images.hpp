#pragma once
// The CUDA device images a host object's fatbinary holds: compile/device_images.hpp, under the name
// the nvcc tests use.
#include <string>
#include <vector>

#include "compile/device_images.hpp"

namespace gi::test {

inline std::vector<std::string> embedded_cubins(const std::string& object) { return embedded_device_images(object); }

}  // namespace gi::test
