#pragma once
// The few CUDA runtime calls the corpus kernels' files make in their host sections (setting
// __constant__ data), for the emulator: __constant__ variables are ordinary variables there, so a
// copy to a symbol is a memcpy. Include inside the configuration's namespace, before the kernel file,
// after <cstddef> and <cstring> (outside it).

using cudaError_t = int;
inline constexpr cudaError_t cudaSuccess = 0;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1 };

template <class Symbol>
cudaError_t cudaMemcpyToSymbol(Symbol& symbol, const void* source, std::size_t bytes, std::size_t offset = 0,
                               cudaMemcpyKind = cudaMemcpyHostToDevice) {
    if (offset + bytes > sizeof(Symbol)) return 1;
    std::memcpy(reinterpret_cast<unsigned char*>(&symbol) + offset, source, bytes);
    return cudaSuccess;
}
