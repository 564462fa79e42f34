/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) pcwt-recompress: finding the files to look at (folders, DICOMDIR
 *           references), the deterministic shard of a file, the names of temporary and kept
 *           files, and a quick look at a file's transfer syntax without loading it.
 */

#ifndef DCMPCWT_DPRCWALK_H
#define DCMPCWT_DPRCWALK_H

#include "dcmtk/config/osconfig.h"

#include <cstdint>
#include <string>
#include <vector>

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
  /// temporary files of an interrupted run (in this shard's folders; see isTempName)
  std::vector<std::string> staleTemps;
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

/// the temporary file name template for an output file named base (for mkstemp)
std::string DPRCTempTemplate(const std::string& dir, const std::string& base);

/** whether name (a file name without folder) is a temporary file of pcwt-recompress; base
 *  receives the name of the file it was to replace
 */
bool DPRCIsTempName(const std::string& name, std::string *base);

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
 *  Transfer Syntax UID and Media Storage SOP Class UID; never loads the data set
 */
DPRC_Sniff DPRCSniff(const std::string& path, std::string& transferSyntax, std::string& sopClass,
                     std::string& error);

#endif
