// stereo: disparity maps from a stereo pair with the StereoCamera-style kernel, written the way a
// downstream project uses gi-optimize:
//   - the kernel is launched through gi::launch, so the same program run with GI_RECORD_DIR set
//     records test cases (it is the RECORDER of gi_optimize_cuda_kernel() in CMakeLists.txt);
//   - the launch geometry comes from the generated header stereo_kernel.gi.h when the build has one
//     (GI_OPTIMIZE=ON): the parameter values of the variant that actually runs on this GPU;
//   - it prints which variant that is, and the time per frame.
// Without a CUDA device it still says which variant each architecture was built with, and writes
// the CPU reference's map instead (clearly labelled).
#include <cuda_runtime.h>

#include <gi/launch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "pgm.hpp"
#include "stereo/reference.hpp"
#include "stereo/stereo.cuh"

#if __has_include("stereo_kernel.gi.h")
#include "stereo_kernel.gi.h"
#define HAVE_GI_VARIANTS 1
#endif

namespace {

const char* const kUsage =
    "usage: stereo [--left L.pgm --right R.pgm | --width 320 --height 240 --seed 1] [--pairs 1]\n"
    "              [--frames 20] [--out disparity.pgm] [--write-pair PREFIX] [--check] [--variants]\n"
    "  Computes the disparity map (0..50 pixels, -1 where nothing matches) of a stereo pair read from\n"
    "  PGM files or made up (a synthetic scene with known disparity), writes it as a PGM (disparity\n"
    "  d as grey level 5*(d+1), black where nothing matches) and prints the time per frame and which\n"
    "  kernel variant ran. --pairs N processes N synthetic pairs (seeds seed..seed+N-1; with\n"
    "  GI_RECORD_DIR set each launch becomes a test case for gi-optimize). --check compares every\n"
    "  pixel with the CPU reference. --variants lists the variants this binary was built with.\n"
    "example: stereo --width 640 --height 480 --frames 50 --out map.pgm --check\n";

struct Options {
    std::string left, right, out = "disparity.pgm", write_pair;
    int width = 320, height = 240, pairs = 1, frames = 20;
    long long seed = 1;
    bool check = false, variants = false;
};

int integer(const char* text, const char* name, long long min, long long max) {
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < min || value > max)
        throw std::invalid_argument(std::string("--") + name + " needs an integer in " + std::to_string(min) + ".." +
                                    std::to_string(max) + ", got '" + text + "'");
    return static_cast<int>(value);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--check") { o.check = true; continue; }
        if (arg == "--variants") { o.variants = true; continue; }
        if (arg == "--help" || arg == "-h") { std::fputs(kUsage, stdout); std::exit(0); }
        if (i + 1 >= argc) throw std::invalid_argument("unknown option or missing value: '" + arg + "'");
        const char* value = argv[++i];
        if (arg == "--left") o.left = value;
        else if (arg == "--right") o.right = value;
        else if (arg == "--out") o.out = value;
        else if (arg == "--write-pair") o.write_pair = value;
        else if (arg == "--width") o.width = integer(value, "width", 16, 8192);
        else if (arg == "--height") o.height = integer(value, "height", 16, 8192);
        else if (arg == "--seed") o.seed = integer(value, "seed", 0, 1 << 30);
        else if (arg == "--pairs") o.pairs = integer(value, "pairs", 1, 1000);
        else if (arg == "--frames") o.frames = integer(value, "frames", 1, 100000);
        else throw std::invalid_argument("unknown option '" + arg + "'");
    }
    if (o.left.empty() != o.right.empty()) throw std::invalid_argument("--left and --right go together");
    return o;
}

gi::stereo::StereoPair load_pair(const Options& o, int index) {
    if (o.left.empty()) return gi::stereo::make_stereo_pair(o.width, o.height, static_cast<std::uint64_t>(o.seed + index));
    const example::Pgm left = example::read_pgm(o.left), right = example::read_pgm(o.right);
    if (left.width != right.width || left.height != right.height)
        throw std::runtime_error(o.left + " and " + o.right + " differ in size");
    gi::stereo::StereoPair pair;
    pair.left = {left.width, left.height, left.pixels};
    pair.right = {right.width, right.height, right.pixels};
    return pair;
}

example::Pgm disparity_image(const std::vector<float>& disparity, int width, int height) {
    example::Pgm image{width, height, std::vector<std::uint8_t>(disparity.size())};
    for (std::size_t i = 0; i < disparity.size(); ++i)
        image.pixels[i] = disparity[i] < 0 ? 0 : static_cast<std::uint8_t>(5 * (disparity[i] + 1));
    return image;
}

// Which variant runs and the launch geometry it needs.
struct Launch {
    dim3 block, grid;
    std::string variant;
};

Launch launch_for(int width, int height) {
#ifdef HAVE_GI_VARIANTS
    // Exact: asks the runtime which architecture's code it loaded for stereo_kernel on this GPU.
    if (const gi_stereo_kernel_variant* v = gi_stereo_kernel_variant_for_kernel((const void*)stereo_kernel)) {
        const int tile = v->XHALO ? static_cast<int>(v->BLOCK_W) - 2 * gi::stereo::kRadius : static_cast<int>(v->BLOCK_W);
        const int rows = static_cast<int>(v->ROWS_PER_THREAD);
        Launch l{dim3(static_cast<unsigned>(v->BLOCK_W), static_cast<unsigned>(v->DPER)),
                 dim3((width + tile - 1) / tile, (height + rows - 1) / rows), ""};
        l.variant = v->genome[0] ? std::string("gi-optimize variant for sm_") + std::to_string(v->architecture) + ": " +
                                       v->genome + "\n  from " + v->origin
                                 : std::string("original kernel (") + v->origin + ")";
        return l;
    }
#endif
    Launch l{stereo_block(), stereo_grid(width, height), "original kernel (built with GI_OPTIMIZE=OFF)"};
    return l;
}

void print_variants() {
#ifdef HAVE_GI_VARIANTS
    for (int i = 0; i < gi_stereo_kernel_variants_count; ++i) {
        const gi_stereo_kernel_variant& v = gi_stereo_kernel_variants[i];
        if (v.genome[0])
            std::printf("  sm_%d: gi-optimize variant %s (BLOCK_W=%lld ROWS_PER_THREAD=%lld)\n      from %s\n", v.architecture,
                        v.genome, v.BLOCK_W, v.ROWS_PER_THREAD, v.origin);
        else
            std::printf("  %s: %s\n", i + 1 == gi_stereo_kernel_variants_count ? "other architectures" : "?",
                        v.origin);
    }
#else
    std::printf("  original kernel everywhere (built with GI_OPTIMIZE=OFF)\n");
#endif
}

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

int run(const Options& o) {
    if (o.variants) {
        std::printf("stereo_kernel variants in this binary:\n");
        print_variants();
        return 0;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("no CUDA device here: the kernel cannot run. This binary was built with:\n");
        print_variants();
        const gi::stereo::StereoPair pair = load_pair(o, 0);
        const gi::stereo::DisparityMap map = gi::stereo::stereo_reference(pair.left, pair.right);
        example::write_pgm(o.out, disparity_image(map.disparity, map.width, map.height));
        std::printf("wrote the CPU reference's disparity map (not the kernel's) to %s\n", o.out.c_str());
        return 0;
    }

    const bool recording = std::getenv("GI_RECORD_DIR") && *std::getenv("GI_RECORD_DIR");
    bool all_match = true;
    for (int p = 0; p < o.pairs; ++p) {
        const gi::stereo::StereoPair pair = load_pair(o, p);
        const int width = pair.left.width, height = pair.left.height;
        if (p == 0 && !o.write_pair.empty()) {
            example::write_pgm(o.write_pair + "-left.pgm", {width, height, pair.left.pixels});
            example::write_pgm(o.write_pair + "-right.pgm", {width, height, pair.right.pixels});
        }
        const std::size_t n = static_cast<std::size_t>(width) * height;
        unsigned char *left = nullptr, *right = nullptr;
        float* disparity = nullptr;
        int* min_ssd = nullptr;
        check(cudaMalloc(&left, n), "cudaMalloc");
        check(cudaMalloc(&right, n), "cudaMalloc");
        check(cudaMalloc(&disparity, n * sizeof(float)), "cudaMalloc");
        check(cudaMalloc(&min_ssd, n * sizeof(int)), "cudaMalloc");
        check(cudaMemcpy(left, pair.left.pixels.data(), n, cudaMemcpyHostToDevice), "upload");
        check(cudaMemcpy(right, pair.right.pixels.data(), n, cudaMemcpyHostToDevice), "upload");
        check(cudaMemset(disparity, 0xff, n * sizeof(float)), "cudaMemset");
        check(cudaMemset(min_ssd, 0x7f, n * sizeof(int)), "cudaMemset");

        const Launch launch = launch_for(width, height);
        auto run_kernel = [&] {
            check(gi::launch(stereo_kernel, "stereo_kernel", launch.grid, launch.block, 0, nullptr, left, right,
                             disparity, min_ssd, width, height),
                  "stereo_kernel launch");
        };
        run_kernel();
        check(cudaDeviceSynchronize(), "stereo_kernel");
        std::vector<float> result(n);
        check(cudaMemcpy(result.data(), disparity, n * sizeof(float), cudaMemcpyDeviceToHost), "download");

        if (p == 0) {
            float ms = 0;
            int frames = 0;
            if (!recording) {  // a recording run synchronises every launch: its times mean nothing
                cudaEvent_t start, stop;
                check(cudaEventCreate(&start), "cudaEventCreate");
                check(cudaEventCreate(&stop), "cudaEventCreate");
                check(cudaEventRecord(start), "cudaEventRecord");
                for (frames = 0; frames < o.frames; ++frames) run_kernel();
                check(cudaEventRecord(stop), "cudaEventRecord");
                check(cudaEventSynchronize(stop), "stereo_kernel");
                check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
            }
            example::write_pgm(o.out, disparity_image(result, width, height));
            std::printf("stereo_kernel %dx%d, block (%u,%u), grid (%u,%u)\n  kernel: %s\n", width, height, launch.block.x,
                        launch.block.y, launch.grid.x, launch.grid.y, launch.variant.c_str());
            if (frames > 0) std::printf("  time per frame: %.4f ms (%d frames)\n", ms / frames, frames);
            std::printf("  disparity map: %s\n", o.out.c_str());
        }
        if (o.check) {
            const gi::stereo::DisparityMap expected = gi::stereo::stereo_reference(pair.left, pair.right);
            long long wrong = 0;
            for (std::size_t i = 0; i < n; ++i) wrong += result[i] != expected.disparity[i];
            std::printf("  pair %d: %lld of %zu pixels differ from the CPU reference\n", p, wrong, n);
            all_match = all_match && wrong == 0;
        }
        cudaFree(left);
        cudaFree(right);
        cudaFree(disparity);
        cudaFree(min_ssd);
    }
    return all_match ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse(argc, argv));
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "stereo: %s\n%s", e.what(), kUsage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stereo: %s\n", e.what());
        return 1;
    }
}
