#include "worker/run_request.hpp"

#include <cstdlib>
#include <sstream>

#include "util/error.hpp"

namespace gi::worker {

Dim3 parse_dim3(const std::string& text, const std::string& field) {
    Dim3 d;
    std::uint32_t* parts[3] = {&d.x, &d.y, &d.z};
    std::stringstream in(text);
    std::string part;
    int i = 0;
    while (std::getline(in, part, ',')) {
        if (i >= 3) throw Error("worker: field '" + field + "' has more than three parts: '" + text + "'");
        char* end = nullptr;
        const unsigned long v = std::strtoul(part.c_str(), &end, 10);
        if (part.empty() || *end != '\0' || v == 0) throw Error("worker: field '" + field + "' is not X,Y,Z: '" + text + "'");
        *parts[i++] = static_cast<std::uint32_t>(v);
    }
    if (i == 0) throw Error("worker: field '" + field + "' is empty");
    return d;
}

Message to_message(const RunSpec& s) {
    Message m{"run",
              {{"slot", std::to_string(s.slot)},
               {"role", s.role},
               {"kernel", s.kernel},
               {"warmups", std::to_string(s.warmups)},
               {"repetitions", std::to_string(s.repetitions)},
               {"time", s.time ? "1" : "0"}},
              s.payload};
    if (s.grid) m.fields["grid"] = to_string(*s.grid);
    if (s.block) m.fields["block"] = to_string(*s.block);
    if (s.shared_bytes) m.fields["shared"] = std::to_string(*s.shared_bytes);
    if (s.launches_per_time != 1) m.fields["launches-per-time"] = std::to_string(s.launches_per_time);
    if (!s.probe_poison) m.fields["probe-poison"] = "0";
    if (!s.probe_unchanged) m.fields["probe-unchanged"] = "0";
    if (s.announce_probe) m.fields["announce-probe"] = "1";
    if (!s.poisonable.empty()) m.fields["poisonable"] = s.poisonable;
    if (!s.reference_out.empty()) m.fields["reference-out"] = s.reference_out;
    if (s.guard_budget_us > 0) m.fields["guard-budget-us"] = std::to_string(s.guard_budget_us);
    if (s.guard_paired) m.fields["guard-paired"] = "1";
    if (s.guard_bytes > 0) m.fields["guard-bytes"] = std::to_string(s.guard_bytes);
    return m;
}

RunSpec run_spec_from(const Message& m) {
    if (m.type != "run") throw Error("worker protocol: expected a 'run' message, got '" + m.type + "'");
    RunSpec s;
    s.slot = static_cast<int>(m.integer("slot", -1));
    s.role = m.get("role", "variant");
    s.kernel = m.get("kernel");
    if (m.fields.count("grid")) s.grid = parse_dim3(m.get("grid"), "grid");
    if (m.fields.count("block")) s.block = parse_dim3(m.get("block"), "block");
    if (m.fields.count("shared")) s.shared_bytes = static_cast<unsigned>(m.integer("shared"));
    s.warmups = static_cast<int>(m.integer("warmups", 2));
    s.repetitions = static_cast<int>(m.integer("repetitions", 10));
    s.launches_per_time = static_cast<int>(m.integer("launches-per-time", 1));
    if (s.launches_per_time < 1 || s.launches_per_time > kMaxLaunchesPerTime)
        throw Error("run request: launches-per-time=" + m.get("launches-per-time") + " is not between 1 and " +
                    std::to_string(kMaxLaunchesPerTime));
    s.time = m.get("time", "1") == "1";
    s.probe_poison = m.get("probe-poison", "1") == "1";
    s.probe_unchanged = m.get("probe-unchanged", "1") == "1";
    s.announce_probe = m.get("announce-probe") == "1";
    s.poisonable = m.get("poisonable");
    s.reference_out = m.get("reference-out");
    s.guard_budget_us = m.integer("guard-budget-us", 0);
    s.guard_paired = m.get("guard-paired") == "1";
    const long long guard_bytes = m.integer("guard-bytes", 0);
    if (guard_bytes < 0 || static_cast<unsigned long long>(guard_bytes) > m.payload.size() || (s.guard_paired && guard_bytes > 0))
        throw Error("run request: guard-bytes=" + std::to_string(guard_bytes) + (s.guard_paired ? " with guard-paired=1" : "") +
                    " but the payload has " + std::to_string(m.payload.size()) + " bytes");
    s.guard_bytes = static_cast<std::uint64_t>(guard_bytes);
    s.payload = m.payload;
    return s;
}

}  // namespace gi::worker
