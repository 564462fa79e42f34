/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the per-folder run lock and its list of runs.
 */

#include "dcmtk/config/osconfig.h"
#include "lock.h"
#include "walk.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

DPRCRunLock::~DPRCRunLock()
{
  if (fd_ >= 0) close(fd_);
}

DPRCRunLock::Outcome DPRCRunLock::acquire(const std::string& folder, unsigned shardIndex, unsigned shardCount,
                                          std::string& error)
{
  folder_ = folder;
  const std::string path = folder + "/" + DPRC_LOCK_NAME;
  const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
  // made exclusively when new; an existing one is opened without following a link
  fd_ = open(path.c_str(), flags | O_CREAT | O_EXCL, 0644);
  if (fd_ < 0 && errno == EEXIST) fd_ = open(path.c_str(), flags);
  struct stat st;
  if (fd_ < 0 || fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode))
  {
    error = "cannot use the lock file " + path + ": " + (fd_ < 0 ? std::strerror(errno) : "not a regular file");
    return failed;
  }
  struct flock fl;
  std::memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  // the whole file, or one byte per shard far beyond the list of runs
  fl.l_start = shardCount > 1 ? (static_cast<off_t>(1) << 40) + shardIndex : 0;
  fl.l_len = shardCount > 1 ? 1 : 0;
  if (fcntl(fd_, F_OFD_SETLK, &fl) != 0)
  {
    const int e = errno;
    if (e == EAGAIN || e == EACCES)
    {
      error = "another pcwt-recompress run is working on " + folder + (shardCount > 1 ? " (this shard or the whole tree)" : "") +
              " (" + path + " is locked): not started; wait for it to end, or give each run its own --shard";
      return busy;
    }
    error = "cannot lock " + path + ": " + std::strerror(e);
    return failed;
  }
  // the runs that held it; ours appended in one write (O_APPEND: shards side by side do not mix lines)
  std::string text;
  std::vector<char> buf(65536);
  for (off_t at = 0;;)
  {
    const ssize_t n = pread(fd_, buf.data(), buf.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf.data(), static_cast<size_t>(n));
    at += n;
  }
  size_t from = 0;
  while (from < text.size())
  {
    size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(from, end - from);
    if (line.compare(0, 4, "run ") == 0) runs_.insert(line.substr(4, line.find(' ', 4) - 4));
    from = end + 1;
  }
  const std::string mine = "run " + DPRCRunId() + " pid " + std::to_string(getpid()) + "\n";
  const int afd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (afd < 0 || write(afd, mine.data(), mine.size()) != static_cast<ssize_t>(mine.size()) || fsync(afd) != 0)
  {
    error = "cannot write to the lock file " + path + ": " + std::strerror(errno);
    if (afd >= 0) close(afd);
    return failed;
  }
  close(afd);
  return locked;
}
