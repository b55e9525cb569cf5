#pragma once
// The module variables (compile/module_variables.hpp) of a kernel file as written: compiles it
// (NVRTC, or nvcc where NVRTC cannot take the file) and lists what the module defines. What
// `gi-tool record` tells the recorder to capture.
#include <filesystem>
#include <string>
#include <vector>

#include "compile/module_variables.hpp"

namespace gi {

struct KernelFileCompile {
    std::string path;                       // the kernel file (messages; its folder is searched for includes)
    std::string source;
    std::string arch = "sm_90";             // the variables do not depend on it, bar #if __CUDA_ARCH__ code
    std::vector<std::string> include_dirs;  // besides the file's own folder
    std::vector<std::string> options;       // -D macros and other nvcc words the program compiles it with
    std::string nvcc;                       // "" = PATH, then /usr/local/cuda/bin
};

// The variables the program's own code declares (project_variables: not the toolkit's and
// libraries'). Throws gi::Error with the compiler's first errors when the file compiles with neither.
std::vector<ModuleVariable> kernel_file_variables(const KernelFileCompile& request);

// Where the program's own variables are declared: `source` and the project headers it includes
// (compile/project_headers.hpp), found from `kernel_dir` and `include_dirs` outside the toolkit's.
std::vector<std::string> project_texts(const std::string& source, const std::filesystem::path& kernel_dir,
                                       const std::vector<std::string>& include_dirs);

}  // namespace gi
