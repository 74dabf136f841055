// The result channel: how a test binary's report reaches the judge so that learner code cannot
// rewrite it afterwards.
//
// The judge passes a pipe's write end as DRILLS_RESULT_FD and the report path as
// DRILLS_RESULT_JSON. When the last case has ended (OnTestProgramEnd, which GoogleTest calls in
// reverse order, so after its JSON printer wrote the report), this listener sends the report over
// the pipe in one frame and closes it, all inside RUN_ALL_TESTS: static destructors, atexit
// handlers and signal handlers of the learner's file run later and find nothing left to write.
// The judge reads only the frame, never the file; a missing or torn frame, a second frame or any
// byte after it makes the run an error, never a pass.
#pragma once

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace drills {
namespace detail {

inline bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Where the report is read from when not DRILLS_RESULT_JSON: the checker's main sets it to a file
// only the checker can reach (tests/support/drills_checker_main.cu).
inline std::string& report_path_override() {
  static std::string path;
  return path;
}

class ResultChannel : public ::testing::EmptyTestEventListener {
 public:
  ResultChannel(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    if (fd_ < 0) return;
    std::string report;
    const std::string& path = report_path_override().empty() ? path_ : report_path_override();
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) report.append(buf, n);
      std::fclose(f);
    }
    write_all(fd_, "DRILLS-RESULT " + std::to_string(report.size()) + "\n" + report + "\nDRILLS-END\n");
    ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  std::string path_;
};

// Registered during static initialisation, before InitGoogleTest adds the JSON printer.
inline bool register_result_channel() {
  const char* fd_text = std::getenv("DRILLS_RESULT_FD");
  const char* path = std::getenv("DRILLS_RESULT_JSON");
  if (!fd_text || !path) return false;
  const int fd = std::atoi(fd_text);
  if (fd < 3 || ::fcntl(fd, F_GETFD) < 0) return false;
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // programs the learner's code starts never inherit it
  ::testing::UnitTest::GetInstance()->listeners().Append(new ResultChannel(fd, path));
  ::unsetenv("DRILLS_RESULT_FD");
  return true;
}

inline const bool result_channel_registered = register_result_channel();

}  // namespace detail
}  // namespace drills
