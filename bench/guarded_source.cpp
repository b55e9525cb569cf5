// Prints the loop-guarded build's source of a kernel file (variant/hang_guard.hpp) as the cuda
// evaluator compiles it for the check run, or with `--paired` the paired unit (plain build, then the
// guarded copy in namespace gi_guarded; variant/paired_build.hpp). For bench/guard-compile-cost.sh.
//
//   g++ -std=c++20 -O1 bench/guarded_source.cpp -I gi-tool/src -o guarded_source \
//       BUILD/gi-tool/libgi_variant.a BUILD/gi-tool/libgi_grammar.a BUILD/gi-tool/libgi_source.a BUILD/gi-tool/libgi_util.a
//   ./guarded_source [--paired] variant.cu > guarded.cu
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "variant/hang_guard.hpp"
#include "variant/paired_build.hpp"

int main(int argc, char** argv) {
    const bool paired = argc == 3 && std::string(argv[1]) == "--paired";
    if (argc != 2 && !paired) {
        std::cerr << "usage: guarded_source [--paired] KERNEL.cu\n";
        return 2;
    }
    const char* path = argv[argc - 1];
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << path << ": cannot read\n";
        return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    const gi::LoopGuardResult r = paired ? gi::paired_source(text.str(), "variant.cu") : gi::guard_hangs(text.str(), "variant.cu");
    std::cout << r.source;
    return 0;
}
