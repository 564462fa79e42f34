/* backend.h - which backend codes: AUTO/CPU/GPU resolved with the PCWT_BACKEND environment
 * variable, and device numbers checked (backend.c). */
#ifndef PCWT_BACKEND_H
#define PCWT_BACKEND_H

#include "pcwt.h"

#include <stddef.h>

/* The backend a handle asks for: the request, else the environment's choice; AUTO when both are
 * (no CUDA call: a handle resolves AUTO on the first call that needs it, pcwt_backend_resolve). */
pcwt_backend pcwt_backend_choice(pcwt_backend requested, pcwt_backend env_choice);
/* The choice resolved: CPU or GPU (AUTO asks CUDA for a device). */
pcwt_backend pcwt_backend_resolve(pcwt_backend requested, pcwt_backend env_choice);
pcwt_backend pcwt_backend_from_env(void);
/* Validates a requested backend into its choice (AUTO left unresolved); GPU without CUDA or a
 * device is an error. */
pcwt_status pcwt_backend_select(pcwt_backend requested, pcwt_backend env_choice, pcwt_backend *out,
                                char *err, size_t err_size);
/* Checks a device number for pcwt_*_set_device: 0 always, others only when present. */
pcwt_status pcwt_device_check(int device, char *err, size_t err_size);

#endif /* PCWT_BACKEND_H */
