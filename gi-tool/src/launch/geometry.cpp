#include "launch/geometry.hpp"

#include <set>

#include "util/error.hpp"

namespace gi {
namespace {

std::string join_texts(const std::vector<Expression>& dims) {
    std::string out;
    for (const auto& e : dims) out += (out.empty() ? "" : ",") + e.text();
    return out;
}

std::string case_label(const TestCase& tc) { return tc.path.empty() ? "test case of '" + tc.kernel + "'" : tc.path; }

Dim3 evaluate_dims(const std::vector<Expression>& dims, const Dim3& recorded, const NameValues& names,
                   const TestCase& tc, const char* what) {
    if (dims.empty()) return recorded;
    Dim3 out;
    std::uint32_t* parts[3] = {&out.x, &out.y, &out.z};
    for (std::size_t i = 0; i < dims.size(); ++i) {
        long long value = 0;
        try {
            value = dims[i].evaluate(names);
        } catch (const Error& e) {
            throw Error(case_label(tc) + ": " + e.what());
        }
        if (value < 1 || value > 0x7fffffffLL)
            throw Error(case_label(tc) + ": " + what + " expression '" + dims[i].text() + "' gives " +
                        std::to_string(value) + ", not a launch dimension (1..2^31-1)");
        *parts[i] = static_cast<std::uint32_t>(value);
    }
    return out;
}

}  // namespace

LaunchGeometry parse_launch_geometry(const std::string& block, const std::string& grid) {
    LaunchGeometry g;
    if (!block.empty()) g.block = parse_dims(block, "--block-size");
    if (!grid.empty()) g.grid = parse_dims(grid, "--grid");
    return g;
}

NameValues case_names(const TestCase& tc, const std::vector<std::string>& arg_names) {
    NameValues names;
    for (std::size_t i = 0; i < tc.args.size(); ++i) {
        const auto value = scalar_as_integer(tc.args[i]);
        if (!value) continue;
        names["arg" + std::to_string(i)] = *value;
        if (i < arg_names.size() && !arg_names[i].empty()) names[arg_names[i]] = *value;
    }
    return names;
}

ResolvedGeometry resolve_geometry(const LaunchGeometry& geometry, const TestCase& tc, const NameValues& params,
                                  const std::vector<std::string>& arg_names) {
    NameValues names = case_names(tc, arg_names);
    for (const auto& [name, value] : params) names[name] = value;  // parameters win over arguments
    return {evaluate_dims(geometry.grid, tc.grid, names, tc, "grid"),
            evaluate_dims(geometry.block, tc.block, names, tc, "block")};
}

void check_recorded_geometry(const LaunchGeometry& geometry, const TestCase& tc, const NameValues& defaults,
                             const std::vector<std::string>& arg_names) {
    if (!geometry.declared()) return;
    const ResolvedGeometry got = resolve_geometry(geometry, tc, defaults, arg_names);
    if (got.grid == tc.grid && got.block == tc.block) return;
    // Only the names the declaration uses: `defaults` holds every integer constant of the file too.
    std::set<std::string> used;
    for (const auto* dims : {&geometry.block, &geometry.grid})
        for (const Expression& e : *dims)
            for (const std::string& name : e.names()) used.insert(name);
    std::string params;
    for (const auto& [name, value] : defaults)
        if (used.count(name)) params += (params.empty() ? "" : " ") + name + "=" + std::to_string(value);
    throw Error(case_label(tc) + ": the declared launch geometry does not reproduce the recorded launch of '" +
                tc.kernel + "' with the default parameters (" + (params.empty() ? "none used" : params) + "):\n" +
                "  declared: grid " + (geometry.grid.empty() ? "(recorded)" : join_texts(geometry.grid)) + " = " +
                to_string(got.grid) + ", block " +
                (geometry.block.empty() ? "(recorded)" : join_texts(geometry.block)) + " = " + to_string(got.block) +
                "\n  recorded: grid " + to_string(tc.grid) + ", block " + to_string(tc.block) +
                "\n  (fix BLOCK_SIZE/GRID, or the parameter defaults, so they describe how the program launches the kernel)");
}

}  // namespace gi
