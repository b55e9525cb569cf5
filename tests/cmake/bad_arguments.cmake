# Every kind of wrong use fails at configure time with a message naming the argument.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(bad_arguments)
set(base "KERNEL scale.cu FUNCTION scaleKernel RECORDER app")
# Each case: the call's arguments after the target | a regex the error must match.
set(cases
    "app ${base} SPEED fast|unknown argument\\(s\\) 'SPEED' 'fast'"
    "app FUNCTION scaleKernel RECORDER app|KERNEL is required"
    "app KERNEL scale.cu RECORDER app|FUNCTION is required"
    "app KERNEL scale.cu FUNCTION scaleKernel RECORD_WITH|RECORD_WITH needs a value"
    "app KERNEL FUNCTION scaleKernel RECORDER app|KERNEL needs a value"
    "app KERNEL missing.cu FUNCTION scaleKernel RECORDER app|KERNEL: file 'missing.cu' does not exist"
    "app KERNEL main.cu FUNCTION scaleKernel RECORDER app|FUNCTION: no __global__ function 'scaleKernel' in main.cu"
    "app KERNEL scale.cu FUNCTION nosuch RECORDER app|FUNCTION: no __global__ function 'nosuch' in scale.cu"
    "app KERNEL CMakeLists.txt FUNCTION scaleKernel RECORDER app|KERNEL: 'CMakeLists.txt' is not a CUDA source"
    "nosuchtarget ${base}|'nosuchtarget' is not a target"
    "app ${base} ARCHITECTURES 9O|ARCHITECTURES: '9O' is not a CUDA architecture"
    "app ${base} ARCHITECTURES 90a|ARCHITECTURES: '90a' is not a CUDA architecture"
    "app ${base} ARCHITECTURES native|ARCHITECTURES is 'native'"
    "app ${base} ARCHITECTURES 80|ARCHITECTURES: 80 is not among the architectures target 'app' compiles"
    "app ${base} PARAMS 32 64|PARAMS: value '32' has no parameter name"
    "app ${base} PARAMS SCALE|PARAMS: parameter 'SCALE' has no values"
    "app ${base} PARAMS SCALE 2 x-y|PARAMS: 'x-y' is neither a parameter name"
    "app ${base} PARAMS NOTDEFINED 1 2|PARAMS: scale.cu does not #define NOTDEFINED"
    "app ${base} BUDGET soon|BUDGET: 'soon' is not a whole number of minutes"
    "app ${base} BUDGET 0|BUDGET must be more than 0"
    "app ${base} CACHE_DIR scale.cu|CACHE_DIR: 'scale.cu' is a file"
    "app ${base} RECORDER nosuchrecorder|RECORDER: 'nosuchrecorder' is not a target"
    "app KERNEL scale.cu scale.cu FUNCTION scaleKernel RECORDER app|unknown argument\\(s\\) 'scale.cu' [^\n]*KERNEL, RECORDER, RECORD_WITH, CACHE_DIR and BUDGET take one value"
    "hostlib ${base}|KERNEL: '[^']*scale.cu' is not among the sources of target 'hostlib'"
    "subapp ${base}|target 'subapp' is defined in [^\n]*/sub: call gi_optimize_cuda_kernel\\(\\) in that directory"
)
file(WRITE "${src}/sub/CMakeLists.txt" "add_executable(subapp ../main.cu ../scale.cu)\n")
foreach(case IN LISTS cases)
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 arguments)
    list(GET parts 1 expected)
    gi_test_call("add_library(hostlib STATIC main.cu)\nadd_subdirectory(sub)\ngi_optimize_cuda_kernel(${arguments})\n")
    gi_test_configure(out FAIL)
    gi_test_expect("${out}" "${expected}" "gi_optimize_cuda_kernel(${arguments})")
endforeach()

# A project without CUDA enabled.
file(WRITE "${src}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\nproject(nocuda LANGUAGES CXX)\n"
     "find_package(GIOptimize REQUIRED CONFIG)\nadd_executable(app host.cpp)\n"
     "gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app)\n")
file(WRITE "${src}/host.cpp" "int main() { return 0; }\n")
file(REMOVE_RECURSE "${build}")
gi_test_configure(out FAIL)
gi_test_expect("${out}" "target 'app' is not built with CUDA" "a project without CUDA")
