#pragma once
// An Evaluator in front of another that answers from the run's history database when the same
// program (variant key) was already measured on the same case, and stores every new measurement
// as soon as the evaluator returns it. The search goes through it, so a genome is never
// evaluated twice on a case in a run, resumed sessions included. Minimisation and tuning bypass
// it on purpose: they measure the same program again to learn the timing noise.
// Several HistoryEvaluators (one per worker of the asynchronous search) may share one History.
#include <atomic>

#include "evaluate/evaluator.hpp"
#include "history/history.hpp"

namespace gi {

class HistoryEvaluator : public Evaluator {
public:
    // Both must outlive this object.
    HistoryEvaluator(Evaluator& inner, History& history) : inner_(inner), history_(history) {}

    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override;
    EvaluatorTraits traits() const override { return inner_.traits(); }
    EvaluatorReport report() override { return inner_.report(); }
    VariantChecker* checker() override { return inner_.checker(); }

    long long hits() const { return hits_; }
    long long misses() const { return misses_; }

private:
    Evaluator& inner_;
    History& history_;
    std::atomic<long long> hits_{0}, misses_{0};
};

}  // namespace gi
