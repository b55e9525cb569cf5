# The cache key has two implementations: gi-tool's key_text() (the reference; `gi-tool cache key`
# prints it) and the CMake module's _gi_cache_key, which configure needs before any gi-optimize
# program is built. This checks they agree on registrations written the ways users write them
# (the PARAMS forms, spacing, templates, several kernels and tolerances, empty fields) and on a
# kernel file with CRLF line ends and non-ASCII bytes. Needs gi-tool only: no nvcc, no project.
cmake_minimum_required(VERSION 3.25)
include("${GI_TEST_SOURCE}/cmake/GIOptimize.cmake")
_gi_versions_from_source("${GI_TEST_SOURCE}")

set(work "${GI_TEST_WORK}/cache_key")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")
set(kernel "${work}/k.cu")
string(ASCII 233 e_acute)  # one byte above 127 (Latin-1), as old files have
file(WRITE "${kernel}" "// d${e_acute}j${e_acute} vu\r\n#define BLOCK 128\r\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\r\n")

set(failures 0)
set(checked 0)
# check(<label> FUNCTIONS ... PARAMS ... FLAGS ... [BLOCK_SIZE <text>] [GRID <text>] TOLERANCE ...)
function(check label)
    cmake_parse_arguments(PARSE_ARGV 1 a "" "BLOCK_SIZE;GRID" "FUNCTIONS;PARAMS;FLAGS;TOLERANCE")
    set(tool_args "")
    foreach(pair function:FUNCTIONS param:PARAMS flag:FLAGS tolerance:TOLERANCE)
        string(REPLACE ":" ";" pair "${pair}")
        list(GET pair 0 option)
        list(GET pair 1 list_name)
        foreach(item IN LISTS a_${list_name})
            list(APPEND tool_args "--${option}" "${item}")
        endforeach()
    endforeach()
    # As the module calls it: BLOCK_SIZE and GRID only when the registration has them (an empty value
    # after a keyword is what CMake 3.31+ warns about, CMP0174).
    set(geometry "")
    if(NOT "${a_BLOCK_SIZE}" STREQUAL "")
        list(APPEND tool_args --block-size "${a_BLOCK_SIZE}")
        list(APPEND geometry BLOCK_SIZE "${a_BLOCK_SIZE}")
    endif()
    if(NOT "${a_GRID}" STREQUAL "")
        list(APPEND tool_args --grid "${a_GRID}")
        list(APPEND geometry GRID "${a_GRID}")
    endif()
    foreach(architecture 80 90 100)
        _gi_cache_key(cmake_key KERNEL "${kernel}" ARCHITECTURE ${architecture} FUNCTIONS ${a_FUNCTIONS}
                      PARAMS ${a_PARAMS} FLAGS ${a_FLAGS} ${geometry} TOLERANCE ${a_TOLERANCE})
        execute_process(COMMAND "${GI_TEST_TOOL}" cache key "${kernel}" ${tool_args} --arch ${architecture}
                        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
        math(EXPR checked "${checked} + 1")
        set(checked ${checked} PARENT_SCOPE)
        if(NOT rc EQUAL 0)
            message(SEND_ERROR "${label} sm_${architecture}: gi-tool cache key failed (${rc}): ${err}")
            math(EXPR failures "${failures} + 1")
            set(failures ${failures} PARENT_SCOPE)
        elseif(NOT out STREQUAL "sm_${architecture} ${cmake_key}\n")
            execute_process(COMMAND "${GI_TEST_TOOL}" cache key "${kernel}" ${tool_args} --arch ${architecture} --text
                            OUTPUT_VARIABLE text)
            message(SEND_ERROR "${label} sm_${architecture}: CMake's key ${cmake_key} differs from gi-tool's: ${out}"
                               "gi-tool's key text:\n${text}")
            math(EXPR failures "${failures} + 1")
            set(failures ${failures} PARENT_SCOPE)
        endif()
    endforeach()
endfunction()

# The consumer example's registration, PARAMS in the CMake forms.
_gi_parse_params(stereo_params BLOCK_W 16 32 64 128 256 ROWS_PER_THREAD 1..18 20 24 30 40 48 60 XHALO 0 1
                 DPER 1..4 OUT_TYPE=float,int,short)
check(stereo FUNCTIONS stereo_kernel PARAMS ${stereo_params} FLAGS "dlcm:-Xptxas -dlcm={ca|cg}"
      BLOCK_SIZE "BLOCK_W,DPER" GRID "ceil(width/(BLOCK_W-10*XHALO)),ceil(height/ROWS_PER_THREAD)"
      TOLERANCE disparity:exact min_ssd:exact)
# Spacing as people type it: runs of spaces and tabs, leading and trailing blanks, a newline.
check(spacing FUNCTIONS " k " PARAMS "BLOCK=64,128" FLAGS "  -Xptxas\t -dlcm={ca|cg} " "-use_fast_math"
      BLOCK_SIZE " BLOCK , 1 " GRID "(n +  BLOCK - 1)\t/ BLOCK,\n 1" TOLERANCE "  abs=1e-3  ")
# A template instantiation, several kernels, empty fields (no BLOCK_SIZE and GRID, as the module
# passes a registration without them).
check(template FUNCTIONS "MatrixMulCUDA<32>" "MatrixMulCUDA< 16 >" PARAMS FLAGS TOLERANCE)
check(nothing FUNCTIONS k PARAMS FLAGS TOLERANCE)
check(tolerances FUNCTIONS k PARAMS "SCALE=2,3,4" "BLOCK=64,128,256" FLAGS "-maxrregcount={32..255}"
      BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE "out:rel=1e-6" "count:exact" "ulp=4")

if(failures GREATER 0)
    message(FATAL_ERROR "SCENARIO FAILED: ${failures} of ${checked} keys differ between CMake and gi-tool")
endif()
message(STATUS "CMake and gi-tool agree on all ${checked} cache keys")
