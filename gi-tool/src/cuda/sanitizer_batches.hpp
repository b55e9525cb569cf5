#pragma once
// How the sanitizer gate groups variants into compute-sanitizer processes. Each process pays the
// sanitizer's start-up, a CUDA context and the case's upload (seconds on an H100, where a small
// kernel's run under memcheck takes milliseconds), so several variants share one process: the same
// checkers, each variant run in turn on the freshly restored case. A batch that does not pass as a
// whole is run again one variant per process, so a verdict is always a single variant's own.
#include <cstddef>
#include <string>
#include <vector>

namespace gi {

// Indices into `tools_of` (each variant's checkers, e.g. {"memcheck"} or {"memcheck", "racecheck",
// "synccheck"}), grouped so each batch holds variants with the same checkers, at most `max_batch`
// of them, and the batches number about `processes` (the processes run at once) or more: the
// variants of a group are spread evenly over ceil(group size / per-batch) batches. Order within a
// batch follows the input; max_batch 1 gives one batch per variant.
//
// `slow` (the gate has long-lived sessions): variants whose checkers include `slow` are batched
// apart and placed first, at most `slow_per_batch` to a batch (split evenly), so the longest checks
// start first (racecheck: 0.4-1.5 s a stereo variant, issue 19). A session runs such a batch's
// variants at once (CheckVariants::side_by_side) or, with `slow_per_batch` 1, alone: a session
// checks a batch's variants one after another, and batched they would only queue. The others are
// batched as above.
std::vector<std::vector<std::size_t>> sanitizer_batches(const std::vector<std::vector<std::string>>& tools_of,
                                                        std::size_t processes, std::size_t max_batch,
                                                        const std::string& slow = "", std::size_t slow_per_batch = 1);

}  // namespace gi
