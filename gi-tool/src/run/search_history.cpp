#include "run/search_history.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "util/atomic_file.hpp"
#include "run/checkpoint.hpp"
#include "genome/genome_ops.hpp"
#include "search/nsga2.hpp"
#include "run/record_xml.hpp"
#include "fitness/scored.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

void remove_database(const std::filesystem::path& path) {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix, ec);
}

// Tuning and minimisation measure outside the search loop; their points join the database at the
// end so `gi-tool history` shows where the final genome came from. Their "original" column holds
// the timing they were compared against in the same evaluation (the start or the evolved genome).
void record_tune(History& history, const TuneResult& tune, const std::string& phase) {
    const auto start = history.latest_with_genome(tune.start);
    for (std::size_t i = 0; i < tune.points.size(); ++i) {
        const TunePoint& p = tune.points[i];
        const std::string cause = p.status != EvalStatus::Ok ? phase + " point: the tuning record keeps no cause" : "";
        IndividualRow row = individual_row(p.genome, tune.case_index, EvalResult{p.status, p.error, p.time, cause}, p.start,
                                           p.accepted, phase, 0, static_cast<int>(i));
        row.birth = Birth::Tune;
        if (start) row.parents = {*start};
        history.add_individual(row);
    }
}

void record_minimise(History& history, const MinimiseResult& result) {
    if (!result.ran) return;
    Genome current = parse_genome(result.before);
    const auto before = history.latest_with_genome(result.before);
    for (std::size_t i = 0; i < result.steps.size(); ++i) {
        const MinimiseStep& step = result.steps[i];
        const std::vector<std::string> items = genome_items(current);
        const auto at = std::find(items.begin(), items.end(), step.item);
        if (at == items.end()) continue;  // the record does not match the genome: nothing honest to store
        const Genome candidate = without_item(current, static_cast<std::size_t>(at - items.begin()));
        IndividualRow row = individual_row(genome_to_text(candidate), result.case_index,
                                           EvalResult{step.status, step.error, step.candidate, step.reason}, step.reference,
                                           step.removed, "minimise", 0, static_cast<int>(i));
        row.birth = Birth::Minimise;
        if (before) row.parents = {*before};
        history.add_individual(row);
        if (step.removed) current = candidate;
    }
}

}  // namespace

std::size_t default_workers(const std::string& evaluator_name) {
    if (evaluator_name == "cuda") return 1;
    return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<ParetoMember> pareto_members(const std::vector<IndividualRow>& rows, double max_error) {
    std::vector<const IndividualRow*> latest;
    std::map<std::string, std::size_t> index_of;
    for (const IndividualRow& row : rows) {
        if (row.status != EvalStatus::Ok || !row.time.valid() || !row.original.valid() || !(row.original.median_ms > 0))
            continue;
        auto [it, fresh] = index_of.emplace(row.genome, latest.size());
        if (fresh) latest.push_back(&row);
        else latest[it->second] = &row;
    }
    std::vector<Objectives> points;
    for (const IndividualRow* row : latest)
        points.push_back(make_objectives(true, row->time.median_ms / row->original.median_ms, row->error, max_error));
    std::vector<ParetoMember> front;
    for (std::size_t i : pareto_front(points)) {
        const IndividualRow& row = *latest[i];
        ParetoMember m;
        m.id = row.id;
        m.genome = row.genome;
        m.relative_time = points[i].time;
        m.time_ms = row.time.median_ms;
        m.original_ms = row.original.median_ms;
        m.error = row.error;
        m.within_budget = row.error <= max_error;
        front.push_back(m);
    }
    // Fastest first, so the first within the budget is the choice.
    for (ParetoMember& m : front)
        if (m.within_budget) {
            m.chosen = true;
            break;
        }
    return front;
}

std::string pareto_xml(const std::vector<ParetoMember>& front, double max_error) {
    tinyxml2::XMLDocument document;
    tinyxml2::XMLElement* root = document.NewElement("pareto-front");
    document.InsertEndChild(root);
    root->SetAttribute("max-error", exact(max_error).c_str());
    root->SetAttribute("members", static_cast<int>(front.size()));
    for (const ParetoMember& m : front) {
        if (m.chosen) root->SetAttribute("chosen", m.genome.c_str());
        tinyxml2::XMLElement* e = root->InsertNewChildElement("member");
        e->SetAttribute("individual", static_cast<int64_t>(m.id));
        e->SetAttribute("genome", m.genome.c_str());
        e->SetAttribute("relative-time", exact(m.relative_time).c_str());
        e->SetAttribute("time-ms", exact(m.time_ms).c_str());
        e->SetAttribute("original-ms", exact(m.original_ms).c_str());
        e->SetAttribute("error", exact(m.error).c_str());
        e->SetAttribute("within-budget", m.within_budget ? 1 : 0);
        e->SetAttribute("chosen", m.chosen ? 1 : 0);
    }
    tinyxml2::XMLPrinter printer;
    document.Print(&printer);
    return printer.CStr();
}

SearchHistory::SearchHistory(const Grammar& grammar, Evaluator& evaluator, EvaluatorMaker make_worker,
                             const EvolveOptions& options, const std::filesystem::path& out_dir, OutMode mode,
                             SearchHistoryOptions history_options)
    : grammar_(grammar),
      options_(options),
      out_dir_(out_dir),
      history_options_(history_options),
      make_worker_(std::move(make_worker)),
      locked_(make_locked(evaluator)) {
    if (history_options_.workers < 1) throw UsageError("--workers must be at least 1");
    const std::filesystem::path db = out_dir / kHistoryFileName;
    const std::filesystem::path checkpoint = out_dir / "checkpoint.xml";
    HistoryIdentity identity = history_identity(grammar);
    identity.options = run_fingerprint(grammar, evaluator, options);
    identity.options.emplace_back("workers", std::to_string(history_options_.workers));
    // The same refusals as evolve() makes, made first, so nothing is written to a folder it refuses.
    if (mode == OutMode::Fresh && (std::filesystem::exists(checkpoint) || std::filesystem::exists(db)))
        throw UsageError("--out " + out_dir.string() + " already holds a run (" +
                         (std::filesystem::exists(db) ? std::string(kHistoryFileName) : std::string("checkpoint.xml")) +
                         "); pass --resume to continue it, --restart to discard it, or choose another --out");
    if (mode == OutMode::Resume && !std::filesystem::exists(checkpoint))
        throw UsageError("--resume: " + checkpoint.string() +
                         " does not exist, so there is no run to resume there (run without --resume to start one)");
    if (mode == OutMode::Resume) {
        // The checkpoint says best what changed (kernel, grammar or options); ask it first.
        require_same_fingerprint(run_fingerprint(grammar, evaluator, options), load_checkpoint(checkpoint).fingerprint,
                                 checkpoint.string());
    }
    // Every run makes its database before its first checkpoint, so a checkpoint without one means
    // the database was deleted: resuming would record only the generations from here on.
    if (mode == OutMode::Resume && !std::filesystem::exists(db))
        throw UsageError("--resume: " + db.string() + " is missing, though " + checkpoint.string() +
                         " is there; resuming would leave a database of the later generations only. "
                         "Restore the file, or start the run afresh with --restart");
    if (mode == OutMode::Resume) {
        history_ = History::resume(db, identity);
    } else {
        if (mode == OutMode::Restart) {
            // Refuse to delete a file that is not a history database: someone's data, not a run of ours.
            if (std::filesystem::exists(db)) read_history_identity(db);
            remove_database(db);
        }
        std::error_code ec;
        std::filesystem::create_directories(out_dir, ec);
        if (ec) throw Error(out_dir.string() + ": cannot create the output directory (" + ec.message() + ")");
        history_ = History::create(db, identity);
    }
    cached_ = std::make_unique<HistoryEvaluator>(evaluator, *history_);
}

SearchHistory::~SearchHistory() = default;

EvolveHooks SearchHistory::hooks(EvolveHooks base) {
    base.evaluate_batch = [this](const std::vector<Genome>& genomes, int case_index) {
        return evaluate_genomes(*cached_, grammar_, genomes, case_index, options_.acceptance);
    };
    base.after_gate = [this](int generation, const ScoredBatch& batch, const Strategy& strategy) {
        record_generation(generation, batch, strategy);
    };
    base.evaluate_generation = [this](int generation, Strategy& strategy) -> std::optional<ScoredBatch> {
        SearchServices services;
        services.pool = [this]() -> EvaluatorPool& { return worker_pool(); };
        services.history = history_.get();
        services.checker = locked_->checker();
        services.acceptance = options_.acceptance;
        services.seed = options_.seed;
        std::optional<ScoredBatch> batch = strategy.evaluate_generation(services, generation);
        if (batch && pool_) {
            busy_at_last_block_ = 0;
            for (double b : pool_->busy_s()) busy_at_last_block_ += b;
            elapsed_at_last_block_ = pool_->elapsed_s();
        }
        return batch;
    };
    return base;
}

double SearchHistory::utilisation() const {
    if (!pool_) return 0;
    const double capacity = elapsed_at_last_block_ * static_cast<double>(pool_->workers());
    return capacity > 0 ? busy_at_last_block_ / capacity : 0;
}

void SearchHistory::record_generation(int generation, const ScoredBatch& batch, const Strategy& strategy) {
    const std::vector<BirthInfo> births = strategy.births();
    for (std::size_t i = 0; i < batch.scored.size(); ++i) {
        const Scored& s = batch.scored[i];
        IndividualRow row = individual_row(genome_to_text(s.genome), batch.case_index, s.result, original_for(s.result, batch.original), s.accepted,
                                           strategy.name(), generation, static_cast<int>(i));
        try {
            row.variant_key = make_variant(s.genome, grammar_).key;
        } catch (const Error&) {
            // Not a program: stored with an empty key, as the batch recorded it.
        }
        if (i < births.size()) {
            row.birth = births[i].birth;
            for (const std::string& parent : births[i].parents)
                if (auto id = history_->latest_with_genome(parent)) row.parents.push_back(*id);
        } else if (generation == 0) {
            row.birth = Birth::Init;
        }
        history_->add_individual(row);
    }
}

EvaluatorPool& SearchHistory::worker_pool() {
    if (!pool_) {
        std::vector<Evaluator*> workers;
        worker_views_.push_back(std::make_unique<HistoryEvaluator>(*locked_, *history_));
        workers.push_back(worker_views_.back().get());
        for (std::size_t i = 1; i < history_options_.workers; ++i) {
            extra_.push_back(make_worker_());
            worker_views_.push_back(std::make_unique<HistoryEvaluator>(*extra_.back(), *history_));
            workers.push_back(worker_views_.back().get());
        }
        pool_ = std::make_unique<EvaluatorPool>(workers);
    }
    return *pool_;
}

void SearchHistory::finish(const RunRecord& record) {
    record_tune(*history_, record.pre_tune, "pre-tune");
    record_minimise(*history_, record.minimise);
    record_tune(*history_, record.post_tune, "post-tune");
    IndividualFilter search_only;
    search_only.strategy = options_.strategy;
    const std::vector<ParetoMember> front =
        pareto_members(history_->individuals(search_only), options_.acceptance.max_error);
    const std::string xml = pareto_xml(front, options_.acceptance.max_error);
    write_file_atomically(out_dir_ / "pareto.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + xml);
    // The run record gets the same element, so run.xml alone tells the whole story.
    const std::filesystem::path run_xml = out_dir_ / "run.xml";
    if (!std::filesystem::exists(run_xml)) return;
    tinyxml2::XMLDocument document;
    const std::string text = read_text_file(run_xml, "run record");
    if (document.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS || document.RootElement() == nullptr)
        throw Error(run_xml.string() + ": cannot add the Pareto front: " + document.ErrorStr());
    tinyxml2::XMLElement* root = document.RootElement();
    if (tinyxml2::XMLElement* old = root->FirstChildElement("pareto-front")) root->DeleteChild(old);
    tinyxml2::XMLDocument front_document;
    front_document.Parse(xml.c_str(), xml.size());
    root->InsertEndChild(front_document.RootElement()->DeepClone(&document));
    tinyxml2::XMLPrinter printer;
    document.Print(&printer);
    write_file_atomically(run_xml, printer.CStr());
}

}  // namespace gi
