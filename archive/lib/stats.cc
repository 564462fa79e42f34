/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the names of the statuses, stage times and the timeline
 *           of --stats.
 */

#include "dcmtk/config/osconfig.h"
#include "engine.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

const char *DPRCStatusName(DPRC_Status status)
{
  switch (status)
  {
    case DPRCST_done: return "recompressed";
    case DPRCST_wouldDo: return "would-recompress";
    case DPRCST_skippedDone: return "skipped-done";
    case DPRCST_skippedNotDicom: return "skipped-not-dicom";
    case DPRCST_skippedNonImage: return "skipped-non-image";
    case DPRCST_skippedSymlink: return "skipped-symlink";
    case DPRCST_keptOriginal: return "kept-original-not-smaller";
    case DPRCST_unsupported: return "unsupported";
    case DPRCST_skippedChanged: return "skipped-changed";
    case DPRCST_failed: return "failed";
  }
  return "failed";
}

const char *DPRCReasonName(DPRC_Reason reason)
{
  switch (reason)
  {
    case DPRCR_none: return "none";
    case DPRCR_io: return "io";
    case DPRCR_memory: return "memory";
    case DPRCR_corruptInput: return "corrupt-input";
    case DPRCR_pixelData: return "pixel-data";
    case DPRCR_encodeFailed: return "encode-failed";
    case DPRCR_verifyFailed: return "verify-failed";
    case DPRCR_internal: return "internal";
    case DPRCR_unsupported: return "unsupported";
    case DPRCR_lossySyntax: return "lossy-syntax";
    case DPRCR_changed: return "changed";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// stage times (--stats)

static std::atomic<std::int64_t> g_stageNs[DPRCSG_count];

const char *DPRCStageName(DPRC_Stage stage)
{
  static const char *const names[DPRCSG_count] = {
    "check", "load", "decode-input", "samples", "reader-wait", "coder-wait", "code", "writer-wait",
    "encode", "save", "flush", "verify-load", "verify-decode", "verify-compare", "rename", "dir-flush",
    "verifier-wait", "verify-batch", "j2k-wait", "j2k-decode", "finish-wait", "finish-decode", "finish-samples"};
  return stage >= 0 && stage < DPRCSG_count ? names[stage] : "?";
}

static thread_local bool t_finisher = false;

void DPRCStageOnFinisher(bool on)
{
  t_finisher = on;
}

void DPRCStageAdd(DPRC_Stage stage, std::chrono::steady_clock::duration d)
{
  if (t_finisher && stage == DPRCSG_decodeInput) stage = DPRCSG_finishDecode;
  if (t_finisher && stage == DPRCSG_samples) stage = DPRCSG_finishSamples;
  if (stage >= 0 && stage < DPRCSG_count)
    g_stageNs[stage].fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(),
                               std::memory_order_relaxed);
}

std::vector<double> DPRCStageSeconds()
{
  std::vector<double> s(DPRCSG_count);
  for (int i = 0; i < DPRCSG_count; ++i) s[i] = double(g_stageNs[i].load(std::memory_order_relaxed)) * 1e-9;
  return s;
}

static std::mutex g_timelineMutex;
static std::vector<std::pair<std::string, std::chrono::steady_clock::time_point> > g_timeline;

void DPRCTimelineMark(const char *what)
{
  const std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(g_timelineMutex);
  for (const auto& m : g_timeline)
    if (m.first == what) return;
  g_timeline.emplace_back(what, t);
}

std::vector<std::pair<std::string, double> > DPRCTimeline()
{
  std::lock_guard<std::mutex> lock(g_timelineMutex);
  std::vector<std::pair<std::string, double> > out;
  for (const auto& m : g_timeline)
    out.emplace_back(m.first, std::chrono::duration<double>(m.second - g_timeline.front().second).count());
  return out;
}

double DPRCTimelineNow()
{
  const std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(g_timelineMutex);
  return g_timeline.empty() ? 0.0 : std::chrono::duration<double>(t - g_timeline.front().second).count();
}
