#pragma once
// Which CUDA functions of a file a macro reaches. A registration that tunes a #define changes every
// function whose code names it, directly or through another macro; when the file has several
// registered kernels, such a change may only be used where it reaches nothing its evolution did
// not check (variant/compose.hpp).
#include <string>
#include <vector>

#include "grammar/grammar.hpp"
#include "source/source_file.hpp"

namespace gi {

// The __global__ and __device__ functions defined in `source` whose code (tokens, and the
// directives inside their bodies) names one of `macros` or a macro whose definition names one
// (transitively), in file order, each name once. Throws gi::Error for a file the grammar stage
// cannot read (unbalanced brackets, unterminated comments).
std::vector<std::string> functions_reached_by_macros(const SourceFile& source, const std::vector<std::string>& macros);

// Where code the host compiler sees names one of `macros` (directly or through a macro naming
// one): anything outside the bodies of __global__ functions and __device__ functions that are not
// also __host__ (host functions, module-scope declarations, #if lines outside those bodies; the
// #defines themselves are not uses). A file is compiled once for the host whatever architectures
// it targets, so a macro used there must have one value on every architecture (cache apply).
struct MacroUse {
    std::string macro;  // the name as written there
    int line = 0;
};
std::vector<MacroUse> host_uses_of_macros(const SourceFile& source, const std::vector<std::string>& macros);

// A #define gene (a declared parameter or an #if switch) whose macro host code of the file reads,
// directly or through a macro defined from it. Where a target compiles several architectures into
// one binary, the host pass sees one variant's value for all of them, so cache apply refuses a
// variant that changes such a macro (cli/cache_apply.cpp): evolution for such a target keeps it at
// the file's own value instead of spending its budget on settings the build would throw away.
struct HostReadGene {
    std::string name;   // the gene, named as its macro
    std::string value;  // its default: what the file itself says
    int line = 0;       // the first line of host code that reads it
};

// The Param and Guard genes of `grammar` whose macro host code of `source` (the file the grammar
// was built from) reads, in gene order.
std::vector<HostReadGene> host_read_genes(const Grammar& grammar, const SourceFile& source);

// `grammar` with each of `genes` allowed its default value alone: mutation, crossover and the
// tuners change only genes with two or more values, so every genome keeps the file's value.
Grammar with_genes_kept_at_default(Grammar grammar, const std::vector<HostReadGene>& genes);

}  // namespace gi
