// locus-info and collect_env(): every backend and device, with statistics, as text and JSON.
#include <memory>

#include "testing.h"
#include "tools/run_tool.h"

using namespace locus;

namespace {
std::pair<int, std::string> run(const std::string& args) { return run_tool("locus-info", args); }
}  // namespace

TEST(CollectEnv, ListsBackendsDevicesAndStats) {
  std::string text = collect_env();
  EXPECT_NE(text.find("locus 0."), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA:"), std::string::npos) << text;
  EXPECT_NE(text.find("OpenCL:"), std::string::npos) << text;
  for (const Device& d : all_devices()) EXPECT_NE(text.find(d.str()), std::string::npos) << d;
  EXPECT_NE(text.find("allocator:"), std::string::npos);
  EXPECT_NE(text.find("best_device():"), std::string::npos);
  std::string json = collect_env(true);
  EXPECT_EQ(json.front(), '{');
  EXPECT_NE(json.find("\"devices\": ["), std::string::npos);
  EXPECT_NE(json.find("\"memory_stats\": {"), std::string::npos);
  EXPECT_NE(json.find("\"best_device\": \"" + best_device().str() + "\""), std::string::npos);
}

TEST(LocusInfoTool, RunsAndRejectsBadFlags) {
  auto [rc, out] = run("");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("cpu"), std::string::npos);
  auto [rcj, outj] = run("--json");
  EXPECT_EQ(rcj, 0);
  EXPECT_NE(outj.find("\"version\""), std::string::npos);
  auto [rcb, outb] = run("--bogus");
  EXPECT_EQ(rcb, 2);
  EXPECT_NE(outb.find("unknown argument '--bogus'"), std::string::npos);
}
