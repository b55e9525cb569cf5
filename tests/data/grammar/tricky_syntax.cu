// Syntax that trips naive line-based parsers: every construct here must keep its place.
#define N 256
#define LOOP_BODY(i) acc += (i)
#define GUARDED 1

struct Accum { float sum; int count; };

__global__ void tricky(float* out, const float* in, int n, int m)
{
    __shared__ float tile[N];   // { brace in a comment; and a semicolon
    /* a block comment with } and ; and "quotes" */
    const char* msg = "string with { braces } and ; semicolons";
    char quote = '}';
    char semi = ';';
    int a = 0, b = 1, c;
    Accum acc_s = {0.0f, 0};
    float acc = 0.0f;
    unsigned long long big = 1'000'000ULL;
    a = b + 1; b = a * 2; c = a - b;   // three statements on one line
    out[0] = in[0] +
             in[1] +
             in[2];                    // one statement over three lines
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
            acc += in[i * m + j];
    for (;;) { break; }
    int k = 0;
    while (k < n) { k += 2; if (k == 10) continue; }
    do {
        k--;
    } while (k > 0);
    switch (n) {
    case 0:
        acc = 0.0f;
        break;
    case 1: {
        acc = 1.0f;
        break;
    }
    default:
        acc *= 2.0f;
    }
    if (n > 1)
    {
        LOOP_BODY(n);
    }
    else if (n < -1) acc = -1.0f;
    else
        acc = 2.0f;
    if (a) if (b) c = 3; else c = 4;
#if GUARDED
    tile[threadIdx.x] = acc;
#endif
    __syncthreads();
    for (auto v : {1, 2, 3}) acc += v;
done:
    out[threadIdx.x] = tile[threadIdx.x] + acc + acc_s.sum + quote + semi + (msg[0] == 's') + big;
}
