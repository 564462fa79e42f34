/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): each device brought up on a thread
 *           of its own (its context, its handles warmed on frames of the run's largest batch), so
 *           that the first device's stages take work while the others still come up.
 */

#include "dcmtk/config/osconfig.h"
#include "pipeline_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace dprc {

namespace {

/** frames of frameBytes in the largest batch of `limit` bytes: a batch takes files while below
 *  the limit, so the last one may bring up to a file more (at most another limit's worth counted:
 *  a larger file is rare, and grows the buffers itself); a small run's batches are no larger than
 *  its files (twice: input compressed before decodes to more); at most maxFrames
 */
std::size_t framesOfLargestBatch(const Run& run, std::uint64_t limit, std::size_t frameBytes, std::size_t maxFrames)
{
  std::uint64_t largest = 0, total = 0;
  for (const DPRCEntry& e : run.files)
  {
    largest = std::max<std::uint64_t>(largest, e.size);
    total += e.size;
  }
  const std::uint64_t bytes = std::min(limit + std::min(largest, limit), 2 * total + frameBytes);
  return static_cast<std::size_t>(std::min<std::uint64_t>(maxFrames, (bytes + frameBytes - 1) / frameBytes));
}

/** what the handles code and verify to warm (GPU coders, p.warm): two frames, page locked as the
 *  run's samples are (a frame that is not goes up through a staging buffer the run would never
 *  use), a smooth one and noise in all 12 bits, so that the buffers whose size follows the data
 *  (codestreams, the compact profile's bins and maps) grow to what frames of this size can need
 *  (with the smooth frame alone the first real batches still grew theirs:
 *  bench/results/gpu-h200-2026-11-28-session7-host.md); the verifiers' codestreams of them, coded
 *  on the CPU (a few ms), so that the verifiers warm beside the coders, not after them
 */
struct WarmFrames
{
  pcwt_image_desc desc = {256, 256, 1, 16, 12, 0, 0};
  std::size_t frameBytes = 0;
  std::shared_ptr<void> pinned;
  std::vector<std::uint16_t> heap;
  std::vector<const std::uint16_t *> frames;
  std::vector<std::vector<unsigned char> > cs;
  std::vector<const std::uint16_t *> expected;
  std::size_t codeRepeat = 0, verifyRepeat = 0;
};

std::shared_ptr<WarmFrames> warmFrames(const Run& run)
{
  std::shared_ptr<WarmFrames> w = std::make_shared<WarmFrames>();
  const pcwt_image_desc& desc = w->desc;
  const std::size_t frameSamples = std::size_t(desc.width) * desc.height;
  w->frameBytes = frameSamples * sizeof(std::uint16_t);
  w->pinned.reset(pcwt_host_alloc(2 * w->frameBytes), pcwt_host_free);
  std::uint16_t *both = static_cast<std::uint16_t *>(w->pinned.get());
  if (both == NULL)
  {
    w->heap.resize(2 * frameSamples);
    both = w->heap.data();
  }
  std::uint32_t x = 2463534242u;
  for (std::size_t k = 0; k < frameSamples; ++k)
  {
    both[k] = static_cast<std::uint16_t>((k * 7 + (k / desc.width) * 13) & 0xfff);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    both[frameSamples + k] = static_cast<std::uint16_t>(x & 0xfff);
  }
  w->frames = {both, both + frameSamples};
  std::string error;
  if (pcwt_encoder *cpu = makeEncoder(run.p.coding.get(), PCWT_BACKEND_CPU, 0, error))
  {
    for (const std::uint16_t *f : w->frames)
    {
      std::vector<unsigned char> one(static_cast<std::size_t>(pcwt_encode_bound(&desc)));
      size_t written = 0;
      if (one.empty() || pcwt_encode(cpu, &desc, f, w->frameBytes, one.data(), one.size(), &written) != PCWT_OK ||
          written == 0 || written > one.size())
        continue;
      one.resize(written);
      w->cs.push_back(std::move(one));
      w->expected.push_back(f);
    }
    pcwt_encoder_destroy(cpu);
  }
  const std::size_t maxFrames = run.p.batchFrames ? run.p.batchFrames : 1024;
  w->codeRepeat = framesOfLargestBatch(run, run.p.batchBytes, w->frameBytes, maxFrames);
  w->verifyRepeat = framesOfLargestBatch(run, run.verifyBytes, w->frameBytes, maxFrames);
  return w;
}

/** a device brought up, on a thread of its own: the caller's wait (p.deviceUp, e.g. for its CUDA
 *  context) and, with GPU coders, its batch coders and verifiers each coding or verifying the
 *  warm frames, repeated to the size of the largest batch, all at once, so that their device
 *  state and buffers are made before their first batch instead of in its calls (p.warm). Its
 *  coders take batches once they are warm, its verifiers copies once they are: a second GPU's
 *  context no longer holds back the first's batches, nor the verifiers' warm-up the coders'. The
 *  waits are marks of --stats' timeline (GPU N context, coders up, verifiers up).
 */
void bringUp(Run& run, int device, std::shared_ptr<const WarmFrames> warm)
{
  const std::string gpu = "GPU " + std::to_string(device);
  if (run.p.deviceUp)
  {
    run.p.deviceUp(device);
    DPRCTimelineMark((gpu + " context").c_str());
  }
  std::vector<std::thread> coders, verifiers;
  if (warm)
  {
    const WarmFrames& w = *warm;
    for (std::size_t c = 0; c < run.coders.size(); ++c)
      if (run.coders[c]->device() == device)
        coders.emplace_back([&run, &w, c]() { (void)run.coders[c]->warm(w.desc, w.frames, w.codeRepeat); });
    for (std::size_t v = 0; !w.cs.empty() && v < run.verifiers.size(); ++v)
      if (run.verifiers[v]->device() == device && run.verifiers[v]->gpu())
        verifiers.emplace_back([&run, &w, v]() { run.verifiers[v]->warm(w.cs, w.expected, w.frameBytes, w.verifyRepeat); });
  }
  for (std::thread& t : coders) t.join();
  // (tests: every device's coders warm before any takes a batch, so that a small run's batches
  // go to every device)
  if (run.opt.testFault == "devices-together")
    for (++run.codersWarm; run.codersWarm.load() < run.devices.size();)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  DPRCTimelineMark((gpu + " coders up").c_str());
  run.codersUp.up(device);
  for (std::thread& t : verifiers) t.join();
  DPRCTimelineMark((gpu + " verifiers up").c_str());
  run.verifiersUp.up(device);
  if (++run.devicesUp == run.devices.size()) DPRCTimelineMark("devices warm");
}

} // namespace

void startBringUp(Run& run, std::vector<std::thread>& threads)
{
  const bool warming = run.gpuCoders && run.p.warm;
  if (!warming && !run.p.deviceUp)
  {
    for (int d : run.devices)
    {
      run.codersUp.up(d);
      run.verifiersUp.up(d);
    }
    return;
  }
  std::shared_ptr<const WarmFrames> warm = warming ? warmFrames(run) : nullptr;
  for (int d : run.devices) threads.emplace_back(bringUp, std::ref(run), d, warm);
}

} // namespace dprc
