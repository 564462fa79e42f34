/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: finding the files, shards, temporary names, sniffing.
 */

#include "dcmtk/config/osconfig.h"
#include "walk.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcitem.h"
#include "dcmtk/dcmdata/dcsequen.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

const char *const DPRC_ORIG_SUFFIX = ".pcwt-orig";
const char *const DPRC_LOCK_NAME = ".pcwt-recompress.lock";
static const char *const TEMP_MARK = ".pcwt-tmp.";
static const size_t RUN_ID_LEN = 16;

static bool endsWith(const std::string& s, const char *suffix);

const std::string& DPRCRunId()
{
  // random, so that no other run (another host, a recycled pid) names its files the same
  static const std::string id = []() {
    unsigned char b[RUN_ID_LEN / 2] = {};
    size_t have = 0;
    while (have < sizeof b)
    {
      const ssize_t n = getrandom(b + have, sizeof b - have, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      have += static_cast<size_t>(n);
    }
    if (have < sizeof b)
    {
      // no getrandom: the time and pid are still unique enough among the runs of one lock file
      const std::uint64_t t = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                              (static_cast<std::uint64_t>(getpid()) << 40);
      for (size_t i = 0; i < sizeof b; ++i) b[i] = static_cast<unsigned char>(t >> (8 * i));
    }
    static const char hex[] = "0123456789abcdef";
    std::string s;
    for (unsigned char c : b) { s += hex[c >> 4]; s += hex[c & 15]; }
    return s;
  }();
  return id;
}

std::string DPRCTempTemplate(const std::string& dir, const std::string& base)
{
  return dir + "/." + base + TEMP_MARK + DPRCRunId() + ".XXXXXX";
}

bool DPRCIsTempName(const std::string& name0, std::string *base, std::string *runId)
{
  // "." base ".pcwt-tmp." RUNID "." + 6 characters (+ ".tmp" or ".$$$": DcmDicomDir's names for
  // its own temporary and backup files when it rewrites our copy of a DICOMDIR)
  std::string name = name0;
  if (endsWith(name, ".tmp") || endsWith(name, ".$$$")) name.resize(name.size() - 4);
  const size_t mark = std::strlen(TEMP_MARK);
  const size_t tail = mark + RUN_ID_LEN + 1 + 6;
  if (name.size() < 1 + 1 + tail || name[0] != '.') return false;
  const size_t pos = name.size() - tail;
  if (name.compare(pos, mark, TEMP_MARK) != 0 || name[pos + mark + RUN_ID_LEN] != '.') return false;
  const std::string id = name.substr(pos + mark, RUN_ID_LEN);
  if (id.find_first_not_of("0123456789abcdef") != std::string::npos) return false;
  if (base) *base = name.substr(1, pos - 1);
  if (runId) *runId = id;
  return true;
}

bool DPRCResolveFileId(const std::string& dir, const std::string& fileId, std::string& path, std::string& rel,
                       struct stat& st, std::string& error)
{
  path = dir.empty() ? std::string(".") : dir;
  rel.clear();
  size_t from = 0;
  for (;;)
  {
    const size_t end = std::min(fileId.find('\\', from), fileId.size());
    const std::string c = fileId.substr(from, end - from);
    const bool last = end == fileId.size();
    // a component that is not a plain name could lead out of the file set (PS3.10 8.5: 1-8 of
    // A-Z 0-9 _; others are tolerated when they stay inside)
    if (c.empty() || c == "." || c == ".." || c.find('/') != std::string::npos || c.find('\0') != std::string::npos)
    {
      error = "Referenced File ID \"" + fileId + "\" leaves the folder of the DICOMDIR (or is not a file ID): not followed";
      return false;
    }
    path += "/" + c;
    rel += (rel.empty() ? "" : "/") + c;
    if (lstat(path.c_str(), &st) != 0)
    {
      error = "file referenced by the DICOMDIR is missing: " + path;
      return false;
    }
    if (last) return true;
    if (S_ISLNK(st.st_mode))
    {
      error = "Referenced File ID \"" + fileId + "\" passes the symbolic link " + path + ": not followed";
      return false;
    }
    if (!S_ISDIR(st.st_mode))
    {
      error = "Referenced File ID \"" + fileId + "\": " + path + " is not a folder";
      return false;
    }
    from = end + 1;
  }
}

std::uint64_t DPRCHash(const std::string& rel)
{
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : rel)
  {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

static bool endsWith(const std::string& s, const char *suffix)
{
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

static std::string joinRel(const std::string& a, const std::string& b)
{
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "/" + b;
}

static bool isDicomdirName(const std::string& name)
{
  std::string u = name;
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return u == "DICOMDIR";
}

namespace {

struct Walker
{
  unsigned shardIndex;
  unsigned shardCount;
  /// the input folder being walked
  std::string root;
  DPRCWalkResult result;
  std::set<std::string> seen;            // normalized paths already listed
  std::vector<std::pair<std::string, std::string> > dicomdirs; // path, rel prefix of its folder

  void addFile(const std::string& path, const std::string& rel, const struct stat& st, bool symlink)
  {
    const std::string key = fs::path(path).lexically_normal().string();
    if (!seen.insert(key).second) return;
    if (!DPRCInShard(rel, shardIndex, shardCount))
    {
      ++result.otherShards;
      return;
    }
    DPRCEntry e;
    e.path = path;
    e.rel = rel;
    e.size = symlink ? 0 : static_cast<std::uint64_t>(st.st_size);
    e.symlink = symlink;
    result.files.push_back(e);
  }

  void walkDir(const std::string& dir, const std::string& rel)
  {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec)
    {
      result.problems.push_back("cannot read folder " + dir + ": " + ec.message());
      return;
    }
    std::vector<std::string> names;
    for (; it != fs::directory_iterator(); it.increment(ec))
    {
      if (ec) break;
      names.push_back(it->path().filename().string());
    }
    if (ec) result.problems.push_back("cannot read folder " + dir + ": " + ec.message());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names)
    {
      const std::string path = dir + "/" + name;
      const std::string r = joinRel(rel, name);
      struct stat st;
      if (lstat(path.c_str(), &st) != 0)
      {
        result.problems.push_back("cannot stat " + path + ": " + std::strerror(errno));
        continue;
      }
      if (S_ISDIR(st.st_mode))
      {
        walkDir(path, r);
        continue;
      }
      if (name == DPRC_LOCK_NAME) continue;
      std::string base, run;
      if (S_ISREG(st.st_mode) && DPRCIsTempName(name, &base, &run))
      {
        // a temporary file of a run: this shard's when the file it was for is (the caller removes
        // it only when its run id is one of the lock file's, and not a live run's)
        if (endsWith(base, DPRC_ORIG_SUFFIX)) base.resize(base.size() - std::strlen(DPRC_ORIG_SUFFIX));
        if (DPRCInShard(joinRel(rel, base), shardIndex, shardCount))
        {
          result.staleTemps.push_back(path);
          result.staleTempRuns.push_back(run);
          result.staleTempRoots.push_back(root);
        }
        continue;
      }
      if (endsWith(name, DPRC_ORIG_SUFFIX))
      {
        ++result.keptOriginals;
        continue;
      }
      if (S_ISLNK(st.st_mode))
      {
        addFile(path, r, st, true);
        continue;
      }
      if (!S_ISREG(st.st_mode)) continue; // sockets, fifos, devices
      if (isDicomdirName(name)) dicomdirs.push_back(std::make_pair(path, rel));
      addFile(path, r, st, false);
    }
  }

  // the files a DICOMDIR references (they lie below its folder)
  void readDicomdir(const std::string& path, const std::string& relPrefix)
  {
    result.dicomdirs.push_back(path);
    result.dicomdirRels.push_back(joinRel(relPrefix, fs::path(path).filename().string()));
    DcmFileFormat ff;
    OFCondition c = ff.loadFile(path.c_str());
    if (c.bad())
    {
      result.problems.push_back("cannot read DICOMDIR " + path + ": " + c.text());
      return;
    }
    const std::string dir = fs::path(path).parent_path().string();
    DcmSequenceOfItems *seq = NULL;
    if (ff.getDataset()->findAndGetSequence(DCM_DirectoryRecordSequence, seq).bad() || seq == NULL) return;
    for (unsigned long i = 0; i < seq->card(); ++i)
    {
      DcmItem *rec = seq->getItem(i);
      OFString id;
      if (rec == NULL || rec->findAndGetOFStringArray(DCM_ReferencedFileID, id).bad() || id.empty()) continue;
      // confined below the DICOMDIR's folder, no symbolic link followed on the way
      std::string p, r, error;
      struct stat st;
      if (!DPRCResolveFileId(dir, id.c_str(), p, r, st, error))
      {
        result.problems.push_back("DICOMDIR " + path + ": " + error);
        continue;
      }
      if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      {
        result.problems.push_back("DICOMDIR " + path + ": " + p + " is not a regular file (" +
                                  (S_ISFIFO(st.st_mode) ? "a FIFO" : "a folder, device or socket") + "): not read");
        continue;
      }
      addFile(p, joinRel(relPrefix, r), st, S_ISLNK(st.st_mode));
    }
  }
};

} // namespace

DPRCWalkResult DPRCWalk(const std::vector<std::string>& inputs, unsigned shardIndex, unsigned shardCount)
{
  Walker w;
  w.shardIndex = shardIndex;
  w.shardCount = shardCount;
  const bool several = inputs.size() > 1;
  for (const std::string& in0 : inputs)
  {
    std::string in = in0;
    while (in.size() > 1 && in.back() == '/') in.pop_back();
    struct stat st;
    if (stat(in.c_str(), &st) != 0)
    {
      w.result.problems.push_back("cannot read " + in + ": " + std::strerror(errno));
      continue;
    }
    const fs::path p(in);
    std::string name = p.filename().string();
    if (name.empty() || name == "." || name == "..") name = fs::absolute(p).lexically_normal().filename().string();
    if (S_ISDIR(st.st_mode))
    {
      w.root = in;
      w.walkDir(in, several ? name : std::string());
    }
    else if (!S_ISREG(st.st_mode))
    {
      // a FIFO would block the first read for ever, a device may act on being opened
      w.result.problems.push_back(in + " is not a regular file or folder (" +
                                  (S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket") + "): not read");
    }
    else if (isDicomdirName(p.filename().string()))
    {
      // a DICOMDIR names a file set: its folder is the root
      std::string dirName = fs::absolute(p).parent_path().filename().string();
      const std::string prefix = several ? dirName : std::string();
      w.addFile(in, joinRel(prefix, p.filename().string()), st, false);
      w.dicomdirs.push_back(std::make_pair(in, prefix));
    }
    else
    {
      w.addFile(in, p.filename().string(), st, false);
    }
  }
  for (size_t i = 0; i < w.dicomdirs.size(); ++i) w.readDicomdir(w.dicomdirs[i].first, w.dicomdirs[i].second);
  std::sort(w.result.files.begin(), w.result.files.end(),
            [](const DPRCEntry& a, const DPRCEntry& b) { return a.path < b.path; });
  return w.result;
}

// ---------------------------------------------------------------------------------------------
// sniffing

static bool longLengthVR(const unsigned char *vr)
{
  static const char *const vrs[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV"};
  for (const char *v : vrs)
    if (vr[0] == static_cast<unsigned char>(v[0]) && vr[1] == static_cast<unsigned char>(v[1])) return true;
  return false;
}

static std::string trimUid(const unsigned char *p, size_t n)
{
  std::string s(reinterpret_cast<const char *>(p), n);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

DPRC_Sniff DPRCSniff(const std::string& path, std::string& transferSyntax, std::string& sopClass,
                     std::string& error)
{
  transferSyntax.clear();
  sopClass.clear();
  // O_NONBLOCK: a FIFO does not block the open; it is then refused as not a regular file
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
  {
    error = std::string("cannot open: ") + std::strerror(errno);
    return DPRCS_unreadable;
  }
  const DPRC_Sniff s = DPRCSniffFd(fd, transferSyntax, sopClass, error);
  close(fd);
  return s;
}

DPRC_Sniff DPRCSniffFd(int fd, std::string& transferSyntax, std::string& sopClass, std::string& error)
{
  transferSyntax.clear();
  sopClass.clear();
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
  {
    error = "not a regular file";
    return DPRCS_unreadable;
  }
  std::vector<unsigned char> buf(65536);
  size_t have = 0;
  while (have < buf.size())
  {
    const ssize_t n = pread(fd, buf.data() + have, buf.size() - have, static_cast<off_t>(have));
    if (n < 0)
    {
      if (errno == EINTR) continue;
      error = std::string("cannot read: ") + std::strerror(errno);
      return DPRCS_unreadable;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  if (have < 132 || std::memcmp(buf.data() + 128, "DICM", 4) != 0) return DPRCS_notDicom;
  size_t pos = 132;
  while (pos + 8 <= have)
  {
    const unsigned char *e = buf.data() + pos;
    const unsigned group = e[0] | (e[1] << 8);
    const unsigned elem = e[2] | (e[3] << 8);
    if (group != 0x0002) break;
    std::uint64_t len;
    size_t hdr;
    if (longLengthVR(e + 4))
    {
      if (pos + 12 > have) break;
      len = static_cast<std::uint64_t>(e[8]) | (static_cast<std::uint64_t>(e[9]) << 8) |
            (static_cast<std::uint64_t>(e[10]) << 16) | (static_cast<std::uint64_t>(e[11]) << 24);
      hdr = 12;
    }
    else
    {
      len = static_cast<std::uint64_t>(e[6] | (e[7] << 8));
      hdr = 8;
    }
    if (len > have - pos - hdr) break; // truncated or undefined length meta header
    const unsigned char *v = e + hdr;
    if (elem == 0x0010) transferSyntax = trimUid(v, static_cast<size_t>(len));
    if (elem == 0x0002) sopClass = trimUid(v, static_cast<size_t>(len));
    pos += hdr + static_cast<size_t>(len);
  }
  return DPRCS_dicom;
}
