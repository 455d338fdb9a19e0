// Host tests of the in-flight model of copy-bound tile shapes (common/in_flight_plan.hpp, chapters 17 and 18): no GPU
// needed.
#include <string>
#include <vector>

#include "doctest.hpp"
#include "in_flight_plan.hpp"

using namespace tut;

namespace {

// Chapter 18's int32 candidates on an H100 as the occupancy API gives them: 60 KiB tiles at 6 blocks per SM and
// 72 KiB tiles at 4.
std::vector<InFlightCandidate> chapter18_int32() {
  return {{"t192-s12-r8-b6", 6, 60.0 * 1024}, {"t192-s16-r8-b4", 4, 72.0 * 1024}};
}
InFlightNeed h100(int sms = 132) { return {3352.0, kChapter02DramLatencySeconds, sms}; }

}  // namespace

TEST_CASE("in-flight model: one wave of the default's tiles takes the default, whatever the need") {
  const auto c = chapter18_int32();
  for (std::uint64_t tiles : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{6 * 132}}) {
    const auto p = in_flight_model(c, tiles, h100());
    REQUIRE(p);
    CHECK(p->choice == "t192-s12-r8-b6");
    CHECK(p->why == "model: one wave of tiles, the default shape");
  }
  CHECK_FALSE(in_flight_model(c, 6 * 132 + 1, h100()));  // both clear x2 on an H100: measure
}

TEST_CASE("in-flight model: several shapes clear the need: no plan (measure); one clears it: that one") {
  auto c = chapter18_int32();
  c[1].blocks_per_sm = 6;  // 6 x 72 KiB against 6 x 60 KiB
  // A need between the two shapes' bytes in flight / 2: only the larger clears it with the margin.
  InFlightNeed need = h100();
  const double between = (c[0].in_flight() + c[1].in_flight()) / 2 / kInFlightMargin;  // bytes per SM
  need.dram_gbps = between * need.sms / need.latency_s / 1e9;
  const auto p = in_flight_model(c, 1u << 20, need);
  REQUIRE(p);
  CHECK(p->choice == "t192-s16-r8-b4");
  CHECK(p->why.rfind("model: ", 0) == 0);
  CHECK(p->why.find("only it clears x2: 6 blocks x 72 KiB = 432 KiB") != std::string::npos);
  CHECK(p->why.find(" ns / 132 SMs)") != std::string::npos);
}

TEST_CASE("in-flight model: none clears the need: the most in flight, with the need in the reason") {
  const auto c = chapter18_int32();  // 360 and 288 KiB in flight per SM
  InFlightNeed need = h100(1);       // a whole H100's bandwidth on one SM: far past both
  const auto p = in_flight_model(c, 1u << 20, need);
  REQUIRE(p);
  CHECK(p->choice == "t192-s12-r8-b6");
  CHECK(p->why.find("none clears it; the most in flight: 6 blocks x 60 KiB = 360 KiB") != std::string::npos);
  CHECK(p->why.find("in flight per SM needed (3352 GB/s x ") != std::string::npos);
  // A candidate that does not fit at all (0 blocks) keeps nothing in flight.
  std::vector<InFlightCandidate> none = {{"a", 0, 1024}, {"b", 0, 2048}};
  const auto q = in_flight_model(none, 1u << 20, need);
  REQUIRE(q);
  CHECK(q->choice == "a");
  CHECK(q->why.find("0 blocks x 1 KiB = 0 KiB") != std::string::npos);
}

TEST_CASE("in-flight model: no candidates, no plan") { CHECK_FALSE(in_flight_model({}, 1, h100())); }
