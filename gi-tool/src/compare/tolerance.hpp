#pragma once
// How closely a variant's output must match the original's, per buffer. Integers and raw bytes
// are always compared exactly; floats by the tolerance declared (exact by default). An element
// passes when it is within ANY of the bounds given; NaN never equals anything, itself included.
//
// Text form (gi-tool --tolerance, CMake TOLERANCE): "exact", "abs=1e-3", "rel=1e-5", "ulp=4", or a
// comma-separated mix "abs=1e-6,rel=1e-4"; prefixed with "NAME:" it applies to one buffer only,
// NAME being the kernel parameter pointing to it or argN ("out:abs=1e-3").
#include <map>
#include <string>
#include <vector>

namespace gi {

struct Tolerance {
    double abs = 0;            // |a-b| <= abs
    double rel = 0;            // |a-b| <= rel * max(|a|,|b|)
    long long ulp = 0;         // units in the last place between a and b
    bool exact() const { return abs == 0 && rel == 0 && ulp == 0; }
    friend bool operator==(const Tolerance&, const Tolerance&) = default;
};

std::string to_string(const Tolerance& t);  // "exact", "abs=0.001,ulp=4"

struct ToleranceSpec {
    Tolerance all;                             // every float buffer without its own
    std::map<std::string, Tolerance> by_name;  // parameter name or argN -> tolerance
    // The tolerance for a buffer reached through the arguments named `names` (the first named wins).
    Tolerance for_names(const std::vector<std::string>& names) const;
};

// Parses one --tolerance value. Throws gi::UsageError naming `argument` and the bad part.
Tolerance parse_tolerance(const std::string& text, const std::string& argument);

// Parses every --tolerance value (later ones override earlier ones for the same target).
ToleranceSpec parse_tolerance_spec(const std::vector<std::string>& texts, const std::string& argument);

}  // namespace gi
