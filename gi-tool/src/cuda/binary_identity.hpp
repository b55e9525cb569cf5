#pragma once
// When two variants are the same program. Many edits change only text the compiler throws away (a
// statement whose result nothing reads, `const` on a by-value parameter, a gene that no live code
// reads, an option that is already the default): in a recorded stereo search, 11-33% of each
// generation compiled to the module of another individual of the same generation. Such a variant
// behaves exactly as the first one, so the evaluator hands it the first one's result on that case
// instead of a second GPU run, and the search cannot favour one of two equal programs because
// its timing was luckier.
#include <string>
#include <string_view>

#include "launch/geometry.hpp"

namespace gi {

// A key equal for two builds exactly when they load the same code and launch it the same way:
// sha256 over the module image, the separately built guarded module ("" when there is none or it
// shares the module) and the launch geometry. Pure.
std::string binary_identity(std::string_view module, std::string_view guarded_module, const ResolvedGeometry& geometry);

}  // namespace gi
