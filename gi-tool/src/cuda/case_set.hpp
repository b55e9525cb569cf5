#pragma once
// The cuda evaluator's cases: training, held out for validation, and small ones for the sanitizer
// gate, read from their manifests (the worker reads the data) and checked against the kernel they
// are to replay before any GPU is touched. Each case also keeps what the run learns about it: the
// original's time and batch size, its reference outputs handed over between workers, and the
// original's first replay, which the oracle gate judges (cuda/oracle_gate.hpp).
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compare/tolerance.hpp"
#include "cuda/cuda_evaluator_options.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "launch/geometry.hpp"
#include "testcase/test_case.hpp"

namespace gi {

struct CaseSlot {
    std::filesystem::path path;
    TestCase manifest;                  // no data: the worker reads the blobs
    std::vector<std::string> tolerances;  // per buffer, as text
    bool held_out = false;
    bool gate = false;                  // recorded for the sanitizer gate (--sanitize-cases); also validates
    int uses = 0;                       // batches evaluate() ran on it (less those thrown away unseen)
    double original_ms = 0;             // the original's median time here (0 = not yet)
    int launches_per_time = 0;          // launches per timed repetition here, the original's and
                                        // every variant's alike (0 = not decided: before its first timing)
    std::string poisonable;             // the outputs' write sets (compare/write_set.hpp), learnt once by
                                        // the original's first run and given to every later worker
    std::uint64_t bytes = 0;            // the case's buffers together
    std::filesystem::path reference_file;  // the original's outputs, handed to later workers ("" = none yet)
    std::string reference_sha256;       // their checksum, as the writing worker reported it
    std::string kernel;                 // the name the worker finds the kernel by: the function, or
                                        // for a template the recorded instantiation's symbol
    bool reference_failed = false;      // writing them failed once: do not try again
    bool rejection_noted = false;
    // The original's first replay on this GPU against the recorded outputs (the oracle gate).
    std::uint64_t oracle_elements = 0, oracle_mismatches = 0;
    double oracle_worst = 0;
    std::string oracle_detail;
};

// The kernel the cases must have been recorded from.
struct CaseKernel {
    std::string function;                // its name
    bool is_template = false;
    std::string registered;              // --function as given ("K<TILE>", "K", or "")
    std::map<std::string, std::string> param_texts;  // every Param gene's default, as written
    // The file's object-like #defines (Grammar::file_macros): `--block-size BLOCK_SIZE` may name a
    // constant of the file that is no parameter (it could before the registration's block size
    // became the launch's block; issue 40).
    std::map<std::string, std::string> file_macros;
    NameValues param_defaults;           // params_of the original: what its launch geometry knows
    std::vector<std::string> arg_names;
    LaunchGeometry geometry;
    ToleranceSpec tolerance;
    // The kernel's thread-coarsening genes (grammar/thread_coarsen.hpp): a variant that sets one to
    // K does K blocks' work a block, its grid's x divided by K.
    std::set<std::string> coarsen_genes;

    // The names a variant's launch geometry knows besides the case's arguments: the file's integer
    // #define constants (grammar/preprocessor.hpp, integer_macros), each parameter at the variant's
    // value (or its default), so `#define THREADS (BLOCK * 2)` follows a tuned BLOCK. Throws
    // gi::Error for a gene whose default is an integer set to a value that is not.
    NameValues params_of(const Genome& genome) const;
    // The geometry to launch the variant `genome` makes on case `tc` (launch/geometry.hpp's
    // resolve_geometry under params_of(genome)), the grid's x divided by its coarsening factor
    // rounding up, as the variant file's own grid function divides it. Throws as resolve_geometry.
    ResolvedGeometry geometry_of(const TestCase& tc, const Genome& genome) const;
    // Sets param_texts, file_macros, param_defaults and coarsen_genes from the kernel's grammar.
    void read_names(const Grammar& grammar);
    // The instantiation a variant runs when the template argument is a parameter ("K<TILE>" with
    // TILE=16: "K<16>"); "" otherwise.
    std::string instance_of(const Genome& genome) const;
};

struct CaseSet {
    std::vector<CaseSlot> slots;  // training first (search draws from [0, training)), then held out, then the gate's
    int training = 0;
    std::vector<std::string> instantiations;  // of a template kernel, as recorded ("K<32>")
};

// Reads --cases, --held-out and --sanitize-cases, and sets aside training cases for validation
// (--set-aside; a note on stderr says which). Throws gi::UsageError / gi::Error naming the case
// and what is wrong: no cases, arguments or geometry not the kernel's, a template case that does
// not name its instantiation.
CaseSet read_case_set(const CudaEvaluatorOptions& options, const CaseKernel& kernel);

}  // namespace gi
