# Writes the PTX file PTX as a C++ header OUT declaring `kBytesDifferPtx` (a raw string), so
# gi-worker carries its kernel without a file beside it. Run by CMakeLists.txt's custom command.
file(READ "${PTX}" ptx)
file(WRITE "${OUT}.tmp" "#pragma once\n// Generated from bytes_differ.cu by gi-worker's build (embed_ptx.cmake); do not edit.\n"
                        "inline constexpr char kBytesDifferPtx[] = R\"gi_ptx(${ptx})gi_ptx\";\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
