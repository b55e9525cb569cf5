#pragma once
// Stage 5, compile: the sections of a cubin (an ELF64 image), to tell whether two builds of a file
// hold the same device code.
#include <map>
#include <string>

namespace gi {

// Section name -> contents ("size N" for sections without bytes in the file, e.g. shared memory). Throws gi::Error when the
// image is not a little-endian ELF64 file or a section lies outside it.
std::map<std::string, std::string> cubin_sections(const std::string& image);

// Whether every kernel and module section of `part` is in `whole` with the same contents: the code,
// its constant banks, shared memory, and relocations (by symbol name). Sections that name the tool
// or the file, tables that list what else the module holds and attribute notes that number its
// symbols are not compared; `whole` may hold more kernels.
bool same_device_code(const std::string& part, const std::string& whole);

}  // namespace gi
