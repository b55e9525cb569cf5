#pragma once
// Numbers as the tool's human-readable outputs write them (summaries, progress lines, reports).
#include <string>
#include <vector>

namespace gi {

// `value` with `digits` decimals ("%.*f": "inf" and "nan" as printf writes them).
std::string fixed(double value, int digits);

// `value` with `digits` significant digits ("%.*g": 0.02579, 2.372e-05, 25.13).
std::string significant(double value, int digits);

// Every digit ("%.17g": reads back as the same double), with "nan", "inf" and "-inf" for the
// values that are not finite: numbers in run records, worker replies and logs.
std::string exact(double value);

// The same, or "-" for a value that is not finite: a table cell with nothing to show.
std::string fixed_or_dash(double value, int digits);

// `name` with every character that is not a letter, digit or '_' replaced by '_': a kernel name such
// as "MatrixMulCUDA<32>" made fit for file names and C identifiers ("MatrixMulCUDA_32_").
std::string file_name_part(const std::string& name);

// Text a user supplied, made safe to quote in a message: printable() (util/text_rule.hpp: control
// characters, NUL included, written as \xNN), and anything past `max_bytes` replaced by a count,
// so a 50 MB rule name costs one line of stderr, not 50 MB.
std::string excerpt(const std::string& text, std::size_t max_bytes = 80);

// The items with `separator` between them ("a, b, c").
std::string join(const std::vector<std::string>& items, const std::string& separator);

}  // namespace gi
