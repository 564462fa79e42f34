/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: progress, summary and report.
 */

#include "dcmtk/config/osconfig.h"
#include "report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <unistd.h>

std::string DPRCBytes(double b)
{
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (b >= 1000.0 && u < 5)
  {
    b /= 1000.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

static std::string duration(double s)
{
  if (!(s >= 0.0) || s > 1e8) return "--:--";
  const unsigned long t = static_cast<unsigned long>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%lu:%02lu:%02lu", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%02lu:%02lu", t / 60, t % 60);
  return buf;
}

DPRCProgress::DPRCProgress(DPRC_ProgressMode mode, std::uint64_t totalFiles, std::uint64_t totalBytes,
                           double lineInterval)
: mode_(mode)
, totalFiles_(totalFiles)
, totalBytes_(totalBytes)
, lineInterval_(lineInterval)
, stop_(false)
, barShown_(false)
, start_(std::chrono::steady_clock::now())
{
}

DPRCProgress::~DPRCProgress()
{
  stop();
}

void DPRCProgress::start()
{
  start_ = std::chrono::steady_clock::now();
  if (mode_ == DPRCPM_none || thread_.joinable()) return;
  thread_ = std::thread(&DPRCProgress::loop, this);
}

void DPRCProgress::stop()
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  if (barShown_)
  {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    barShown_ = false;
  }
}

void DPRCProgress::add(const DPRCResult& r)
{
  std::lock_guard<std::mutex> lock(mutex_);
  ++sum_.files;
  ++sum_.byStatus[r.status];
  sum_.inBytes += r.inBytes;
  if (r.status == DPRCST_done || r.status == DPRCST_wouldDo)
  {
    sum_.doneInBytes += r.inBytes;
    sum_.doneOutBytes += r.outBytes;
    sum_.pixelBytes += r.pixelBytes;
  }
}

void DPRCProgress::print(const std::function<void()>& fn)
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (barShown_)
  {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    barShown_ = false;
  }
  fn();
  std::fflush(stderr);
}

DPRCSummary DPRCProgress::summary()
{
  std::lock_guard<std::mutex> lock(mutex_);
  DPRCSummary s = sum_;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return s;
}

// called with the mutex held
std::string DPRCProgress::line(bool bar)
{
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double fps = t > 0 ? double(sum_.files) / t : 0.0;
  const double bps = t > 0 ? double(sum_.inBytes) / t : 0.0;
  const double left = (bps > 0 && totalBytes_ >= sum_.inBytes) ? double(totalBytes_ - sum_.inBytes) / bps
                    : (fps > 0 ? double(totalFiles_ - sum_.files) / fps : -1.0);
  const double ratio = sum_.doneOutBytes ? double(sum_.doneInBytes) / double(sum_.doneOutBytes) : 0.0;
  const double frac = totalBytes_ ? double(sum_.inBytes) / double(totalBytes_)
                    : (totalFiles_ ? double(sum_.files) / double(totalFiles_) : 1.0);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%llu/%llu files, %.1f files/s, %s/s, ratio %.2f, %llu failed, %s left",
                static_cast<unsigned long long>(sum_.files), static_cast<unsigned long long>(totalFiles_), fps,
                DPRCBytes(bps).c_str(), ratio, static_cast<unsigned long long>(sum_.byStatus[DPRCST_failed]),
                duration(left).c_str());
  if (!bar) return std::string("progress: ") + buf;
  const int width = 24;
  int filled = static_cast<int>(frac * width + 0.5);
  if (filled > width) filled = width;
  if (filled < 0) filled = 0;
  std::string b = "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '.') + "] ";
  char pct[16];
  std::snprintf(pct, sizeof pct, "%3.0f%% ", frac * 100.0);
  return b + pct + buf;
}

void DPRCProgress::loop()
{
  std::unique_lock<std::mutex> lock(mutex_);
  std::chrono::steady_clock::time_point lastLine = std::chrono::steady_clock::now();
  while (!stop_)
  {
    cv_.wait_for(lock, std::chrono::milliseconds(mode_ == DPRCPM_bar ? 200 : 500));
    if (stop_) break;
    if (mode_ == DPRCPM_bar)
    {
      std::fprintf(stderr, "\r\033[K%s", line(true).c_str());
      std::fflush(stderr);
      barShown_ = true;
    }
    else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - lastLine).count() >= lineInterval_)
    {
      std::fprintf(stderr, "%s\n", line(false).c_str());
      std::fflush(stderr);
      lastLine = std::chrono::steady_clock::now();
    }
  }
}

std::string DPRCVerificationText(const DPRCSummary& s)
{
  std::ostringstream o;
  if (!s.verifierBatches) return "every frame by the CPU decoder (in each writer)";
  o << (s.verifierGpu ? "GPU" : "CPU (standing in for the coding backend)") << " all " << s.verifiedFrames
    << " frames + CPU " << s.sampledFrames << " of " << s.verifiedFrames << " frames";
  if (s.sampleEvery) o << " (sample of 1 in " << s.sampleEvery << ")";
  return o.str();
}

std::string DPRCSummaryText(const DPRCSummary& s, bool dryRun)
{
  std::ostringstream o;
  const std::uint64_t skipped = s.byStatus[DPRCST_skippedDone] + s.byStatus[DPRCST_skippedNotDicom] +
                                s.byStatus[DPRCST_skippedNonImage] + s.byStatus[DPRCST_skippedSymlink];
  o << (dryRun ? "dry run: " : "") << s.files << " files in " << duration(s.seconds) << ": "
    << (dryRun ? s.byStatus[DPRCST_wouldDo] : s.byStatus[DPRCST_done])
    << (dryRun ? " would be recompressed, " : " recompressed, ") << skipped << " skipped ("
    << s.byStatus[DPRCST_skippedDone] << " done already, " << s.byStatus[DPRCST_skippedNotDicom] << " not DICOM, "
    << s.byStatus[DPRCST_skippedNonImage] << " without pixel data, " << s.byStatus[DPRCST_skippedSymlink]
    << " symbolic links), " << s.byStatus[DPRCST_unsupported] << " unsupported, " << s.byStatus[DPRCST_failed]
    << " failed";
  if (s.byStatus[DPRCST_skippedChanged])
    o << ", " << s.byStatus[DPRCST_skippedChanged] << " changed while being worked on (left as they are now; run again)";
  if (s.byStatus[DPRCST_keptOriginal])
    o << ", " << s.byStatus[DPRCST_keptOriginal] << " kept as they were (the copy was not smaller)";
  if (!dryRun && s.byStatus[DPRCST_done])
  {
    char buf[256];
    std::snprintf(buf, sizeof buf, "\nrecompressed: %s -> %s (ratio %.3f), %s of pixel data, %.1f files/s, %s/s",
                  DPRCBytes(double(s.doneInBytes)).c_str(), DPRCBytes(double(s.doneOutBytes)).c_str(),
                  s.doneOutBytes ? double(s.doneInBytes) / double(s.doneOutBytes) : 0.0,
                  DPRCBytes(double(s.pixelBytes)).c_str(), s.seconds > 0 ? double(s.files) / s.seconds : 0.0,
                  DPRCBytes(s.seconds > 0 ? double(s.inBytes) / s.seconds : 0.0).c_str());
    o << buf;
  }
  if (s.codeCalls)
    o << "\nbatch coder: " << s.codedFrames << " frames of " << s.codedFiles << " files in " << s.codeCalls
      << " calls";
  if (s.verifierBatches)
    o << "\nbatch verifier: " << s.verifiedFrames << " frames of " << s.verifiedFiles << " files in "
      << s.verifierBatches << " batches";
  if (!dryRun && s.byStatus[DPRCST_done]) o << "\nverification: " << DPRCVerificationText(s);
  if (s.j2kGpuFrames || s.j2kOpenjpegFrames || s.j2kCpuLibraryFrames)
  {
    o << "\nJPEG 2000 frames: " << s.j2kGpuFrames << " decoded on the GPU";
    if (s.j2kCalls) o << " (" << s.j2kCalls << " batches)";
    o << ", " << s.j2kOpenjpegFrames << " by OpenJPEG";
    if (s.j2kCpuLibraryFrames) o << ", " << s.j2kCpuLibraryFrames << " by libpcwt on the CPU";
  }
  if (s.dicomdirRecords) o << "\n" << s.dicomdirRecords << " DICOMDIR records updated to the new transfer syntax";
  if (s.cleanedTemps) o << "\nremoved " << s.cleanedTemps << " temporary files of an interrupted run";
  return o.str();
}

std::string DPRCStageText(const DPRCSummary& s, unsigned readers, unsigned coders, unsigned writers,
                          unsigned verifiers, unsigned j2kDecoders, unsigned finishers)
{
  std::ostringstream o;
  if (s.stageSeconds.size() != DPRCSG_count) return o.str();
  struct Group { const char *name; unsigned threads; int first, last; };
  const Group groups[] = {{"readers", readers, DPRCSG_check, DPRCSG_readerWait},
                          {"batch coders", coders, DPRCSG_coderWait, DPRCSG_code},
                          {"writers", writers, DPRCSG_writerWait, DPRCSG_dirFlush},
                          {"verifiers", verifiers, DPRCSG_verifierWait, DPRCSG_verifyBatch},
                          {"JPEG 2000 decoders", j2kDecoders, DPRCSG_j2kWait, DPRCSG_j2kDecode},
                          {"finishers", finishers, DPRCSG_finishWait, DPRCSG_finishSamples}};
  o << "stage times (thread-seconds; % of the threads' time over " << std::fixed << std::setprecision(2)
    << s.seconds << " s):";
  for (const Group& g : groups)
  {
    if (g.threads == 0) continue;
    const double avail = s.seconds * g.threads;
    o << "\n  " << g.name << " (" << g.threads << "):";
    for (int st = g.first; st <= g.last; ++st)
    {
      char buf[96];
      std::snprintf(buf, sizeof buf, " %s %.2f (%.0f%%)", DPRCStageName(static_cast<DPRC_Stage>(st)),
                    s.stageSeconds[st], avail > 0 ? 100.0 * s.stageSeconds[st] / avail : 0.0);
      o << buf;
    }
  }
  if (!s.timeline.empty())
  {
    o << "\ntimeline (s since the start):";
    for (std::size_t k = 0; k < s.timeline.size(); ++k)
      o << (k ? ", " : " ") << s.timeline[k].first << " " << std::setprecision(3) << s.timeline[k].second;
  }
  return o.str();
}

static std::string jsonString(const std::string& v)
{
  std::string o = "\"";
  for (unsigned char c : v)
  {
    switch (c)
    {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20)
        {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        }
        else
          o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

static std::string csvField(const std::string& v)
{
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string o = "\"";
  for (char c : v) o += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

static std::string ratioText(const DPRCResult& r)
{
  if (r.outBytes == 0 || (r.status != DPRCST_done)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", double(r.inBytes) / double(r.outBytes));
  return buf;
}

bool DPRCWriteReport(const std::string& path, const std::vector<DPRCResult>& results, const DPRCSummary& s,
                     bool dryRun, std::string& error)
{
  const bool csv = path.size() >= 4 && (path.compare(path.size() - 4, 4, ".csv") == 0 ||
                                        path.compare(path.size() - 4, 4, ".CSV") == 0);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp.c_str(), std::ios::binary | std::ios::trunc);
    if (!f)
    {
      error = "cannot write " + tmp + ": " + std::strerror(errno);
      return false;
    }
    if (csv)
    {
      f << "path,output,status,input_bytes,output_bytes,ratio,pixel_bytes,input_transfer_syntax,"
           "output_transfer_syntax,seconds,error\n";
      for (const DPRCResult& r : results)
      {
        char sec[32];
        std::snprintf(sec, sizeof sec, "%.3f", r.seconds);
        f << csvField(r.path) << ',' << csvField(r.output) << ',' << DPRCStatusName(r.status) << ',' << r.inBytes
          << ',' << r.outBytes << ',' << ratioText(r) << ',' << r.pixelBytes << ',' << csvField(r.inXfer) << ','
          << csvField(r.outXfer) << ',' << sec << ',' << csvField(r.message) << '\n';
      }
    }
    else
    {
      f << "{\n  \"tool\": \"pcwt-recompress\",\n  \"dry_run\": " << (dryRun ? "true" : "false")
        << ",\n  \"summary\": {\"files\": " << s.files;
      for (int st = DPRCST_done; st <= DPRCST_failed; ++st)
        f << ", " << jsonString(DPRCStatusName(static_cast<DPRC_Status>(st))) << ": " << s.byStatus[st];
      char sec[32];
      std::snprintf(sec, sizeof sec, "%.3f", s.seconds);
      f << ", \"input_bytes\": " << s.inBytes << ", \"recompressed_input_bytes\": " << s.doneInBytes
        << ", \"recompressed_output_bytes\": " << s.doneOutBytes << ", \"pixel_bytes\": " << s.pixelBytes
        << ", \"removed_temporary_files\": " << s.cleanedTemps << ", \"batch_coder_calls\": " << s.codeCalls
        << ", \"batch_coded_frames\": " << s.codedFrames << ", \"batch_coded_files\": " << s.codedFiles
        << ", \"batch_verifier_batches\": " << s.verifierBatches << ", \"batch_verified_frames\": " << s.verifiedFrames
        << ", \"batch_verified_files\": " << s.verifiedFiles << ", \"verification\": "
        << jsonString(!s.verifierBatches ? "cpu" : s.verifierGpu ? "gpu+cpu-sample" : "backend-cpu+cpu-sample")
        << ", \"verify_sample_every\": " << s.sampleEvery << ", \"cpu_sampled_frames\": " << s.sampledFrames
        << ", \"dicomdir_records_updated\": " << s.dicomdirRecords << ", \"j2k_gpu_frames\": " << s.j2kGpuFrames
        << ", \"j2k_gpu_calls\": " << s.j2kCalls << ", \"j2k_openjpeg_frames\": " << s.j2kOpenjpegFrames
        << ", \"j2k_cpu_libpcwt_frames\": " << s.j2kCpuLibraryFrames << ", \"seconds\": " << sec;
      if (s.stageSeconds.size() == DPRCSG_count)
      {
        f << ", \"stage_seconds\": {";
        for (int st = 0; st < DPRCSG_count; ++st)
        {
          std::snprintf(sec, sizeof sec, "%.6f", s.stageSeconds[st]);
          f << (st ? ", " : "") << jsonString(DPRCStageName(static_cast<DPRC_Stage>(st))) << ": " << sec;
        }
        f << "}";
      }
      f << "},\n  \"files\": [";
      for (size_t i = 0; i < results.size(); ++i)
      {
        const DPRCResult& r = results[i];
        std::snprintf(sec, sizeof sec, "%.3f", r.seconds);
        const std::string ratio = ratioText(r);
        f << (i ? ",\n" : "\n") << "    {\"path\": " << jsonString(r.path) << ", \"output\": " << jsonString(r.output)
          << ", \"status\": " << jsonString(DPRCStatusName(r.status)) << ", \"input_bytes\": " << r.inBytes
          << ", \"output_bytes\": " << r.outBytes << ", \"ratio\": " << (ratio.empty() ? std::string("null") : ratio)
          << ", \"pixel_bytes\": " << r.pixelBytes << ", \"input_transfer_syntax\": " << jsonString(r.inXfer)
          << ", \"output_transfer_syntax\": " << jsonString(r.outXfer) << ", \"seconds\": " << sec
          << ", \"error\": " << (r.status == DPRCST_failed || r.status == DPRCST_unsupported || r.status == DPRCST_skippedChanged ? jsonString(r.message)
                                                                                           : std::string("null"))
          << ", \"note\": " << jsonString(r.message) << "}";
      }
      f << "\n  ]\n}\n";
    }
    f.flush();
    if (!f)
    {
      error = "cannot write " + tmp + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
  {
    error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}
