#include "evaluate/compile_only_evaluator.hpp"

#include <atomic>
#include <functional>
#include <fstream>

#include "util/error.hpp"
#include "util/parallel.hpp"

namespace gi {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw Error("cannot write " + path.string() + " (is the temporary folder full or read-only?)");
}

}  // namespace

CompileOnlyEvaluator::CompileOnlyEvaluator(CompileOnlyOptions options)
    : options_(std::move(options)), compiler_(options_.nvcc), scratch_("gi-compile") {
    if (options_.jobs < 1) throw UsageError("compile jobs must be at least 1, got " + std::to_string(options_.jobs));
}

EvalResult CompileOnlyEvaluator::compile_one(const Variant& variant, std::size_t serial) {
    const std::string stem = "variant" + std::to_string(serial);
    const std::filesystem::path source = scratch_.path() / (stem + ".cu");
    const std::filesystem::path output = scratch_.path() / (stem + (options_.nvcc.object ? ".o" : ".cubin"));
    write_file(source, variant.source);
    const CompileOutcome outcome = compiler_.compile(source, output, variant.compile_options, "variant.cu");
    std::error_code ignored;
    std::filesystem::remove(source, ignored);
    std::filesystem::remove(output, ignored);

    EvalResult result;
    switch (outcome.status) {
        case CompileOutcome::Status::Ok: result.status = EvalStatus::Ok; break;
        case CompileOutcome::Status::Failed: result.status = EvalStatus::CompileError; break;
        case CompileOutcome::Status::TimedOut: result.status = EvalStatus::Timeout; break;
    }
    result.detail = outcome.first_errors;
    return result;
}

BatchResult CompileOnlyEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    if (case_index != 0)
        throw Error("compile-only evaluator: case " + std::to_string(case_index) +
                    " asked for, but it has a single pseudo case (index 0)");
    BatchResult batch;
    batch.results.resize(variants.size());

    // One compile per distinct key not seen before; the rest copy its result.
    std::vector<std::size_t> todo;
    {
        std::map<std::string, std::size_t> first_of_key;
        const std::lock_guard<std::mutex> lock(mutex_);
        for (std::size_t i = 0; i < variants.size(); ++i)
            if (!known_.count(variants[i].key) && first_of_key.emplace(variants[i].key, i).second) todo.push_back(i);
    }

    // A task that throws means nvcc itself is unusable: the tasks not yet started are skipped.
    static std::atomic<std::size_t> serial{0};
    std::vector<std::function<EvalResult()>> compiles;
    for (std::size_t i : todo) compiles.push_back([this, &variants, i] { return compile_one(variants[i], serial++); });
    std::vector<EvalResult> compiled = run_in_parallel(compiles, static_cast<std::size_t>(options_.jobs));

    const std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t k = 0; k < todo.size(); ++k) known_[variants[todo[k]].key] = std::move(compiled[k]);
    for (std::size_t i = 0; i < variants.size(); ++i) batch.results[i] = known_.at(variants[i].key);
    return batch;
}

std::string kernel_include_dir(const std::string& kernel_path) {
    const std::filesystem::path parent = std::filesystem::absolute(kernel_path).parent_path();
    return parent.empty() ? std::filesystem::current_path().string() : parent.string();
}

void require_original_compiles(CompileOnlyEvaluator& evaluator, const Variant& original,
                               const std::string& kernel_path) {
    const EvalResult result = evaluator.evaluate({original}, 0).results.at(0);
    if (result.status == EvalStatus::Ok) return;
    const auto command = evaluator.compiler().command(kernel_path, "out.cubin", original.compile_options);
    throw Error(kernel_path + ": the unedited kernel does not compile (" + to_string(result.status) + "), so no " +
                "variant can:\n" + result.detail + "\n(reproduce with: " + command_line_text(command) +
                "; check the include folders, the extra nvcc flags and the architecture)");
}

}  // namespace gi
