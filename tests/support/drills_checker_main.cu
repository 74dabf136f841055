// The checker's main (cmake/AddDrill.cmake links it instead of gtest_main). GoogleTest writes its
// JSON report to a path, and a path in the judge's temporary folder can be rewritten by any process
// of the same user, the learner's program among them, between GoogleTest writing it and the result
// channel reading it. Here the report goes to a memory file that only this process holds: reachable
// from outside only through /proc/<checker>/fd, which the checker's start-up closed to other
// processes (PR_SET_DUMPABLE, tests/support/drills_record.h).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "drills_result_channel.h"

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string flag;
  const int fd = ::memfd_create("drills-checker-report", MFD_CLOEXEC);
  if (fd < 0) {
    std::perror("drills checker: memfd_create");
    return 2;  // no report: the judge counts no case of this run as passed
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  flag = "--gtest_output=json:" + path;  // after the judge's own: GoogleTest takes the last
  args.push_back(&flag[0]);
  drills::detail::report_path_override() = path;
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  ::testing::InitGoogleTest(&count, args.data());
  return RUN_ALL_TESTS();
}
