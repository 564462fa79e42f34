/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: finding the files to look at (folders, DICOMDIR
 *           references), the deterministic shard of a file, the names of temporary and kept
 *           files, and a quick look at a file's transfer syntax without loading it.
 */

#ifndef PCWT_ARCHIVE_WALK_H
#define PCWT_ARCHIVE_WALK_H

#include "dcmtk/config/osconfig.h"

#include <cstdint>
#include <string>
#include <vector>

#include <sys/stat.h>

/// one file found by the walk
struct DPRCEntry
{
  /// the path to read (as found: input folder + relative path)
  std::string path;
  /// the path relative to its input root (with the root's name in front when there are several
  /// roots); names the file in the mirrored output tree and decides its shard
  std::string rel;
  /// file size in bytes at discovery
  std::uint64_t size;
  /// a symbolic link (never followed: it is reported and skipped)
  bool symlink;
};

/// what the walk found besides the files to process
struct DPRCWalkResult
{
  std::vector<DPRCEntry> files;
  /// temporary files of an interrupted run (in this shard's folders; see DPRCIsTempName), the run
  /// id in each name and the input root each lies below (whose lock file lists the runs that were)
  std::vector<std::string> staleTemps;
  std::vector<std::string> staleTempRuns;
  std::vector<std::string> staleTempRoots;
  /// kept originals (NAME.pcwt-orig) that were passed over
  std::uint64_t keptOriginals = 0;
  /// files of other shards
  std::uint64_t otherShards = 0;
  /// problems met during the walk (unreadable folders, missing DICOMDIR references), one a line
  std::vector<std::string> problems;
  /// the DICOMDIR files that were read (whatever their shard), and their paths relative to the
  /// input root (as DPRCEntry::rel: their place in a mirrored output tree)
  std::vector<std::string> dicomdirs;
  std::vector<std::string> dicomdirRels;
};

/// the suffix of an original kept by --keep-originals
extern const char *const DPRC_ORIG_SUFFIX;

/// the name of the lock file of pcwt-recompress in the folders it works on (lock.cc)
extern const char *const DPRC_LOCK_NAME;

/// this process's run id: 16 random hexadecimal digits, drawn on first use
const std::string& DPRCRunId();

/** the temporary file name template for an output file named base (for mkstemp):
 *  DIR/.BASE.pcwt-tmp.RUNID.XXXXXX, with this process's run id
 */
std::string DPRCTempTemplate(const std::string& dir, const std::string& base);

/** whether name (a file name without folder) is a temporary file name of pcwt-recompress (with a
 *  run id; names of the older pattern without one are not: they may be anybody's); base receives
 *  the name of the file it was to replace, runId the run id in the name
 */
bool DPRCIsTempName(const std::string& name, std::string *base, std::string *runId = NULL);

/** a DICOMDIR's Referenced File ID resolved below the folder dir of the DICOMDIR: every component
 *  (separated by backslashes) a plain name (not empty, ".", ".." nor containing "/"), and none
 *  before the last a symbolic link (each checked with lstat); the last is not followed either
 *  @param path receives dir/A/B/..., rel A/B/...; st the lstat of the last component
 *  @return false with error when the ID leaves the folder, passes a symbolic link or is missing
 */
bool DPRCResolveFileId(const std::string& dir, const std::string& fileId, std::string& path, std::string& rel,
                       struct stat& st, std::string& error);

/// a deterministic 64-bit hash of a relative path (FNV-1a), the same on every host
std::uint64_t DPRCHash(const std::string& rel);

/// whether rel belongs to shard index of count (index < count)
inline bool DPRCInShard(const std::string& rel, unsigned index, unsigned count)
{
  return count <= 1 || (DPRCHash(rel) % count) == index;
}

/** walk the given inputs (folders, files, DICOMDIR files) and return every regular file in
 *  shard index/count, sorted by path; files found twice (in a folder and through a DICOMDIR)
 *  are listed once
 */
DPRCWalkResult DPRCWalk(const std::vector<std::string>& inputs, unsigned shardIndex, unsigned shardCount);

/// what a quick look at a file's first bytes says
enum DPRC_Sniff
{
  /// no "DICM" at byte 128: not a DICOM Part 10 file (or too short to be one)
  DPRCS_notDicom,
  /// a Part 10 file; transfer syntax UID read from the file meta information
  DPRCS_dicom,
  /// cannot open or read the file
  DPRCS_unreadable
};

/** read the file meta information of path (Explicit VR Little Endian group 0002) and return its
 *  Transfer Syntax UID and Media Storage SOP Class UID; never loads the data set. Only a regular
 *  file is read (a FIFO or device is unreadable, never waited on).
 */
DPRC_Sniff DPRCSniff(const std::string& path, std::string& transferSyntax, std::string& sopClass,
                     std::string& error);

/// DPRCSniff of an open regular file (read from its start with pread)
DPRC_Sniff DPRCSniffFd(int fd, std::string& transferSyntax, std::string& sopClass, std::string& error);

#endif
