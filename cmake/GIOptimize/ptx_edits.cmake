# GIOptimize/ptx_edits.cmake: cached variants whose genome has PTX edits (issue 46). The wrapper is
# compiled from source, so those edits reach the program only when its compile runs through
# `gi-tool nvcc-launcher`, which edits nvcc's PTX between the front end and ptxas. This file
# decides, when configuring, whether a registration's wrapper is compiled that way, and sets the
# launcher on the target. Part of GIOptimize.cmake, which includes it.
#
# The launcher is a target's CUDA_COMPILER_LAUNCHER (Makefile and Ninja generators; generator
# expressions in it since CMake 3.25): it sees every CUDA compile of the target with the exact
# command CMake runs, which no custom command can know (flags from CMAKE_CUDA_FLAGS, the
# configuration, the language standard), and passes the target's other sources through.

# _gi_ptx_edited_entries(<out-var> <entry>...): those of the entries whose genome has PTX edits
# ("ptx:" in <genome>, plain or in CDATA). Only plain files are read, as _gi_entry_state reads them.
function(_gi_ptx_edited_entries out_var)
    set(found "")
    foreach(entry IN LISTS ARGN)
        if(EXISTS "${entry}" AND NOT IS_DIRECTORY "${entry}" AND NOT IS_SYMLINK "${entry}")
            file(STRINGS "${entry}" lines REGEX "<genome[^>]*>.*ptx:.*</genome>" LIMIT_INPUT 1048576)
            if(lines)
                list(APPEND found "${entry}")
            endif()
        endif()
    endforeach()
    set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# _gi_ptx_edits_plan(<apply-args-var> <outputs-var> <depends-var> <object-depends-var> <target> <kernel-name>
#                    <header> <registration-count> <wrapper> <file-identifier> <architectures> <compile-lines>
#                    <entry>...):
# when some <entry> has PTX edits and this build can apply them, <apply-args-var> gets cache
# apply's --ptx-edits, <outputs-var> the files it then writes beside <wrapper>, <depends-var> the
# gi-tool the launcher runs (built before the step, so before any compile), <object-depends-var>
# what the wrapper's object is rebuilt for (those files and the registration's compile arguments,
# <compile-lines>, written beside it), and the target's compile of <wrapper> goes through the
# launcher (_gi_ptx_launcher). When it cannot, one
# line says why, and cache apply leaves such an entry out (its architecture builds the original
# kernel; with GI_REQUIRE_CACHE an error) as without PTX edits anywhere.
function(_gi_ptx_edits_plan apply_args_var outputs_var depends_var object_depends_var target kernel_name header registration_count wrapper file_identifier
         architectures compile_lines)
    set(${apply_args_var} "" PARENT_SCOPE)
    set(${outputs_var} "" PARENT_SCOPE)
    set(${depends_var} "" PARENT_SCOPE)
    set(${object_depends_var} "" PARENT_SCOPE)
    _gi_ptx_edited_entries(edited ${ARGN})
    if(edited STREQUAL "")
        return()
    endif()
    set(edited_architectures "")
    foreach(entry IN LISTS edited)
        if(entry MATCHES "\\.sm_([0-9]+)\\.xml$")
            list(APPEND edited_architectures "${CMAKE_MATCH_1}")
        endif()
    endforeach()
    list(JOIN edited_architectures ", sm_" shown)
    set(why "")
    if(header)
        set(why "they are applied to a kernel file compiled as a source of the target, not to a kernel header")
    elseif(registration_count GREATER 1)
        set(why "they are applied where a file has one registered kernel (the edits of several would have to go into "
                "one PTX together)")
    elseif(NOT CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
        set(why "they are applied by a compiler launcher, which the ${CMAKE_GENERATOR} generator does not run (use "
                "Ninja or a Makefile generator)")
    elseif(GI_OPTIMIZE_TOOL STREQUAL "" AND NOT TARGET GIOptimize::gi-tool)
        get_property(unavailable GLOBAL PROPERTY GI_OPTIMIZE_TOOL_UNAVAILABLE)
        set(why "they are applied by gi-tool, which this build does not have (${unavailable})")
    endif()
    if(NOT why STREQUAL "")
        string(JOIN "" why ${why})
        message(NOTICE "gi-optimize: ${target}: ${kernel_name} sm_${shown}: original kernel (its cache entry's genome has "
                       "PTX edits, and ${why})")
        return()
    endif()
    _gi_tool_command(tool)
    if(TARGET "${tool}")
        set(tool_file "$<TARGET_FILE:${tool}>")
    else()
        set(tool_file "${tool}")
    endif()
    cmake_path(GET wrapper PARENT_PATH gen_dir)
    set(outputs "${gen_dir}/${file_identifier}.ptx-edits" "${gen_dir}/${file_identifier}.fallback.gi.cu"
                "${gen_dir}/${file_identifier}.fallback.options")
    foreach(architecture IN LISTS architectures)
        list(APPEND outputs "${gen_dir}/${file_identifier}.sm_${architecture}.ptx-edits")
    endforeach()
    # The registration's compile arguments, for NVRTC's PTX of each variant (what the edits index).
    set(arguments "${gen_dir}/${file_identifier}.nvrtc-arguments")
    file(GENERATE OUTPUT "${arguments}" CONTENT "${compile_lines}")
    _gi_ptx_launcher("${target}" "${wrapper}" "${tool_file}")
    _gi_debug("${target}: ${kernel_name} sm_${shown}: the genome has PTX edits: ${wrapper} is compiled through gi-tool "
              "nvcc-launcher")
    set(${apply_args_var} --ptx-edits PARENT_SCOPE)
    set(${outputs_var} "${outputs}" PARENT_SCOPE)
    set(${depends_var} "${tool}" PARENT_SCOPE)
    set(${object_depends_var} ${outputs} "${arguments}" PARENT_SCOPE)
endfunction()

# _gi_ptx_launcher(<target> <wrapper> <tool-file>): <target>'s CUDA compiles run through
# `gi-tool nvcc-launcher`, which applies the PTX edits of <wrapper> (and of the target's other
# wrappers with PTX edits) and runs every other compile as it is, through the launcher the target
# had (ccache, from CMAKE_CUDA_COMPILER_LAUNCHER), which it leaves out of an edited compile.
function(_gi_ptx_launcher target wrapper tool_file)
    get_property(user_set TARGET "${target}" PROPERTY _GI_USER_CUDA_LAUNCHER SET)
    if(NOT user_set)
        get_target_property(user_launcher "${target}" CUDA_COMPILER_LAUNCHER)
        if(user_launcher MATCHES "-NOTFOUND$")
            set(user_launcher "")
        endif()
        set_property(TARGET "${target}" PROPERTY _GI_USER_CUDA_LAUNCHER "${user_launcher}")
    endif()
    get_target_property(user_launcher "${target}" _GI_USER_CUDA_LAUNCHER)
    set_property(TARGET "${target}" APPEND PROPERTY _GI_PTX_WRAPPERS "${wrapper}")
    get_target_property(wrappers "${target}" _GI_PTX_WRAPPERS)
    set(launcher "${tool_file}" nvcc-launcher --compiler "${CMAKE_CUDA_COMPILER}")
    foreach(w IN LISTS wrappers)
        list(APPEND launcher --wrapper "${w}")
    endforeach()
    if(GI_REQUIRE_CACHE)
        list(APPEND launcher --require)
    endif()
    list(APPEND launcher -- ${user_launcher})
    set_property(TARGET "${target}" PROPERTY CUDA_COMPILER_LAUNCHER "${launcher}")
endfunction()
