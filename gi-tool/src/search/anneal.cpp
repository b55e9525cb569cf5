#include "search/anneal.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "search/anneal_draw.hpp"
#include "genome/genome_ops.hpp"
#include "search/operators.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

std::size_t parents_needed(Birth method) {
    switch (method) {
        case Birth::Crossover: return 2;
        case Birth::Triangulation: return 3;
        default: return 1;
    }
}

}  // namespace

AnnealMaster::AnnealMaster(const Grammar& grammar, Genome base, EditDrawer draw, EvaluatorPool& pool, History* history,
                           AnnealOptions options, std::uint64_t seed)
    : grammar_(grammar),
      base_(std::move(base)),
      draw_(std::move(draw)),
      pool_(pool),
      history_(history),
      options_(options),
      rng_(seed),
      window_(pool.workers()),
      prefetch_(options_.prefetch) {
    if (options_.batch < 1) throw UsageError("--anneal-batch must be at least 1");
    if (pool_.case_count() < 1) throw Error("the asynchronous search needs at least one training case");
    prefetch_.add(base_);  // the first children are its mutants
}

AnnealIndividual AnnealMaster::from_history(const IndividualRow& row) const {
    AnnealIndividual ind;
    ind.id = row.id;
    try {
        ind.genome = parse_genome(row.genome);
    } catch (const Error& e) {
        throw Error(history_->path().string() + ": individual #" + std::to_string(row.id) + ": " + e.what());
    }
    ind.text = row.genome;
    ind.key = row.variant_key;
    ind.case_index = row.case_index;
    ind.result = {row.status, row.error, row.time, row.detail};
    ind.original = row.original;
    ind.speedup = row.status == EvalStatus::Ok ? speedup(row.original, row.time) : 0;
    ind.accepted = row.accepted;
    // As complete() scored it, not the database's combined score (one measurement each, but
    // sqrt(d * d) may round away from d): a resumed run's draws must weigh exactly the same.
    if (row.status == EvalStatus::Ok && row.error <= options_.acceptance.max_error)
        ind.score = measurement_score({ind.result, ind.original});
    ind.birth = row.birth;
    ind.parents = row.parents;
    ind.step = row.generation;
    return ind;
}

void AnnealMaster::adopt(AnnealIndividual ind) {
    seen_texts_.insert(ind.text);
    if (!ind.key.empty()) seen_keys_.insert(ind.key);
    if (ind.score.mean > 0) eligible_.push_back(individuals_.size());
    individuals_.push_back(std::move(ind));
}

void AnnealMaster::load_history() {
    if (history_ == nullptr) return;
    IndividualFilter filter;
    filter.strategy = "anneal";
    for (const IndividualRow& row : history_->individuals(filter)) {
        AnnealIndividual ind = from_history(row);
        next_step_ = std::max(next_step_, ind.step + 1);
        adopt(std::move(ind));
    }
    if (!individuals_.empty()) base_sent_ = true;
}

namespace {

constexpr const char* kStateHeader = "anneal-state 1";

// A checkpoint's state text split into lines, and each line into tab-separated fields.
std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return parts;
        start = end + 1;
    }
}

[[noreturn]] void bad_state(const std::string& what) {
    throw Error("anneal checkpoint state: " + what + " (the checkpoint is damaged; start the run again with --restart)");
}

long long state_integer(const std::string& text, const std::string& what) {
    try {
        std::size_t used = 0;
        const long long value = std::stoll(text, &used);
        if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    bad_state(what + " '" + excerpt(text) + "' is not an integer");
}

double state_number(const std::string& text, const std::string& what) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') bad_state(what + " '" + excerpt(text) + "' is not a number");
    return value;
}

}  // namespace

std::string AnnealMaster::save_state() const {
    std::string out = std::string(kStateHeader) + "\n";
    out += "rng\t" + rng_.save() + "\n";
    out += "next-step\t" + std::to_string(next_step_) + "\n";
    out += "base-sent\t" + std::string(base_sent_ ? "1" : "0") + "\n";
    out += "window\t" + std::to_string(window_) + "\n";
    out += "births";
    for (const auto& [birth, count] : births_made_) out += "\t" + to_string(birth) + "=" + std::to_string(count);
    out += "\ngate-failed";
    for (const AnnealIndividual& ind : individuals_)
        if (ind.gate == AnnealIndividual::Gate::Failed) out += "\t" + std::to_string(ind.id);
    out += "\n";
    for (const auto& [ticket, children] : in_flight_) {
        out += "job\t" + std::to_string(children.front().case_index) + "\n";
        for (const Child& c : children) {
            std::string parents;
            for (std::int64_t p : c.parents) parents += (parents.empty() ? "" : ",") + std::to_string(p);
            out += "child\t" + to_string(c.birth) + "\t" + exact(c.temperature) + "\t" + parents + "\t" + c.text + "\n";
        }
    }
    return out;
}

void AnnealMaster::restore(const std::string& state) {
    if (history_ == nullptr) throw Error("the asynchronous search resumes from its history database, and has none");
    if (!individuals_.empty() || !in_flight_.empty()) throw Error("AnnealMaster::restore: the master has started already");
    std::vector<std::string> lines = split(state, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    if (lines.empty() || lines.front() != kStateHeader) bad_state("it does not start with '" + std::string(kStateHeader) + "'");
    std::set<std::int64_t> gate_failed;
    std::vector<std::pair<int, std::vector<Child>>> jobs;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string> f = split(lines[i], '\t');
        const std::string& key = f[0];
        const std::string where = "line " + std::to_string(i + 1);
        auto need = [&](std::size_t n) {
            if (f.size() != n) bad_state(where + " ('" + key + "') has " + std::to_string(f.size()) + " fields, not " + std::to_string(n));
        };
        if (key == "rng") {
            need(2);
            rng_.restore(f[1]);
        } else if (key == "next-step") {
            need(2);
            const long long step = state_integer(f[1], where + ": next-step");
            if (step < 0 || step > std::numeric_limits<int>::max()) bad_state(where + ": next-step out of range");
            next_step_ = static_cast<int>(step);
        } else if (key == "base-sent") {
            need(2);
            base_sent_ = state_integer(f[1], where + ": base-sent") != 0;
        } else if (key == "window") {
            need(2);
            const long long window = state_integer(f[1], where + ": window");
            if (window < 1 || window > 1 << 20) bad_state(where + ": window " + f[1] + " is out of range");
            window_ = static_cast<std::size_t>(window);
        } else if (key == "births") {
            for (std::size_t k = 1; k < f.size(); ++k) {
                const std::size_t eq = f[k].find('=');
                if (eq == std::string::npos) bad_state(where + ": '" + excerpt(f[k]) + "' is not BIRTH=COUNT");
                try {
                    births_made_[birth_from_string(f[k].substr(0, eq))] =
                        static_cast<int>(state_integer(f[k].substr(eq + 1), where + ": births"));
                } catch (const Error& e) {
                    bad_state(where + ": " + e.what());
                }
            }
        } else if (key == "gate-failed") {
            for (std::size_t k = 1; k < f.size(); ++k) gate_failed.insert(state_integer(f[k], where + ": gate-failed"));
        } else if (key == "job") {
            need(2);
            const long long case_index = state_integer(f[1], where + ": job case");
            if (case_index < 0 || case_index >= pool_.case_count())
                bad_state(where + ": case " + f[1] + " is not one of the " + std::to_string(pool_.case_count()) + " training cases");
            jobs.push_back({static_cast<int>(case_index), {}});
        } else if (key == "child") {
            if (f.size() < 5) bad_state(where + " ('child') has " + std::to_string(f.size()) + " fields, not 5");
            if (jobs.empty()) bad_state(where + ": a child before any job");
            Child child;
            try {
                child.birth = birth_from_string(f[1]);
            } catch (const Error& e) {
                bad_state(where + ": " + e.what());
            }
            child.temperature = state_number(f[2], where + ": temperature");
            if (!f[3].empty())
                for (const std::string& p : split(f[3], ',')) child.parents.push_back(state_integer(p, where + ": parent"));
            // The genome is the rest of the line.
            std::size_t at = 0;
            for (int tabs = 0; tabs < 4; ++tabs) at = lines[i].find('\t', at) + 1;
            child.text = lines[i].substr(at);
            try {
                child.genome = parse_genome(child.text);
                child.variant = make_variant(child.genome, grammar_);
            } catch (const Error& e) {
                bad_state(where + ": genome '" + excerpt(child.text) + "': " + e.what());
            }
            child.case_index = jobs.back().first;
            jobs.back().second.push_back(std::move(child));
        } else {
            bad_state(where + ": unknown entry '" + excerpt(key) + "'");
        }
    }
    // The individuals of the steps before the checkpoint, as their completion made them.
    IndividualFilter filter;
    filter.strategy = "anneal";
    for (const IndividualRow& row : history_->individuals(filter)) {
        if (row.generation >= next_step_) continue;  // completed after the checkpoint: made again below
        AnnealIndividual ind = from_history(row);
        if (gate_failed.count(ind.id)) {
            ind.gate = AnnealIndividual::Gate::Failed;
            ind.accepted = false;
            ind.score = {};
        }
        adopt(std::move(ind));
    }
    if (individuals_.size() != static_cast<std::size_t>(next_step_))
        throw Error(history_->path().string() + ": holds " + std::to_string(individuals_.size()) +
                    " anneal individuals before step " + std::to_string(next_step_) +
                    ", where the checkpoint counts one a step; the database and the checkpoint are not of one run "
                    "(start the run again with --restart)");
    for (auto& [case_index, children] : jobs) {
        if (children.empty()) bad_state("a job without children");
        for (const Child& c : children) {
            seen_texts_.insert(c.text);
            seen_keys_.insert(c.variant->key);
        }
        hand_out(std::move(children), case_index);
    }
}

bool AnnealMaster::passes_gate(std::size_t index) {
    AnnealIndividual& ind = individuals_[index];
    if (options_.checker == nullptr || ind.gate == AnnealIndividual::Gate::Passed) return true;
    if (ind.gate == AnnealIndividual::Gate::Unchecked) {
        const Variant variant = make_variant(ind.genome, grammar_);
        const int gate_case = options_.checker->gate_case(std::max(ind.case_index, 0));
        // The prescreen first (the guard zones on every gate case, milliseconds): its rejection is
        // the gate's verdict, so compute-sanitizer never runs on such a variant.
        const std::optional<EvalResult> screened = options_.checker->prescreen({variant}, gate_case).front();
        const EvalResult gate = screened ? *screened : options_.checker->sanitize(variant, gate_case);
        ind.gate = gate.status == EvalStatus::Ok ? AnnealIndividual::Gate::Passed : AnnealIndividual::Gate::Failed;
        if (ind.gate == AnnealIndividual::Gate::Failed) {
            ind.result.status = gate.status;
            ind.result.detail = gate.detail;
            ind.accepted = false;
            ind.score = {};
        }
    }
    if (ind.gate == AnnealIndividual::Gate::Failed) {
        eligible_.erase(std::remove(eligible_.begin(), eligible_.end(), index), eligible_.end());
        return false;
    }
    return true;
}

std::vector<std::size_t> AnnealMaster::draw_parents(std::size_t count, double temperature) {
    std::vector<std::size_t> chosen;
    // The seed retries draws that repeat a parent; a bounded number of tries keeps a population
    // that one individual dominates from spinning.
    std::vector<double> p;
    auto weigh = [&] {
        std::vector<Score> scores;
        for (std::size_t i : eligible_) scores.push_back(individuals_[i].score);
        p = draw_probabilities(scores, temperature);
    };
    weigh();
    for (int tries = 0; chosen.size() < count && tries < kAnnealDistinctParentTries && !eligible_.empty(); ++tries) {
        const std::size_t pick = eligible_[rng_.weighted_index(p)];
        if (std::find(chosen.begin(), chosen.end(), pick) != chosen.end()) continue;
        if (!passes_gate(pick)) {  // it left the eligible ones: draw again among the rest
            weigh();
            continue;
        }
        chosen.push_back(pick);
    }
    if (chosen.size() < count) return {};
    return chosen;
}

std::optional<AnnealMaster::Child> AnnealMaster::birth_of(Birth method, double temperature) {
    Child child;
    child.birth = method;
    std::vector<std::size_t> parents;
    if (!eligible_.empty()) {
        parents = draw_parents(parents_needed(method), temperature);
        if (parents.empty()) {  // too few distinct (or gated) individuals for this birth
            child.birth = Birth::Mutation;
            parents = draw_parents(1, temperature);
        }
    }
    if (parents.empty()) {
        // Nothing has run yet: mutants of the starting genome keep the workers busy meanwhile.
        child.birth = Birth::Mutation;
        child.genome = mutate(base_, grammar_, draw_, rng_);
        if (!individuals_.empty() && individuals_.front().text == genome_to_text(base_))
            child.parents = {individuals_.front().id};
    } else {
        for (std::size_t i : parents) child.parents.push_back(individuals_[i].id);
        const auto& ind = [&](std::size_t k) -> const AnnealIndividual& { return individuals_[parents[k]]; };
        if (child.birth == Birth::Mutation) {
            child.genome = mutate(ind(0).genome, grammar_, draw_, rng_);
        } else if (child.birth == Birth::Crossover) {
            std::optional<Genome> crossed = crossover_once(ind(0).genome, ind(1).genome, grammar_, rng_);
            if (!crossed) return std::nullopt;
            child.genome = std::move(*crossed);
        } else {
            // Table 4 names the parents by ascending score: Base, Secondary, Primary.
            std::sort(parents.begin(), parents.end(), [&](std::size_t a, std::size_t b) {
                return individuals_[a].score.mean < individuals_[b].score.mean;
            });
            child.parents.clear();
            for (std::size_t i : parents) child.parents.push_back(individuals_[i].id);
            child.genome = canonical_genome(
                triangulate(individuals_[parents[0]].genome, individuals_[parents[1]].genome,
                            individuals_[parents[2]].genome, grammar_),
                grammar_);
        }
    }
    child.text = genome_to_text(child.genome);
    if (seen_texts_.count(child.text)) return std::nullopt;
    try {
        Variant variant = make_variant(child.genome, grammar_);
        if (seen_keys_.count(variant.key)) return std::nullopt;
        child.variant = std::move(variant);
    } catch (const Error& e) {
        child.apply_error = std::string("the genome does not apply: ") + e.what();
    }
    return child;
}

std::optional<AnnealMaster::Child> AnnealMaster::make_child() {
    std::optional<Child> child;
    if (!base_sent_) {
        base_sent_ = true;
        child = Child{};
        child->genome = base_;
        child->text = genome_to_text(base_);
        child->birth = Birth::Init;
        child->variant = make_variant(base_, grammar_);
    } else {
        static const Birth methods[] = {Birth::Mutation, Birth::Crossover, Birth::Triangulation};
        Birth method = methods[rng_.index(3)];
        std::vector<Score> scores;
        for (std::size_t i : eligible_) scores.push_back(individuals_[i].score);
        double temperature = scores.empty() ? 1.0 : draw_temperature(scores[best_index(scores)], rng_);
        for (int tries = 0; tries < kAnnealBirthTries && !child; ++tries, temperature *= 1.2) {
            // Parents that only ever recombine into genomes already seen (the original and one
            // mutant) cannot give a new child: "retry the mutation" as the seed does.
            if (tries == kAnnealRecombineTries) method = Birth::Mutation;
            child = birth_of(method, temperature);
            if (child) child->temperature = temperature;
        }
        if (!child) return std::nullopt;
    }
    seen_texts_.insert(child->text);
    if (child->variant) seen_keys_.insert(child->variant->key);
    ++births_made_[child->birth];
    return child;
}

void AnnealMaster::submit(std::vector<Child> children) {
    const int case_index = static_cast<int>(rng_.index(static_cast<std::size_t>(pool_.case_count())));
    hand_out(std::move(children), case_index);
}

void AnnealMaster::hand_out(std::vector<Child> children, int case_index) {
    std::vector<Variant> variants;
    for (Child& c : children) {
        c.case_index = case_index;
        variants.push_back(*c.variant);
    }
    const std::uint64_t ticket = pool_.submit(std::move(variants), case_index);
    in_flight_[ticket] = std::move(children);
}

AnnealIndividual AnnealMaster::complete(Child child, const EvalResult& result, const Timing& original) {
    AnnealIndividual ind;
    ind.genome = std::move(child.genome);
    ind.text = std::move(child.text);
    ind.key = child.variant ? child.variant->key : std::string();
    ind.case_index = child.case_index;
    ind.result = result;
    ind.original = original_for(result, original);
    ind.speedup = result.status == EvalStatus::Ok ? speedup(ind.original, result.time) : 0;
    ind.accepted = is_accepted(result, ind.original, options_.acceptance);
    if (result.status == EvalStatus::Ok && result.error <= options_.acceptance.max_error)
        ind.score = measurement_score({result, ind.original});
    ind.birth = child.birth;
    ind.temperature = child.temperature;
    ind.parents = std::move(child.parents);
    ind.step = next_step_++;
    if (history_ != nullptr) {
        IndividualRow row = individual_row(ind.text, ind.case_index, result, original, ind.accepted, "anneal", ind.step, 0);
        row.variant_key = ind.key;
        row.birth = ind.birth;
        row.parents = ind.parents;
        ind.id = history_->add_individual(row);
    } else {
        ind.id = static_cast<std::int64_t>(individuals_.size()) + 1;
    }
    if (ind.score.mean > 0) {
        eligible_.push_back(individuals_.size());
        // It may be drawn as a parent from now on: its PTX compiles while the master goes on. (Not
        // in adopt(): a resumed run's hundreds of earlier individuals compile when drawn.)
        if (ind.birth != Birth::Init) prefetch_.add(ind.genome);  // the starting genome's was at the start
    }
    individuals_.push_back(ind);
    return ind;
}

std::vector<AnnealIndividual> AnnealMaster::run(std::size_t count) {
    std::vector<AnnealIndividual> completed;
    bool exhausted = false;
    for (;;) {
        // Fill every free worker, also when the block is complete: the master never lets one idle,
        // and what is in flight now is the next block's.
        while (!exhausted && in_flight_.size() < window_) {
            std::vector<Child> children;
            while (children.size() < options_.batch) {
                std::optional<Child> child = make_child();
                if (!child) {
                    exhausted = true;
                    break;
                }
                if (!child->variant) {  // not a program: recorded as it is, nothing to measure
                    EvalResult failed;
                    failed.status = EvalStatus::CompileError;
                    failed.detail = child->apply_error;
                    child->case_index = -1;
                    completed.push_back(complete(std::move(*child), failed, Timing{}));
                    continue;
                }
                children.push_back(std::move(*child));
            }
            if (!children.empty()) submit(std::move(children));
        }
        if (completed.size() >= count) break;
        if (in_flight_.empty()) break;  // exhausted and nothing left to come back
        // The oldest job's results, whichever job finished first: the run does not depend on timing.
        const auto it = in_flight_.begin();
        PoolResult done = pool_.wait_for(it->first);
        std::vector<Child> children = std::move(it->second);
        in_flight_.erase(it);
        if (done.result.results.size() != children.size())
            throw Error("evaluator returned " + std::to_string(done.result.results.size()) + " results for " +
                        std::to_string(children.size()) + " variants");
        for (std::size_t i = 0; i < children.size(); ++i)
            completed.push_back(complete(std::move(children[i]), done.result.results[i], done.result.original));
    }
    return completed;
}

ScoredBatch anneal_batch(const std::vector<AnnealIndividual>& completed) {
    ScoredBatch batch;
    const AnnealIndividual* best = nullptr;
    for (const AnnealIndividual& ind : completed) {
        Scored s;
        s.genome = ind.genome;
        s.result = ind.result;
        s.accepted = ind.accepted;
        s.speedup = ind.speedup;
        s.temperature = ind.temperature;
        batch.scored.push_back(std::move(s));
        if (!ind.key.empty()) ++batch.distinct;
        if (ind.accepted && (best == nullptr || ind.speedup > best->speedup)) best = &ind;
    }
    if (best == nullptr && !completed.empty()) best = &completed.back();
    if (best != nullptr) {
        batch.case_index = std::max(best->case_index, 0);
        batch.original = best->original;
    }
    return batch;
}

}  // namespace gi
