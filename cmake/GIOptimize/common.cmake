# GIOptimize/common.cmake: the helpers every part of the module uses: its messages (a decision, a
# usage error), GI_STRICT, the text forms gi-tool shares (normalized registration text, names fit
# for files) and the generated scripts' templates. Part of GIOptimize.cmake, which includes it.

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

# _gi_keep_original(<line> [<fix>]): says <line> (the original kernel is kept, and why) as a
# warning, or with GI_STRICT stops configuring, adding ": <fix>" when given.
function(_gi_keep_original line)
    _gi_strict(strict)
    if(strict)
        set(fix "")
        if(ARGC GREATER 1)
            set(fix ": ${ARGV1}")
        endif()
        message(FATAL_ERROR "${line}. GI_STRICT is ON, so this is an error${fix}")
    endif()
    message(WARNING "${line}")
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

# _gi_bracket(<out-var> <items>...): the items as CMake bracket arguments, for a generated script.
function(_gi_bracket out_var)
    set(text "")
    foreach(item IN LISTS ARGN)
        string(APPEND text " [==[${item}]==]")
    endforeach()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# _gi_configure_template(<out-var> <name>): the generated script GIOptimize/<name>.in describes, its
# @variable@ references replaced by the caller's variables of those names (string(CONFIGURE), so the
# text can still go through file(GENERATE), which evaluates the generator expressions the values
# hold). Editing a template configures again, as editing the module does.
function(_gi_configure_template _gi_out _gi_name)
    get_property(_gi_module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    set(_gi_template "${_gi_module_dir}/GIOptimize/${_gi_name}.in")
    file(READ "${_gi_template}" _gi_text)
    string(CONFIGURE "${_gi_text}" _gi_text @ONLY)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_gi_template}")
    set(${_gi_out} "${_gi_text}" PARENT_SCOPE)
endfunction()

# _gi_touch_unless_ninja(<out-var> <output>...): for a custom command that rewrites its outputs only
# when their text changes, so that a touched input recompiles nothing. Ninja restats outputs after
# such a step; make does not, and with the outputs older than the touched input it runs the step
# on every build. For generators other than Ninja, <out-var> gets a COMMAND that touches the outputs
# (make then recompiles what uses them once, as it would any touched source); for Ninja, nothing.
function(_gi_touch_unless_ninja out_var)
    set(command "")
    if(NOT CMAKE_GENERATOR MATCHES "Ninja")
        set(command COMMAND "${CMAKE_COMMAND}" -E touch ${ARGN})
    endif()
    set(${out_var} ${command} PARENT_SCOPE)
endfunction()
