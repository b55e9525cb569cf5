#pragma once
// Internal to the grammar stage: __global__ and __device__ function definitions found in the
// token stream, with their signatures split into parameters.
#include <string>
#include <vector>

#include "grammar/grammar.hpp"
#include "grammar/scan.hpp"

namespace gi::grammar_detail {

struct FunctionDefinition {
    std::string name;
    bool is_global = false;
    bool is_template = false;  // declared after `template <...>`
    int first_token = 0;    // first token of the declaration (template, extern "C", static...)
    int name_token = 0;
    int params_open = 0;    // '(' of the parameter list
    int params_close = 0;
    int body_open = -1;     // '{', or -1 for a declaration without a body
    int body_close = -1;
};

// Every __global__ / __device__ function declared or defined outside other function bodies, in file
// order. Lambdas and variables marked __device__ are not functions and are skipped.
std::vector<FunctionDefinition> find_cuda_functions(const Scan& scan);

struct ParameterTokens {
    KernelParameter parameter;
    int first_token = -1;  // first token of the parameter (where `const` goes)
    int last_star = -1;    // the last '*' of a pointer parameter
    int restrict_token = -1;  // an existing __restrict__ after that '*'
    bool is_reference = false;
    bool is_array = false;
    bool const_first = false;  // `const` is its first token
};

std::vector<ParameterTokens> parse_parameters(const Scan& scan, const FunctionDefinition& function);

// "the kernel 'k' starts at line 12" for the __global__/__device__ function whose signature comes
// last before `offset`, or "" when there is none.
std::string function_near(const Scan& scan, std::size_t offset);

}  // namespace gi::grammar_detail
