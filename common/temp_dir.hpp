// A fresh folder under /tmp for one test, removed with its files at the end of its scope (tests of files that a
// program writes: plan caches). Plain C++ (host and GPU tests).
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <stdlib.h>

namespace tut::testing {

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& prefix = "tut-test") {
    std::string name = "/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("cannot make a folder " + name);
    path = name;
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace tut::testing
