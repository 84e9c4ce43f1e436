#include "io/zip.h"

#include <zlib.h>

#include <algorithm>
#include <unordered_set>

namespace locus::io {
namespace {

uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Little-endian integers appended to a byte string.
void put_le(std::string& s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

constexpr uint64_t kMax32 = 0xFFFFFFFF;
constexpr uint64_t kAlign = 64;  // PyTorch aligns every record so it can be mapped in place

}  // namespace

void ZipWriter::put(const std::string& bytes) {
  sink_(bytes.data(), bytes.size());
  at_ += bytes.size();
}

void ZipWriter::add(const std::string& name, const void* data, uint64_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < size;) {  // zlib takes 32-bit lengths
    const uInt n = static_cast<uInt>(std::min<uint64_t>(size - done, uint64_t(1) << 30));
    crc = crc32(crc, static_cast<const Bytef*>(data) + done, n);
    done += n;
  }
  const bool zip64 = force_zip64_ || size >= kMax32;
  std::string h;
  put_le(h, 0x04034b50, 4);
  put_le(h, zip64 ? 45 : 20, 2);  // version needed
  put_le(h, 0, 2);                // flags
  put_le(h, 0, 2);                // stored
  put_le(h, 0, 2);                // time
  put_le(h, 0x21, 2);             // date: 1980-01-01
  put_le(h, crc, 4);
  put_le(h, zip64 ? kMax32 : size, 4);
  put_le(h, zip64 ? kMax32 : size, 4);
  put_le(h, name.size(), 2);
  std::string extra;
  if (zip64) {
    put_le(extra, 0x0001, 2);
    put_le(extra, 16, 2);
    put_le(extra, size, 8);
    put_le(extra, size, 8);
  }
  const uint64_t unpadded = at_ + 30 + name.size() + extra.size() + 4;
  const uint64_t pad = (kAlign - unpadded % kAlign) % kAlign;
  put_le(extra, 0x4246, 2);  // "FB": padding
  put_le(extra, pad, 2);
  extra.append(pad, 'Z');
  put_le(h, extra.size(), 2);
  written_.push_back({name, static_cast<uint32_t>(crc), size, at_});
  put(h + name + extra);
  if (size > 0) sink_(data, size);
  at_ += size;
}

void ZipWriter::finish() {
  const uint64_t cd_offset = at_;
  std::string cd;
  for (const Written& w : written_) {
    const bool big_size = force_zip64_ || w.size >= kMax32, big_offset = force_zip64_ || w.offset >= kMax32;
    std::string extra;
    if (big_size || big_offset) {
      put_le(extra, 0x0001, 2);
      put_le(extra, (big_size ? 16 : 0) + (big_offset ? 8 : 0), 2);
      if (big_size) put_le(extra, w.size, 8), put_le(extra, w.size, 8);
      if (big_offset) put_le(extra, w.offset, 8);
    }
    const int version = extra.empty() ? 20 : 45;
    put_le(cd, 0x02014b50, 4);
    put_le(cd, version, 2);  // made by (MS-DOS attributes)
    put_le(cd, version, 2);  // needed
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0x21, 2);
    put_le(cd, w.crc, 4);
    put_le(cd, big_size ? kMax32 : w.size, 4);
    put_le(cd, big_size ? kMax32 : w.size, 4);
    put_le(cd, w.name.size(), 2);
    put_le(cd, extra.size(), 2);
    put_le(cd, 0, 2);  // comment
    put_le(cd, 0, 2);  // disk
    put_le(cd, 0, 2);  // internal attributes
    put_le(cd, 0, 4);  // external attributes
    put_le(cd, big_offset ? kMax32 : w.offset, 4);
    cd += w.name + extra;
  }
  put(cd);
  const uint64_t n = written_.size();
  const bool zip64 = force_zip64_ || n >= 0xFFFF || cd_offset >= kMax32 || cd.size() >= kMax32;
  std::string end;
  if (zip64) {
    const uint64_t record = at_;
    put_le(end, 0x06064b50, 4);
    put_le(end, 44, 8);  // size of the rest of this record
    put_le(end, 45, 2);
    put_le(end, 45, 2);
    put_le(end, 0, 4);
    put_le(end, 0, 4);
    put_le(end, n, 8);
    put_le(end, n, 8);
    put_le(end, cd.size(), 8);
    put_le(end, cd_offset, 8);
    put_le(end, 0x07064b50, 4);  // locator
    put_le(end, 0, 4);
    put_le(end, record, 8);
    put_le(end, 1, 4);
  }
  put_le(end, 0x06054b50, 4);
  put_le(end, 0, 2);
  put_le(end, 0, 2);
  put_le(end, zip64 ? 0xFFFF : n, 2);
  put_le(end, zip64 ? 0xFFFF : n, 2);
  put_le(end, zip64 ? kMax32 : cd.size(), 4);
  put_le(end, zip64 ? kMax32 : cd_offset, 4);
  put_le(end, 0, 2);
  put(end);
}

std::vector<ZipEntry> read_zip(const uint8_t* d, uint64_t size, const std::function<void(const std::string&)>& fail) {
  auto bad = [&](const std::string& what) {
    fail("the zip archive is malformed: " + what);
    return std::vector<ZipEntry>();
  };
  // End of central directory: 22 bytes plus a comment of up to 65535, at the end of the file.
  if (size < 22) return bad("it is too short (" + std::to_string(size) + " bytes) to hold a zip directory (truncated?).");
  uint64_t eocd = UINT64_MAX;
  for (uint64_t i = size - 22;; --i) {
    if (le(d + i, 4) == 0x06054b50 && i + 22 + le(d + i + 20, 2) == size) {
      eocd = i;
      break;
    }
    if (i == 0 || size - i > 22 + 65535) break;
  }
  if (eocd == UINT64_MAX) return bad("no end-of-central-directory record (the file is truncated).");
  uint64_t count = le(d + eocd + 10, 2), cd_size = le(d + eocd + 12, 4), cd_off = le(d + eocd + 16, 4);
  if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_off == 0xFFFFFFFF) {  // zip64
    if (eocd < 20 || le(d + eocd - 20, 4) != 0x07064b50) return bad("zip64 sizes without a zip64 locator.");
    uint64_t z = le(d + eocd - 20 + 8, 8);
    if (z > size || size - z < 56 || le(d + z, 4) != 0x06064b50) return bad("the zip64 directory record is out of range.");
    count = le(d + z + 32, 8);
    cd_size = le(d + z + 40, 8);
    cd_off = le(d + z + 48, 8);
  }
  if (cd_off > size || cd_size > size - cd_off) return bad("the central directory lies outside the file.");
  if (count > cd_size / 46) return bad("the central directory claims " + std::to_string(count) + " entries in " + std::to_string(cd_size) + " bytes.");
  std::vector<ZipEntry> out;
  std::unordered_set<std::string> names;
  uint64_t p = cd_off;
  const uint64_t end = cd_off + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (end - p < 46 || le(d + p, 4) != 0x02014b50) return bad("central directory entry " + std::to_string(i) + " is corrupt.");
    const uint64_t flags = le(d + p + 8, 2), method = le(d + p + 10, 2);
    uint64_t csize = le(d + p + 20, 4), usize = le(d + p + 24, 4);
    const uint64_t nlen = le(d + p + 28, 2), xlen = le(d + p + 30, 2), clen = le(d + p + 32, 2);
    uint64_t local = le(d + p + 42, 4);
    if (end - p - 46 < nlen + xlen + clen) return bad("central directory entry " + std::to_string(i) + " runs past the directory.");
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(d + p + 46), nlen);
    // zip64 extra field: the 0xFFFFFFFF fields, in order usize, csize, local.
    const uint8_t* x = d + p + 46 + nlen;
    for (uint64_t q = 0; q + 4 <= xlen;) {
      uint64_t id = le(x + q, 2), len = le(x + q + 2, 2);
      if (q + 4 + len > xlen) return bad("entry '" + e.name + "' has a malformed extra field.");
      if (id == 0x0001) {
        uint64_t r = q + 4;
        auto take = [&](uint64_t& field) {
          if (field != 0xFFFFFFFF) return true;
          if (r + 8 > q + 4 + len) return false;
          field = le(x + r, 8);
          r += 8;
          return true;
        };
        if (!take(usize) || !take(csize) || !take(local)) return bad("entry '" + e.name + "' has a short zip64 field.");
      }
      q += 4 + len;
    }
    if (flags & 1) return bad("entry '" + e.name + "' is encrypted.");
    if (method == 0 && csize != usize) return bad("entry '" + e.name + "' is stored with different compressed and uncompressed sizes.");
    if (local > size || size - local < 30 || le(d + local, 4) != 0x04034b50)
      return bad("entry '" + e.name + "' has its local header out of range.");
    const uint64_t data_off = local + 30 + le(d + local + 26, 2) + le(d + local + 28, 2);
    if (data_off > size || csize > size - data_off)
      return bad("entry '" + e.name + "' (" + std::to_string(csize) + " bytes) runs past the end of the file (truncated?).");
    if (method != 0) {  // listed, never inflated
      e.compressed = true;
      e.method = method;
      e.size = usize;
    } else {
      e.data = d + data_off;
      e.size = usize;
    }
    if (!names.insert(e.name).second) return bad("entry '" + e.name + "' appears twice.");
    out.push_back(std::move(e));
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

std::string compressed_message(const ZipEntry& e) {
  return "entry '" + e.name + "' is compressed (method " + std::to_string(e.method) +
         "); torch.save, torch::save and torch.jit.save store it uncompressed, and locus does not inflate it: "
         "re-save the file with torch.save.";
}

}  // namespace locus::io
