// The main() of every chapter program whose main.cu defines chapter_spec(): compiled once and linked into each
// (chapter_program in meson.build), so that a chapter's main.cu is compiled once for its program and its tests.
#include "runner.cuh"

tut::ChapterSpec chapter_spec();

int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
