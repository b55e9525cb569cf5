# GIOptimize/arguments.cmake: the checks and parsers of gi_optimize_cuda_kernel()'s arguments that
# stand alone (a KERNEL path the build could use, PARAMS in either form, architecture lists). Part of
# GIOptimize.cmake, which includes it.

# _gi_check_kernel_path(<path>): refuses a KERNEL path the build could not use, naming the reason: the
# generated wrapper names the kernel in an `#include "..."` line, where a '"' ends the name, a
# backslash is no escape and a line end breaks the line; a ';' makes CMake split the path into a
# list (of sources, of command arguments); a generator expression is not evaluated when configuring.
function(_gi_check_kernel_path path)
    string(REPLACE "\\;" ";" shown "${path}")
    if(path MATCHES "\\$<")
        _gi_fail("KERNEL: '${shown}' holds a generator expression, but the kernel file is read when configuring, "
                 "before those are evaluated: give its path")
    elseif(path MATCHES ";")
        _gi_fail("KERNEL: '${shown}' contains ';', which CMake reads as a list separator: no target can list the "
                 "file as one source, nor a build step name it. Rename the file or folder")
    elseif(path MATCHES "\"")
        _gi_fail("KERNEL: '${shown}' contains '\"', which cannot be written in the #include \"...\" line of the "
                 "generated file that compiles the kernel. Rename the file or folder")
    elseif(path MATCHES "[\\]")
        _gi_fail("KERNEL: '${shown}' contains a backslash, which cannot be written in the #include \"...\" line of "
                 "the generated file (it is no escape there, and CMake takes it for a folder separator). Rename the "
                 "file or folder")
    elseif(path MATCHES "[\r\n]")
        _gi_fail("KERNEL: the path '${shown}' contains a line end, which cannot be written in an #include line. "
                 "Rename the file or folder")
    endif()
endfunction()

# _gi_parse_params(<out-var> <items>...): PARAMS in either form, "NAME v1 v2..." (numbers and ranges
# a..b) or "NAME=v1,v2" (any values), to gi-tool's "--param NAME=v1,v2" declarations.
function(_gi_parse_params out_var)
    set(result "")
    set(name "")
    set(values "")
    foreach(item IN LISTS ARGN)
        if(item MATCHES "^[A-Za-z_][A-Za-z0-9_]*=.+$" OR item MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
            if(NOT name STREQUAL "")
                if(values STREQUAL "")
                    _gi_fail("PARAMS: parameter '${name}' has no values (write PARAMS ${name} 32 64 128, "
                             "${name} 1..8 or ${name}=A,B,C)")
                endif()
                string(JOIN "," joined ${values})
                list(APPEND result "${name}=${joined}")
            endif()
            set(values "")
            if(item MATCHES "=")
                list(APPEND result "${item}")
                set(name "")
            else()
                set(name "${item}")
            endif()
        elseif(item MATCHES "^-?[0-9]+(\\.\\.-?[0-9]+)?$")
            if(name STREQUAL "")
                _gi_fail("PARAMS: value '${item}' has no parameter name before it (write PARAMS NAME ${item} ...)")
            endif()
            list(APPEND values "${item}")
        else()
            _gi_fail("PARAMS: '${item}' is neither a parameter name nor a number or range a..b (write "
                     "non-numeric values as NAME=A,B,C)")
        endif()
    endforeach()
    if(NOT name STREQUAL "")
        if(values STREQUAL "")
            _gi_fail("PARAMS: parameter '${name}' has no values (write PARAMS ${name} 32 64 128, ${name} 1..8 "
                     "or ${name}=A,B,C)")
        endif()
        string(JOIN "," joined ${values})
        list(APPEND result "${name}=${joined}")
    endif()
    set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# _gi_parse_architectures(<out-var> <argument> <items>...): "80;90-real;90-virtual" -> "80;90". Refuses
# anything that is not a plain architecture number, naming <argument>.
function(_gi_parse_architectures out_var argument)
    set(result "")
    foreach(item IN LISTS ARGN)
        if(item MATCHES "^(all|all-major|native)$")
            _gi_fail("${argument} is '${item}': gi-optimize needs the architectures listed (one cached variant "
                     "each): set ARCHITECTURES 80 90 ... or CUDA_ARCHITECTURES to numbers")
        endif()
        if(NOT item MATCHES "^([1-9][0-9]+)(-real|-virtual)?$")
            _gi_fail("${argument}: '${item}' is not a CUDA architecture (write numbers as in "
                     "CMAKE_CUDA_ARCHITECTURES: 80 90, suffixed ones such as 90a are not supported)")
        endif()
        list(APPEND result "${CMAKE_MATCH_1}")
    endforeach()
    list(REMOVE_DUPLICATES result)
    set(${out_var} "${result}" PARENT_SCOPE)
endfunction()
