/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress's pipeline (pipeline.h): the end of a run's handles and
 *           buffers. A GPU handle's end waits for its device and frees device and page-locked
 *           memory, and each such call takes a while: one after another, on two GPUs, they held
 *           the summary back. So they are freed together, a thread each, and
 *           (DPRCPipelineOptions::keepHandles) after the caller has reported.
 */

#include "dcmtk/config/osconfig.h"
#include "pipeline_run.h"

#include <memory>
#include <thread>
#include <utility>
#include <vector>

using namespace dprc;

/// what a run leaves to be freed: parts that go independently of each other
class DPRCPipelineHandles
{
public:
  std::vector<std::shared_ptr<void> > parts;

  ~DPRCPipelineHandles() { freeTogether(parts); }

  /// each part freed on a thread of its own (the first on this one)
  static void freeTogether(std::vector<std::shared_ptr<void> >& parts)
  {
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < parts.size(); ++k)
    {
      try
      {
        threads.emplace_back([&parts, k]() { parts[k].reset(); });
      }
      catch (...)
      {
        parts[k].reset(); // no thread to be had: here
      }
    }
    if (!parts.empty()) parts[0].reset();
    for (std::thread& t : threads) t.join();
    parts.clear();
  }
};

std::size_t DPRCPipelineHandleParts(const DPRCPipelineHandles& handles)
{
  return handles.parts.size();
}

namespace {

/// each handle of the vector a part of its own
template <typename T>
void eachPart(std::vector<std::unique_ptr<T> >& handles, std::vector<std::shared_ptr<void> >& parts)
{
  for (std::unique_ptr<T>& h : handles)
    if (h) parts.push_back(std::shared_ptr<void>(std::move(h)));
  handles.clear();
}

void onePart(std::shared_ptr<ArenaPool>& pool, std::vector<std::shared_ptr<void> >& parts)
{
  if (pool) parts.push_back(std::shared_ptr<void>(std::move(pool)));
}

} // namespace

void dprc::endHandles(Run& run)
{
  std::unique_ptr<DPRCPipelineHandles> h(new DPRCPipelineHandles());
  // every thread that used them is joined; a batch coder holds its arena pool, which goes with
  // the last of them
  eachPart(run.coders, h->parts);
  eachPart(run.verifiers, h->parts);
  eachPart(run.j2kDecoders, h->parts);
  eachPart(run.lent, h->parts);
  eachPart(run.finishCoders, h->parts);
  onePart(run.arenas, h->parts);
  onePart(run.samples, h->parts);
  onePart(run.codestreams, h->parts);
  onePart(run.j2kSamples, h->parts);
  if (run.p.keepHandles == NULL)
    h.reset();
  else
    *run.p.keepHandles = std::shared_ptr<DPRCPipelineHandles>(h.release());
}
