# GIOptimize/plan.cmake: what a build does for each architecture of a registration, decided when
# configuring: the cached variant (its entry's key matches), the original kernel (with the reason),
# or, with a GPU of that architecture, the evolution and acceptance steps that make an entry. Part
# of GIOptimize.cmake, which includes it.

# _gi_architecture_plan(<entries-var> <stamps-var> <target> <identifier> <architectures> <compiled> <gen-dir>):
# decides each of <architectures> (those the registration covers, of the target's <compiled>) and
# says so: routine outcomes in one line per kernel (cached; original for want of an entry and a GPU
# to evolve one), a stale entry or an evolution in a line of its own. Adds the evolution steps
# where this machine's GPU has an architecture without a valid entry. <entries-var>: the entries
# that exist (the generation step depends on them); <stamps-var>: the acceptance steps' stamps.
function(_gi_architecture_plan entries_var stamps_var target identifier architectures compiled gen_dir)
    _gi_registration_fields("${target}" "${identifier}"
                            kernel functions params flags block_size grid tolerance cache_dir budget)
    list(JOIN functions "+" kernel_name)
    _gi_registration_arguments(registration "${target}" "${identifier}")
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
    set(entry_files "")
    set(evolve_stamps "")
    # Routine outcomes are said in one line per kernel (cached; original for want of an entry and a
    # GPU to evolve one); a stale entry or an evolution gets a line of its own.
    set(cached_architectures "")
    set(missing_architectures "")
    set(missing_why "")
    foreach(architecture IN LISTS architectures)
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
                string(CONCAT line "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: original kernel (${reason}, "
                       "and CACHE_DIR ${cache_dir} cannot be written here, so an evolved variant could not be kept: "
                       "nothing is evolved)")
                _gi_keep_original("${line}" "make the folder writable")
                continue()
            endif()
            _gi_recording_problem(recording_problem "${target}" "${identifier}")
            if(NOT recording_problem STREQUAL "")
                string(CONCAT line "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: original kernel (${reason}, and "
                       "${recording_problem}: nothing is evolved)")
                _gi_keep_original("${line}")
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
    set(${entries_var} "${entry_files}" PARENT_SCOPE)
    set(${stamps_var} "${evolve_stamps}" PARENT_SCOPE)
endfunction()
