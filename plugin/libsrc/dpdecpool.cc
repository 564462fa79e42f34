/*
 *  Module:  dcmpcwt
 *
 *  Purpose: the libpcwt decoder handles a decoder codec keeps between its calls (dpdecpool.h).
 */

#include "dpdecpool.h"

DPCWTDecoderPool::~DPCWTDecoderPool()
{
  for (size_t i = 0; i < kept_.size(); ++i) pcwt_decoder_destroy(kept_[i].dec);
}

pcwt_decoder *DPCWTDecoderPool::take(const DPCWTDecoderSettings& s)
{
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = kept_.size(); i-- > 0;)
  {
    if (kept_[i].settings == s)
    {
      pcwt_decoder *dec = kept_[i].dec;
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
      return dec;
    }
  }
  return NULL;
}

void DPCWTDecoderPool::give(pcwt_decoder *dec, const DPCWTDecoderSettings& s)
{
  if (dec == NULL) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < maxKept)
    {
      Kept k = {dec, s};
      kept_.push_back(k);
      return;
    }
  }
  pcwt_decoder_destroy(dec);
}
