#include "worker/run_result.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi::worker {
namespace {

// Doubles as text that reads back to the same value (17 significant digits).
std::string join(const std::vector<double>& values) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + exact(values[i]);
    return out;
}

std::vector<double> split_numbers(const std::string& text, const std::string& field) {
    std::vector<double> out;
    if (text.empty()) return out;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        char* end = nullptr;
        const double v = std::strtod(part.c_str(), &end);
        if (part.empty() || *end != '\0')
            throw Error("worker protocol: field '" + field + "' of a 'result' message has a malformed number '" + part + "'");
        out.push_back(v);
    }
    return out;
}

}  // namespace

Message to_message(const RunResult& r) {
    Message m{"result",
              {{"outcome", r.outcome},
               {"cuda-error", r.cuda_error},
               {"sticky", r.sticky ? "1" : "0"},
               {"detail", r.detail},
               {"elements", std::to_string(r.elements)},
               {"mismatches", std::to_string(r.mismatches)},
               {"unwritten", std::to_string(r.unwritten)},
               {"non-finite", std::to_string(r.non_finite)},
               {"worst", exact(r.worst)},
               {"error", exact(r.error)},
               {"hard-failure", r.hard_failure ? "1" : "0"},
               {"times", join(r.times_ms)},
               {"poisonable", r.poisonable},
               {"loop-guard", r.loop_guard},
               {"compared-on-gpu", std::to_string(r.compared_on_gpu)},
               {"compared-on-host", std::to_string(r.compared_on_host)},
               {"integrity-on-gpu", std::to_string(r.integrity_on_gpu)},
               {"integrity-on-host", std::to_string(r.integrity_on_host)}},
              {}};
    if (r.launches_per_time != 1) m.fields["launches-per-time"] = std::to_string(r.launches_per_time);
    if (const RunStages* s = r.stages ? &*r.stages : nullptr) {
        m.fields["load-ms"] = exact(s->load_ms);
        m.fields["check-ms"] = exact(s->check_ms);
        m.fields["compare-ms"] = exact(s->compare_ms);
        m.fields["timed-ms"] = exact(s->timed_ms);
        m.fields["integrity-ms"] = exact(s->integrity_ms);
        m.fields["worker-ms"] = exact(s->worker_ms);
        m.fields["unload-ms"] = exact(s->unload_ms);
        m.fields["load-parts-ms"] = join({s->load_plain_ms, s->load_find_ms, s->load_guard_ms});
    }
    if (!r.reference_file.empty()) m.fields["reference-file"] = r.reference_file;
    if (!r.reference_sha256.empty()) m.fields["reference-sha256"] = r.reference_sha256;
    if (!r.reference_error.empty()) m.fields["reference-error"] = r.reference_error;
    return m;
}

RunResult run_result_from(const Message& m) {
    if (m.type != "result") throw Error("worker protocol: expected a 'result' message, got '" + m.type + "'");
    RunResult r;
    r.outcome = m.get("outcome");  // required: classify_run_reply refuses an unknown (or missing) one
    r.cuda_error = m.get("cuda-error");
    r.sticky = m.get("sticky") == "1";
    r.detail = m.get("detail");
    r.elements = static_cast<std::uint64_t>(m.integer("elements"));
    r.mismatches = static_cast<std::uint64_t>(m.integer("mismatches"));
    r.unwritten = static_cast<std::uint64_t>(m.integer("unwritten"));
    r.non_finite = static_cast<std::uint64_t>(m.integer("non-finite"));
    r.worst = m.number("worst");
    r.error = m.number("error");
    r.hard_failure = m.get("hard-failure") == "1";
    r.times_ms = split_numbers(m.get("times"), "times");
    r.launches_per_time = static_cast<int>(m.integer("launches-per-time", 1));
    r.poisonable = m.get("poisonable");
    r.loop_guard = m.get("loop-guard");
    r.compared_on_gpu = static_cast<long>(m.integer("compared-on-gpu"));
    r.compared_on_host = static_cast<long>(m.integer("compared-on-host"));
    r.integrity_on_gpu = static_cast<long>(m.integer("integrity-on-gpu"));
    r.integrity_on_host = static_cast<long>(m.integer("integrity-on-host"));
    if (m.fields.count("check-ms")) {
        RunStages s;
        s.load_ms = m.number("load-ms");
        s.check_ms = m.number("check-ms");
        s.compare_ms = m.number("compare-ms");
        s.timed_ms = m.number("timed-ms");
        s.integrity_ms = m.number("integrity-ms");
        s.worker_ms = m.number("worker-ms");
        s.unload_ms = m.number("unload-ms");
        if (m.fields.count("load-parts-ms")) {
            const std::vector<double> parts = split_numbers(m.get("load-parts-ms"), "load-parts-ms");
            if (parts.size() != 3)
                throw Error("worker protocol: field 'load-parts-ms' of a 'result' message needs 3 numbers, got '" +
                            m.get("load-parts-ms") + "'");
            s.load_plain_ms = parts[0];
            s.load_find_ms = parts[1];
            s.load_guard_ms = parts[2];
        }
        r.stages = s;
    }
    r.reference_file = m.get("reference-file");
    r.reference_sha256 = m.get("reference-sha256");
    r.reference_error = m.get("reference-error");
    return r;
}

}  // namespace gi::worker
