#include "compare/tolerance.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/error.hpp"

namespace gi {

std::string to_string(const Tolerance& t) {
    if (t.exact()) return "exact";
    std::ostringstream out;
    const char* sep = "";
    if (t.abs > 0) { out << sep << "abs=" << t.abs; sep = ","; }
    if (t.rel > 0) { out << sep << "rel=" << t.rel; sep = ","; }
    if (t.ulp > 0) { out << sep << "ulp=" << t.ulp; }
    return out.str();
}

Tolerance ToleranceSpec::for_names(const std::vector<std::string>& names) const {
    for (const auto& name : names)
        if (auto it = by_name.find(name); it != by_name.end()) return it->second;
    return all;
}

Tolerance parse_tolerance(const std::string& text, const std::string& argument) {
    const std::string hint = " (expected exact, abs=X, rel=X, ulp=N or a comma-separated mix, e.g. abs=1e-6,rel=1e-4)";
    if (text == "exact") return {};
    if (!text.empty() && (text.back() == ',' || text.front() == ','))
        throw UsageError(argument + " '" + text + "' has an empty part" + hint);
    Tolerance t;
    std::stringstream parts(text);
    std::string part;
    bool any = false;
    while (std::getline(parts, part, ',')) {
        const auto eq = part.find('=');
        if (eq == std::string::npos)
            throw UsageError(argument + " '" + text + "': '" + part + "' is not KIND=VALUE" + hint);
        const std::string kind = part.substr(0, eq), value = part.substr(eq + 1);
        char* end = nullptr;
        if (kind == "ulp") {
            const long long n = std::strtoll(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || n < 0)
                throw UsageError(argument + " '" + text + "': ulp needs a non-negative integer, not '" + value + "'");
            t.ulp = n;
        } else if (kind == "abs" || kind == "rel") {
            const double x = std::strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0' || !std::isfinite(x) || x < 0)
                throw UsageError(argument + " '" + text + "': " + kind + " needs a non-negative number, not '" + value + "'");
            (kind == "abs" ? t.abs : t.rel) = x;
        } else {
            throw UsageError(argument + " '" + text + "': unknown tolerance kind '" + kind + "'" + hint);
        }
        any = true;
    }
    if (!any) throw UsageError(argument + " is empty" + hint);
    return t;
}

ToleranceSpec parse_tolerance_spec(const std::vector<std::string>& texts, const std::string& argument) {
    ToleranceSpec spec;
    for (const auto& text : texts) {
        const auto colon = text.find(':');
        if (colon == std::string::npos) {
            spec.all = parse_tolerance(text, argument);
            continue;
        }
        const std::string name = text.substr(0, colon);
        if (name.empty()) throw UsageError(argument + " '" + text + "': the buffer name before ':' is empty");
        spec.by_name[name] = parse_tolerance(text.substr(colon + 1), argument);
    }
    return spec;
}

}  // namespace gi
