/* sanitizer.h - whether the test binary (and so the tools of its build tree) runs under
 * AddressSanitizer: such processes cannot start under an address-space limit (ulimit -v) and
 * their resident size includes shadow memory and freed blocks held in quarantine. */
#ifndef PCWT_TESTS_SANITIZER_H
#define PCWT_TESTS_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define PCWT_TESTS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PCWT_TESTS_ASAN 1
#endif
#endif

#ifdef PCWT_TESTS_ASAN
static constexpr bool kAddressSanitizer = true;
#else
static constexpr bool kAddressSanitizer = false;
#endif

#endif
