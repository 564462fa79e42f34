/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the identity of a file (device, inode, size, times), so
 *           that a file changed between its reading and its replacement is left alone, and
 *           opening only regular files (no symbolic link followed, no FIFO waited on).
 */

#include "dcmtk/config/osconfig.h"
#include "internal.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace dprc {

DPRCFileId identityOf(const struct stat& st)
{
  DPRCFileId id;
  id.dev = static_cast<std::uint64_t>(st.st_dev);
  id.ino = static_cast<std::uint64_t>(st.st_ino);
  id.size = static_cast<std::uint64_t>(st.st_size);
  id.mtimeNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.ctimeNs = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  id.valid = true;
  return id;
}

std::string identityChange(const DPRCFileId& a, const DPRCFileId& b)
{
  if (!a.valid || !b.valid) return "not there any more";
  if (a.dev != b.dev || a.ino != b.ino) return "replaced by another file";
  if (a.size != b.size) return "size " + std::to_string(a.size) + " -> " + std::to_string(b.size) + " bytes";
  if (a.mtimeNs != b.mtimeNs) return "modified";
  if (a.ctimeNs != b.ctimeNs) return "its inode changed (ctime)";
  return std::string();
}

int openRegular(const std::string& path, struct stat& st, std::string& error, bool& symlink, bool& notRegular)
{
  symlink = notRegular = false;
  struct stat lst;
  if (lstat(path.c_str(), &lst) != 0)
  {
    error = errnoText("cannot read " + path);
    return -1;
  }
  if (S_ISLNK(lst.st_mode))
  {
    symlink = true;
    error = "symbolic link, not followed";
    return -1;
  }
  if (!S_ISREG(lst.st_mode))
  {
    // a FIFO would block the open or the read; a device may act on being opened
    notRegular = true;
    error = std::string("not a regular file (") +
            (S_ISFIFO(lst.st_mode) ? "a FIFO" : S_ISDIR(lst.st_mode) ? "a folder" : S_ISSOCK(lst.st_mode) ? "a socket"
                                                                                                : "a device") +
            "), not opened";
    return -1;
  }
  // O_NOFOLLOW, O_NONBLOCK: a name swapped for a link or FIFO since the lstat is not waited on
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
  {
    symlink = errno == ELOOP;
    error = errnoText("cannot read " + path);
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != lst.st_dev || st.st_ino != lst.st_ino)
  {
    notRegular = true;
    error = "replaced while it was opened (not a regular file now), not read";
    close(fd);
    return -1;
  }
  // reads of a regular file never block: back to blocking mode for DCMTK and copies
  const int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

void testAppend(const std::string& path)
{
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  static const char more[] = "PCWT-TEST-CHANGED";
  if (write(fd, more, sizeof more - 1) < 0) { /* the test sees the file unchanged */ }
  close(fd);
}

} // namespace dprc
