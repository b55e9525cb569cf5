# GIOptimize/cache.cmake: the cache as configure sees it: the versions and the key gi-tool's
# key_text() computes (same format file), an entry's state from its <key> alone, the folder a
# registration's entries live in and whether it can be written. Part of GIOptimize.cmake, which
# includes it.

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
