/* pcwt_exports_check: an empty shared object into which libpcwt.a is linked whole, with libpcwt's
 * version script, so that packaging.exports can read what a shared libpcwt exports in a build of
 * the static library (tests/packaging/packaging.cmake). */
typedef int pcwt_exports_check_empty;
