#pragma once
// Numbers as the tool's human-readable outputs write them (summaries, progress lines, reports).
#include <string>

namespace gi {

// `value` with `digits` decimals ("%.*f": "inf" and "nan" as printf writes them).
std::string fixed(double value, int digits);

// The same, or "-" for a value that is not finite: a table cell with nothing to show.
std::string fixed_or_dash(double value, int digits);

}  // namespace gi
