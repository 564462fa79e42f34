/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress: finding the files, shards, temporary names, sniffing.
 */

#include "dcmtk/config/osconfig.h"
#include "dprcwalk.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcitem.h"
#include "dcmtk/dcmdata/dcsequen.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

const char *const DPRC_ORIG_SUFFIX = ".pcwt-orig";
static const char *const TEMP_MARK = ".pcwt-tmp.";

static bool endsWith(const std::string& s, const char *suffix);

std::string DPRCTempTemplate(const std::string& dir, const std::string& base)
{
  return dir + "/." + base + TEMP_MARK + "XXXXXX";
}

bool DPRCIsTempName(const std::string& name0, std::string *base)
{
  // "." base ".pcwt-tmp." + 6 characters (+ ".tmp" or ".$$$": DcmDicomDir's names for its own
  // temporary and backup files when it rewrites our copy of a DICOMDIR)
  std::string name = name0;
  if (endsWith(name, ".tmp") || endsWith(name, ".$$$")) name.resize(name.size() - 4);
  const size_t mark = std::strlen(TEMP_MARK);
  if (name.size() < 1 + 1 + mark + 6 || name[0] != '.') return false;
  const size_t pos = name.size() - 6 - mark;
  if (name.compare(pos, mark, TEMP_MARK) != 0) return false;
  if (base) *base = name.substr(1, pos - 1);
  return true;
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
      std::string base;
      if (S_ISREG(st.st_mode) && DPRCIsTempName(name, &base))
      {
        // a temporary file of an interrupted run: this shard's when the file it was for is
        if (endsWith(base, DPRC_ORIG_SUFFIX)) base.resize(base.size() - std::strlen(DPRC_ORIG_SUFFIX));
        if (DPRCInShard(joinRel(rel, base), shardIndex, shardCount)) result.staleTemps.push_back(path);
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
      std::string r = id.c_str();
      std::replace(r.begin(), r.end(), '\\', '/');
      const std::string p = (dir.empty() ? std::string(".") : dir) + "/" + r;
      struct stat st;
      if (lstat(p.c_str(), &st) != 0)
      {
        result.problems.push_back("file referenced by DICOMDIR " + path + " is missing: " + p);
        continue;
      }
      if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) continue;
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
      w.walkDir(in, several ? name : std::string());
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
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
  {
    error = std::string("cannot open: ") + std::strerror(errno);
    return DPRCS_unreadable;
  }
  std::vector<unsigned char> buf(65536);
  size_t have = 0;
  while (have < buf.size())
  {
    const ssize_t n = read(fd, buf.data() + have, buf.size() - have);
    if (n < 0)
    {
      if (errno == EINTR) continue;
      error = std::string("cannot read: ") + std::strerror(errno);
      close(fd);
      return DPRCS_unreadable;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  close(fd);
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
