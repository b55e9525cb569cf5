#pragma once
// Builds a Grammar from a kernel source file. Throws gi::Error with file:line and a hint for input
// it cannot follow: no such function, unbalanced braces or parentheses, unterminated comments,
// strings or #if blocks, a kernel whose braces come from macros. Never crashes on any input.
#include "grammar/grammar.hpp"
#include "grammar/grammar_options.hpp"
#include "source/source_file.hpp"

namespace gi {

Grammar build_grammar(const SourceFile& source, const GrammarOptions& options);

}  // namespace gi
