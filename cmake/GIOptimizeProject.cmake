# Included by gi-optimize's top-level CMakeLists.txt after gi-tool is defined: makes
# gi_optimize_cuda_kernel() available to the including project (add_subdirectory, FetchContent) and
# installs the package find_package(GIOptimize) finds (gi-tool, the module, the config files).

# The same name the installed package exports, so the module needs one spelling.
if(TARGET gi-tool)
    add_executable(GIOptimize::gi-tool ALIAS gi-tool)
endif()
if(TARGET gi-apply)  # the build-time step alone, for builds that evolve nothing
    add_executable(GIOptimize::gi-apply ALIAS gi-apply)
endif()
if(TARGET gi-worker)  # the cuda evaluator's GPU process, found next to gi-tool
    add_executable(GIOptimize::gi-worker ALIAS gi-worker)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/GIOptimize.cmake")
# The versions cache keys include, read from the headers that define them, so the CMake side and
# gi-tool can never disagree; the installed package config carries them as numbers.
_gi_versions_from_source("${PROJECT_SOURCE_DIR}")
get_property(GI_OPTIMIZE_GRAMMAR_VERSION GLOBAL PROPERTY GI_OPTIMIZE_GRAMMAR_VERSION)
get_property(GI_OPTIMIZE_CACHE_KEY_VERSION GLOBAL PROPERTY GI_OPTIMIZE_CACHE_KEY_VERSION)

# Installing and exporting gi-optimize is its own build's business: a project that includes it gets
# nothing of gi-optimize in its install.
if(NOT PROJECT_IS_TOP_LEVEL)
    return()
endif()

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(GI_OPTIMIZE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/GIOptimize" CACHE STRING
    "Where the GIOptimize package config is installed, relative to the prefix.")
mark_as_advanced(GI_OPTIMIZE_INSTALL_CMAKEDIR)

install(TARGETS gi-tool gi-apply EXPORT GIOptimizeTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(TARGET gi-worker)
    install(TARGETS gi-worker EXPORT GIOptimizeTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
# The recorder (<gi/launch.hpp>) exists where the CUDA toolkit was found; the package says whether
# it has one, and brings the recorder's own dependencies along.
if(TARGET gi_recorder)
    set(GI_OPTIMIZE_HAS_RECORDER ON)
    install(TARGETS gi_recorder EXPORT GIOptimizeTargets
            ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/gi-tool/recorder/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
else()
    set(GI_OPTIMIZE_HAS_RECORDER OFF)
endif()
# The launch intercept `gi-tool record` preloads into the program it records: a plain library in
# the library folder, where the installed gi-tool looks (gi-tool/CMakeLists.txt tells it where).
if(TARGET gi_launch_intercept)
    install(TARGETS gi_launch_intercept LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
install(EXPORT GIOptimizeTargets NAMESPACE GIOptimize:: DESTINATION "${GI_OPTIMIZE_INSTALL_CMAKEDIR}")
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/GIOptimizeConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/GIOptimizeConfig.cmake" INSTALL_DESTINATION "${GI_OPTIMIZE_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/GIOptimizeConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/GIOptimizeConfig.cmake" "${PROJECT_BINARY_DIR}/GIOptimizeConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/GIOptimize.cmake" "${CMAKE_CURRENT_LIST_DIR}/GIOptimizeAccept.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/GIOptimizeEvolve.cmake" "${CMAKE_CURRENT_LIST_DIR}/GIOptimizeApplied.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/GIOptimizeIncluder.cmake"
        DESTINATION "${GI_OPTIMIZE_INSTALL_CMAKEDIR}")
# The module's parts and the templates of the scripts it generates, where GIOptimize.cmake finds them.
install(DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/GIOptimize" DESTINATION "${GI_OPTIMIZE_INSTALL_CMAKEDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/gi-tool/src/cache/key_format.txt" DESTINATION "${GI_OPTIMIZE_INSTALL_CMAKEDIR}"
        RENAME GIOptimizeCacheKeyFormat.txt)
