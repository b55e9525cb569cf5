# GIOptimize/register.cmake: gi_optimize_cuda_kernel(), the module's public function: it checks its
# arguments at once (a usage error names the argument and what to write) and keeps the registration
# on the target for the deferred step (GIOptimize/finalize.cmake). Part of GIOptimize.cmake, which
# includes it.

#[=======================================================================[.rst:
gi_optimize_cuda_kernel
-----------------------

Registers a CUDA kernel of ``<target>`` for genetic improvement::

  gi_optimize_cuda_kernel(<target>
      KERNEL <file.cu | header.cuh> FUNCTION <name>...
      [RECORDER <executable-target>] [ARGS <arg>...] [RECORD_WITH intercept|launch]
      [PARAMS <NAME> <values>... | <NAME>=<v1>,<v2>...]
      [FLAGS <nvcc-option-spec>...]
      [BLOCK_SIZE <expr>...] [GRID <expr>...]
      [ARCHITECTURES <n>...] [CACHE_DIR <dir>] [BUDGET <minutes>]
      [TOLERANCE <setting>...] [HELD_OUT <arg>...] [SANITIZE_ARGS <arg>...]
      [NONDETERMINISTIC] [ALLOW_UNVALIDATED])

With ``GI_OPTIMIZE`` OFF the call only checks its arguments: the target builds exactly as without it.
With ``GI_OPTIMIZE`` ON the target compiles, instead of ``KERNEL`` (for a header: instead of the header,
included by copies of the target's sources that include it), a generated file that holds each
architecture's cached variant (rebuilt from the genome in ``CACHE_DIR/<FUNCTION>.sm_<n>.xml`` and the
original kernel) and the original kernel for architectures without a valid entry. With a GPU of one
of the architectures and no valid entry for it, the build records test cases by running
``RECORDER ARGS`` through ``gi-tool record`` (``RECORDER`` defaults to ``<target>`` when it is an
executable; its launches are intercepted, so its source needs no change: ``RECORD_WITH launch`` records
through ``gi::launch`` calls instead), evolves the kernel within ``BUDGET`` minutes (validating
the result on ``HELD_OUT`` cases, or on recorded cases set aside; with ``SANITIZE_ARGS`` a third,
small recording is what the search's sanitizer gate runs would-be parents on), runs the recorder program again with
the variant compiled in (``gi-tool accept``: it must succeed and reproduce the original's outputs) and
only then writes the entry. Host code may include ``<FUNCTION>.gi.h`` (on the include path only when ON; test
with ``__has_include``) for the variant's parameter values at run time.

Why a deferred step: the target's sources and ``CUDA_ARCHITECTURES`` may be set after this call, so
the target is only changed at the end of the calling directory (``cmake_language(DEFER)``).
#]=======================================================================]
function(gi_optimize_cuda_kernel target)
    set(options NONDETERMINISTIC ALLOW_UNVALIDATED)
    set(one_value_keywords KERNEL RECORDER RECORD_WITH CACHE_DIR BUDGET)
    set(multi_value_keywords FUNCTION ARGS PARAMS FLAGS BLOCK_SIZE GRID ARCHITECTURES TOLERANCE HELD_OUT SANITIZE_ARGS)
    cmake_parse_arguments(PARSE_ARGV 1 GI "${options}" "${one_value_keywords}" "${multi_value_keywords}")

    if(NOT TARGET "${target}")
        _gi_fail("'${target}' is not a target: call it after add_executable(${target} ...) or add_library")
    endif()
    get_target_property(aliased "${target}" ALIASED_TARGET)
    get_target_property(imported "${target}" IMPORTED)
    if(aliased OR imported)
        _gi_fail("'${target}' is an alias or imported target: pass the real target that compiles the kernel")
    endif()
    get_target_property(type "${target}" TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        _gi_fail("target '${target}' is a ${type}: it must compile the kernel (an executable or a library)")
    endif()
    # The generated sources and the custom command producing them must live in the target's own
    # directory (CMake attaches custom commands and source properties per directory).
    get_target_property(target_dir "${target}" SOURCE_DIR)
    if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
        _gi_fail("target '${target}' is defined in ${target_dir}: call gi_optimize_cuda_kernel() in that directory's "
                 "CMakeLists.txt")
    endif()
    if(GI_UNPARSED_ARGUMENTS)
        list(JOIN GI_UNPARSED_ARGUMENTS "' '" unknown)
        list(JOIN one_value_keywords " " k1)
        list(JOIN multi_value_keywords " " k2)
        _gi_fail("unknown argument(s) '${unknown}' for target '${target}' (keywords: ${k1} ${k2}, "
                 "KERNEL, RECORDER, RECORD_WITH, CACHE_DIR and BUDGET take one value, NONDETERMINISTIC and ALLOW_UNVALIDATED none)")
    endif()
    foreach(keyword IN LISTS GI_KEYWORDS_MISSING_VALUES)
        _gi_fail("${keyword} needs a value")
    endforeach()
    # An empty value (often an unset variable: "${X}") would reach gi-tool and the cache key as an
    # empty argument. Refused by name; only the program's own arguments (ARGS, HELD_OUT,
    # SANITIZE_ARGS) may be empty, as any program's may. Read from ARGV, which keeps every empty
    # argument whatever CMake's version and policies (CMP0174) make of them when parsing.
    set(keyword "")
    set(index 1)
    while(index LESS ARGC)
        set(argument "${ARGV${index}}")
        if(argument IN_LIST one_value_keywords OR argument IN_LIST multi_value_keywords OR argument IN_LIST options)
            set(keyword "${argument}")
        elseif(argument MATCHES "^[ \t\r\n]*$" AND NOT keyword MATCHES "^(|ARGS|HELD_OUT|SANITIZE_ARGS)$")
            _gi_fail("${keyword}: an empty value (an unset variable?): leave the keyword out or give it a value")
        endif()
        math(EXPR index "${index} + 1")
    endwhile()
    foreach(keyword KERNEL FUNCTION)
        if(NOT DEFINED GI_${keyword})
            _gi_fail("${keyword} is required (see docs/cmake.md: KERNEL <file.cu> FUNCTION <name>)")
        endif()
    endforeach()
    # The program that runs the kernel on real inputs: the target itself, unless it is a library.
    if(NOT DEFINED GI_RECORDER)
        if(NOT type STREQUAL "EXECUTABLE")
            _gi_fail("RECORDER is required: '${target}' is a ${type}, so name the executable that runs its kernel on "
                     "real inputs (RECORDER <program-target> ARGS <its arguments>)")
        endif()
        set(GI_RECORDER "${target}")
    endif()
    if(NOT DEFINED GI_RECORD_WITH)
        set(GI_RECORD_WITH intercept)
    elseif(NOT GI_RECORD_WITH MATCHES "^(intercept|launch)$")
        _gi_fail("RECORD_WITH: '${GI_RECORD_WITH}' is neither 'intercept' (the default: the program's launches are "
                 "intercepted, its source unchanged) nor 'launch' (the program launches the kernel through gi::launch "
                 "and links GIOptimize::recorder)")
    endif()

    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST languages)
        _gi_fail("target '${target}' is not built with CUDA: enable the language first (project(... LANGUAGES CXX CUDA) "
                 "or enable_language(CUDA))")
    endif()

    _gi_check_kernel_path("${GI_KERNEL}")
    cmake_path(ABSOLUTE_PATH GI_KERNEL BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE kernel)
    _gi_check_kernel_path("${kernel}")
    if(NOT EXISTS "${kernel}" OR IS_DIRECTORY "${kernel}")
        _gi_fail("KERNEL: file '${GI_KERNEL}' does not exist (relative paths are resolved against ${CMAKE_CURRENT_SOURCE_DIR})")
    endif()
    _gi_header_kernel(header "${kernel}")
    if(NOT header AND NOT kernel MATCHES "\\.cu$")
        get_source_file_property(language "${kernel}" LANGUAGE)
        if(NOT language STREQUAL "CUDA")
            _gi_fail("KERNEL: '${GI_KERNEL}' is not a CUDA source (.cu, or a file with LANGUAGE CUDA) nor a header "
                     "(.cuh, .h, .hh, .hpp, .hxx, .inl) that a CUDA source of the target includes")
        endif()
    endif()
    file(READ "${kernel}" kernel_text)
    foreach(function IN LISTS GI_FUNCTION)
        # A template kernel may be named with its template arguments: one instantiation of it.
        if(NOT function MATCHES "^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(<[^;]*>)?$")
            _gi_fail("FUNCTION: '${function}' is not a C++ function name (or a template's name with its arguments, "
                     "such as \"MatrixMulCUDA<32>\")")
        endif()
        set(base "${CMAKE_MATCH_1}")
        set(defines "__global__[^;{}]*[^A-Za-z0-9_]${base}[ \t\r\n]*\\([^;{}]*\\)[^;{}]*{")
        if(kernel_text MATCHES "${defines}")
            continue()
        endif()
        # Defined in a header the kernel file includes (the CUDA samples' reduction_kernel.cu and
        # reduction_kernel.cuh): the header is the KERNEL, the build compiles it through this file.
        cmake_path(GET kernel PARENT_PATH kernel_dir)
        _gi_include_dirs(include_dirs "${target}")
        _gi_quoted_includes(ignored included "${kernel_text}" "${kernel_dir}" ${include_dirs})
        foreach(included_file IN LISTS included)
            if(included_file STREQUAL "")
                continue()
            endif()
            file(READ "${included_file}" included_text)
            if(included_text MATCHES "${defines}")
                cmake_path(RELATIVE_PATH included_file BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE shown)
                _gi_fail("FUNCTION: '${base}' is defined in ${shown} (included by ${GI_KERNEL}), not in ${GI_KERNEL}: "
                         "give KERNEL ${shown}, the file that defines it; the build then compiles ${GI_KERNEL} with "
                         "that header's variants")
            endif()
        endforeach()
        _gi_fail("FUNCTION: no __global__ function '${base}' in ${GI_KERNEL}")
    endforeach()
    list(REMOVE_DUPLICATES GI_FUNCTION)

    _gi_parse_params(params ${GI_PARAMS})
    foreach(declaration IN LISTS params)
        string(REGEX REPLACE "=.*" "" name "${declaration}")
        if(NOT kernel_text MATCHES "#[ \t]*define[ \t]+${name}([ \t\r\n]|$)")
            _gi_fail("PARAMS: ${GI_KERNEL} does not #define ${name} (a parameter is a macro the kernel defines, its "
                     "value there is the default)")
        endif()
    endforeach()

    if(DEFINED GI_ARCHITECTURES)
        _gi_parse_architectures(architectures ARCHITECTURES ${GI_ARCHITECTURES})
    else()
        set(architectures "")
    endif()

    if(DEFINED GI_BUDGET AND NOT GI_BUDGET MATCHES "^[0-9]+$")
        _gi_fail("BUDGET: '${GI_BUDGET}' is not a whole number of minutes")
    endif()
    if(DEFINED GI_BUDGET)
        # Checked as text first: CMake's math() cannot hold a number of 20 digits.
        string(REGEX REPLACE "^0+" "" digits "${GI_BUDGET}")
        string(LENGTH "${digits}" length)
        if(length GREATER 8 OR (length EQUAL 8 AND digits GREATER 16666666))
            _gi_fail("BUDGET: ${GI_BUDGET} minutes is more than gi-tool evolve's --time-limit accepts (1e9 s: "
                     "16666666 minutes)")
        endif()
        if(digits STREQUAL "")
            _gi_fail("BUDGET must be more than 0 minutes")
        endif()
        set(GI_BUDGET "${digits}")
    endif()
    if(NOT DEFINED GI_BUDGET)
        set(GI_BUDGET 10)
    endif()
    if(NOT GI_RECORDER MATCHES "^[A-Za-z0-9_.+-]+$" AND NOT GI_RECORDER MATCHES "::")
        _gi_fail("RECORDER: '${GI_RECORDER}' is not a target name")
    endif()

    if(NOT DEFINED GI_CACHE_DIR)
        set(GI_CACHE_DIR "${CMAKE_CURRENT_SOURCE_DIR}/gi-cache")
    endif()
    if(GI_CACHE_DIR MATCHES "\\$<")
        _gi_fail("CACHE_DIR: '${GI_CACHE_DIR}' holds a generator expression, but the cache folder is read when "
                 "configuring, before those are evaluated: give a plain path (a configuration's own folder: "
                 "\${CMAKE_BUILD_TYPE} is known when configuring with a single-configuration generator)")
    endif()
    cmake_path(ABSOLUTE_PATH GI_CACHE_DIR BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE cache_dir)
    if(EXISTS "${cache_dir}" AND NOT IS_DIRECTORY "${cache_dir}")
        _gi_fail("CACHE_DIR: '${GI_CACHE_DIR}' is a file, not a folder")
    endif()

    _gi_name_for_files(identifier "_" ${GI_FUNCTION})
    get_property(registered TARGET "${target}" PROPERTY _GI_REGISTRATIONS)
    if(identifier IN_LIST registered)
        _gi_fail("FUNCTION ${identifier} of target '${target}' is registered twice")
    endif()
    # Several kernels of one file may be registered, each by its own call: each evolves alone and
    # the build puts their variants together. A function or a PARAMS macro belongs to one of them.
    foreach(other IN LISTS registered)
        get_target_property(other_kernel "${target}" _GI_${other}_kernel)
        if(NOT other_kernel STREQUAL kernel)
            continue()
        endif()
        get_target_property(other_functions "${target}" _GI_${other}_functions)
        foreach(function IN LISTS GI_FUNCTION)
            if(function IN_LIST other_functions)
                _gi_fail("FUNCTION: '${function}' of ${GI_KERNEL} is already registered for target '${target}' (with "
                         "FUNCTION ${other_functions}); register each kernel once")
            endif()
        endforeach()
        get_target_property(other_params "${target}" _GI_${other}_params)
        foreach(declaration IN LISTS params)
            string(REGEX REPLACE "=.*" "" name "${declaration}")
            foreach(other_declaration IN LISTS other_params)
                string(REGEX REPLACE "=.*" "" other_name "${other_declaration}")
                if(name STREQUAL other_name)
                    _gi_fail("PARAMS: ${name} is also tuned by the registration of ${other_functions} in ${GI_KERNEL}; "
                             "the file has one #define ${name}, so give it to one registration only")
                endif()
            endforeach()
        endforeach()
    endforeach()

    _gi_entry_folder(cache_dir "${target}" "${kernel}" "${cache_dir}")

    # Everything the deferred step needs, kept on the target per registration (custom properties:
    # they change nothing in the build).
    set_property(TARGET "${target}" APPEND PROPERTY _GI_REGISTRATIONS "${identifier}")
    foreach(field
            kernel:kernel functions:GI_FUNCTION params:params flags:GI_FLAGS block_size:GI_BLOCK_SIZE grid:GI_GRID
            tolerance:GI_TOLERANCE architectures:architectures cache_dir:cache_dir budget:GI_BUDGET
            recorder:GI_RECORDER record_with:GI_RECORD_WITH recorder_args:GI_ARGS held_out:GI_HELD_OUT
            sanitize_args:GI_SANITIZE_ARGS
            nondeterministic:GI_NONDETERMINISTIC
            allow_unvalidated:GI_ALLOW_UNVALIDATED)
        string(REPLACE ":" ";" field "${field}")
        list(GET field 0 name)
        list(GET field 1 variable)
        set_property(TARGET "${target}" PROPERTY "_GI_${identifier}_${name}" "${${variable}}")
    endforeach()
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _gi_finalize [[${target}]] [[${identifier}]])")
    if(header)
        # After the last registration's _gi_finalize: moved behind each new one.
        cmake_language(DEFER CANCEL_CALL "gi_includers_${target}")
        cmake_language(EVAL CODE "cmake_language(DEFER ID [[gi_includers_${target}]] CALL _gi_substitute_includers [[${target}]])")
    endif()
    _gi_debug("${target}: ${identifier}: registered ${GI_KERNEL}, checked (and with GI_OPTIMIZE=ON changed) at the end of "
              "${CMAKE_CURRENT_SOURCE_DIR}")
endfunction()
