// Aligns two generated protein sequences with align_diagonal (one launch per anti-diagonal of
// tiles), checks every cell of the score matrix against the CPU reference exactly, and times a whole
// alignment with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on PASS, 1 on FAIL, 2
// for bad arguments or without a GPU (waived).
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "wavefront/reference.hpp"
#include "wavefront/wavefront.cuh"

namespace {

using gi::kernels::DeviceBuffer;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"n", 1376}, {"m", 0}, {"gap", 10}, {"seed", 1}, {"warmup", 2}, {"reps", 10}},
        "usage: wavefront_driver [--n 1376] [--m N] [--gap 10] [--seed 1] [--warmup 2] [--reps 10]\n"
        "  --n, --m: the two sequences' lengths (--m 0: as --n); one launch per anti-diagonal of tiles\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: wavefront_driver --n 2048 --m 1500 --gap 8");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int n = static_cast<int>(options.get("n", 1, 46340));
    const int m_option = static_cast<int>(options.get("m", 0, 46340));
    const int m = m_option == 0 ? n : m_option;
    const int gap = static_cast<int>(options.get("gap", 0, 1000));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("wavefront_driver")) return gi::kernels::kExitWaived;

    const gi::wavefront::SequencePair seqs = gi::wavefront::make_sequences(n, m, seed);
    const std::vector<int> table = gi::wavefront::substitution_table();
    GI_CUDA_CHECK(align_set_substitution(table.data()));
    DeviceBuffer<int> score(gi::wavefront::initial_scores(n, m, gap)), seq_a(seqs.a), seq_b(seqs.b);

    const int diagonals = align_diagonals(n, m);
    // Every cell is computed from cells of the same run and the borders, so a repeated alignment
    // needs no reset.
    const auto align = [&] {
        for (int d = 0; d < diagonals; ++d) {
            gi::kernels::launch_kernel(align_diagonal, "align_diagonal", align_grid(n, m, d), align_block(),
                                       score.get(), seq_a.get(), seq_b.get(), n, m, d, gap);
        }
    };
    align();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<int> got = score.download();
    const std::vector<int> expected = gi::wavefront::align_reference(seqs, table, gap);
    long long bad = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        if (got[k] != expected[k]) {
            if (bad < 5)
                std::fprintf(stderr, "cell (%zu,%zu): kernel %d, reference %d\n", k / (m + 1), k % (m + 1), got[k],
                             expected[k]);
            ++bad;
        }
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(align, warmup, reps);
    std::printf("align_diagonal [%s] %d x %d residues, tile %d (%d launches): alignment median %.4f ms (spread %.4f, "
                "min %.4f, %d reps), %.1f Mcell/s; score %d; %lld cells differ from the reference -> %s\n",
                gi::kernels::launch_mode(), n, m, align_tile(), diagonals, timing.median_ms, timing.spread_ms,
                timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? double(n) * m / (timing.median_ms * 1e3) : 0.0, expected.back(), bad,
                ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("wavefront_driver", run, argc, argv); }
