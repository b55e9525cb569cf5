# GIOptimize.cmake: gi_optimize_cuda_kernel(), the one call a downstream project adds to have a CUDA
# kernel replaced, at build time, by the variant gi-optimize evolved for each GPU architecture.
#
# Included by gi-optimize's own CMakeLists.txt (add_subdirectory, FetchContent) and by
# GIOptimizeConfig.cmake (find_package). Public surface: gi_optimize_cuda_kernel() and the options
# below; everything named _gi_* is private. docs/cmake.md is the reference.
#
# How a build goes, per registered kernel, when GI_OPTIMIZE is ON:
#   configure  each architecture's cache entry is looked up and its key recomputed here (same text as
#              gi-tool's key_text), giving one line per architecture: cached variant, original kernel
#              (with the reason) or, with a GPU of that architecture, evolution during the build.
#   build      gi-apply (`gi-tool cache apply` built alone) checks every entry fully (checksum, key,
#              genome valid for the kernel's grammar), rebuilds each variant from the genome and the ORIGINAL kernel, and
#              writes a wrapper .cu that the target compiles instead of the kernel: it includes one
#              variant per nvcc pass (__CUDA_ARCH__), the original for architectures without one.
#              A header tells host code which variant runs and its parameter values.
# The configure-time verdict only decides notices, GI_REQUIRE_CACHE errors and whether evolution runs;
# the build-time check is the one that decides which code is compiled, so an entry that is corrupt or
# edited by hand after configuring is still refused.

cmake_minimum_required(VERSION 3.25)
include_guard(GLOBAL)
# The module's own policies, whatever the including project's cmake_minimum_required says (3.20 up
# to CMake 4.x): include() gives this file a policy scope of its own, and functions run with the
# policies in force where they were defined. Set only where this CMake knows them. CMP0174: an
# empty string after a one-value keyword sets it to "" (the module's calls never pass one, but a
# user's `KERNEL "${UNSET}"` then reads as an empty value, refused by name, not as a missing keyword).
foreach(_gi_policy CMP0174)
    if(POLICY ${_gi_policy})
        cmake_policy(SET ${_gi_policy} NEW)
    endif()
endforeach()

# The acceptance step's script lives beside this file (installed with it). A global property: the
# including project's directories do not see this file's variables when it comes by add_subdirectory.
set_property(GLOBAL PROPERTY _GI_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")
# A kernel defined in a header: which sources include it (also the build step that copies them).
include("${CMAKE_CURRENT_LIST_DIR}/GIOptimizeIncluder.cmake")

option(GI_OPTIMIZE "Compile the kernels registered with gi_optimize_cuda_kernel() as their cached (or, with a GPU, freshly evolved) variants. OFF builds every target exactly as if the calls were not there." OFF)
option(GI_REQUIRE_CACHE "Make a missing or stale cache entry an error instead of a notice (for CI: the committed cache must be complete and current)." OFF)
option(GI_STRICT "Make a failure of gi-optimize's own build steps (recording, evolution, cache write, acceptance) a build error, for CI. OFF: the build goes on with the original kernel and prints one line saying why and where the log is." OFF)
option(GI_OPTIMIZE_VERBOSE "Print every decision gi_optimize_cuda_kernel() takes (the same as --log-level=DEBUG for its messages)." OFF)
set(GI_GPU_ARCHITECTURE "" CACHE STRING
    "Architecture of the GPU evolution may run on, e.g. 90. Empty: ask nvidia-smi at configure time. 'none': never evolve, only use the cache.")
set(GI_OPTIMIZE_TOOL "" CACHE FILEPATH
    "A gi-tool executable to use instead of the GIOptimize::gi-tool target (e.g. a prebuilt one, so gi-tool is not built again).")


# _gi_debug(<message>...): a decision, shown with --log-level=DEBUG or GI_OPTIMIZE_VERBOSE=ON.
function(_gi_debug)
    string(JOIN "" text ${ARGN})
    if(GI_OPTIMIZE_VERBOSE)
        message(STATUS "gi-optimize: ${text}")
    else()
        message(DEBUG "gi-optimize: ${text}")
    endif()
endfunction()

# _gi_strict(<out-var>): ON when a failure of the build's own gi-optimize steps (recording, evolution,
# cache write, acceptance) must fail the build (GI_STRICT, or GI_REQUIRE_CACHE), else OFF: the build
# then goes on with the original kernel and one line says why.
function(_gi_strict out_var)
    if(GI_STRICT OR GI_REQUIRE_CACHE)
        set(${out_var} ON PARENT_SCOPE)
    else()
        set(${out_var} OFF PARENT_SCOPE)
    endif()
endfunction()

# _gi_fail(<message>...): a usage error of gi_optimize_cuda_kernel(), at configure time.
function(_gi_fail)
    set(text "")  # the arguments joined, each as it is (a ';' in one stays)
    math(EXPR last "${ARGC} - 1")
    foreach(index RANGE ${last})
        string(APPEND text "${ARGV${index}}")
    endforeach()
    message(FATAL_ERROR "gi_optimize_cuda_kernel: ${text}")
endfunction()

# _gi_normalize(<out-var> <text>): trims and collapses whitespace runs to one space, as gi-tool does
# before hashing (normalize_registration_text), so both compute the same key.
function(_gi_normalize out_var text)
    string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
    string(STRIP "${text}" text)
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# _gi_versions_from_source(<gi-optimize source dir>): sets the GLOBAL properties
# GI_OPTIMIZE_GRAMMAR_VERSION and GI_OPTIMIZE_CACHE_KEY_VERSION from the C++ headers that define
# them (grammar.hpp kGrammarVersion, registration.hpp kCacheKeyVersion), and
# GI_OPTIMIZE_CACHE_KEY_FORMAT from the key's format file: one definition of each.
function(_gi_versions_from_source source_dir)
    foreach(item "GRAMMAR_VERSION:gi-tool/src/grammar/grammar.hpp:kGrammarVersion"
                 "CACHE_KEY_VERSION:gi-tool/src/cache/registration.hpp:kCacheKeyVersion")
        string(REPLACE ":" ";" item "${item}")
        list(GET item 0 property)
        list(GET item 1 header)
        list(GET item 2 constant)
        file(STRINGS "${source_dir}/${header}" line REGEX "inline constexpr int ${constant} = [0-9]+;")
        if(NOT line MATCHES "${constant} = ([0-9]+)")
            message(FATAL_ERROR "gi-optimize: cannot read ${constant} from ${source_dir}/${header}")
        endif()
        set_property(GLOBAL PROPERTY GI_OPTIMIZE_${property} "${CMAKE_MATCH_1}")
    endforeach()
    file(READ "${source_dir}/gi-tool/src/cache/key_format.txt" format)
    set_property(GLOBAL PROPERTY GI_OPTIMIZE_CACHE_KEY_FORMAT "${format}")
endfunction()

# _gi_key_versions(<grammar-var> <key-var>): the versions cache keys include, as set by
# gi-optimize's CMakeLists.txt (_gi_versions_from_source) or by the installed package config.
function(_gi_key_versions grammar_var key_var)
    get_property(grammar GLOBAL PROPERTY GI_OPTIMIZE_GRAMMAR_VERSION)
    get_property(key GLOBAL PROPERTY GI_OPTIMIZE_CACHE_KEY_VERSION)
    get_property(format GLOBAL PROPERTY GI_OPTIMIZE_CACHE_KEY_FORMAT)
    if(NOT grammar MATCHES "^[0-9]+$" OR NOT key MATCHES "^[0-9]+$" OR format STREQUAL "")
        message(FATAL_ERROR "gi-optimize: the grammar and cache key versions are unknown: include gi-optimize with "
                            "add_subdirectory, FetchContent or find_package(GIOptimize), not by including "
                            "GIOptimize.cmake alone.")
    endif()
    set(${grammar_var} "${grammar}" PARENT_SCOPE)
    set(${key_var} "${key}" PARENT_SCOPE)
endfunction()

# _gi_name_for_files(<out-var> <separator> <functions>...): the functions' names fit for file names
# and C identifiers ("MatrixMulCUDA<32>" -> "MatrixMulCUDA_32_"), joined; gi-tool names the cache
# entries and generated files the same way (file_name_part).
function(_gi_name_for_files out_var separator)
    set(parts "")
    foreach(name IN LISTS ARGN)
        string(REGEX REPLACE "[^A-Za-z0-9_]" "_" name "${name}")
        list(APPEND parts "${name}")
    endforeach()
    string(JOIN "${separator}" joined ${parts})
    set(${out_var} "${joined}" PARENT_SCOPE)
endfunction()

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

# _gi_header_kernel(<out-var> <kernel>): TRUE when <kernel> is a header (.cuh, .h, .hh, .hpp, .hxx,
# .inl) that CUDA sources of the target #include, FALSE for a source the target compiles itself (.cu,
# or any file with LANGUAGE CUDA).
function(_gi_header_kernel out_var kernel)
    get_source_file_property(language "${kernel}" LANGUAGE)
    if(NOT kernel MATCHES "\\.cu$" AND NOT language STREQUAL "CUDA" AND kernel MATCHES "\\.(cuh|h|hh|hpp|hxx|inl)$")
        set(${out_var} TRUE PARENT_SCOPE)
    else()
        set(${out_var} FALSE PARENT_SCOPE)
    endif()
endfunction()

# _gi_include_dirs(<out-var> <target>): <target>'s own include folders as written. Those a generator
# expression gives (linked targets' among them) are known only when generating, and left out.
function(_gi_include_dirs out_var target)
    get_target_property(dirs "${target}" INCLUDE_DIRECTORIES)
    set(result "")
    foreach(dir IN LISTS dirs)
        if(NOT dir MATCHES "\\$<" AND IS_ABSOLUTE "${dir}")
            list(APPEND result "${dir}")
        endif()
    endforeach()
    set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# _gi_kernel_includers(<out-var> <target> <kernel>): the sources of <target> that compile <kernel>: the
# kernel itself where the target lists it or, for a kernel header, the CUDA sources (existing at
# configure time) whose `#include "..."` opens it, beside them or in the target's include folders.
# Read from the target's sources as the project wrote them (a kernel file the module already
# replaced with its wrapper counts as itself).
function(_gi_kernel_includers out_var target kernel)
    get_target_property(sources "${target}" _GI_ORIGINAL_SOURCES)
    if(NOT sources)
        get_target_property(sources "${target}" SOURCES)
    endif()
    get_target_property(source_dir "${target}" SOURCE_DIR)
    _gi_header_kernel(header "${kernel}")
    _gi_include_dirs(include_dirs "${target}")
    set(result "")
    foreach(source IN LISTS sources)
        if(source MATCHES "^\\$<")
            continue()
        endif()
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE absolute)
        if(NOT header)
            if(absolute STREQUAL kernel)
                list(APPEND result "${absolute}")
            endif()
            continue()
        endif()
        get_source_file_property(language "${absolute}" LANGUAGE)
        if(NOT (absolute MATCHES "\\.cu$" OR language STREQUAL "CUDA") OR NOT EXISTS "${absolute}"
           OR IS_DIRECTORY "${absolute}")
            continue()
        endif()
        file(READ "${absolute}" text)
        cmake_path(GET absolute PARENT_PATH dir)
        _gi_header_spellings(spellings "${text}" "${dir}" "${kernel}" ${include_dirs})
        if(NOT spellings STREQUAL "")
            list(APPEND result "${absolute}")
        endif()
    endforeach()
    list(REMOVE_DUPLICATES result)
    set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# _gi_keep_original_sources(<target>): remembers <target>'s sources as the project wrote them, before
# the module first replaces one (_gi_kernel_includers reads them).
function(_gi_keep_original_sources target)
    get_target_property(kept "${target}" _GI_ORIGINAL_SOURCES)
    if(NOT kept)
        get_target_property(sources "${target}" SOURCES)
        set_property(TARGET "${target}" PROPERTY _GI_ORIGINAL_SOURCES "${sources}")
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

# _gi_cache_key(<out-var> KERNEL <file> ARCHITECTURE <n> FUNCTIONS ... PARAMS ... FLAGS ...
#               BLOCK_SIZE <text> GRID <text> TOLERANCE ...)
# The cache key gi-tool's key_text() computes (gi-tool/src/cache/registration.cpp), made here from the
# same format file (cache/key_format.txt, the GLOBAL property GI_OPTIMIZE_CACHE_KEY_FORMAT): the
# configure-time decisions need it before any gi-optimize program is built. `gi-tool cache key`
# prints gi-tool's, and tests/cmake/cache_key.cmake checks the two agree (no nvcc needed).
function(_gi_cache_key out_var)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "KERNEL;ARCHITECTURE;BLOCK_SIZE;GRID" "FUNCTIONS;PARAMS;FLAGS;TOLERANCE")
    _gi_key_versions(grammar_version key_version)
    get_property(format GLOBAL PROPERTY GI_OPTIMIZE_CACHE_KEY_FORMAT)
    file(SHA256 "${arg_KERNEL}" source_sha256)
    set(value_key-version "${key_version}")
    set(value_grammar-version "${grammar_version}")
    set(value_architecture "${arg_ARCHITECTURE}")
    set(value_source-sha256 "${source_sha256}")
    _gi_normalize(value_block-size "${arg_BLOCK_SIZE}")
    _gi_normalize(value_grid "${arg_GRID}")
    foreach(pair function:FUNCTIONS param:PARAMS flag:FLAGS tolerance:TOLERANCE)
        string(REPLACE ":" ";" pair "${pair}")
        list(GET pair 0 name)
        list(GET pair 1 argument)
        set(list_${name} "")
        foreach(item IN LISTS arg_${argument})
            _gi_normalize(item "${item}")
            list(APPEND list_${name} "${item}")
        endforeach()
    endforeach()
    # One line per format line: "{name}" replaced by its value, "{name...}" repeated per item.
    string(REPLACE "\n" ";" lines "${format}")
    set(text "")
    foreach(line IN LISTS lines)
        if(line STREQUAL "")
            continue()
        endif()
        if(NOT line MATCHES "^([^{]*)\\{([a-z0-9-]+)(\\.\\.\\.)?\\}(.*)$")
            message(FATAL_ERROR "gi-optimize: cache key format line '${line}' names no {field}")
        endif()
        set(before "${CMAKE_MATCH_1}")
        set(name "${CMAKE_MATCH_2}")
        set(repeated "${CMAKE_MATCH_3}")
        set(after "${CMAKE_MATCH_4}")
        if(repeated)
            if(NOT DEFINED list_${name})
                message(FATAL_ERROR "gi-optimize: cache key format: unknown list field {${name}...}")
            endif()
            foreach(item IN LISTS list_${name})
                string(APPEND text "${before}${item}${after}\n")
            endforeach()
        else()
            if(NOT DEFINED value_${name})
                message(FATAL_ERROR "gi-optimize: cache key format: unknown field {${name}}")
            endif()
            string(APPEND text "${before}${value_${name}}${after}\n")
        endif()
    endforeach()
    string(SHA256 key "${text}")
    set(${out_var} "${key}" PARENT_SCOPE)
endfunction()

# _gi_entry_state(<out-state> <out-reason> <entry-file> <expected-key>): "cached", "missing" or
# "stale" from the entry's <key> alone. The full check (checksum, genome) happens at build time.
function(_gi_entry_state out_state out_reason entry key)
    if(NOT EXISTS "${entry}")
        set(${out_state} missing PARENT_SCOPE)
        set(${out_reason} "no cache entry ${entry}" PARENT_SCOPE)
        return()
    endif()
    # Only a plain file of an entry's size is read: a committed link may lead anywhere (/dev/urandom).
    if(IS_SYMLINK "${entry}" OR IS_DIRECTORY "${entry}")
        set(${out_state} stale PARENT_SCOPE)
        set(${out_reason} "${entry} is a symbolic link or a folder, not a cache entry (entries are plain files)" PARENT_SCOPE)
        return()
    endif()
    file(READ "${entry}" content LIMIT 1048577)
    string(LENGTH "${content}" length)
    if(length GREATER 1048576)
        set(${out_state} stale PARENT_SCOPE)
        set(${out_reason} "${entry} is larger than any cache entry (1 MiB); it is not one" PARENT_SCOPE)
        return()
    endif()
    if(NOT content MATCHES "<key[^>]*>([0-9a-f]+)</key>")
        set(${out_state} stale PARENT_SCOPE)
        set(${out_reason} "${entry} has no readable <key> (corrupt? 'gi-tool cache show' explains)" PARENT_SCOPE)
    elseif(NOT CMAKE_MATCH_1 STREQUAL key)
        set(${out_state} stale PARENT_SCOPE)
        set(${out_reason} "${entry} is stale: the kernel source, its registration or the grammar version changed since it was made (the build prints which)" PARENT_SCOPE)
    else()
        set(${out_state} cached PARENT_SCOPE)
        set(${out_reason} "${entry}" PARENT_SCOPE)
    endif()
endfunction()

# _gi_gpu_architecture(<out-var>): the architecture of this machine's first GPU ("" when none), from
# GI_GPU_ARCHITECTURE or nvidia-smi (asked once per configure).
function(_gi_gpu_architecture out_var)
    if(GI_GPU_ARCHITECTURE STREQUAL "none")
        set(${out_var} "" PARENT_SCOPE)
        return()
    elseif(NOT GI_GPU_ARCHITECTURE STREQUAL "")
        if(NOT GI_GPU_ARCHITECTURE MATCHES "^[1-9][0-9]+$")
            message(FATAL_ERROR "gi-optimize: GI_GPU_ARCHITECTURE='${GI_GPU_ARCHITECTURE}' is not an "
                                "architecture number such as 90 (or 'none', or empty to detect it)")
        endif()
        set(${out_var} "${GI_GPU_ARCHITECTURE}" PARENT_SCOPE)
        return()
    endif()
    get_property(known GLOBAL PROPERTY _GI_DETECTED_GPU SET)
    if(NOT known)
        set(detected "")
        find_program(_GI_NVIDIA_SMI nvidia-smi)
        mark_as_advanced(_GI_NVIDIA_SMI)
        if(_GI_NVIDIA_SMI)
            execute_process(COMMAND "${_GI_NVIDIA_SMI}" --query-gpu=compute_cap,name,driver_version --format=csv,noheader
                            RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET TIMEOUT 30)
            if(rc EQUAL 0 AND out MATCHES "^([0-9]+)\\.([0-9]+), *([^,\n]*), *([^\n]*)")
                set(detected "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
                # For the provenance of entries evolved here.
                set_property(GLOBAL PROPERTY _GI_DETECTED_GPU_NAME "${CMAKE_MATCH_3}")
                set_property(GLOBAL PROPERTY _GI_DETECTED_GPU_DRIVER "${CMAKE_MATCH_4}")
                _gi_debug("nvidia-smi reports a GPU of architecture sm_${detected} (${CMAKE_MATCH_3}, driver ${CMAKE_MATCH_4})")
            else()
                _gi_debug("nvidia-smi found no usable GPU (exit status ${rc})")
            endif()
        else()
            _gi_debug("no nvidia-smi on PATH: no GPU, so no evolution during this build")
        endif()
        set_property(GLOBAL PROPERTY _GI_DETECTED_GPU "${detected}")
    endif()
    get_property(detected GLOBAL PROPERTY _GI_DETECTED_GPU)
    set(${out_var} "${detected}" PARENT_SCOPE)
endfunction()

# _gi_tool_command(<out-var>): how custom commands run gi-tool: GI_OPTIMIZE_TOOL, else the
# GIOptimize::gi-tool target (built in this project or imported from an install). Asked for only
# where a build evolves: a build of cached variants needs gi-apply alone.
function(_gi_tool_command out_var)
    if(NOT GI_OPTIMIZE_TOOL STREQUAL "")
        if(NOT EXISTS "${GI_OPTIMIZE_TOOL}")
            message(FATAL_ERROR "gi-optimize: GI_OPTIMIZE_TOOL='${GI_OPTIMIZE_TOOL}' does not exist")
        endif()
        _gi_check_tool("${GI_OPTIMIZE_TOOL}")
        set(${out_var} "${GI_OPTIMIZE_TOOL}" PARENT_SCOPE)
    elseif(TARGET GIOptimize::gi-tool)
        set(${out_var} GIOptimize::gi-tool PARENT_SCOPE)
    else()
        get_property(unavailable GLOBAL PROPERTY GI_OPTIMIZE_TOOL_UNAVAILABLE)
        if(unavailable)
            message(FATAL_ERROR "gi-optimize: this build must evolve a kernel (a GPU is here and a cache entry is "
                                "missing), but ${unavailable}. Install them and configure again, set GI_OPTIMIZE_TOOL "
                                "to a gi-tool executable, or set GI_GPU_ARCHITECTURE=none to build the original kernel")
        endif()
        message(FATAL_ERROR "gi-optimize: no gi-tool: include gi-optimize with add_subdirectory, FetchContent or "
                            "find_package(GIOptimize), or set GI_OPTIMIZE_TOOL to a gi-tool executable")
    endif()
endfunction()

# _gi_check_tool(<path>): GI_OPTIMIZE_TOOL must be a gi-tool of this gi-optimize's grammar: anything
# else (/bin/true, an old gi-tool) would write no generated files, or entries the build then calls
# stale. Asked once per configure: `<path> version` prints "gi-tool <version>" and "grammar version <n>".
function(_gi_check_tool path)
    get_property(checked GLOBAL PROPERTY _GI_TOOL_CHECKED)
    if(checked STREQUAL path)
        return()
    endif()
    execute_process(COMMAND "${path}" version RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output
                    TIMEOUT 60)
    string(STRIP "${output}" shown)
    string(REPLACE "\n" " | " shown "${shown}")
    if(NOT status EQUAL 0 OR NOT output MATCHES "(^|\n)gi-tool [^\n]*\ngrammar version ([0-9]+)")
        message(FATAL_ERROR "gi-optimize: GI_OPTIMIZE_TOOL='${path}' is not a gi-tool: '${path} version' answered "
                            "'${shown}' (exit status ${status}) where gi-tool prints 'gi-tool <version>' and 'grammar "
                            "version <n>'. Point it at gi-tool, or leave it empty to build gi-optimize's own")
    endif()
    set(tool_grammar "${CMAKE_MATCH_2}")
    _gi_key_versions(grammar_version ignored)
    if(NOT tool_grammar STREQUAL grammar_version)
        message(FATAL_ERROR "gi-optimize: GI_OPTIMIZE_TOOL='${path}' has grammar version ${tool_grammar}, this "
                            "gi-optimize ${grammar_version}: the entries it reads and writes would not match the keys "
                            "this build computes. Use the gi-tool of this gi-optimize")
    endif()
    set_property(GLOBAL PROPERTY _GI_TOOL_CHECKED "${path}")
endfunction()

# _gi_writable_folder(<out-var> <dir>): whether <dir> can be written (or, not existing yet, created):
# tried by creating and removing a file in it, or in its nearest existing parent.
function(_gi_writable_folder out_var dir)
    set(existing "${dir}")
    while(NOT EXISTS "${existing}")
        cmake_path(GET existing PARENT_PATH parent)
        if(parent STREQUAL existing)
            break()
        endif()
        set(existing "${parent}")
    endwhile()
    string(RANDOM LENGTH 12 suffix)
    set(probe "${existing}/.gi-optimize-write-test-${suffix}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E touch "${probe}" RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
    if(status EQUAL 0 AND EXISTS "${probe}")
        file(REMOVE "${probe}")
        set(${out_var} TRUE PARENT_SCOPE)
    else()
        set(${out_var} FALSE PARENT_SCOPE)
    endif()
endfunction()

# _gi_apply_command(<command-var> <depends-var>): how the build-time step runs: GI_OPTIMIZE_TOOL's
# `cache apply`, else gi-apply (a few dozen files to compile, where gi-tool is a few hundred), else
# an installed gi-tool's `cache apply` (a package from before gi-apply existed).
function(_gi_apply_command command_var depends_var)
    if(NOT GI_OPTIMIZE_TOOL STREQUAL "")
        _gi_tool_command(tool)
        set(${command_var} "${tool}" cache apply PARENT_SCOPE)
        set(${depends_var} "${tool}" PARENT_SCOPE)
    elseif(TARGET GIOptimize::gi-apply)
        set(${command_var} GIOptimize::gi-apply PARENT_SCOPE)
        set(${depends_var} GIOptimize::gi-apply PARENT_SCOPE)
    else()
        _gi_tool_command(tool)
        set(${command_var} "${tool}" cache apply PARENT_SCOPE)
        set(${depends_var} "${tool}" PARENT_SCOPE)
    endif()
endfunction()

# _gi_entry_folder(<cache-dir-var> <target> <kernel> <cache-dir>): where this registration's entries
# live. An entry file is named after the function and the architecture only, so two targets that
# register one kernel's function with different registrations (other PARAMS, say) in one cache
# folder would share a file that always fits only one of them. The first registration, in the order
# CMake reads the calls, keeps CACHE_DIR (so a committed cache stays valid); another one gets
# CACHE_DIR/<target>, and configure says so. Identical registrations share the entry. Uses the
# caller's GI_FUNCTION, params, GI_FLAGS, GI_BLOCK_SIZE, GI_GRID and GI_TOLERANCE.
function(_gi_entry_folder cache_dir_var target kernel cache_dir)
    set(signature "${kernel}")
    foreach(field GI_FUNCTION params GI_FLAGS GI_TOLERANCE)
        set(items "")
        foreach(item IN LISTS ${field})
            _gi_normalize(item "${item}")
            list(APPEND items "${item}")
        endforeach()
        string(APPEND signature "\n${field}: ${items}")
    endforeach()
    foreach(field GI_BLOCK_SIZE GI_GRID)  # joined as the key joins them
        string(JOIN "," text ${${field}})
        _gi_normalize(text "${text}")
        string(APPEND signature "\n${field}: ${text}")
    endforeach()
    _gi_name_for_files(entry_name "+" ${GI_FUNCTION})
    string(SHA256 slot "${cache_dir}/${entry_name}")
    get_property(owner GLOBAL PROPERTY _GI_ENTRY_${slot}_TARGET)
    get_property(owner_signature GLOBAL PROPERTY _GI_ENTRY_${slot}_SIGNATURE)
    if("${owner}" STREQUAL "")
        set_property(GLOBAL PROPERTY _GI_ENTRY_${slot}_TARGET "${target}")
        set_property(GLOBAL PROPERTY _GI_ENTRY_${slot}_SIGNATURE "${signature}")
        return()
    endif()
    if("${owner_signature}" STREQUAL "${signature}")
        _gi_debug("${target}: ${entry_name}: shares the entries in ${cache_dir} with target '${owner}' (the same "
                  "kernel and registration)")
        return()
    endif()
    set(own "${cache_dir}/${target}")
    message(STATUS "gi-optimize: ${target}: ${entry_name}: its cache entries are in ${own}/, since target '${owner}' "
                   "registers ${entry_name} in ${cache_dir} with another registration")
    set(${cache_dir_var} "${own}" PARENT_SCOPE)
endfunction()

#[=======================================================================[.rst:
gi_optimize_cuda_kernel
-----------------------

Registers a CUDA kernel of ``<target>`` for genetic improvement::

  gi_optimize_cuda_kernel(<target>
      KERNEL <file.cu | header.cuh> FUNCTION <name>...
      RECORDER <executable-target> [ARGS <arg>...]
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
``RECORDER ARGS`` through ``gi-tool record``, evolves the kernel within ``BUDGET`` minutes (validating
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
    set(one_value_keywords KERNEL RECORDER CACHE_DIR BUDGET)
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
                 "KERNEL, RECORDER, CACHE_DIR and BUDGET take one value, NONDETERMINISTIC and ALLOW_UNVALIDATED none)")
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
    foreach(keyword KERNEL FUNCTION RECORDER)
        if(NOT DEFINED GI_${keyword})
            _gi_fail("${keyword} is required (see docs/cmake.md: KERNEL <file.cu> FUNCTION <name> RECORDER <target>)")
        endif()
    endforeach()

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
            recorder:GI_RECORDER recorder_args:GI_ARGS held_out:GI_HELD_OUT sanitize_args:GI_SANITIZE_ARGS
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

# _gi_registration_arguments(<out-var> <target> <identifier>): the gi-tool options describing the
# registration (what the cache key covers), in the order gi-tool hashes them.
function(_gi_registration_arguments out_var target identifier)
    set(prefix "_GI_${identifier}")
    get_target_property(functions "${target}" ${prefix}_functions)
    get_target_property(params "${target}" ${prefix}_params)
    get_target_property(flags "${target}" ${prefix}_flags)
    get_target_property(block_size "${target}" ${prefix}_block_size)
    get_target_property(grid "${target}" ${prefix}_grid)
    get_target_property(tolerance "${target}" ${prefix}_tolerance)
    set(arguments "")
    foreach(function IN LISTS functions)
        list(APPEND arguments --function "${function}")
    endforeach()
    foreach(param IN LISTS params)
        list(APPEND arguments --param "${param}")
    endforeach()
    foreach(flag IN LISTS flags)
        list(APPEND arguments --flag "${flag}")
    endforeach()
    if(block_size)
        string(JOIN "," block_size ${block_size})
        list(APPEND arguments --block-size "${block_size}")
    endif()
    if(grid)
        string(JOIN "," grid ${grid})
        list(APPEND arguments --grid "${grid}")
    endif()
    foreach(item IN LISTS tolerance)
        list(APPEND arguments --tolerance "${item}")
    endforeach()
    set(${out_var} "${arguments}" PARENT_SCOPE)
endfunction()

# _gi_twin(<twin> <source-target> <replaced> <replacements> <gpu-architecture> <gen-dir> [<include-dir>])
# An executable made from <source-target>'s sources and settings, for <gpu-architecture> only, with
# its sources compiled as they are, except those of the list <replaced>, each replaced by the same
# item of <replacements> (the kernel file by a generated wrapper, or the sources that include a kernel
# header by their copies; the generated header folder <include-dir> comes first). Settings are read
# when the build is generated, so later changes count; the folder of the target's own generated
# header (under <gen-dir>) is left out, since its values describe the target's variant, not the twin's.
function(_gi_twin twin source_target replaced replacements gpu_architecture gen_dir)
    get_target_property(sources "${source_target}" SOURCES)
    get_target_property(source_dir "${source_target}" SOURCE_DIR)
    set(absolute_sources "")
    foreach(source IN LISTS sources)
        if(source MATCHES "^\\$<")
            list(APPEND absolute_sources "${source}")
            continue()
        endif()
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE absolute)
        list(FIND replaced "${absolute}" at)
        if(at GREATER -1)
            list(GET replacements ${at} absolute)
        endif()
        list(APPEND absolute_sources "${absolute}")
    endforeach()
    add_executable("${twin}" EXCLUDE_FROM_ALL ${absolute_sources})
    set(t "${source_target}")
    if(ARGN)
        target_include_directories("${twin}" PRIVATE ${ARGN})
    endif()
    string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" gen_dir_regex "${gen_dir}")
    target_include_directories("${twin}" PRIVATE
        "$<FILTER:$<TARGET_PROPERTY:${t},INCLUDE_DIRECTORIES>,EXCLUDE,^${gen_dir_regex}>")
    target_compile_definitions("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},COMPILE_DEFINITIONS>")
    target_compile_options("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},COMPILE_OPTIONS>")
    target_compile_features("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},COMPILE_FEATURES>")
    target_link_libraries("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},LINK_LIBRARIES>")
    target_link_options("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},LINK_OPTIONS>")
    foreach(property CXX_STANDARD CUDA_STANDARD CUDA_SEPARABLE_COMPILATION CUDA_RUNTIME_LIBRARY)
        get_target_property(value "${source_target}" ${property})
        if(NOT value STREQUAL "value-NOTFOUND")
            set_property(TARGET "${twin}" PROPERTY ${property} "${value}")
        endif()
    endforeach()
    set_property(TARGET "${twin}" PROPERTY CUDA_ARCHITECTURES "${gpu_architecture}")
endfunction()

# _gi_recorder_target(<out-var> <target> <recorder> <gpu-architecture> <gen-dir> <kernel>): the
# executable that records test cases. When it is the optimised target itself (the usual case: the
# program records while it runs), a twin with the original kernel, since the target's variant
# cannot be built before its evolution has run.
function(_gi_recorder_target out_var target recorder gpu_architecture gen_dir kernel)
    if(NOT recorder STREQUAL target)
        set(${out_var} "${recorder}" PARENT_SCOPE)
        return()
    endif()
    set(twin "${target}_gi_recorder")
    if(NOT TARGET "${twin}")
        _gi_twin("${twin}" "${target}" "" "" "${gpu_architecture}" "${gen_dir}")
        _gi_debug("${target}: RECORDER is the target itself: recording with its twin '${twin}' (original kernel, sm_${gpu_architecture})")
    endif()
    set(${out_var} "${twin}" PARENT_SCOPE)
endfunction()

# _gi_bracket(<out-var> <items>...): the items as CMake bracket arguments, for a generated script.
function(_gi_bracket out_var)
    set(text "")
    foreach(item IN LISTS ARGN)
        string(APPEND text " [==[${item}]==]")
    endforeach()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# _gi_wrapper_properties(<wrapper> <kernel> <options-files> [<include-dir>...]): a generated file
# compiled in the place of <kernel> (the kernel file, or a source that includes a kernel header) gets
# its source properties; its folder is not the kernel's, so the kernel's folder is added for the
# kernel's own #include "..." (and the <include-dir>s: the folders of the kernel headers a copy's
# variants come from), and the variants' compile options come from <options-files>.
function(_gi_wrapper_properties wrapper kernel options_files)
    cmake_path(GET kernel PARENT_PATH kernel_dir)
    set(wrapper_includes "${kernel_dir}" ${ARGN})
    get_source_file_property(kernel_includes "${kernel}" INCLUDE_DIRECTORIES)
    if(kernel_includes)
        list(APPEND wrapper_includes ${kernel_includes})
    endif()
    list(REMOVE_DUPLICATES wrapper_includes)
    set(wrapper_options "")
    foreach(options_file IN LISTS options_files)
        list(APPEND wrapper_options "--options-file=${options_file}")
    endforeach()
    get_source_file_property(kernel_options "${kernel}" COMPILE_OPTIONS)
    if(kernel_options)
        list(PREPEND wrapper_options ${kernel_options})
    endif()
    set_source_files_properties("${wrapper}" PROPERTIES
        LANGUAGE CUDA GENERATED TRUE
        INCLUDE_DIRECTORIES "${wrapper_includes}"
        COMPILE_OPTIONS "${wrapper_options}"
        OBJECT_DEPENDS "${options_files}")
    get_source_file_property(kernel_definitions "${kernel}" COMPILE_DEFINITIONS)
    if(kernel_definitions)
        set_property(SOURCE "${wrapper}" PROPERTY COMPILE_DEFINITIONS ${kernel_definitions})
    endif()
endfunction()

# _gi_compile_arguments(<out-var> <target> <kernel> <gen-dir>): how <target> compiles <kernel>, as
# gi-tool arguments (-I DIR, -D NAME[=VALUE], --compile-option WORD), so gi-tool compiles the
# kernel file as the program does: the target's include folders and definitions with their
# transitive usage requirements (generator expressions, evaluated at generation; the folder of the
# target's own generated header left out), those set on the kernel source itself, its CUDA
# standard, separable compilation, and the CUDA words among its literal compile options.
# [<lines-var>]: the same as text for file(GENERATE), one argument per line.
# _gi_cuda_option(<out-var> <option>): a target compile option as the target's CUDA compile sees it:
# $<COMPILE_LANGUAGE:...> and $<COMPILE_LANG_AND_ID:...> decided for CUDA, an option that is then
# $<1:X> or $<0:X> reduced to X or "".
function(_gi_cuda_option out_var option)
    string(REGEX REPLACE "\\$<COMPILE_LANG_AND_ID:CUDA,[^>]*>" "1" option "${option}")
    string(REGEX REPLACE "\\$<COMPILE_LANG_AND_ID:[^>]*>" "0" option "${option}")
    string(REGEX REPLACE "\\$<COMPILE_LANGUAGE:([^>]*,)?CUDA(,[^>]*)?>" "1" option "${option}")
    string(REGEX REPLACE "\\$<COMPILE_LANGUAGE:[^>]*>" "0" option "${option}")
    string(REPLACE "$<COMPILE_LANGUAGE>" "CUDA" option "${option}")
    if(option MATCHES "^\\$<1:(.*)>$")
        set(option "${CMAKE_MATCH_1}")
    elseif(option MATCHES "^\\$<0:.*>$")
        set(option "")
    endif()
    set(${out_var} "${option}" PARENT_SCOPE)
endfunction()

function(_gi_compile_arguments out_var target kernel gen_dir)
    set(t "${target}")
    string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" gen_dir_regex "${gen_dir}")
    set(includes "$<FILTER:$<TARGET_PROPERTY:${t},INCLUDE_DIRECTORIES>,EXCLUDE,^${gen_dir_regex}>")
    set(definitions "$<TARGET_PROPERTY:${t},COMPILE_DEFINITIONS>")
    # $<SEMICOLON>: a ';' here would cut the expression in two; evaluated, it separates arguments.
    set(arguments "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
                  "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>")
    set(lines "$<$<BOOL:${includes}>:-I$<JOIN:${includes},\n-I>\n>$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},\n-D>\n>")
    list(LENGTH arguments generated)  # the arguments above are already in `lines`
    # A kernel header is compiled as the (first) source that includes it: with that source's properties.
    set(compiled_source "${kernel}")
    _gi_header_kernel(header "${kernel}")
    if(header)
        _gi_kernel_includers(includers "${target}" "${kernel}")
        if(includers)
            list(GET includers 0 compiled_source)
        endif()
    endif()
    get_source_file_property(source_includes "${compiled_source}" INCLUDE_DIRECTORIES)
    foreach(dir IN LISTS source_includes)
        if(dir)
            list(APPEND arguments "-I${dir}")
        endif()
    endforeach()
    get_source_file_property(source_definitions "${compiled_source}" COMPILE_DEFINITIONS)
    foreach(definition IN LISTS source_definitions)
        if(definition)
            list(APPEND arguments "-D${definition}")
        endif()
    endforeach()
    get_target_property(standard "${target}" CUDA_STANDARD)
    if(standard MATCHES "^[0-9]+$")
        list(APPEND arguments --compile-option "-std=c++${standard}")
    endif()
    get_target_property(separable "${target}" CUDA_SEPARABLE_COMPILATION)
    if(separable)
        list(APPEND arguments --compile-option -rdc=true)
    endif()
    # The target's compile options as its CUDA compile sees them (fast math, -Xptxas, -G change the
    # kernel's code and numbers; the oracle gate would stop a run compiled without them). Language
    # conditions are decided here, since $<COMPILE_LANGUAGE> means nothing outside a compile; other
    # conditions ($<CONFIG:Debug>) are left to the build, and an option they turn off is dropped.
    list(LENGTH arguments before_options)  # the option arguments below are written to `option_lines`
    get_target_property(options "${target}" COMPILE_OPTIONS)
    if(NOT options)
        set(options "")
    endif()
    set(option_lines "")
    set(architecture_value FALSE)
    foreach(option IN LISTS options)
        _gi_cuda_option(option "${option}")
        # The architecture is gi-tool's to set (one per cache entry): -arch X, -gencode=..., -code X.
        if(architecture_value OR option STREQUAL "")
            set(architecture_value FALSE)
            continue()
        elseif(option MATCHES "^(-arch|--gpu-architecture|-gencode|--generate-code|-code|--gpu-code)(=|$)")
            if(CMAKE_MATCH_2 STREQUAL "")
                set(architecture_value TRUE)
            endif()
            continue()
        endif()
        if(option MATCHES "^SHELL:(.*)$")
            separate_arguments(words UNIX_COMMAND "${CMAKE_MATCH_1}")
        else()
            set(words "${option}")
        endif()
        foreach(word IN LISTS words)
            if(word MATCHES "\\$<")
                list(APPEND arguments "$<$<BOOL:${word}>:--compile-option=>${word}")
                string(APPEND option_lines "$<$<BOOL:${word}>:--compile-option=${word}\n>")
            else()
                list(APPEND arguments --compile-option "${word}")
                string(REPLACE "$<" "$$<1:<>" word "${word}")
                string(APPEND option_lines "--compile-option\n${word}\n")
            endif()
        endforeach()
    endforeach()
    set(${out_var} "${arguments}" PARENT_SCOPE)
    if(ARGC GREATER 4)
        set(index 0)
        foreach(argument IN LISTS arguments)
            if(index GREATER_EQUAL generated AND index LESS before_options)
                string(REPLACE "$<" "$$<1:<>" argument "${argument}")  # a literal "$<" stays literal
                string(APPEND lines "${argument}\n")
            endif()
            math(EXPR index "${index} + 1")
        endforeach()
        set(${ARGV4} "${lines}${option_lines}" PARENT_SCOPE)
    endif()
endfunction()

# _gi_file_registrations(<out-var> <target> <kernel>): the registrations of <target> whose KERNEL
# is <kernel>, in the order of the calls (the order their variants are put together in).
function(_gi_file_registrations out_var target kernel)
    get_property(registered TARGET "${target}" PROPERTY _GI_REGISTRATIONS)
    set(result "")
    foreach(identifier IN LISTS registered)
        get_target_property(other_kernel "${target}" _GI_${identifier}_kernel)
        if(other_kernel STREQUAL kernel)
            list(APPEND result "${identifier}")
        endif()
    endforeach()
    set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# _gi_work_names(<work-var> <accept-var> <target> <identifier> <recorder> <gen-dir> <architecture>):
# the folder an evolution works in and the name of its acceptance program. A target with one
# registration keeps the short names (evolve.sm_90, <recorder>_gi_accept_sm90); with several, each
# registration's are its own.
function(_gi_work_names work_var accept_var target identifier recorder gen_dir architecture)
    get_property(registered TARGET "${target}" PROPERTY _GI_REGISTRATIONS)
    list(LENGTH registered count)
    if(count GREATER 1)
        set(${work_var} "${gen_dir}/evolve.${identifier}.sm_${architecture}" PARENT_SCOPE)
        set(${accept_var} "${recorder}_gi_accept_${identifier}_sm${architecture}" PARENT_SCOPE)
    else()
        set(${work_var} "${gen_dir}/evolve.sm_${architecture}" PARENT_SCOPE)
        set(${accept_var} "${recorder}_gi_accept_sm${architecture}" PARENT_SCOPE)
    endif()
endfunction()

# _gi_apply_registrations(<out-args> <out-headers> <out-depends> <target> <kernel> <architecture>
#                         <header-dir> [<identifier> <cache-dir>]):
# the registration part of a `gi-tool cache apply` command for every registered kernel of
# <kernel>, joined by --and in the order of the calls, each with its cache folder (for
# <identifier>, <cache-dir> instead: a candidate) and its header in <header-dir>. <out-depends>:
# the other registrations' entries for <architecture> that exist now and the stamps of their
# acceptance steps in this build, which must come first (their entries are read); none for an empty
# <architecture> (the target's own apply step, which depends on every entry and stamp itself).
function(_gi_apply_registrations out_args out_headers out_depends target kernel architecture header_dir)
    set(replaced "")
    set(replacement "")
    if(ARGC GREATER 8)
        set(replaced "${ARGV7}")
        set(replacement "${ARGV8}")
    endif()
    _gi_file_registrations(file_registrations "${target}" "${kernel}")
    set(arguments "")
    set(headers "")
    set(depends "")
    foreach(identifier IN LISTS file_registrations)
        if(NOT arguments STREQUAL "")
            list(APPEND arguments --and)
        endif()
        _gi_registration_arguments(registration "${target}" "${identifier}")
        get_target_property(cache_dir "${target}" _GI_${identifier}_cache_dir)
        if(identifier STREQUAL replaced)
            set(cache_dir "${replacement}")
        elseif(NOT architecture STREQUAL "")
            get_target_property(functions "${target}" _GI_${identifier}_functions)
            _gi_name_for_files(entry_name "+" ${functions})
            if(EXISTS "${cache_dir}/${entry_name}.sm_${architecture}.xml")
                list(APPEND depends "${cache_dir}/${entry_name}.sm_${architecture}.xml")
            endif()
            get_property(stamp TARGET "${target}" PROPERTY _GI_${identifier}_accepted_sm${architecture})
            if(stamp)
                list(APPEND depends "${stamp}")
            endif()
        endif()
        list(APPEND arguments ${registration} --cache-dir "${cache_dir}" --header "${header_dir}/${identifier}.gi.h")
        list(APPEND headers "${header_dir}/${identifier}.gi.h")
    endforeach()
    set(${out_args} "${arguments}" PARENT_SCOPE)
    set(${out_headers} "${headers}" PARENT_SCOPE)
    set(${out_depends} "${depends}" PARENT_SCOPE)
endfunction()

# _gi_file_identifier(<out-var> <target> <kernel>): how the generated files of <kernel> are named:
# its registration's identifier, or all of them joined by '+' (gi-tool cache apply does the same).
function(_gi_file_identifier out_var target kernel)
    _gi_file_registrations(file_registrations "${target}" "${kernel}")
    list(JOIN file_registrations "+" joined)
    set(${out_var} "${joined}" PARENT_SCOPE)
endfunction()

# _gi_evolve_steps(<out-stamp> <target> <identifier> <architecture> <gen-dir> <tool> <registration>
#                  <block-size> <compiled-count>): the build steps that make an entry on this machine's GPU. They run
# in the build, never at configure time:
#   1. record the training (ARGS) and HELD_OUT cases with `gi-tool record` (which captures the kernel
#      file's module variables too), evolve within what is left of BUDGET, and write the run's entry
#      as a candidate in the build folder (`cache write` refuses an unfinished or unvalidated run):
#      GIOptimizeEvolve.cmake, with the settings generated here;
#   2. build the recorder program with the candidate variant compiled in (a twin, like the target's
#      own build) and run it through `gi-tool accept` with the HELD_OUT arguments (else ARGS): only
#      when it succeeds and reproduces the original's recorded outputs does the candidate enter
#      CACHE_DIR (GIOptimizeAccept.cmake; an empty genome, the original kernel, needs no such run,
#      and no such program: the step builds it only when it has a variant to run).
# A failure of either step leaves the target on the original kernel with one line saying why (an
# error with GI_STRICT). <out-stamp> is the file the final generation step waits for. <compiled-count>:
# how many architectures the target compiles (two or more share one host pass).
function(_gi_evolve_steps out_stamp target identifier architecture gen_dir tool registration block_size_text
         compiled_count)
    set(prefix "_GI_${identifier}")
    foreach(name kernel functions tolerance cache_dir budget recorder recorder_args held_out sanitize_args
            nondeterministic allow_unvalidated)
        get_target_property(${name} "${target}" ${prefix}_${name})
        if(${name} MATCHES "-NOTFOUND$")
            set(${name} "")
        endif()
    endforeach()
    list(GET functions 0 function)
    list(JOIN functions "+" kernel_name)
    _gi_name_for_files(entry_name "+" ${functions})
    set(entry_file "${entry_name}.sm_${architecture}.xml")

    _gi_recorder_target(recorder_target "${target}" "${recorder}" "${architecture}" "${gen_dir}" "${kernel}")
    _gi_compile_arguments(compile_arguments "${target}" "${kernel}" "${gen_dir}")
    _gi_work_names(work accept_target "${target}" "${identifier}" "${recorder}" "${gen_dir}" "${architecture}")
    set(evolved_stamp "${work}/evolved.stamp")
    # A template whose argument is a parameter ("MatrixMulCUDA<TILE>", PARAMS TILE ...): the program
    # names its launches after the template (gi::launch(MatrixMulCUDA<TILE>, "MatrixMulCUDA", ...)),
    # since the instantiation changes with the variant.
    set(recorded_name "")
    get_target_property(params "${target}" ${prefix}_params)
    if(function MATCHES "^([A-Za-z_][A-Za-z0-9_]*)[ \t]*<(.*)>$")
        set(base "${CMAKE_MATCH_1}")
        string(REPLACE "," ";" template_arguments "${CMAKE_MATCH_2}")
        foreach(argument IN LISTS template_arguments)
            string(STRIP "${argument}" argument)
            foreach(declaration IN LISTS params)
                string(REGEX REPLACE "=.*" "" name "${declaration}")
                if(argument STREQUAL name)
                    set(recorded_name "${base}")
                endif()
            endforeach()
        endforeach()
    endif()
    set(record_options --function "${function}" --arch sm_${architecture} ${compile_arguments})
    if(recorded_name)
        list(APPEND record_options --recorded-name "${recorded_name}")
        _gi_debug("${target}: ${function}: its template argument is a parameter, so its launches are recorded under "
                  "the name '${recorded_name}'")
    endif()
    # The further recordings: HELD_OUT (validation), SANITIZE_ARGS (small cases for the search's
    # sanitizer gate: memcheck of a large case costs seconds a variant, issue 19; the final checks
    # still run on the training and held-out cases).
    set(case_options "")
    foreach(recording "held_out:held-out:--held-out" "sanitize_args:sanitize-cases:--sanitize-cases")
        string(REPLACE ":" ";" recording "${recording}")
        list(GET recording 0 arguments)
        list(GET recording 1 folder)
        list(GET recording 2 option)
        if(${arguments})
            list(APPEND case_options ${option} "${work}/${folder}")
        endif()
    endforeach()
    set(evolve_options "")
    if(nondeterministic)
        list(APPEND evolve_options --nondeterministic)
    endif()
    if(NOT block_size_text STREQUAL "")
        list(APPEND evolve_options --block "${block_size_text}")
    endif()
    # The target's architectures share one host pass, which sees one variant's #defines: cache apply
    # refuses a variant changing one that host code of the kernel file reads, so evolution keeps those
    # at the file's value rather than spend the budget on settings the build would throw away.
    if(compiled_count GREATER 1)
        list(APPEND evolve_options --target-architectures ${compiled_count})
    endif()
    set(write_options --nvcc-version "${CMAKE_CUDA_COMPILER_VERSION}")
    get_property(gpu_name GLOBAL PROPERTY _GI_DETECTED_GPU_NAME)
    get_property(gpu_driver GLOBAL PROPERTY _GI_DETECTED_GPU_DRIVER)
    if(gpu_name)
        list(APPEND write_options --gpu "${gpu_name}" --driver "${gpu_driver}")
    endif()
    if(allow_unvalidated)
        list(APPEND write_options --allow-unvalidated)
    endif()
    math(EXPR budget_seconds "${budget} * 60")
    _gi_strict(strict)
    set(tool_file "${tool}")
    if(TARGET "${tool}")
        set(tool_file "$<TARGET_FILE:${tool}>")
    endif()
    # gi-tool runs variants on the GPU through gi-worker, which it finds next to itself.
    set(worker "")
    if(GI_OPTIMIZE_TOOL STREQUAL "" AND TARGET GIOptimize::gi-worker)
        set(worker GIOptimize::gi-worker)
    endif()

    # The step's settings, as a script it includes (arguments may hold any characters; generator
    # expressions in ARGS are evaluated here, at generation).
    set(settings_text "# Generated by gi_optimize_cuda_kernel() for GIOptimizeEvolve.cmake.\n")
    foreach(setting
            "TOOL:tool_file" "KERNEL:kernel" "LABEL:label" "WORK:work" "ARCHITECTURE:architecture"
            "BUDGET_SECONDS:budget_seconds" "STRICT:strict" "PROGRAM:program_file" "RECORD_OPTIONS:record_options"
            "ARGS:recorder_args" "HELD_OUT:held_out" "SANITIZE_ARGS:sanitize_args" "HAS_HELD_OUT:has_held_out"
            "HAS_SANITIZE_ARGS:has_sanitize_args" "REGISTRATION:registration" "COMPILE_ARGUMENTS:compile_arguments"
            "EVOLVE_OPTIONS:evolve_options" "CASE_OPTIONS:case_options" "WRITE_OPTIONS:write_options")
        string(REPLACE ":" ";" setting "${setting}")
        list(GET setting 0 name)
        list(GET setting 1 variable)
        if(variable STREQUAL "label")
            set(value "${target}: ${kernel_name} sm_${architecture}")
        elseif(variable STREQUAL "program_file")
            set(value "$<TARGET_FILE:${recorder_target}>")
        elseif(variable MATCHES "^has_(.*)$")
            set(value OFF)
            if(NOT "${${CMAKE_MATCH_1}}" STREQUAL "")
                set(value ON)
            endif()
        else()
            set(value "${${variable}}")
        endif()
        _gi_bracket(text ${value})
        string(APPEND settings_text "set(GI_${name}${text})\n")
    endforeach()
    set(evolve_settings "${work}/evolve-settings.cmake")
    file(GENERATE OUTPUT "${evolve_settings}" CONTENT "${settings_text}")
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    add_custom_command(
        OUTPUT "${evolved_stamp}"
        COMMAND "${CMAKE_COMMAND}" "-DGI_EVOLVE_SETTINGS=${evolve_settings}" -P "${module_dir}/GIOptimizeEvolve.cmake"
        COMMAND "${CMAKE_COMMAND}" -E touch "${evolved_stamp}"
        DEPENDS "${kernel}" "${recorder_target}" ${tool} ${worker} "${evolve_settings}"
                "${module_dir}/GIOptimizeEvolve.cmake"
        WORKING_DIRECTORY "${gen_dir}"
        COMMENT "gi-optimize: recording ${kernel_name} with ${recorder_target} and evolving it for sm_${architecture} (at most ${budget} min; log: ${work}/evolve.log)"
        USES_TERMINAL
        VERBATIM)

    # The acceptance program: the recorder with the candidate compiled in. Possible when the
    # recorder compiles the kernel file itself (it is the target, or another program built from it),
    # or, for a kernel header, sources that include it.
    _gi_kernel_includers(recorder_includers "${recorder}" "${kernel}")
    _gi_header_kernel(header "${kernel}")
    set(accept_args "${recorder_args}")
    set(reference "${work}/cases")
    if(held_out)
        set(accept_args "${held_out}")
        set(reference "${work}/held-out")
    endif()
    set(candidate_source "${work}/candidate-source")
    set(program "")
    set(build_command "")
    # What the acceptance program is built from besides its own sources: the candidate's files, made
    # here (their step orders this acceptance after the other kernels' of the file).
    set(candidate_files "")
    if(NOT recorder_includers STREQUAL "")
        # The candidate as the build will compile it: with the other registered kernels of the file
        # as the cache has them (their acceptance steps in this build come first).
        _gi_file_identifier(file_identifier "${target}" "${kernel}")
        set(candidate_wrapper "${candidate_source}/${file_identifier}.gi.cu")
        set(candidate_options "${candidate_source}/${file_identifier}.options")
        _gi_apply_registrations(apply_registrations candidate_headers others "${target}" "${kernel}" "${architecture}"
                                "${candidate_source}/include" "${identifier}" "${work}/candidate")
        set(candidate_files "${candidate_wrapper}" ${candidate_headers} "${candidate_options}"
                            "${candidate_source}/${file_identifier}.sm_${architecture}.cu")
        add_custom_command(
            OUTPUT ${candidate_files}
            COMMAND ${tool} cache apply "${kernel}" --arch ${architecture} --wrapper "${candidate_wrapper}"
                    --options-file "${candidate_options}" ${apply_registrations}
            DEPENDS "${evolved_stamp}" "${kernel}" ${others} ${tool}
            COMMENT "gi-optimize: ${kernel_name} sm_${architecture}: the evolved candidate's source"
            VERBATIM COMMAND_EXPAND_LISTS)
        if(header)
            # The recorder's sources that include the header, as copies including the candidate.
            _gi_include_dirs(include_dirs "${recorder}")
            set(copies "")
            foreach(includer IN LISTS recorder_includers)
                _gi_includer_copy(copy "${includer}" "${candidate_source}" "${include_dirs}" "${kernel}"
                                  "${candidate_wrapper}" "${candidate_options}")
                list(APPEND copies "${copy}")
                list(APPEND candidate_files "${copy}")
            endforeach()
            _gi_twin("${accept_target}" "${recorder}" "${recorder_includers}" "${copies}" "${architecture}"
                     "${gen_dir}" "${candidate_source}/include")
        else()
            _gi_twin("${accept_target}" "${recorder}" "${kernel}" "${candidate_wrapper}" "${architecture}" "${gen_dir}"
                     "${candidate_source}/include")
            _gi_wrapper_properties("${candidate_wrapper}" "${kernel}" "${candidate_options}")
        endif()
        set(program "$<TARGET_FILE:${accept_target}>")
        # Built by the acceptance step itself, and only when there is a variant to run it with: after
        # a failed evolution or an empty genome (the original kernel won) the program is never
        # compiled (with -rdc and nvcc, tens of seconds of a build that gains nothing from it).
        # Everything else it needs is built first: its libraries by the recorder's build (the
        # evolution step waits for it), the candidate's files by the steps above.
        set(build_command "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target "${accept_target}")
        get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
        if(multi_config)
            list(APPEND build_command --config "$<CONFIG>")
        endif()
        _gi_debug("${target}: ${kernel_name} sm_${architecture}: the candidate is accepted by running '${accept_target}' "
                  "(${recorder} with the variant) with ${accept_args}")
    else()
        set(accept_target "")
        message(STATUS "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: RECORDER '${recorder}' does not compile "
                       "${kernel} itself, so the evolved variant cannot be run inside it before it is cached; it is "
                       "checked by replay and held-out validation only")
    endif()

    # The acceptance step's settings, as a script it includes (arguments may hold any characters).
    _gi_bracket(functions_text ${functions})
    _gi_bracket(tolerance_text ${tolerance})
    _gi_bracket(args_text ${accept_args})
    _gi_bracket(compile_text ${compile_arguments})
    _gi_bracket(build_text ${build_command})
    set(settings "${work}/accept-settings.cmake")
    file(GENERATE OUTPUT "${settings}" CONTENT
"# Generated by gi_optimize_cuda_kernel() for GIOptimizeAccept.cmake.
set(GI_TOOL [==[${tool_file}]==])
set(GI_KERNEL [==[${kernel}]==])
set(GI_FUNCTIONS${functions_text})
set(GI_RECORDED_NAME [==[${recorded_name}]==])
set(GI_TOLERANCE${tolerance_text})
set(GI_ARCHITECTURE [==[${architecture}]==])
set(GI_PROGRAM [==[${program}]==])
set(GI_PROGRAM_TARGET [==[${accept_target}]==])
set(GI_BUILD_COMMAND${build_text})
set(GI_PROGRAM_ARGS${args_text})
set(GI_COMPILE_ARGUMENTS${compile_text})
set(GI_REFERENCE [==[${reference}]==])
set(GI_ACCEPTED [==[${work}/accepted]==])
set(GI_CANDIDATE [==[${work}/candidate/${entry_file}]==])
set(GI_CACHE_ENTRY [==[${cache_dir}/${entry_file}]==])
set(GI_LABEL [==[${target}: ${kernel_name} sm_${architecture}]==])
set(GI_STRICT ${strict})
set(GI_FAILURE_FILE [==[${work}/failure.txt]==])
set(GI_BUDGET_FILE [==[${work}/budget.cmake]==])
")
    set(accepted_stamp "${work}/accepted.stamp")
    add_custom_command(
        OUTPUT "${accepted_stamp}"
        COMMAND "${CMAKE_COMMAND}" "-DGI_ACCEPT_SETTINGS=${settings}" -P "${module_dir}/GIOptimizeAccept.cmake"
        COMMAND "${CMAKE_COMMAND}" -E touch "${accepted_stamp}"
        DEPENDS "${evolved_stamp}" ${candidate_files} "${settings}" "${module_dir}/GIOptimizeAccept.cmake" ${tool}
        WORKING_DIRECTORY "${gen_dir}"
        COMMENT "gi-optimize: ${kernel_name} sm_${architecture}: running ${recorder} with the evolved variant before caching it"
        USES_TERMINAL
        VERBATIM)
    # A later registration of the same file builds its candidate with this entry: after this step.
    set_property(TARGET "${target}" PROPERTY _GI_${identifier}_accepted_sm${architecture} "${accepted_stamp}")
    set(${out_stamp} "${accepted_stamp}" PARENT_SCOPE)
endfunction()

# _gi_includer_copy(<out-var> <includer> <folder> <include-dirs> <headers> <wrappers> <options-files>):
# the copy of <includer>, a source that includes kernel headers, that is compiled in its place. A
# build step writes it under <folder>/includers/ (GIOptimizeIncluder.cmake), with each
# `#include "..."` of an item of the list <headers> (found as configure found it: beside <includer>,
# else in <include-dirs>) replaced by an #include of the same item of <wrappers>, generated files in
# <folder>. The copy gets <includer>'s source properties, the headers' folders on its include path
# (for the variants' own #include "...") and the variants' compile options (<options-files>).
function(_gi_includer_copy out_var includer folder include_dirs headers wrappers options_files)
    string(SHA256 hash "${includer}")
    string(SUBSTRING "${hash}" 0 12 hash)
    cmake_path(GET includer FILENAME name)
    set(copy_dir "${folder}/includers/${hash}")
    set(copy "${copy_dir}/${name}")
    set(substitutions "")
    set(header_dirs "")
    set(wrapper_names "")
    set(index 0)
    foreach(header IN LISTS headers)
        list(GET wrappers ${index} wrapper)
        cmake_path(GET wrapper FILENAME wrapper_name)
        list(APPEND substitutions "${header}" "../../${wrapper_name}")  # relative: no path to escape
        list(APPEND wrapper_names "${wrapper_name}")
        cmake_path(GET header PARENT_PATH header_dir)
        list(APPEND header_dirs "${header_dir}")
        math(EXPR index "${index} + 1")
    endforeach()
    _gi_bracket(includes_text ${include_dirs})
    _gi_bracket(substitutions_text ${substitutions})
    set(settings "${copy_dir}/includer-settings.cmake")
    file(GENERATE OUTPUT "${settings}" CONTENT "# Generated by gi_optimize_cuda_kernel() for GIOptimizeIncluder.cmake.
set(GI_INCLUDER [==[${includer}]==])
set(GI_COPY [==[${copy}]==])
set(GI_INCLUDE_DIRS${includes_text})
set(GI_SUBSTITUTIONS${substitutions_text})
")
    list(JOIN wrapper_names ", " shown)
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    add_custom_command(
        OUTPUT "${copy}"
        COMMAND "${CMAKE_COMMAND}" "-DGI_SETTINGS=${settings}" -P "${module_dir}/GIOptimizeIncluder.cmake"
        DEPENDS "${includer}" "${settings}" "${module_dir}/GIOptimizeIncluder.cmake" ${wrappers}
        COMMENT "gi-optimize: ${name}, including ${shown} for its kernel headers"
        VERBATIM)
    _gi_wrapper_properties("${copy}" "${includer}" "${options_files}" ${header_dirs})
    set(${out_var} "${copy}" PARENT_SCOPE)
endfunction()

# _gi_substitute_includers(<target>): deferred after every _gi_finalize of <target>. Each source of
# <target> that includes registered kernel headers is compiled from its copy (_gi_includer_copy), which
# includes their wrappers instead: one copy per source, however many kernel headers it includes.
function(_gi_substitute_includers target)
    get_property(header_files TARGET "${target}" PROPERTY _GI_HEADER_FILES)
    if(NOT GI_OPTIMIZE OR "${header_files}" STREQUAL "")
        return()
    endif()
    set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/gi-optimize/${target}")
    set(all_includers "")
    foreach(file_identifier IN LISTS header_files)
        get_target_property(header "${target}" _GI_HEADER_${file_identifier}_kernel)
        _gi_kernel_includers(includers "${target}" "${header}")
        foreach(includer IN LISTS includers)
            string(SHA256 key "${includer}")
            if(NOT includer IN_LIST all_includers)
                list(APPEND all_includers "${includer}")
                set(headers_${key} "")
                set(wrappers_${key} "")
                set(options_${key} "")
            endif()
            list(APPEND headers_${key} "${header}")
            list(APPEND wrappers_${key} "${gen_dir}/${file_identifier}.gi.cu")
            list(APPEND options_${key} "${gen_dir}/${file_identifier}.options")
        endforeach()
    endforeach()
    _gi_keep_original_sources("${target}")
    _gi_include_dirs(include_dirs "${target}")
    get_target_property(sources "${target}" SOURCES)
    get_target_property(source_dir "${target}" SOURCE_DIR)
    foreach(includer IN LISTS all_includers)
        string(SHA256 key "${includer}")
        _gi_includer_copy(copy_${key} "${includer}" "${gen_dir}" "${include_dirs}" "${headers_${key}}"
                          "${wrappers_${key}}" "${options_${key}}")
        _gi_debug("${target}: compiles ${copy_${key}} instead of ${includer} (its kernel headers' variants)")
    endforeach()
    set(replaced_sources "")
    foreach(source IN LISTS sources)
        if(NOT source MATCHES "^\\$<")
            cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE absolute)
            if(absolute IN_LIST all_includers)
                string(SHA256 key "${absolute}")
                set(source "${copy_${key}}")
            endif()
        endif()
        list(APPEND replaced_sources "${source}")
    endforeach()
    set_property(TARGET "${target}" PROPERTY SOURCES ${replaced_sources})
endfunction()

# _gi_finalize(<target> <identifier>): the deferred part of gi_optimize_cuda_kernel(): decides, per
# architecture, cached variant / original / evolve, and swaps the kernel for the generated wrapper.
function(_gi_finalize target identifier)
    set(prefix "_GI_${identifier}")
    foreach(name kernel functions params flags block_size grid tolerance architectures cache_dir budget
            recorder recorder_args held_out sanitize_args nondeterministic allow_unvalidated)
        get_target_property(${name} "${target}" ${prefix}_${name})
        if(${name} MATCHES "-NOTFOUND$")
            set(${name} "")
        endif()
    endforeach()
    list(JOIN functions "+" kernel_name)
    cmake_path(GET kernel FILENAME kernel_file_name)
    cmake_path(GET kernel PARENT_PATH kernel_dir)

    # The kernel must be one of the target's sources, since it is what gets replaced; a kernel header
    # must be included by some, which are compiled from copies that include its variants instead.
    get_target_property(sources "${target}" SOURCES)
    get_target_property(source_dir "${target}" SOURCE_DIR)
    _gi_header_kernel(header "${kernel}")
    set(kernel_index -1)
    set(index 0)
    foreach(source IN LISTS sources)
        if(NOT source MATCHES "^\\$<")
            cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE absolute)
            if(absolute STREQUAL kernel)
                set(kernel_index ${index})
            endif()
        endif()
        math(EXPR index "${index} + 1")
    endforeach()
    if(header)
        _gi_kernel_includers(includers "${target}" "${kernel}")
        if(includers STREQUAL "")
            _gi_fail("KERNEL: '${kernel}' is a header, and no CUDA source of target '${target}' includes it (with "
                     "#include \"${kernel_file_name}\", found beside the source or in the target's include folders): "
                     "the kernel is compiled through the .cu files that include it")
        endif()
        list(JOIN includers ", " shown)
        _gi_debug("${target}: ${kernel_name}: ${kernel_file_name} is compiled through ${shown}")
    elseif(kernel_index EQUAL -1)
        _gi_fail("KERNEL: '${kernel}' is not among the sources of target '${target}' (add it with "
                 "add_executable/target_sources: the call replaces it there)")
    endif()

    # Architectures: as given, else the target's, else CMAKE_CUDA_ARCHITECTURES.
    get_target_property(target_architectures "${target}" CUDA_ARCHITECTURES)
    if(target_architectures MATCHES "-NOTFOUND$" OR target_architectures STREQUAL "")
        set(target_architectures "${CMAKE_CUDA_ARCHITECTURES}")
    endif()
    if(target_architectures STREQUAL "" OR target_architectures STREQUAL "OFF")
        _gi_fail("target '${target}' names no CUDA architectures: set CUDA_ARCHITECTURES (or CMAKE_CUDA_ARCHITECTURES) "
                 "or pass ARCHITECTURES 80 90 ...")
    endif()
    _gi_parse_architectures(compiled "CUDA_ARCHITECTURES of '${target}'" ${target_architectures})
    if(architectures STREQUAL "")
        set(architectures "${compiled}")
        list(JOIN architectures " " shown)
        _gi_debug("${target}: ${kernel_name}: architectures from the target: ${shown}")
    else()
        foreach(architecture IN LISTS architectures)
            if(NOT architecture IN_LIST compiled)
                list(JOIN compiled " " shown)
                _gi_fail("ARCHITECTURES: ${architecture} is not among the architectures target '${target}' compiles "
                         "for (${shown}), its variant would never run")
            endif()
        endforeach()
    endif()

    if(NOT TARGET "${recorder}")
        _gi_fail("RECORDER: '${recorder}' is not a target (the program that runs the kernel on real inputs)")
    endif()
    get_target_property(recorder_type "${recorder}" TYPE)
    if(NOT recorder_type STREQUAL "EXECUTABLE")
        _gi_fail("RECORDER: '${recorder}' is a ${recorder_type}, not an executable")
    endif()

    if(NOT GI_OPTIMIZE)
        _gi_debug("${target}: ${kernel_name}: GI_OPTIMIZE is OFF, the target builds the original ${kernel} unchanged")
        return()
    endif()

    # A source that includes the kernel header and is itself a registered kernel file is compiled
    # through that kernel's wrapper, whose variants include the original header: not substituted.
    if(header)
        get_property(registered TARGET "${target}" PROPERTY _GI_REGISTRATIONS)
        foreach(other IN LISTS registered)
            get_target_property(other_kernel "${target}" _GI_${other}_kernel)
            if(other_kernel IN_LIST includers)
                _gi_strict(strict)
                string(CONCAT line "gi-optimize: ${target}: ${kernel_name}: original kernel (${kernel_file_name} is included "
                       "by ${other_kernel}, which is itself registered as the KERNEL of ${other}: the variants of a "
                       "kernel header are compiled only through sources that are not registered kernel files)")
                if(strict)
                    message(FATAL_ERROR "${line}. GI_STRICT is ON, so this is an error")
                endif()
                message(WARNING "${line}")
                return()
            endif()
        endforeach()
    endif()

    _gi_registration_arguments(registration "${target}" "${identifier}")
    _gi_apply_command(apply_command apply_depends)
    _gi_gpu_architecture(gpu)
    string(JOIN "," block_size_text ${block_size})
    string(JOIN "," grid_text ${grid})
    # Only what the registration has: an empty value after a keyword is what CMake 3.31+ warns about
    # (CMP0174), and the key treats a missing one as empty anyway.
    set(key_geometry "")
    if(NOT block_size_text STREQUAL "")
        list(APPEND key_geometry BLOCK_SIZE "${block_size_text}")
    endif()
    if(NOT grid_text STREQUAL "")
        list(APPEND key_geometry GRID "${grid_text}")
    endif()

    set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/gi-optimize/${target}")
    # The kernel and its registration as gi-tool arguments, one per line, for people and scripts
    # running gi-tool by hand (cache verify, evolve) with exactly what the build uses.
    # With the target's -I/-D/--compile-option, so `mapfile -t a < FILE; gi-tool evolve "${a[@]}" ...`
    # compiles the kernel as the build does (docs/cmake.md, "Evolving by hand").
    _gi_compile_arguments(ignored "${target}" "${kernel}" "${gen_dir}" compile_lines)
    list(JOIN registration "\n" registration_lines)
    string(REPLACE "$<" "$$<1:<>" registration_lines "${kernel}\n${registration_lines}\n")
    file(GENERATE OUTPUT "${gen_dir}/${identifier}.registration" CONTENT "${registration_lines}${compile_lines}")
    # Several registered kernels of one file: one wrapper for all of them, written once their last
    # registration is finalized (the earlier ones leave their entries and stamps on the target).
    _gi_file_registrations(file_registrations "${target}" "${kernel}")
    _gi_file_identifier(file_identifier "${target}" "${kernel}")
    list(GET file_registrations -1 last_registration)
    set(wrapper "${gen_dir}/${file_identifier}.gi.cu")
    set(options_file "${gen_dir}/${file_identifier}.options")
    set(outputs "${wrapper}" "${options_file}")
    set(entry_files "")
    set(evolve_stamps "")
    set(arch_arguments "")
    # Architectures the target compiles without a registration here compile the original kernel:
    # cache apply checks that host code reading a tuned #define sees one value on all of them.
    foreach(architecture IN LISTS compiled)
        if(NOT architecture IN_LIST architectures)
            list(APPEND arch_arguments --also-compiled ${architecture})
        endif()
    endforeach()
    # Routine outcomes are said in one line per kernel (cached; original for want of an entry and a
    # GPU to evolve one); a stale entry or an evolution gets a line of its own.
    set(cached_architectures "")
    set(missing_architectures "")
    set(missing_why "")
    foreach(architecture IN LISTS architectures)
        list(APPEND arch_arguments --arch ${architecture})
        list(APPEND outputs "${gen_dir}/${file_identifier}.sm_${architecture}.cu")
        _gi_name_for_files(entry_name "+" ${functions})
        set(entry "${cache_dir}/${entry_name}.sm_${architecture}.xml")
        _gi_cache_key(key KERNEL "${kernel}" ARCHITECTURE ${architecture} FUNCTIONS ${functions} PARAMS ${params}
                      FLAGS ${flags} ${key_geometry} TOLERANCE ${tolerance})
        _gi_entry_state(state reason "${entry}" "${key}")
        _gi_debug("${target}: ${kernel_name} sm_${architecture}: entry ${entry}: ${state} (expected key ${key})")
        if(EXISTS "${entry}")
            list(APPEND entry_files "${entry}")
        endif()
        if(state STREQUAL "cached")
            list(APPEND cached_architectures ${architecture})
            continue()
        endif()
        if(GI_REQUIRE_CACHE)
            message(FATAL_ERROR "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: ${reason}. GI_REQUIRE_CACHE is ON, "
                                "so every architecture needs a current cache entry (evolve on a GPU and commit it, see "
                                "docs/ci-recipe.md)")
        endif()
        if(architecture STREQUAL gpu)
            _gi_writable_folder(writable "${cache_dir}")
            if(NOT writable)
                _gi_strict(strict)
                string(CONCAT line "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: original kernel (${reason}, "
                       "and CACHE_DIR ${cache_dir} cannot be written here, so an evolved variant could not be kept: "
                       "nothing is evolved)")
                if(strict)
                    message(FATAL_ERROR "${line}. GI_STRICT is ON, so this is an error: make the folder writable")
                endif()
                message(WARNING "${line}")
                continue()
            endif()
            message(STATUS "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: ${reason}, and this machine has a "
                           "sm_${gpu} GPU, so the build records test cases and evolves it (budget ${budget} min); an "
                           "accepted variant is written to ${entry}: commit it")
            _gi_tool_command(tool)
            list(LENGTH compiled compiled_count)
            _gi_evolve_steps(accepted_stamp "${target}" "${identifier}" "${architecture}" "${gen_dir}" "${tool}"
                             "${registration}" "${block_size_text}" ${compiled_count})
            list(APPEND evolve_stamps "${accepted_stamp}")
        else()
            if(gpu STREQUAL "")
                set(why "no GPU on this machine")
            else()
                set(why "the GPU here is sm_${gpu}")
            endif()
            if(state STREQUAL "missing")
                list(APPEND missing_architectures ${architecture})
                set(missing_why "${why}")
            else()
                message(NOTICE "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: original kernel (${reason}, ${why}, "
                               "so nothing is evolved)")
            endif()
        endif()
    endforeach()
    list(LENGTH cached_architectures cached_count)
    if(cached_count EQUAL 1)
        message(STATUS "gi-optimize: ${target}: ${kernel_name} sm_${cached_architectures}: cached variant from "
                       "${cache_dir}/${entry_name}.sm_${cached_architectures}.xml")
    elseif(cached_count GREATER 1)
        list(JOIN cached_architectures ", sm_" shown)
        message(STATUS "gi-optimize: ${target}: ${kernel_name} sm_${shown}: cached variants from ${cache_dir}")
    endif()
    list(LENGTH missing_architectures missing_count)
    if(missing_count EQUAL 1)
        message(NOTICE "gi-optimize: ${target}: ${kernel_name} sm_${missing_architectures}: original kernel (no cache entry "
                       "${cache_dir}/${entry_name}.sm_${missing_architectures}.xml, ${missing_why}, so nothing is evolved)")
    elseif(missing_count GREATER 1)
        list(JOIN missing_architectures ", sm_" shown)
        message(NOTICE "gi-optimize: ${target}: ${kernel_name} sm_${shown}: original kernel (no cache entries in "
                       "${cache_dir}, ${missing_why}, so nothing is evolved)")
    endif()

    set_property(TARGET "${target}" PROPERTY _GI_${identifier}_entry_files "${entry_files}")
    set_property(TARGET "${target}" PROPERTY _GI_${identifier}_evolve_stamps "${evolve_stamps}")
    if(NOT identifier STREQUAL last_registration)
        _gi_debug("${target}: ${kernel_name}: ${kernel} has more registered kernels; its wrapper is written with the last")
        return()
    endif()
    _gi_apply_registrations(apply_registrations headers ignored "${target}" "${kernel}" "" "${gen_dir}/include")
    foreach(other IN LISTS file_registrations)
        get_target_property(other_entries "${target}" _GI_${other}_entry_files)
        get_target_property(other_stamps "${target}" _GI_${other}_evolve_stamps)
        foreach(list_name other_entries other_stamps)
            if(${list_name} MATCHES "-NOTFOUND$")
                set(${list_name} "")
            endif()
        endforeach()
        list(APPEND entry_files ${other_entries})
        list(APPEND evolve_stamps ${other_stamps})
    endforeach()
    list(REMOVE_DUPLICATES entry_files)
    list(REMOVE_DUPLICATES evolve_stamps)
    list(APPEND outputs ${headers})
    list(LENGTH file_registrations registration_count)
    if(registration_count GREATER 1)
        list(JOIN file_registrations ", " shown)
        set(kernel_name "${shown}")
        _gi_debug("${target}: ${kernel} has ${registration_count} registered kernels (${shown}): one wrapper, "
                  "${wrapper}, puts their variants together in this order")
    endif()

    set(require "")
    if(GI_REQUIRE_CACHE)
        set(require --require)
    endif()
    list(JOIN architectures ", sm_" shown_architectures)
    # The options file is written fresh each time and then moved into place when it changed, so a
    # step that wrote nothing is an error (GIOptimizeApplied.cmake), never a build of stale files.
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    add_custom_command(
        OUTPUT ${outputs}
        COMMAND "${CMAKE_COMMAND}" -E rm -f "${options_file}.new"
        COMMAND ${apply_command} "${kernel}" ${arch_arguments} --wrapper "${wrapper}" --options-file "${options_file}.new"
                ${require} ${apply_registrations}
        COMMAND "${CMAKE_COMMAND}" "-DGI_WRITTEN=${options_file}.new" "-DGI_FILE=${options_file}"
                "-DGI_STEP=${kernel_name}" -P "${module_dir}/GIOptimizeApplied.cmake"
        DEPENDS "${kernel}" ${entry_files} ${evolve_stamps} ${apply_depends} "${module_dir}/GIOptimizeApplied.cmake"
        COMMENT "gi-optimize: ${kernel_name} for sm_${shown_architectures} from ${cache_dir}"
        VERBATIM COMMAND_EXPAND_LISTS)

    if(header)
        # The sources that include the header are replaced by copies that include the wrapper, once
        # every registration of the target is finalized (a source may include several kernel headers).
        set_property(TARGET "${target}" APPEND PROPERTY _GI_HEADER_FILES "${file_identifier}")
        set_property(TARGET "${target}" PROPERTY _GI_HEADER_${file_identifier}_kernel "${kernel}")
    else()
        # The wrapper takes the kernel's place.
        _gi_keep_original_sources("${target}")
        list(REMOVE_AT sources ${kernel_index})
        list(INSERT sources ${kernel_index} "${wrapper}")
        set_property(TARGET "${target}" PROPERTY SOURCES ${sources})
        _gi_wrapper_properties("${wrapper}" "${kernel}" "${options_file}")
    endif()
    target_sources("${target}" PRIVATE ${headers})
    target_include_directories("${target}" PRIVATE "${gen_dir}/include")

    # A new entry in the cache folder or an edited kernel changes the decisions above.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${kernel}")
    if(IS_DIRECTORY "${cache_dir}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${cache_dir}")
    endif()
    _gi_debug("${target}: ${kernel_name}: compiles ${wrapper} instead of ${kernel}")
endfunction()
