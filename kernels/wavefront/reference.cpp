#include "wavefront/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::wavefront {

std::vector<int> substitution_table() {
    std::vector<int> table(kAlphabet * kAlphabet);
    for (int a = 0; a < kAlphabet; ++a)
        for (int b = 0; b < kAlphabet; ++b) {
            int s;
            if (a == b) s = 4 + (a * 7) % 8;
            else if (a / 4 == b / 4) s = (a + b) % 3;
            else s = -1 - (a * b) % 4;
            table[a * kAlphabet + b] = s;
        }
    return table;
}

SequencePair make_sequences(int n, int m, std::uint64_t seed) {
    if (n < 1 || m < 1 || n > 46340 || m > 46340) {
        throw std::invalid_argument("sequences of " + std::to_string(n) + " and " + std::to_string(m) +
                                    " residues: each must have 1..46340");
    }
    gi::kernels::SplitMix64 rng(seed * 0x9FB21C651E98DF25ull + 11);
    SequencePair s;
    for (int i = 0; i < n; ++i) s.a.push_back(rng.uniform_int(0, kAlphabet - 1));
    for (int i = 0; static_cast<int>(s.b.size()) < m; ++i) {
        const double event = rng.uniform01();
        const int source = i < n ? s.a[i] : rng.uniform_int(0, kAlphabet - 1);
        if (event < 0.04) continue;  // deletion
        if (event < 0.08) {          // insertion before the residue
            s.b.push_back(rng.uniform_int(0, kAlphabet - 1));
            s.b.push_back(source);
        } else if (event < 0.25) {  // substitution
            s.b.push_back(rng.uniform_int(0, kAlphabet - 1));
        } else {
            s.b.push_back(source);
        }
    }
    s.b.resize(m);
    return s;
}

std::vector<int> initial_scores(int n, int m, int gap) {
    std::vector<int> score(static_cast<std::size_t>(n + 1) * (m + 1), 0);
    for (int j = 0; j <= m; ++j) score[j] = -gap * j;
    for (int i = 0; i <= n; ++i) score[static_cast<std::size_t>(i) * (m + 1)] = -gap * i;
    return score;
}

std::vector<int> align_reference(const SequencePair& s, const std::vector<int>& table, int gap) {
    const int n = static_cast<int>(s.a.size()), m = static_cast<int>(s.b.size());
    std::vector<int> score = initial_scores(n, m, gap);
    const std::size_t pitch = m + 1;
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= m; ++j) {
            const int match = score[(i - 1) * pitch + j - 1] + table[s.a[i - 1] * kAlphabet + s.b[j - 1]];
            const int del = score[(i - 1) * pitch + j] - gap;
            const int ins = score[i * pitch + j - 1] - gap;
            score[i * pitch + j] = std::max({match, del, ins});
        }
    return score;
}

}  // namespace gi::wavefront
