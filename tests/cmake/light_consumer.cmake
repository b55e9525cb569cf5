# A project that includes gi-optimize (add_subdirectory or FetchContent) with GI_OPTIMIZE off is not
# touched by it: none of gi-optimize's dependencies is looked for (SQLite3, Boost and tinyxml2
# disabled here), nothing of gi-optimize is built or installed, the project's empty build type stays
# empty, and GIOptimize::recorder is there to link (its gi::launch only launches).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(light_consumer)
file(APPEND "${src}/CMakeLists.txt" "
add_executable(recorded recorded.cu)
set_target_properties(recorded PROPERTIES CUDA_ARCHITECTURES 90)
target_link_libraries(recorded PRIVATE GIOptimize::recorder)
install(TARGETS app DESTINATION bin)
")
file(WRITE "${src}/recorded.cu" "#include <gi/launch.hpp>
__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }
int main() {
    float* x = nullptr;
    if (cudaMalloc(&x, 32 * sizeof(float)) != cudaSuccess) return 0;
    return gi::launch(twice, \"twice\", dim3(1), dim3(32), 0, nullptr, x) == cudaSuccess ? 0 : 1;
}
")
foreach(mode subdir fetch)
    file(REMOVE_RECURSE "${build}")
    gi_test_run(out PASS "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}"
        "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" "-DGI_TEST_MODE=${mode}" "-DGI_TEST_SOURCE=${GI_TEST_SOURCE}"
        -DGI_OPTIMIZE=OFF -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON
        -DCMAKE_DISABLE_FIND_PACKAGE_tinyxml2=ON)
    # CMake lists the three switches as unused: nothing asked for those packages.
    gi_test_expect("${out}" "not used by the project:[^-]*CMAKE_DISABLE_FIND_PACKAGE_Boost[^-]*CMAKE_DISABLE_FIND_PACKAGE_SQLite3[^-]*CMAKE_DISABLE_FIND_PACKAGE_tinyxml2"
                   "${mode}: no lookup of gi-optimize's dependencies")
    gi_test_expect_not("${out}" "gi-optimize: NVRTC" "${mode}: gi-tool is not configured")
    gi_test_expect_empty_build_type("${mode}")
    gi_test_build(targets PASS -t targets all)
    # Programs and libraries of gi-optimize's (CMake's per-folder utility targets aside).
    foreach(foreign "/gi-tool:" "/gi-worker:" "libgi_core\\.a" "libgi_recorder\\.a" "stereo_driver:" "gi_tests:"
            "libgi_stereo_reference\\.a")
        if(targets MATCHES "${foreign}")
            gi_test_fail("${mode}: the build holds gi-optimize's ${foreign}:\n${targets}")
        endif()
    endforeach()
    gi_test_build(out PASS)
    gi_test_expect_install_only("${mode}" "bin/app")
endforeach()
