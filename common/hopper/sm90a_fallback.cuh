// The resolve step of a chapter whose stage needs sm_90a (chapters 54-57), shared by their programs:
//   needs_sm90a(variants, name)                  whether a variant's kernel needs sm_90a (its min_cc is 90)
//   sm90a_or_fallback(stage, variants, fallback)   a ChapterSpec::resolve that, after the GPU check, refuses a GPU
//                                                  below sm_80 (one line, exit 2, as chapter 53 does) and, where
//                                                  this program's sm_90a code cannot run (not an sm_90 GPU, or a
//                                                  build without arch 90), says so in one line, drops every variant
//                                                  that needs sm_90a and runs `fallback` (chapter 53's stage) in the
//                                                  stage's place; naming an sm_90a variant there is a usage error.
//   sm90a_tc_chapter(id, title, stage, variants)  the ChapterSpec of such a chapter: the ladder's, with that resolve
//                                                  step and chapter 53's stage as the fallback
#pragma once

#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "gemm_tc/tc_workload.cuh"
#include "hopper/arch.cuh"
#include "runner.cuh"

namespace tut::hopper {

// Whether the variant NAME of VARIANTS needs sm_90a code (its min_cc is 90); false for a name not among them.
inline bool needs_sm90a(const std::vector<gemm_tc::TcVariant>& variants, const std::string& name) {
  for (const auto& v : variants)
    if (v.name == name) return v.min_cc >= 90;
  return false;
}

inline std::function<void(ChapterSpec&, const Options&)> sm90a_or_fallback(
    std::string stage, std::vector<gemm_tc::TcVariant> variants, std::string fallback) {
  return [stage, variants, fallback](ChapterSpec& s, const Options& opt) {
    gemm_tc::require_compute_capability(fallback, 80);
    const char* why = sm90a_unavailable_reason();
    if (!why) return;
    for (const std::string& name : opt.variants)
      if (needs_sm90a(variants, name)) throw UsageError(name + ": " + why);
    std::cerr << stage << ": not run (" << why << "); chapter 53's stage " << fallback << " runs in its place\n";
    std::vector<VariantSpec> kept;
    for (VariantSpec v : s.variants) {
      if (needs_sm90a(variants, v.name)) continue;
      if (v.name == fallback) v.on_demand = false;
      kept.push_back(v);
    }
    s.variants = kept;
  };
}

// Chapter 53's stage, every sm_90a chapter's fallback (its programs register it under this name).
inline const char* const kSm90aFallbackStage = "bf16-gemm-cp-async-pipeline";

// The ChapterSpec of an sm_90a chapter (54-57): the ladder's spec (make_tc_chapter) whose resolve step is
// sm90a_or_fallback(stage, variants, kSm90aFallbackStage).
inline ChapterSpec sm90a_tc_chapter(const std::string& id, const std::string& title, const std::string& stage,
                                    std::vector<gemm_tc::TcVariant> variants) {
  ChapterSpec spec = gemm_tc::make_tc_chapter(id, title, variants);
  spec.resolve = sm90a_or_fallback(stage, std::move(variants), kSm90aFallbackStage);
  return spec;
}

}  // namespace tut::hopper
