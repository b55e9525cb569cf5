#include "run/run_result.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "run/record_xml.hpp"
#include "genome/genome.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {
namespace {

std::string trimmed(std::string text) {
    const auto not_space = [](unsigned char c) { return !std::isspace(c); };
    text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
    text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
    return text;
}

}  // namespace

FinalTiming final_timing(const RunRecord& record) {
    FinalTiming t;
    // Only a measurement of the final genome itself: the final checks may have given up the
    // search's best for a fallback or the original, and an entry once claimed 6.95x for an empty
    // genome from a best that had been refused (issue 40).
    auto take = [&](const Timing& original, const Timing& variant) {
        if (t.variant_ms >= 0 || !original.valid() || !variant.valid()) return;
        t.original_ms = original.median_ms;
        t.variant_ms = variant.median_ms;
    };
    // Post-tuning stopped by the time limit may have measured nothing: then the search's best.
    if (record.post_tune.ran && record.post_tune.best == record.final_genome)
        take(record.post_tune.original, record.post_tune.best_time);
    // A minimised genome keeps only removals that cost no time beyond the noise: the best's time.
    if (record.best.found && (record.best.genome == record.final_genome ||
                              (record.minimise.ran && record.minimise.before == record.best.genome &&
                               record.minimise.after == record.final_genome)))
        take(record.best.original, record.best.time);
    if (t.variant_ms < 0 && record.final_genome.empty()) {
        // The original kernel is the final variant: it is as fast as itself.
        for (const Timing* o : {&record.best.original, &record.post_tune.original, &record.pre_tune.original})
            if (o->valid()) {
                t.original_ms = t.variant_ms = o->median_ms;
                break;
            }
    }
    return t;
}

RunResult read_run_result(const std::filesystem::path& run_dir, const RunWaivers& waivers) {
    RunResult result;
    const std::filesystem::path genome_file = run_dir / "best.genome";
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(genome_file, ec)))
        throw Error(genome_file.string() + ": cannot read the evolved genome (is " + run_dir.string() +
                    " the --out folder of a finished gi-tool evolve run?)");
    // As every input: a link to a device or a FIFO in its place is refused, not read without end.
    result.genome = trimmed(read_input_file(genome_file, kMaxGenomeFileBytes, "genome file of the run"));
    Provenance& p = result.provenance;
    p.origin = "evolved";
    p.note = "gi-tool evolve --out " + run_dir.string();

    const std::filesystem::path run_xml = run_dir / "run.xml";
    if (!std::filesystem::exists(run_xml))
        throw Error(run_xml.string() + ": the run folder has no run record, so nothing says the genome was checked "
                    "(is " + run_dir.string() + " the --out folder of a gi-tool evolve run?)");
    const std::string run_text = read_text_file(run_xml, "run record");
    tinyxml2::XMLDocument document;
    if (document.Parse(run_text.data(), run_text.size()) != tinyxml2::XML_SUCCESS || !document.RootElement())
        throw Error(located_message(run_xml.string(), document.ErrorLineNum(), "cannot read the run record",
                                    "is the run complete? rerun gi-tool evolve"));
    const RunRecord record = read_run_record(document.RootElement(), run_xml.string());

    if (record.final_check.ran && !record.final_check.passed)
        throw Error(run_xml.string() + ": the run's final variant failed validation (" + record.final_check.summary +
                    "); it cannot become a cache entry");
    std::vector<std::string> waived;
    if (!record.finished) {
        // best.genome is then the search's best so far: not minimised, not sanitizer-checked, not validated.
        if (!waivers.unfinished)
            throw Error(run_xml.string() + ": the run did not finish (it was stopped, or is still running), so its "
                        "best.genome was neither minimised nor checked by the sanitizer and held-out validation. "
                        "Resume it (gi-tool evolve --resume --out " + run_dir.string() + ") or, to keep the unchecked "
                        "genome anyway, pass --allow-unfinished");
        waived.push_back("--allow-unfinished: the run stopped before its final checks");
    }
    const bool original = result.genome.empty();
    if (!original && (!record.final_check.ran || !record.finished)) {
        const std::string why = record.final_check.note.empty() ? "no final check ran" : record.final_check.note;
        if (!waivers.unvalidated)
            throw Error(run_xml.string() + ": the run's final genome was not validated on inputs its search never saw (" +
                        why + "). Evolve with held-out cases (--held-out, CMake HELD_OUT) or from more than one "
                        "recorded case (part of them is then set aside), or pass --allow-unvalidated to keep it anyway");
        waived.push_back("--allow-unvalidated: not validated on held-out inputs (" + why + ")");
    }
    for (const std::string& w : waived) p.waiver += (p.waiver.empty() ? "" : "; ") + w;
    p.gpu = record.device;
    const FinalTiming timing = final_timing(record);
    p.original_ms = timing.original_ms;
    p.variant_ms = timing.variant_ms;
    if (record.final_check.ran) {
        p.elements_validated = record.final_check.elements;
        p.worst_error = record.final_check.worst_error;
        std::smatch cases;
        if (std::regex_search(record.final_check.summary, cases, std::regex("validated ([0-9]+) case")))
            p.cases_validated = std::stoll(cases[1]);
    }
    p.note += ", " + record.evaluator + " evaluator, " + std::to_string(record.individuals()) + " individuals, " +
              std::to_string(static_cast<long long>(record.wall_seconds)) + " s" +
              (record.stop_reason.empty() ? "" : ", stopped by " + record.stop_reason);
    return result;
}

}  // namespace gi
