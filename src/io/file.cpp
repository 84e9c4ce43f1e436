#include "io/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "locus/error.h"

namespace locus::io {
namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw CheckpointError("[checkpoint] " + what + " '" + path + "': " + std::strerror(errno) + ".");
}
}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail("cannot stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw CheckpointError("[checkpoint] '" + path + "' is not a regular file.");
  }
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->size_ = static_cast<size_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = ::mmap(nullptr, f->size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      fail("cannot map", path);
    }
    f->data_ = static_cast<uint8_t*>(p);
    f->mapped_ = true;
  }
  ::close(fd);
  return f;
}

std::shared_ptr<MappedFile> MappedFile::view(const uint8_t* data, size_t size, std::string name) {
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->data_ = const_cast<uint8_t*>(data);
  f->size_ = size;
  f->path_ = std::move(name);
  return f;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(data_, size_);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  tmp_ = path_ + ".tmp-XXXXXX";
  fd_ = ::mkstemp(tmp_.data());
  if (fd_ < 0) fail("cannot create a temporary file next to", path_);
  ::fchmod(fd_, 0644);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", tmp_);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail("cannot fsync", tmp_);
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(tmp_.c_str());
    fail("cannot close", tmp_);
  }
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp_.c_str());
    errno = e;
    fail("cannot rename the temporary file to", path_);
  }
  std::string dir = path_.find('/') == std::string::npos ? "." : path_.substr(0, path_.rfind('/') + 1);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace locus::io
