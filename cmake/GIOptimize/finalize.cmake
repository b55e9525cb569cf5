# GIOptimize/finalize.cmake: the deferred part of gi_optimize_cuda_kernel(), run at the end of the
# calling directory: the registration checked against the target as it now is, each architecture's
# decision (GIOptimize/plan.cmake) and the build step that generates the files the target compiles
# instead of the kernel (`gi-tool cache apply` through gi-apply). Part of GIOptimize.cmake, which
# includes it.

# _gi_finalize(<target> <identifier>): the deferred part of gi_optimize_cuda_kernel(): decides, per
# architecture, cached variant / original / evolve (_gi_architecture_plan), and swaps the kernel for
# the generated wrapper.
function(_gi_finalize target identifier)
    _gi_registration_fields("${target}" "${identifier}" kernel functions architectures cache_dir recorder)
    list(JOIN functions "+" kernel_name)
    cmake_path(GET kernel FILENAME kernel_file_name)

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
                string(CONCAT line "gi-optimize: ${target}: ${kernel_name}: original kernel (${kernel_file_name} is included "
                       "by ${other_kernel}, which is itself registered as the KERNEL of ${other}: the variants of a "
                       "kernel header are compiled only through sources that are not registered kernel files)")
                _gi_keep_original("${line}")
                return()
            endif()
        endforeach()
    endif()

    _gi_registration_arguments(registration "${target}" "${identifier}")
    _gi_apply_command(apply_command apply_depends)

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
    set(arch_arguments "")
    # Architectures the target compiles without a registration here compile the original kernel:
    # cache apply checks that host code reading a tuned #define sees one value on all of them.
    foreach(architecture IN LISTS compiled)
        if(NOT architecture IN_LIST architectures)
            list(APPEND arch_arguments --also-compiled ${architecture})
        endif()
    endforeach()
    foreach(architecture IN LISTS architectures)
        list(APPEND arch_arguments --arch ${architecture})
        list(APPEND outputs "${gen_dir}/${file_identifier}.sm_${architecture}.cu")
    endforeach()
    _gi_architecture_plan(entry_files evolve_stamps "${target}" "${identifier}" "${architectures}" "${compiled}"
                          "${gen_dir}")

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
    # Entries whose genome has PTX edits: the wrapper is compiled through gi-tool's launcher.
    cmake_path(GET kernel PARENT_PATH kernel_dir)
    _gi_ptx_edits_plan(ptx_apply_arguments ptx_outputs ptx_depends ptx_object_depends "${target}" "${kernel_name}"
                       "${header}" ${registration_count} "${wrapper}" "${file_identifier}" "${architectures}"
                       "-I${kernel_dir}\n${compile_lines}" ${entry_files})
    list(APPEND outputs ${ptx_outputs})
    list(JOIN architectures ", sm_" shown_architectures)
    # The options file is written fresh each time and then moved into place when it changed, so a
    # step that wrote nothing is an error (GIOptimizeApplied.cmake), never a build of stale files.
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    _gi_touch_unless_ninja(touch_outputs ${outputs})
    add_custom_command(
        OUTPUT ${outputs}
        COMMAND "${CMAKE_COMMAND}" -E rm -f "${options_file}.new"
        COMMAND ${apply_command} "${kernel}" ${arch_arguments} --wrapper "${wrapper}" --options-file "${options_file}.new"
                ${require} ${ptx_apply_arguments} ${apply_registrations}
        COMMAND "${CMAKE_COMMAND}" "-DGI_WRITTEN=${options_file}.new" "-DGI_FILE=${options_file}"
                "-DGI_STEP=${kernel_name}" -P "${module_dir}/GIOptimizeApplied.cmake"
        ${touch_outputs}
        DEPENDS "${kernel}" ${entry_files} ${evolve_stamps} ${apply_depends} ${ptx_depends} "${module_dir}/GIOptimizeApplied.cmake"
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
        if(ptx_object_depends)
            set_property(SOURCE "${wrapper}" APPEND PROPERTY OBJECT_DEPENDS ${ptx_object_depends})
        endif()
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
