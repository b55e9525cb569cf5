#include "compile/nvrtc_messages.hpp"

#include <cstdint>

#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

// A list as "NAME.count" and "NAME.0", "NAME.1", ...: any text in each element.
void put_list(worker::Message& m, const std::string& name, const std::vector<std::string>& items) {
    m.fields[name + ".count"] = std::to_string(items.size());
    for (std::size_t k = 0; k < items.size(); ++k) m.fields[name + "." + std::to_string(k)] = items[k];
}

std::vector<std::string> get_list(const worker::Message& m, const std::string& name) {
    const long long count = m.integer(name + ".count", 0);
    if (count < 0 || count > 100000) throw Error("compile request: " + name + ".count is out of range");
    std::vector<std::string> items;
    for (long long k = 0; k < count; ++k) {
        const std::string key = name + "." + std::to_string(k);
        if (!m.fields.count(key)) throw Error("compile request: " + key + " is missing");
        items.push_back(m.fields.at(key));
    }
    return items;
}

// The payload's next `bytes` bytes from `at`; gi::Error when it is shorter.
std::string take(const std::string& payload, std::size_t& at, long long bytes) {
    if (bytes < 0 || static_cast<std::size_t>(bytes) > payload.size() - at)
        throw Error("compile request: the payload is shorter than its sizes say");
    std::string part = payload.substr(at, static_cast<std::size_t>(bytes));
    at += static_cast<std::size_t>(bytes);
    return part;
}

}  // namespace

worker::Message to_message(const DeviceCompileRequest& r, std::set<std::string>* known) {
    worker::Message m{"compile", {{"name", r.name}, {"arch", r.arch}, {"source-bytes", std::to_string(r.source.size())}}, r.source};
    put_list(m, "option", r.options);
    put_list(m, "include", r.include_dirs);
    put_list(m, "name-expression", r.name_expressions);
    std::vector<std::string> names, sizes, hashes;
    for (const auto& [name, text] : r.headers) {
        names.push_back(name);
        if (known) {
            hashes.push_back(sha256_hex(text));
            // -1: the process has it already, by this hash.
            if (!known->insert(hashes.back()).second) {
                sizes.push_back("-1");
                continue;
            }
        }
        sizes.push_back(std::to_string(text.size()));
        m.payload += text;
    }
    put_list(m, "header", names);
    put_list(m, "header-bytes", sizes);
    if (known) put_list(m, "header-sha256", hashes);
    return m;
}

DeviceCompileRequest compile_request_from(const worker::Message& m, std::map<std::string, std::string>* store) {
    if (m.type != "compile") throw Error("expected a compile request, got '" + m.type + "'");
    DeviceCompileRequest r;
    r.name = m.get("name", r.name);
    r.arch = m.get("arch", r.arch);
    std::size_t at = 0;
    r.source = take(m.payload, at, m.integer("source-bytes", -1));
    r.options = get_list(m, "option");
    r.include_dirs = get_list(m, "include");
    r.name_expressions = get_list(m, "name-expression");
    const std::vector<std::string> names = get_list(m, "header"), sizes = get_list(m, "header-bytes");
    if (names.size() != sizes.size()) throw Error("compile request: " + std::to_string(names.size()) + " headers but " +
                                                  std::to_string(sizes.size()) + " sizes");
    const std::vector<std::string> hashes = get_list(m, "header-sha256");
    if (!hashes.empty() && hashes.size() != names.size())
        throw Error("compile request: " + std::to_string(names.size()) + " headers but " + std::to_string(hashes.size()) + " hashes");
    if (!hashes.empty() && !store) throw Error("compile request: headers by hash, but this process keeps none");
    for (std::size_t k = 0; k < names.size(); ++k) {
        long long bytes = -2;
        try {
            bytes = std::stoll(sizes[k]);
        } catch (const std::exception&) {
        }
        if (hashes.empty()) {
            r.headers.emplace_back(names[k], take(m.payload, at, bytes));
            continue;
        }
        if (bytes == -1) {
            const auto it = store->find(hashes[k]);
            if (it == store->end())
                throw Error("compile request: the header " + names[k] + " came by its hash " + hashes[k] +
                            ", which this process was never sent");
            r.headers.emplace_back(names[k], it->second);
            continue;
        }
        std::string text = take(m.payload, at, bytes);
        if (sha256_hex(text) != hashes[k])
            throw Error("compile request: the header " + names[k] + " does not match its sha256 (damaged on the way)");
        (*store)[hashes[k]] = text;
        r.headers.emplace_back(names[k], std::move(text));
    }
    if (at != m.payload.size()) throw Error("compile request: the payload is longer than its sizes say");
    return r;
}

worker::Message to_message(const DeviceCompileResult& r) {
    worker::Message m{"compiled", {{"ok", r.ok ? "1" : "0"}, {"log", r.log}, {"compiler", r.compiler}}, r.cubin};
    m.fields["ms"] = std::to_string(r.ms);
    return m;
}

DeviceCompileResult compile_result_from(const worker::Message& m) {
    if (m.type == "refused") throw Error(m.get("message", "NVRTC refused the compile"));
    if (m.type != "compiled") throw Error("expected a compile result, got '" + m.type + "': " + m.get("message"));
    DeviceCompileResult r;
    r.ok = m.get("ok") == "1";
    r.log = m.get("log");
    r.compiler = m.get("compiler", "nvrtc");
    r.ms = m.number("ms");
    r.cubin = m.payload;
    if (r.ok && r.cubin.empty()) throw Error("a compile result says ok but carries no cubin");
    return r;
}

}  // namespace gi
