// doctest is found as <doctest/doctest.h> (Debian, pkg-config, CMake) or <doctest.h> (the wrap).
#pragma once
#if __has_include(<doctest/doctest.h>)
#include <doctest/doctest.h>
#else
#include <doctest.h>
#endif
