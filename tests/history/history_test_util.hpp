#pragma once
// Helpers for the history tests: scratch folders, file snapshots, a counting evaluator.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../support/gi_tool_run.hpp"
#include "evaluate/evaluator.hpp"
#include "history/history.hpp"

namespace gi::test {

// A fresh folder under the temporary directory, removed when the test program exits.
inline std::filesystem::path scratch_dir(const std::string& name) {
    std::random_device device;
    const auto dir = std::filesystem::temp_directory_path() /
                     ("gi-history-" + name + "-" + std::to_string(device()) + std::to_string(device()));
    std::filesystem::create_directories(dir);
    remove_at_exit(dir);
    return dir;
}

inline std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

inline HistoryIdentity test_identity(const std::string& kernel = "k1") {
    HistoryIdentity identity;
    identity.kernel_sha256 = std::string(64, kernel.back());
    identity.grammar_shape = "shape-" + kernel;
    identity.options = {{"strategy", "gp"}, {"seed", "1"}};
    return identity;
}

inline Timing timing(double median, double spread = 0.01, int repetitions = 10) {
    Timing t;
    t.median_ms = median;
    t.spread_ms = spread;
    t.repetitions = repetitions;
    return t;
}

inline Variant variant(const std::string& key) {
    Variant v;
    v.key = key;
    return v;
}

// Times every variant by a table (key -> ms, default 1.0) and counts what reaches it.
class CountingEvaluator : public Evaluator {
public:
    std::map<std::string, double> times;
    std::map<std::pair<std::string, int>, int> seen;  // (key, case) -> times evaluated
    int calls = 0;

    EvaluatorTraits traits() const override { return {"counting", 4, true, false}; }
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        ++calls;
        BatchResult out;
        out.original = timing(2.0 + case_index);
        for (const Variant& v : variants) {
            ++seen[{v.key, case_index}];
            EvalResult r;
            auto it = times.find(v.key);
            r.time = timing(it == times.end() ? 1.0 : it->second);
            if (v.key.rfind("bad", 0) == 0) {
                r.status = EvalStatus::CompileError;
                r.time = Timing{};
                r.detail = "error: expected ';'";
            }
            out.results.push_back(r);
        }
        return out;
    }
};

}  // namespace gi::test
