#pragma once
// Runs one of the built tools (LOCUS_BINARY_DIR/<tool>) with a shell argument string and returns
// its exit status and its stdout and stderr together.
#include "test_paths.h"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <utility>

inline std::pair<int, std::string> run_tool(const std::string& tool, const std::string& args) {
  std::string cmd = std::string(LOCUS_BINARY_DIR) + "/" + tool + " " + args + " 2>&1";
  std::array<char, 4096> buf;
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WEXITSTATUS(status), out};
}
