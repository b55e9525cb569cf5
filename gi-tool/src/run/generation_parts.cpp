#include "run/generation_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// How many genomes the next part holds, of `rest`; 0: none is expected to end by the deadline.
std::size_t next_part_size(std::size_t rest, double seconds_a_genome, std::size_t last_part, const Deadline& deadline) {
    if (!deadline.set()) return rest;
    if (deadline.passed()) return 0;
    if (seconds_a_genome < 0) return std::min(rest, kFirstGenerationPart);
    std::size_t size = rest;
    if (seconds_a_genome > 0) {
        const double fit = std::floor(deadline.left() / seconds_a_genome);
        if (fit < 1) return 0;
        const double part = std::max(1.0, std::floor(kGenerationPartSeconds / seconds_a_genome));
        size = static_cast<std::size_t>(std::min({static_cast<double>(rest), fit, part}));
    }
    // What the genomes so far took may not hold for the rest (the first were compile errors,
    // which are quick): a part grows by a bounded factor, so a wrong guess costs one part.
    if (last_part > 0) size = std::min(size, kGenerationPartGrowth * last_part);
    return std::max<std::size_t>(size, 1);
}

std::string seconds_each(double seconds) { return seconds < 0.01 ? "under 0.01 s" : fixed(seconds, 2) + " s"; }
std::string about(double seconds) { return fixed(seconds, seconds < 10 ? 1 : 0) + " s"; }

}  // namespace

GenerationParts evaluate_in_parts(const std::vector<Genome>& genomes, int case_index, const Grammar& grammar,
                                  const EvaluateGenomes& evaluate, const Deadline& deadline, double seconds_a_genome,
                                  const std::string& name, const std::function<void(const std::string&)>& progress) {
    GenerationParts out;
    out.planned = genomes.size();
    out.batch.case_index = case_index;
    // The program each genome is, so that a later part does not measure again what an earlier one
    // did ("" for a genome that does not apply: evaluate says why, without sending it anywhere).
    std::vector<std::string> keys(genomes.size());
    for (std::size_t i = 0; i < genomes.size(); ++i) {
        try {
            keys[i] = make_variant(genomes[i], grammar).key;
        } catch (const Error&) {
        }
    }
    std::map<std::string, std::size_t> measured;  // key -> its first genome in out.batch.scored
    const double start = deadline.now();
    double last_line = start;
    double per_genome = seconds_a_genome;
    std::size_t last_part = 0;
    while (out.batch.scored.size() < genomes.size()) {
        const double part_start = deadline.now();
        const std::size_t from = out.batch.scored.size();
        const std::size_t size = next_part_size(genomes.size() - from, per_genome, last_part, deadline);
        if (size == 0) break;
        std::vector<Genome> send;
        for (std::size_t i = from; i < from + size; ++i)
            if (keys[i].empty() || !measured.count(keys[i])) send.push_back(genomes[i]);
        std::optional<ScoredBatch> part;
        if (!send.empty()) {
            part = evaluate(send, case_index);
            ++out.parts;
            if (part->scored.size() != send.size())
                throw Error("evaluating part " + std::to_string(out.parts) + " of " + name + " returned " +
                            std::to_string(part->scored.size()) + " individuals for " + std::to_string(send.size()));
            if (out.parts == 1) out.batch.original = part->original;
            out.batch.distinct += part->distinct;
        }
        std::size_t next_sent = 0;
        for (std::size_t i = from; i < from + size; ++i) {
            if (!keys[i].empty() && measured.count(keys[i])) {
                Scored copy = out.batch.scored[measured.at(keys[i])];
                copy.genome = genomes[i];
                copy.repeat = true;
                out.batch.scored.push_back(std::move(copy));
                continue;
            }
            if (!keys[i].empty()) measured.emplace(keys[i], out.batch.scored.size());
            out.batch.scored.push_back(std::move(part->scored[next_sent++]));
        }
        last_part = size;
        const double now = deadline.now();
        out.last_part_seconds = now - part_start;
        per_genome = (now - start) / static_cast<double>(out.batch.scored.size());
        const std::size_t done = out.batch.scored.size();
        if (progress && done < genomes.size() && now - last_line >= kGenerationProgressSeconds) {
            progress(name + ": " + std::to_string(done) + " of " + std::to_string(genomes.size()) +
                     " variants evaluated in " + fixed(now - start, 1) + " s" +
                     (deadline.set() ? "; " + fixed(std::max(0.0, deadline.left()), 0) + " s of the search left" : ""));
            last_line = now;
        }
    }
    out.seconds = deadline.now() - start;
    return out;
}

std::string generation_start_line(const std::string& name, std::size_t genomes, double seconds_a_genome,
                                  const Deadline& deadline, bool in_parts) {
    std::string line = name + ": evaluating " + std::to_string(genomes) + " variants (";
    if (seconds_a_genome < 0) {
        line += "time per variant not measured yet";
        if (in_parts) line += ": the first " + std::to_string(std::min(genomes, kFirstGenerationPart)) + " measure it";
    } else {
        line += "about " + about(seconds_a_genome * static_cast<double>(genomes)) + " at " +
                seconds_each(seconds_a_genome) + " each";
    }
    if (deadline.set()) {
        line += "; " + fixed(std::max(0.0, deadline.left()), 0) + " s of the search left";
        if (in_parts && seconds_a_genome >= 0) line += ": in parts, until the time limit";
    }
    return line + ")";
}

}  // namespace gi
