/* pcwt_py_layout: prints the size and field offsets of pcwt.h's structs as the C compiler lays
 * them out, for test_layout.py to compare with the binding's cffi declarations (python/pcwt/_cdef.py,
 * ABI mode: cffi cannot check them against the header itself). */
#include <pcwt.h>
#include <stddef.h>
#include <stdio.h>

#define FIELD(type, field) printf("%s.%s %zu\n", #type, #field, offsetof(type, field))
#define SIZE(type) printf("%s %zu\n", #type, sizeof(type))

int main(void)
{
    SIZE(pcwt_image_desc);
    FIELD(pcwt_image_desc, bits_stored);
    FIELD(pcwt_image_desc, planar);
    SIZE(pcwt_plane_info);
    FIELD(pcwt_plane_info, payload_length);
    FIELD(pcwt_plane_info, payload_crc32);
    SIZE(pcwt_header_info);
    FIELD(pcwt_header_info, profile);
    FIELD(pcwt_header_info, desc);
    FIELD(pcwt_header_info, levels);
    FIELD(pcwt_header_info, plane_count);
    FIELD(pcwt_header_info, planes);
    FIELD(pcwt_header_info, header_length);
    FIELD(pcwt_header_info, codestream_length);
    SIZE(pcwt_decode_job);
    FIELD(pcwt_decode_job, src_size);
    FIELD(pcwt_decode_job, dst);
    FIELD(pcwt_decode_job, dst_capacity);
    FIELD(pcwt_decode_job, status);
    SIZE(pcwt_status);
    SIZE(pcwt_option);
    return 0;
}
