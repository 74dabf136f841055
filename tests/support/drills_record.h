// Record and verify: a case passes only when a checker process that never loads the learner's
// code reaches the same verdict from the bytes the learner's kernels produced.
//
// The test program (the "subject") links the learner's file, so its own report can be forged by
// code that knows the result channel's protocol. The checker is the same test source compiled
// with DRILLS_CHECKER and linked with no-op stubs in place of the learner's functions: it makes
// the same inputs, host references and comparisons, but every device-to-host copy of a result
// (drills::download) takes its bytes from the subject's record stream instead of the device.
// The judge counts a case as passed only when both reports say so (drills/pipeline/gtestrun.py).
//
// Modes, chosen at start-up:
//   subject: DRILLS_RECORD_FD names a socket; after each download the bytes are sent as a record
//            (test's full name, download index within the test, byte count, bytes). The fd is
//            taken out of the environment and kept from child processes; if the checker went
//            away, recording stops (MSG_NOSIGNAL: never a SIGPIPE).
//   checker: (compiled with DRILLS_CHECKER) records are read from DRILLS_REPLAY_FD; a download
//            with no matching record fails its case. The stream comes from learner code: sizes
//            are bounded and a length is never trusted beyond the buffer it fills.
//   neither: the download is a plain cudaMemcpy.
#pragma once

#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

namespace drills {
namespace record {

constexpr char kMagic[8] = {'D', 'R', 'L', 'S', 'R', 'E', 'C', '1'};
constexpr uint32_t kMaxName = 4096;
constexpr uint64_t kMaxSkip = uint64_t(1) << 34;  // an earlier case's record is read past, up to this

#pragma pack(push, 1)
struct Header {
  char magic[8];
  uint32_t name_len;
  uint32_t index;
  uint64_t bytes;
};
#pragma pack(pop)

inline std::string current_test() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return t ? std::string(t->test_suite_name()) + "." + t->name() : std::string("<outside a test>");
}

// The download's index within the running case: the n-th download of a case is its n-th record.
inline uint32_t next_index(const std::string& test) {
  static std::string last;
  static uint32_t count = 0;
  if (test != last) last = test, count = 0;
  return count++;
}

inline int take_fd(const char* var) {
  const char* text = std::getenv(var);
  if (!text) return -1;
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  ::unsetenv(var);
  if (end == text || *end != '\0' || fd < 3 || fd > 1 << 20 || ::fcntl(int(fd), F_GETFD) < 0) return -1;
  ::fcntl(int(fd), F_SETFD, FD_CLOEXEC);
  return int(fd);
}

#ifndef DRILLS_CHECKER

inline int& record_fd() {
  static int fd = take_fd("DRILLS_RECORD_FD");
  return fd;
}
// Taken at start-up, before any case runs, like the result channel's fd.
inline const int record_fd_taken = record_fd();

inline bool send_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

// Every download counts, recorded or not (a failed copy sends nothing), so that the n-th download
// of a case is the checker's n-th too.
inline void send_record(const void* data, size_t bytes, bool copied) {
  const std::string test = current_test();
  const uint32_t index = next_index(test);
  int& fd = record_fd();
  if (fd < 0 || !copied) return;
  Header h;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.name_len = uint32_t(test.size());
  h.index = index;
  h.bytes = bytes;
  if (!send_all(fd, &h, sizeof h) || !send_all(fd, test.data(), test.size()) || !send_all(fd, data, bytes)) {
    ::close(fd);  // the checker is gone: its missing report already makes the run an error
    fd = -1;
  }
}

#else  // DRILLS_CHECKER

// The cases this checker has started, in order: a record naming one of them is an earlier case's
// leftover (read past); one naming another case belongs to a later case (kept).
inline std::set<std::string>& started() {
  static std::set<std::string> names;
  return names;
}

class StartedCases : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& t) override {
    started().insert(std::string(t.test_suite_name()) + "." + t.name());
  }
};

struct Replay {
  int fd = -1;
  bool dead = false;     // the stream ended or cannot be read any more
  bool pending = false;  // a header read whose payload is still in the stream
  Header head{};
  std::string name;
};

inline bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

inline bool skip(int fd, uint64_t size) {
  char buf[1 << 16];
  while (size > 0) {
    const size_t want = size < sizeof buf ? size_t(size) : sizeof buf;
    if (!read_all(fd, buf, want)) return false;
    size -= want;
  }
  return true;
}

inline Replay& replay() {
  static Replay r = [] {
    Replay r;
    r.fd = take_fd("DRILLS_REPLAY_FD");
    r.dead = r.fd < 0;
    return r;
  }();
  return r;
}

inline bool next_header(Replay& r) {
  if (r.pending) return true;
  if (r.dead) return false;
  if (!read_all(r.fd, &r.head, sizeof r.head) || std::memcmp(r.head.magic, kMagic, sizeof kMagic) != 0 ||
      r.head.name_len > kMaxName) {
    r.dead = true;
    return false;
  }
  r.name.assign(r.head.name_len, '\0');
  if (!read_all(r.fd, &r.name[0], r.name.size())) {
    r.dead = true;
    return false;
  }
  r.pending = true;
  return true;
}

inline void drop(Replay& r) {
  r.pending = false;
  if (r.head.bytes > kMaxSkip || !skip(r.fd, r.head.bytes)) r.dead = true;
}

// Fills dst with the subject's record for this download, or fails the case and poisons dst.
inline cudaError_t replay_record(void* dst, size_t bytes) {
  Replay& r = replay();
  const std::string test = current_test();
  const uint32_t index = next_index(test);
  std::string why = "no output was recorded for this case";
  while (next_header(r)) {
    if (r.name == test && r.head.index == index) {
      if (r.head.bytes != bytes) {
        why = "the recorded output has " + std::to_string(r.head.bytes) + " bytes, not " + std::to_string(bytes);
        drop(r);
        break;
      }
      r.pending = false;
      if (read_all(r.fd, dst, bytes)) return cudaSuccess;
      r.dead = true;
      why = "the recorded output was cut short";
      break;
    }
    const bool earlier = (r.name == test && r.head.index < index) || (r.name != test && started().count(r.name));
    if (!earlier) break;  // a later case's record: keep it for that case
    drop(r);
  }
  std::memset(dst, 0xFF, bytes);
  ADD_FAILURE() << "checker: " << why << " (" << test << ", download " << index << ", " << bytes << " bytes)";
  return cudaErrorUnknown;
}

// The checker cannot be traced or have its memory or descriptors opened by other processes of
// the same user (the learner's program among them); then the judge may start the subject.
inline bool checker_start() {
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  ::testing::UnitTest::GetInstance()->listeners().Append(new StartedCases);
  replay();
  const int ready = take_fd("DRILLS_READY_FD");
  if (ready >= 0) {
    const char byte = 'R';
    while (::write(ready, &byte, 1) < 0 && errno == EINTR) {
    }
    ::close(ready);
  }
  return true;
}
inline const bool checker_started = checker_start();

#endif  // DRILLS_CHECKER

}  // namespace record

// Every device-to-host copy of a result the tests check goes through here (see above).
inline cudaError_t download(void* dst, const void* src, size_t bytes) {
#ifdef DRILLS_CHECKER
  (void)src;
  return record::replay_record(dst, bytes);
#else
  const cudaError_t err = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
  record::send_record(dst, bytes, err == cudaSuccess);
  return err;
#endif
}

}  // namespace drills
