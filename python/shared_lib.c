/* pcwt_python_lib: an empty shared object into which libpcwt.a is linked whole, with libpcwt's
 * version script, so that a build of the static library also has the libpcwt.so.0 the Python
 * package loads (python/CMakeLists.txt). */
typedef int pcwt_python_lib_empty;
