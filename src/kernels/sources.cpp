#include "kernels/sources.h"

#include <set>
#include <sstream>

#include "locus/error.h"

namespace locus::kernels {

std::string_view source(std::string_view name) {
  for (int i = 0; i < detail::kEmbeddedCount; ++i)
    if (name == detail::kEmbedded[i].name) return detail::kEmbedded[i].text;
  std::string known;
  for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("[kernels] no embedded kernel source named \"" + std::string(name) + "\": known are " +
              known + ". Add the file to src/kernels/ and re-run cmake.");
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (int i = 0; i < detail::kEmbeddedCount; ++i) out.emplace_back(detail::kEmbedded[i].name);
  return out;
}

namespace {
void expand_into(std::string_view name, std::set<std::string>& seen, std::string& out) {
  if (!seen.insert(std::string(name)).second) return;
  std::istringstream in{std::string(source(name))};
  std::string line;
  while (std::getline(in, line)) {
    size_t p = line.find_first_not_of(" \t");
    if (p != std::string::npos && line.compare(p, 8, "#include") == 0) {
      size_t q1 = line.find('"', p), q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
      if (q2 != std::string::npos) {
        expand_into(std::string_view(line).substr(q1 + 1, q2 - q1 - 1), seen, out);
        continue;
      }
    }
    out += line;
    out += '\n';
  }
}
}  // namespace

std::string expand(std::string_view name, std::string_view prelude) {
  std::set<std::string> seen;
  std::string out;
  if (!prelude.empty()) expand_into(prelude, seen, out);
  expand_into(name, seen, out);
  return out;
}

}  // namespace locus::kernels
