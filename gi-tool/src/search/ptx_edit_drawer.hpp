#pragma once
// PTX edits as mutations (issue 46, `evolve --ptx-edits RATE`): a code edit drawer that, with
// probability RATE, draws a PTX edit on the instructions of the kernel's entry in the PTX of the
// genome's source part (ptx/random_ptx_edit.hpp), and otherwise, or when there is no PTX to draw
// on, asks the source drawer. Off (the source drawer alone, the same draws as before) at rate 0.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ptx/ptx_module.hpp"
#include "search/code_edit.hpp"

namespace gi {

// The PTX a genome's source part (its genes and source edits) compiles to, parsed, or null when it
// has none to offer (NVRTC cannot compile the file alone, say). Must be what the evaluator builds
// PTX-edited variants from: same compiler, options and architecture.
using PtxOf = std::function<std::shared_ptr<const PtxModule>(const Genome& source_part)>;

// The genome without its PTX edits.
Genome source_part(const Genome& genome);

// What the drawer did over a run (the run's note says it): the drawer's cost to the search.
struct PtxDrawerStats {
    long ptx_draws = 0;            // draws that went for a PTX edit (RATE of all)
    long ptx_edits = 0;            // of them, a PTX edit drawn; the others asked the source drawer
    long parts_compiled = 0;       // source parts whose PTX was made
    double compile_s = 0;          // making it, summed over the threads that did
    double prefetch_wall_s = 0;    // the prefetches' wall time (off the search's thread where it runs apart)
    double draw_wait_s = 0;        // the draws' time waiting for (or making) a part's PTX
};
std::string describe(const PtxDrawerStats& stats, double rate);

struct PtxEditDrawer {
    EditDrawer draw;
    // Compiles the PTX of each parent's source part not yet known, all at once: nvcc's front end
    // costs about 0.3 s a source, which draws asking for one parent at a time would pay in series.
    DrawPrefetch prefetch;  // empty at rate 0
    std::function<PtxDrawerStats()> stats;  // so far; empty at rate 0
};

// `function`: the kernel's name in the source, to find its entry in the PTX. `prefetch_jobs`:
// compiles the prefetch runs at once (0: the hardware's threads).
PtxEditDrawer ptx_edit_drawer(EditDrawer source, PtxOf ptx_of, std::string function, double rate,
                              unsigned prefetch_jobs = 0);
EditDrawer with_ptx_edits(EditDrawer source, PtxOf ptx_of, std::string function, double rate);

}  // namespace gi
