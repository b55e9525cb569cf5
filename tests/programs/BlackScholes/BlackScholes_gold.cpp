// BlackScholes_gold.cpp: the CPU reference, in double precision.
#include <cmath>

static double CND(double d) {
  const double A1 = 0.31938153;
  const double A2 = -0.356563782;
  const double A3 = 1.781477937;
  const double A4 = -1.821255978;
  const double A5 = 1.330274429;
  const double RSQRT2PI = 0.39894228040143267793994605993438;

  double K = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  double cnd = RSQRT2PI * std::exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) cnd = 1.0 - cnd;
  return cnd;
}

static void BlackScholesBodyCPU(float &callResult, float &putResult, float Sf, float Xf, float Tf, float Rf,
                                float Vf) {
  double S = Sf, X = Xf, T = Tf, R = Rf, V = Vf;

  double sqrtT = std::sqrt(T);
  double d1 = (std::log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT);
  double d2 = d1 - V * sqrtT;
  double CNDD1 = CND(d1);
  double CNDD2 = CND(d2);

  double expRT = std::exp(-R * T);
  callResult = static_cast<float>(S * CNDD1 - X * expRT * CNDD2);
  putResult = static_cast<float>(X * expRT * (1.0 - CNDD2) - S * (1.0 - CNDD1));
}

extern "C" void BlackScholesCPU(float *h_CallResult, float *h_PutResult, float *h_StockPrice, float *h_OptionStrike,
                                float *h_OptionYears, float Riskfree, float Volatility, int optN) {
  for (int opt = 0; opt < optN; opt++)
    BlackScholesBodyCPU(h_CallResult[opt], h_PutResult[opt], h_StockPrice[opt], h_OptionStrike[opt],
                        h_OptionYears[opt], Riskfree, Volatility);
}
