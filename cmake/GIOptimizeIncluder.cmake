# GIOptimizeIncluder.cmake: a kernel defined in a header (KERNEL reduction_kernel.cuh) is compiled
# through the target's CUDA sources that #include it. With GI_OPTIMIZE=ON each such source is
# compiled from a copy in the build folder whose `#include "reduction_kernel.cuh"` lines include the
# generated wrapper instead (which holds each architecture's variant of the header, or the header
# itself), with a #line directive so that diagnostics and __FILE__ still name the source.
#
# Included by GIOptimize.cmake for _gi_quoted_includes() and _gi_header_spellings() (configure time:
# which sources include the header). Run with `cmake -P` by the build step that writes a copy (build
# time, so an edit of the source needs no new configure), with GI_SETTINGS naming a script that sets
#   GI_INCLUDER       the target's source that includes the header(s)
#   GI_COPY           the copy to write (rewritten only when its content changes)
#   GI_INCLUDE_DIRS   the target's include folders, searched after the source's own folder
#   GI_SUBSTITUTIONS  pairs: a header's absolute path, what to #include in its place
cmake_minimum_required(VERSION 3.25)
include_guard(GLOBAL)

# _gi_quoted_includes(<spellings-var> <files-var> <text> <includer-dir> <include-dirs>...): the names S
# of the `#include "S"` lines of <text> (a source in <includer-dir>) and the files they open, found
# as the compiler finds them: beside the source, else in the include folders in order ("" when none
# holds it). An #include <...> names a system or library header, never the project's kernel header.
function(_gi_quoted_includes spellings_var files_var text includer_dir)
    set(spellings "")
    set(files "")
    string(REGEX MATCHALL "\n[ \t]*#[ \t]*include[ \t]*\"[^\";\n]+\"" lines "\n${text}")
    foreach(line IN LISTS lines)
        string(REGEX REPLACE "^[^\"]*\"([^\"]+)\"$" "\\1" spelled "${line}")
        set(opened "")
        foreach(dir IN ITEMS "${includer_dir}" ${ARGN})
            if(NOT IS_ABSOLUTE "${dir}")
                continue()
            endif()
            cmake_path(ABSOLUTE_PATH spelled BASE_DIRECTORY "${dir}" NORMALIZE OUTPUT_VARIABLE candidate)
            if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
                set(opened "${candidate}")
                break()
            endif()
        endforeach()
        list(APPEND spellings "${spelled}")
        list(APPEND files "${opened}")
    endforeach()
    set(${spellings_var} "${spellings}" PARENT_SCOPE)
    set(${files_var} "${files}" PARENT_SCOPE)
endfunction()

# _gi_header_spellings(<out-var> <text> <includer-dir> <header> <include-dirs>...): the names S of the
# `#include "S"` lines of <text> that open <header> (an absolute, normalized path); empty when none.
function(_gi_header_spellings out_var text includer_dir header)
    _gi_quoted_includes(spellings files "${text}" "${includer_dir}" ${ARGN})
    set(found "")
    set(index 0)
    foreach(file IN LISTS files)
        if(file STREQUAL header)
            list(GET spellings ${index} spelled)
            list(APPEND found "${spelled}")
        endif()
        math(EXPR index "${index} + 1")
    endforeach()
    list(REMOVE_DUPLICATES found)
    set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

if(NOT CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
    return()
endif()

# The build step: write the copy.
if(NOT EXISTS "${GI_SETTINGS}")
    message(FATAL_ERROR "GIOptimizeIncluder.cmake: GI_SETTINGS='${GI_SETTINGS}' does not name its settings file")
endif()
include("${GI_SETTINGS}")
file(READ "${GI_INCLUDER}" text)
cmake_path(GET GI_INCLUDER PARENT_PATH includer_dir)
set(body "\n${text}")
list(LENGTH GI_SUBSTITUTIONS count)
set(index 0)
while(index LESS count)
    list(GET GI_SUBSTITUTIONS ${index} header)
    math(EXPR index "${index} + 1")
    list(GET GI_SUBSTITUTIONS ${index} replacement)
    math(EXPR index "${index} + 1")
    _gi_header_spellings(spellings "${text}" "${includer_dir}" "${header}" ${GI_INCLUDE_DIRS})
    if(spellings STREQUAL "")
        # Edited since configuring: it is compiled as it now is, and the next configure sees it.
        message("gi-optimize: ${GI_INCLUDER} no longer includes ${header}; it is compiled as it is (configure again "
                "to have the target's sources looked at anew)")
    endif()
    foreach(spelled IN LISTS spellings)
        string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" pattern "${spelled}")
        string(REGEX REPLACE "(\n[ \t]*#[ \t]*include[ \t]*)\"${pattern}\"" "\\1\"${replacement}\"" body "${body}")
    endforeach()
endwhile()
string(SUBSTRING "${body}" 1 -1 body)
# The #line directive names the source as a string literal: its backslashes and quotes escaped. Line
# numbers stay the source's own, since each replaced line stays one line.
string(REPLACE "\\" "\\\\" shown "${GI_INCLUDER}")
string(REPLACE "\"" "\\\"" shown "${shown}")
set(line_directive "#line 1 \"${shown}\"\n")
if(GI_INCLUDER MATCHES "[\r\n]")
    set(line_directive "")  # a line end cannot be written in a #line directive: diagnostics name the copy
endif()
set(content "// Generated by gi-optimize for a kernel defined in a header it includes; rewritten on every build, do not edit.\n${line_directive}${body}")
set(old "")
if(EXISTS "${GI_COPY}")
    file(READ "${GI_COPY}" old)
endif()
if(NOT old STREQUAL content)
    file(WRITE "${GI_COPY}" "${content}")
endif()
