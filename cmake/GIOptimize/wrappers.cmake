# GIOptimize/wrappers.cmake: the generated files a target compiles in place of its own: the wrapper
# of a kernel file and, for a kernel header, copies of the sources that include it (written by a
# build step, GIOptimizeIncluder.cmake). Part of GIOptimize.cmake, which includes it.

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
    _gi_configure_template(settings_text includer-settings.cmake)
    file(GENERATE OUTPUT "${settings}" CONTENT "${settings_text}")
    list(JOIN wrapper_names ", " shown)
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    _gi_touch_unless_ninja(touch_copy "${copy}")
    add_custom_command(
        OUTPUT "${copy}"
        COMMAND "${CMAKE_COMMAND}" "-DGI_SETTINGS=${settings}" -P "${module_dir}/GIOptimizeIncluder.cmake"
        ${touch_copy}
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
