// Host tests of dispatch_length (dispatch.hpp): the per-length switch of the FFT chapters' launchers.
#include <stdexcept>
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "doctest.hpp"

using tut::fft::dispatch_length;

TEST_CASE("dispatch_length calls the launch once, with N = 2^log2n as a compile-time constant") {
  for (int log2n = 5; log2n <= 12; ++log2n) {
    std::vector<int> seen;
    dispatch_length<5, 12>(log2n, "test", [&](auto n) {
      constexpr int N = decltype(n)::value;  // a constant expression: usable as a template argument
      static_assert(N >= 32 && N <= 4096 && (N & (N - 1)) == 0, "N = 2^5 .. 2^12");
      seen.push_back(N);
    });
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == (1 << log2n));
  }
  int calls = 0;
  dispatch_length<3, 3>(3, "one length", [&](auto n) { calls += decltype(n)::value; });
  CHECK(calls == 8);
}

TEST_CASE("dispatch_length throws for a length outside its range, naming the variant and the range") {
  for (int log2n : {-1, 0, 4, 13, 20, 30}) {
    INFO("log2n = " << log2n);
    int calls = 0;
    const std::string message = "variant-x: no kernel for N = 2^" + std::to_string(log2n) +
                                "; it handles N = 2^5 to 2^12";
    const auto dispatch = [&] { dispatch_length<5, 12>(log2n, "variant-x", [&](auto) { ++calls; }); };
    CHECK_THROWS_WITH_AS(dispatch(), message.c_str(), std::invalid_argument);
    CHECK(calls == 0);
  }
}
