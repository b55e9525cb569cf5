# The pipeline's stages as libraries: gi_stage(NAME DEPENDS ...) makes gi_NAME from src/NAME/*.cpp
# (or FILES), linked PUBLIC to the stages it names. A stage may include the headers of the stages
# below it, and only those: gi_check_stage_includes() adds a build step that fails, naming the file
# and line, when a source includes a stage its library does not link. So a cycle between stages is
# a build error, not a drift found in review.

set_property(GLOBAL PROPERTY GI_STAGES "")

# Issue 20 (scripts/test.sh must not grow): each stage library compiles its sources in batches of
# eight, one translation unit a batch, so the standard and Boost headers are parsed once a batch
# (gi-tool on 2 cores: 86 s against 127 s). On where gi-optimize is the top-level project (its own
# builds and tests); a project that includes it compiles each file alone: the consumer example in
# CI does so for the stages gi-apply links (util .. cache). A source that only compiles beside its
# batch-mates (a missing #include) shows with -DGI_UNITY_BUILD=OFF.
option(GI_UNITY_BUILD "Compile each stage library's sources in batches (CMake unity builds)" ${PROJECT_IS_TOP_LEVEL})

function(gi_stage name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "FOLDER" "DEPENDS;FILES")
    if(NOT arg_FOLDER)
        set(arg_FOLDER "${name}")
    endif()
    if(arg_FILES)
        list(TRANSFORM arg_FILES PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/src/${arg_FOLDER}/" OUTPUT_VARIABLE sources)
    else()
        file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/${arg_FOLDER}/*.cpp")
    endif()
    add_library(gi_${name} STATIC ${sources})
    target_include_directories(gi_${name} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/src")
    target_compile_features(gi_${name} PUBLIC cxx_std_20)
    target_compile_options(gi_${name} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
    if(GI_UNITY_BUILD)
        set_target_properties(gi_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
        # GCC 12 reports its known false -Wrestrict inside std::string's operator+ once the inliner
        # sees a batch's callers together (GCC bug 105329); each file alone stays checked.
        target_compile_options(gi_${name} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
    endif()
    set(below "")
    foreach(dependency IN LISTS arg_DEPENDS)
        if(NOT TARGET gi_${dependency})
            message(FATAL_ERROR "gi_stage(${name}): stage '${dependency}' is not declared yet; declare the stages "
                                "from the bottom up (gi-tool/CMakeLists.txt)")
        endif()
        target_link_libraries(gi_${name} PUBLIC gi_${dependency})
        get_property(further GLOBAL PROPERTY GI_STAGE_BELOW_${dependency})
        list(APPEND below ${dependency} ${further})
    endforeach()
    list(REMOVE_DUPLICATES below)
    list(SORT below)
    set_property(GLOBAL PROPERTY GI_STAGE_BELOW_${name} "${below}")
    set_property(GLOBAL PROPERTY GI_STAGE_FOLDER_${name} "${arg_FOLDER}")
    set_property(GLOBAL APPEND PROPERTY GI_STAGES ${name})
endfunction()

# Writes each stage's folder and the folders it may include to a rules file, and adds a target
# that checks every stage's sources against it whenever one changes. `top` names folders above all
# stages (the command line), which may include any of them.
function(gi_check_stage_includes target)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "TOP")
    set(rules "")
    set(folders "")
    get_property(stages GLOBAL PROPERTY GI_STAGES)
    foreach(stage IN LISTS stages)
        get_property(folder GLOBAL PROPERTY GI_STAGE_FOLDER_${stage})
        if(folder IN_LIST arg_TOP)
            continue()  # a library of the command line's sources: checked as the top
        endif()
        get_property(below GLOBAL PROPERTY GI_STAGE_BELOW_${stage})
        set(allowed "")
        foreach(other IN LISTS below)
            get_property(other_folder GLOBAL PROPERTY GI_STAGE_FOLDER_${other})
            list(APPEND allowed ${other_folder})
        endforeach()
        list(REMOVE_DUPLICATES allowed)
        list(JOIN allowed " " allowed)
        string(APPEND rules "${stage} ${folder} : ${allowed}\n")
        list(APPEND folders ${folder})
    endforeach()
    foreach(folder IN LISTS arg_TOP)
        string(APPEND rules "${folder} ${folder} : *\n")
    endforeach()
    set(rules_file "${CMAKE_CURRENT_BINARY_DIR}/stage_rules.txt")
    file(WRITE "${rules_file}" "${rules}")
    list(APPEND folders ${arg_TOP})
    list(REMOVE_DUPLICATES folders)
    set(sources "")
    foreach(folder IN LISTS folders)
        file(GLOB found CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/${folder}/*.cpp"
             "${CMAKE_CURRENT_SOURCE_DIR}/src/${folder}/*.hpp")
        list(APPEND sources ${found})
    endforeach()
    set(stamp "${CMAKE_CURRENT_BINARY_DIR}/stage_includes.checked")
    add_custom_command(OUTPUT "${stamp}"
        COMMAND "${CMAKE_COMMAND}" -DRULES=${rules_file} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/src
                -DSTAMP=${stamp} -P "${CMAKE_CURRENT_SOURCE_DIR}/check_stage_includes.cmake"
        DEPENDS ${sources} "${rules_file}" "${CMAKE_CURRENT_SOURCE_DIR}/check_stage_includes.cmake"
        COMMENT "Checking that each stage includes only the stages below it"
        VERBATIM)
    add_custom_target(${target} ALL DEPENDS "${stamp}")
endfunction()
