# GIOptimize/sources.cmake: how a target compiles its kernel: a kernel file or a kernel header, the
# sources that include it, the target's sources as the project wrote them, and its include folders,
# definitions and compile options as gi-tool arguments. Part of GIOptimize.cmake, which includes it.

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

# _gi_compile_arguments(<out-var> <target> <kernel> <gen-dir>): how <target> compiles <kernel>, as
# gi-tool arguments (-I DIR, -D NAME[=VALUE], --compile-option WORD), so gi-tool compiles the
# kernel file as the program does: the target's include folders and definitions with their
# transitive usage requirements (generator expressions, evaluated at generation; the folder of the
# target's own generated header left out), those set on the kernel source itself, its CUDA
# standard, separable compilation, and the CUDA words among its literal compile options.
# [<lines-var>]: the same as text for file(GENERATE), one argument per line.
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
