#include "worker/case_messages.hpp"

#include <algorithm>
#include <utility>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi::worker {
namespace {

void expect_type(const Message& m, const char* type) {
    if (m.type != type) throw Error(std::string("worker protocol: expected a '") + type + "' message, got '" + m.type + "'");
}

}  // namespace

Message to_message(const Ready& r) {
    return {"ready",
            {{"device", r.device},
             {"compute-capability", std::to_string(r.compute_capability)},
             {"sms", std::to_string(r.sms)},
             {"l2-bytes", std::to_string(r.l2_bytes)},
             {"memory-bytes", std::to_string(r.memory_bytes)},
             {"driver", std::to_string(r.driver)},
             {"devices", std::to_string(r.devices)},
             {"ordinal", std::to_string(r.ordinal)}},
            {}};
}

Ready ready_from(const Message& m) {
    expect_type(m, "ready");
    Ready r;
    r.device = m.get("device");
    r.compute_capability = static_cast<int>(m.integer("compute-capability"));
    r.sms = static_cast<int>(m.integer("sms"));
    r.l2_bytes = static_cast<std::uint64_t>(std::max(0LL, m.integer("l2-bytes")));
    r.memory_bytes = static_cast<std::uint64_t>(std::max(0LL, m.integer("memory-bytes")));
    r.driver = static_cast<int>(m.integer("driver"));
    r.devices = static_cast<int>(m.integer("devices", 0));
    r.ordinal = static_cast<int>(m.integer("ordinal", 0));
    return r;
}

Message to_message(const LoadCase& l) {
    Message m{"load-case", {{"slot", std::to_string(l.slot)}, {"path", l.path}, {"verify", l.verify ? "1" : "0"}}, {}};
    for (std::size_t b = 0; b < l.tolerances.size(); ++b) m.fields["tolerance" + std::to_string(b)] = l.tolerances[b];
    if (!l.reference_file.empty()) {
        m.fields["reference"] = l.reference_file;
        m.fields["reference-sha256"] = l.reference_sha256;
        m.fields["original-sha256"] = l.original_sha256;
    }
    if (!l.sha256.empty()) m.fields["case-sha256"] = l.sha256;
    return m;
}

LoadCase load_case_from(const Message& m) {
    expect_type(m, "load-case");
    LoadCase l;
    l.slot = static_cast<int>(m.integer("slot", -1));
    l.path = m.get("path");
    l.verify = m.get("verify", "1") == "1";
    for (std::size_t b = 0; m.fields.count("tolerance" + std::to_string(b)); ++b) l.tolerances.push_back(m.get("tolerance" + std::to_string(b)));
    l.reference_file = m.get("reference");
    l.reference_sha256 = m.get("reference-sha256");
    l.original_sha256 = m.get("original-sha256");
    l.sha256 = m.get("case-sha256");
    return l;
}

Message to_message(const CaseLoaded& c) {
    Message m{"case-loaded",
              {{"slot", std::to_string(c.slot)},
               {"copies", std::to_string(c.copies)},
               {"device-bytes", std::to_string(c.device_bytes)}},
              {}};
    if (!c.device_compare.empty()) m.fields["device-compare"] = c.device_compare;
    if (!c.reference.empty()) m.fields["reference"] = c.reference;
    if (!c.reference_error.empty()) m.fields["reference-error"] = c.reference_error;
    if (!c.poisonable.empty()) m.fields["poisonable"] = c.poisonable;
    return m;
}

CaseLoaded case_loaded_from(const Message& m) {
    expect_type(m, "case-loaded");
    CaseLoaded c;
    c.slot = static_cast<int>(m.integer("slot", -1));
    c.copies = static_cast<int>(m.integer("copies"));
    c.device_bytes = static_cast<std::uint64_t>(std::max(0LL, m.integer("device-bytes")));
    c.device_compare = m.get("device-compare");
    c.reference = m.get("reference");
    c.reference_error = m.get("reference-error");
    c.poisonable = m.get("poisonable");
    return c;
}

Message to_message(const CheckVariants& c) {
    Message m{"check-variants", {{"case", c.case_path}, {"kernel", c.kernel}, {"variants", c.variants_file}}, {}};
    if (c.guard_bytes > 0) m.fields["guard-bytes"] = std::to_string(c.guard_bytes);
    if (c.side_by_side > 1) m.fields["side-by-side"] = std::to_string(c.side_by_side);
    if (c.guard_pages) m.fields["guard-pages"] = "1";
    return m;
}

CheckVariants check_variants_from(const Message& m) {
    expect_type(m, "check-variants");
    const long long guard = m.integer("guard-bytes", 0);
    if (guard < 0) throw Error("check-variants: guard-bytes must not be negative (got " + m.get("guard-bytes") + ")");
    const long long side_by_side = m.integer("side-by-side", 1);
    if (side_by_side < 1)
        throw Error("check-variants: side-by-side must be at least 1 (got " + m.get("side-by-side") + ")");
    if (side_by_side > 1 && guard > 0)
        throw Error("check-variants: side-by-side runs are not checked by guard zones (got both)");
    const long long guard_pages = m.integer("guard-pages", 0);
    if (guard_pages != 0 && guard_pages != 1)
        throw Error("check-variants: guard-pages must be 0 or 1 (got " + m.get("guard-pages") + ")");
    if (guard_pages == 1 && guard == 0)
        throw Error("check-variants: guard-pages=1 needs guard zones (guard-bytes)");
    return {m.get("case"), m.get("kernel"), m.get("variants"), static_cast<std::uint64_t>(guard),
            static_cast<std::uint64_t>(side_by_side), guard_pages == 1};
}

// The worker's times in a reply, declared once for the writer and the reader.
constexpr std::pair<const char*, double Checked::*> kCheckedTimes[] = {
    {"case-ms", &Checked::case_ms},     {"load-ms", &Checked::load_ms}, {"launch-ms", &Checked::launch_ms},
    {"unload-ms", &Checked::unload_ms}, {"sync-ms", &Checked::sync_ms}};

Message to_message(const Checked& c) {
    Message m{"checked", {{"ran", std::to_string(c.ran)}}, {}};
    for (const auto& [name, field] : kCheckedTimes) m.fields[name] = exact(c.*field);
    if (!c.error.empty()) m.fields["error"] = c.error;
    if (!c.outside.empty()) m.fields["outside"] = c.outside;
    if (c.kept) m.fields["kept"] = "1";
    if (c.case_bytes > 0) m.fields["case-bytes"] = std::to_string(c.case_bytes);
    return m;
}

Checked checked_from(const Message& m) {
    expect_type(m, "checked");
    Checked c;
    c.ran = static_cast<std::uint64_t>(std::max(0LL, m.integer("ran")));
    c.error = m.get("error");
    c.outside = m.get("outside");
    c.kept = m.get("kept") == "1";
    c.case_bytes = static_cast<std::uint64_t>(std::max(0LL, m.integer("case-bytes", 0)));
    for (const auto& [name, field] : kCheckedTimes) c.*field = m.number(name);
    return c;
}

Message hello_message() { return {"hello", {}, {}}; }
Message quit_message() { return {"quit", {}, {}}; }

Message to_message(const ErrorReply& error) {
    Message m{"error", {{"message", error.message}}, {}};
    if (error.fatal) m.fields["fatal"] = "1";
    return m;
}

ErrorReply error_reply_from(const Message& m) { return {m.get("message"), m.get("fatal") == "1"}; }

Message to_message(const UnloadCase& unload) { return {"unload-case", {{"slot", std::to_string(unload.slot)}}, {}}; }

UnloadCase unload_case_from(const Message& m) {
    expect_type(m, "unload-case");
    return {static_cast<int>(m.integer("slot", -1))};
}

Message case_unloaded_message(int slot) { return {"case-unloaded", {{"slot", std::to_string(slot)}}, {}}; }

}  // namespace gi::worker
