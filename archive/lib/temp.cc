/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: temporary files (created exclusively, named with the run
 *           id, removed on signals), flushes, renames that never replace, atomic copies.
 */

#include "dcmtk/config/osconfig.h"
#include "internal.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// the temporary files of the workers, removed by the signal handler

// allocated by DPRCInstallSignalHandlers before the workers start (a later, larger call allocates
// anew and leaves the old arrays in place: a handler may be reading them)
#define DPRC_MAX_SLOTS 65536
#define DPRC_SLOT_PATH 4096
static char (*volatile g_slotPath)[DPRC_SLOT_PATH] = NULL;
static volatile sig_atomic_t *volatile g_slotActive = NULL;
static volatile unsigned g_slots = 0;
static const int g_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void dprcRemoveTempsOnSignal(int sig)
{
  for (unsigned i = 0; i < g_slots; ++i)
    if (g_slotActive[i]) unlink(g_slotPath[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

void DPRCInstallSignalHandlers(unsigned workers)
{
  const unsigned n = workers < DPRC_MAX_SLOTS ? workers : DPRC_MAX_SLOTS;
  if (n > g_slots)
  {
    // untouched pages of the paths cost no memory; the flags start cleared
    char (*paths)[DPRC_SLOT_PATH] = new char[n][DPRC_SLOT_PATH];
    volatile sig_atomic_t *active = new sig_atomic_t[n]();
    g_slots = 0;
    g_slotPath = paths;
    g_slotActive = active;
    g_slots = n;
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = dprcRemoveTempsOnSignal;
  sigemptyset(&sa.sa_mask);
  for (int s : g_signals) sigaddset(&sa.sa_mask, s);
  for (int s : g_signals) sigaction(s, &sa, NULL);
}

namespace dprc {

TempFile::TempFile(unsigned slot) : slot_(slot < DPRC_MAX_SLOTS ? slot : DPRC_MAX_SLOTS) {}

bool TempFile::create(const std::string& dir, const std::string& base, std::string& error)
{
  std::string tmpl = DPRCTempTemplate(dir, base);
  if (tmpl.size() >= DPRC_SLOT_PATH)
  {
    error = "path too long for a temporary file: " + dir;
    return false;
  }
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  // O_EXCL: never an existing file's name (mkstemp)
  const int fd = mkstemp(buf.data());
  if (fd < 0)
  {
    const int e = errno;
    error = std::string((e == EACCES || e == EROFS || e == EPERM) ? "read-only folder: " : "") +
            "cannot create a temporary file in " + dir + ": " + std::strerror(e);
    return false;
  }
  close(fd);
  path_ = buf.data();
  if (slot_ < g_slots)
  {
    std::strcpy(g_slotPath[slot_], path_.c_str());
    g_slotActive[slot_] = 1;
  }
  return true;
}

void TempFile::startWriteback() const
{
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
#ifdef SYNC_FILE_RANGE_WRITE
  (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
  close(fd);
}

void TempFile::released()
{
  if (slot_ < g_slots) g_slotActive[slot_] = 0;
  path_.clear();
}

void TempFile::discard()
{
  if (path_.empty()) return;
  if (slot_ < g_slots) g_slotActive[slot_] = 0;
  unlink(path_.c_str());
  path_.clear();
}

std::string errnoText(const std::string& what)
{
  return what + ": " + std::strerror(errno);
}

bool fsyncPath(const std::string& path, bool directory, std::string& error)
{
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (directory ? O_DIRECTORY : O_NOFOLLOW));
  if (fd < 0)
  {
    error = errnoText("cannot open " + path + " to flush it");
    return false;
  }
  const int rc = fsync(fd);
  const int e = errno;
  close(fd);
  if (rc != 0 && !(directory && (e == EINVAL || e == EBADF))) // some file systems cannot fsync folders
  {
    error = std::string("cannot flush ") + path + ": " + std::strerror(e);
    return false;
  }
  return true;
}

std::string dirOf(const std::string& path)
{
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string baseOf(const std::string& path)
{
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int renameNoReplace(const std::string& from, const std::string& to)
{
#ifdef RENAME_NOREPLACE
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
  // link fails with EEXIST as renameat2 does; the second name then goes
  if (link(from.c_str(), to.c_str()) != 0) return -1;
  (void)unlink(from.c_str());
  return 0;
}

bool copyFile(const std::string& src, const std::string& dest, unsigned slot, bool replace, std::string& error)
{
  std::error_code ec;
  fs::create_directories(dirOf(dest), ec);
  if (ec)
  {
    error = "cannot create folder " + dirOf(dest) + ": " + ec.message();
    return false;
  }
  struct stat sst;
  bool symlink = false, notRegular = false;
  const int in = openRegular(src, sst, error, symlink, notRegular);
  if (in < 0) return false;
  TempFile tmp(slot);
  if (!tmp.create(dirOf(dest), baseOf(dest), error))
  {
    close(in);
    return false;
  }
  const int out = open(tmp.path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (out < 0)
  {
    error = errnoText("cannot write " + tmp.path());
    close(in);
    return false;
  }
  std::vector<char> buf(1 << 20);
  bool ok = true;
  for (;;)
  {
    const ssize_t n = read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
    {
      error = errnoText("cannot read " + src);
      ok = false;
      break;
    }
    if (n == 0) break;
    ssize_t done = 0;
    while (done < n)
    {
      const ssize_t w = write(out, buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
      {
        error = errnoText("cannot write " + tmp.path());
        ok = false;
        break;
      }
      done += w;
    }
    if (!ok) break;
  }
  if (ok && fsync(out) != 0)
  {
    error = errnoText("cannot flush " + tmp.path());
    ok = false;
  }
  close(in);
  close(out);
  if (!ok) return false;
  const mode_t mask = umask(0);
  umask(mask);
  (void)chmod(tmp.path().c_str(), 0666 & ~mask);
  if ((replace ? rename(tmp.path().c_str(), dest.c_str()) : renameNoReplace(tmp.path(), dest)) != 0)
  {
    error = errnoText("cannot rename " + tmp.path() + " to " + dest);
    return false;
  }
  tmp.released();
  return fsyncPath(dirOf(dest), true, error);
}

} // namespace dprc
