#pragma once
// Launch-geometry declarations: when tunable parameters change the block size (and so the grid),
// replay must launch a variant with the geometry its parameter values imply, not the recorded one.
// The user declares block and grid as expressions (launch/expression.hpp) over parameter names and
// the kernel's integer scalar arguments (by parameter name, or arg0, arg1...). Without a
// declaration, a variant runs with the recorded geometry. The kernel file's integer #define
// constants are names too (`--block-size BLOCK_SIZE`), supplied with the parameters.
#include <optional>
#include <string>
#include <vector>

#include "launch/expression.hpp"
#include "testcase/test_case.hpp"

namespace gi {

struct LaunchGeometry {
    std::vector<Expression> block;  // 1..3 expressions; empty: the recorded block
    std::vector<Expression> grid;   // 1..3 expressions; empty: the recorded grid
    bool declared() const { return !block.empty() || !grid.empty(); }
};

// From the --block-size / --grid option texts ("" = not declared). Throws gi::UsageError naming
// the option and the position of a syntax error.
LaunchGeometry parse_launch_geometry(const std::string& block, const std::string& grid);

// The names a case offers to expressions: each integer scalar argument under its parameter name
// (`arg_names`, from the kernel's signature; may be empty or shorter) and as argN.
NameValues case_names(const TestCase& tc, const std::vector<std::string>& arg_names);

struct ResolvedGeometry {
    Dim3 grid, block;
};

// The geometry to launch `tc` with under `params` (parameter name -> value: the parameters and the
// kernel file's integer #define constants, cuda/case_set.hpp's CaseKernel::params_of; they win
// over an argument of the same name). Throws gi::Error
// naming the case and the expression when one cannot be evaluated or gives a dimension < 1.
ResolvedGeometry resolve_geometry(const LaunchGeometry& geometry, const TestCase& tc, const NameValues& params,
                                  const std::vector<std::string>& arg_names);

// Checks that the declaration reproduces the recorded geometry under the default parameters.
// Throws gi::Error showing the declared expressions, what they give and what was recorded.
void check_recorded_geometry(const LaunchGeometry& geometry, const TestCase& tc, const NameValues& defaults,
                             const std::vector<std::string>& arg_names);

}  // namespace gi
