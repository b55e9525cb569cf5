# GIOptimize/tool.cmake: which gi-tool (or gi-apply) the build steps run, and the check that
# GI_OPTIMIZE_TOOL is a gi-tool of this gi-optimize. Part of GIOptimize.cmake, which includes it.

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
