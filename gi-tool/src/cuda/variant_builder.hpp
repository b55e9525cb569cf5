#pragma once
// How the cuda evaluator's variants become modules: which compiler the run uses (NVRTC on the whole
// file, NVRTC on its device side, or nvcc; docs/evaluation.md, "Compilers"), each variant's plain,
// loop-guarded or paired build on the compile pool, and the compiled-code cache. prepare() decides
// once, from the original; every build after follows that decision.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compile/device_side.hpp"
#include "compile/nvrtc_cache.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/project_headers.hpp"
#include "cuda/compile_pool.hpp"
#include "cuda/cuda_evaluator_options.hpp"
#include "evaluate/evaluator.hpp"
#include "cuda/nvrtc_processes.hpp"
#include "cuda/part_stats.hpp"
#include "variant/apply.hpp"
#include "variant/hang_guard.hpp"

namespace gi {

// A variant's builds, as run: `code` is the plain build, or both in one module when `paired`
// (variant/paired_build.hpp); `guarded` a separate loop-guarded build, when one is usable.
struct VariantBuild {
    DeviceCompileResult code;
    std::optional<DeviceCompileResult> guarded;
    bool paired = false;
    std::optional<DeviceCompileResult> failed_pair;  // a paired compile that failed (then built separately)
    // When its last compile ended (collect(); builds made otherwise: when made). evaluate() uses it
    // to tell how much later a batch ended than its builds and runs alone allowed.
    std::chrono::steady_clock::time_point ready{};
};

// The flag that carries a genome's PTX edits to the builder (none when it has none): flags_of()
// adds it, and compile() then takes the PTX path (variant_builder_ptx.cpp).
std::vector<std::string> ptx_edits_flag(const Genome& genome);

class VariantBuilder {
public:
    // `original`: the kernel file's text; `instantiations`: a template kernel's, as recorded;
    // `kernel_dir`: where its quoted #includes start.
    VariantBuilder(const CudaEvaluatorOptions& options, std::string arch, std::string original, std::string function,
                   std::vector<std::string> instantiations, std::filesystem::path kernel_dir);

    // Compiles the original and decides the run's compiler (notes on stderr say why when it is not
    // NVRTC on the whole file), the strict diagnostics and whether variants are built paired.
    // Throws gi::Error when the original does not compile.
    DeviceCompileResult prepare();

    // With `whole_file` nvcc compiles the file as the build will; otherwise the run's compiler does.
    // Flags holding PTX edits (flags_of) compile the source's PTX with NVRTC, edited, by ptxas,
    // `whole_file` or not.
    // `instance`: the variant's own instantiation, when the template argument is a parameter.
    DeviceCompileResult compile(const std::string& source, const std::vector<std::string>& flags, bool whole_file = false,
                                const std::string& instance = "");

    // A variant's compile options: its Flag genes', and the diagnostics made errors for every variant.
    std::vector<std::string> flags_of(const Variant& v) const;
    // The paired source, or "" when this variant is not built paired.
    std::string paired_source_of(const std::string& source) const;

    // One variant's builds, compiled here: paired when `paired` (paired_source_of(source)) is not
    // empty, else plain and (with loops) guarded. When the paired compile fails the plain compile's
    // errors are the verdict, so a broken variant reads as it would without pairing.
    VariantBuild build(const std::string& source, const std::string& paired, const std::vector<std::string>& flags,
                       bool whole_file = false, const std::string& instance = "");

    // A variant's builds on their way: one pool job when paired (it falls back inside the job), or
    // with separate builds two jobs at once, so the guarded compile overlaps the plain one.
    struct Pending {
        std::shared_future<VariantBuild> paired;
        std::shared_future<DeviceCompileResult> plain, guarded;
        // The latest end of its compile jobs (steady-clock nanoseconds), written by the jobs.
        std::shared_ptr<std::atomic<std::int64_t>> ready_ns = std::make_shared<std::atomic<std::int64_t>>(0);
    };
    Pending submit(const Variant& v, const std::string& instance);
    // Starts a variant's builds before it is asked for (evolve's guess at its next generation,
    // compiled while the sanitizer gate runs); submit() then hands out the builds under way.
    void submit_ahead(const Variant& v, const std::string& instance);
    // Forgets the builds started ahead that were never asked for (their compiles still run and fill
    // the compiled-code cache).
    void forget_ahead() {
        stats_.ahead_unused += static_cast<long>(ahead_.size());
        ahead_.clear();
    }
    // Waits for them, counts the compiles and settles the build.
    VariantBuild collect(const Pending& pending);
    // Whether collect(pending) would return without waiting for a compile.
    static bool ready(const Pending& pending);
    // Keeps a guarded build only beside a plain one that compiled; a guarded compile that fails (a
    // loop in a constexpr function, say) leaves the variant unguarded, not broken.
    void settle(VariantBuild& build);

    // The original built as a variant is (its plain and guarded builds), for the oracle check of
    // fast-compiled guarded builds.
    // `instance`: the original's instantiation, when the template argument is a parameter.
    VariantBuild build_original(const std::string& instance = "");
    // Whether guarded builds are compiled with -Ofc (options.guard_fast_compile), apart from the plain ones.
    bool fast_guard_builds() const { return !guard_extra_flags_.empty(); }
    // Guarded builds optimised as the plain ones from now on (paired again where the file allows),
    // after the original's fast-compiled guarded build did not reproduce its outputs; `why` is said on stderr.
    void use_optimised_guard_builds(const std::string& why);

    bool device_side() const { return device_side_; }
    const std::string& nvrtc_refusal() const { return nvrtc_refusal_; }  // why NVRTC could not ("" when it could)
    BuildStats stats() const;

    // Whether `flags` (flags_of) carry PTX edits.
    static bool has_ptx_edits(const std::vector<std::string>& flags);

private:
    struct NvrtcJob {
        DeviceCompileRequest request;
        std::string key;  // the compiled-code cache's
    };
    // The NVRTC request for a variant (its device side, instantiations), or nothing when its
    // device side cannot be cut out.
    std::optional<NvrtcJob> nvrtc_job(const std::string& source, const std::vector<std::string>& flags,
                                      const std::string& instance) const;
    struct PtxBase;
    std::shared_ptr<const PtxBase> ptx_base(const std::string& source, const std::vector<std::string>& flags,
                                            const std::string& instance);
    DeviceCompileResult compile_ptx_edited(const std::string& source, const std::vector<std::string>& flags,
                                           const std::string& instance);
    void make_loadable(DeviceCompileResult& r) const;
    DeviceCompileResult compile_nvcc(const std::string& source, const std::vector<std::string>& flags,
                                     const std::vector<ProjectHeader>& headers = {});
    std::string device_side_differs(const DeviceSide& cut);
    std::vector<std::string> original_flags() const;
    void decide_guard_builds();
    void decide_pairing(const std::vector<std::string>& flags);
    void decide_shared_guard(const std::vector<std::string>& flags);
    std::string guarded_source(const std::string& source) const;
    std::vector<std::string> guarded_flags(const std::vector<std::string>& flags) const;
    bool decide_fast_guard_builds(const std::vector<std::string>& flags);
    void count_compile(const DeviceCompileResult& code, bool guarded);
    void count(const VariantBuild& build);

    const CudaEvaluatorOptions& options_;
    std::string arch_, original_, function_;
    std::vector<std::string> instantiations_;
    std::filesystem::path kernel_dir_;
    CompiledCodeCache cache_;
    bool use_nvrtc_;
    bool device_side_ = false;  // NVRTC compiles device_side_of() each variant, with host header stand-ins
    std::vector<ProjectHeader> project_side_;  // the project's headers, their host code set aside too
    std::vector<std::string> project_side_key_;  // their names and checksums, for the compiled-code key
    std::vector<std::pair<std::string, std::string>> device_side_headers_;  // NVRTC's in-memory headers then
    std::vector<std::string> strict_flags_;  // kStrictFlags when the original compiles with them
    bool pairing_ = false;                   // variants' guarded copies share the plain build's module
    HangGuards guards_;                      // which guards the guarded builds get (decide_guard_builds)
    std::vector<std::string> guard_extra_flags_;  // {"-Ofc=LEVEL"} while guarded builds compile fast, else empty
    std::string nvrtc_refusal_;
    BuildStats stats_;
    std::map<std::string, Pending> ahead_;  // by variant key: builds started by submit_ahead()
    std::mutex ptx_mutex_;
    std::map<std::string, std::shared_ptr<const PtxBase>> ptx_bases_;  // a source's PTX, parsed, by NVRTC key
    // NVRTC in processes of its own (options.nvrtc_server), or null: in this one.
    std::unique_ptr<NvrtcProcesses> nvrtc_processes_;
    // Last, so it is destroyed first: its threads finish their compiles while everything they read
    // (the cache, the device-side headers, the flags) still exists.
    std::unique_ptr<CompilePool> pool_;
};

}  // namespace gi
