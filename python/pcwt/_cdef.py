"""The declarations of codec/include/pcwt.h that the binding calls, for cffi's ABI mode (the
library is opened at run time; no compiler is needed). The layouts of the structs are checked
against the C compiler's by tests/python (test_layout.py)."""

CDEF = r"""
typedef enum pcwt_status {
    PCWT_OK = 0, PCWT_ERR_INVALID_ARGUMENT = 1, PCWT_ERR_UNSUPPORTED = 2,
    PCWT_ERR_OUT_OF_MEMORY = 3, PCWT_ERR_BUFFER_TOO_SMALL = 4, PCWT_ERR_TRUNCATED = 5,
    PCWT_ERR_CORRUPT = 6, PCWT_ERR_CRC_MISMATCH = 7, PCWT_ERR_LIMIT_EXCEEDED = 8,
    PCWT_ERR_BAD_MAGIC = 9, PCWT_ERR_BAD_VERSION = 10, PCWT_ERR_BACKEND_UNAVAILABLE = 11,
    PCWT_ERR_MISMATCH = 12
} pcwt_status;
typedef enum pcwt_profile { PCWT_PROFILE_BASELINE = 0, PCWT_PROFILE_ENTROPY = 1, PCWT_PROFILE_COMPACT = 2 } pcwt_profile;
typedef enum pcwt_backend { PCWT_BACKEND_AUTO = 0, PCWT_BACKEND_CPU = 1, PCWT_BACKEND_GPU = 2 } pcwt_backend;
typedef int pcwt_option;

const char *pcwt_status_string(pcwt_status status);
const char *pcwt_version_string(void);

typedef struct pcwt_image_desc {
    uint32_t width; uint32_t height; uint32_t components; uint32_t bits_allocated;
    uint32_t bits_stored; uint32_t is_signed; uint32_t planar;
} pcwt_image_desc;
size_t pcwt_image_size(const pcwt_image_desc *desc);

typedef struct pcwt_encoder pcwt_encoder;
typedef struct pcwt_decoder pcwt_decoder;
pcwt_encoder *pcwt_encoder_create(void);
void pcwt_encoder_destroy(pcwt_encoder *enc);
const char *pcwt_encoder_last_error(const pcwt_encoder *enc);
pcwt_status pcwt_encoder_set_option_name(pcwt_encoder *enc, const char *name, const char *value);
pcwt_status pcwt_decoder_set_option_name(pcwt_decoder *dec, const char *name, const char *value);
pcwt_status pcwt_encoder_get_option(const pcwt_encoder *enc, pcwt_option option, int64_t *value);
pcwt_status pcwt_decoder_get_option(const pcwt_decoder *dec, pcwt_option option, int64_t *value);
pcwt_status pcwt_option_from_name(const char *name, pcwt_option *option);
const char *pcwt_option_name(pcwt_option option);
const char *pcwt_profile_name(pcwt_profile profile);
size_t pcwt_encode_bound(const pcwt_image_desc *desc);
pcwt_status pcwt_encode(pcwt_encoder *enc, const pcwt_image_desc *desc, const void *samples,
                        size_t samples_size, void *dst, size_t dst_capacity, size_t *written);

typedef struct pcwt_plane_info {
    uint32_t component; uint32_t kind; int32_t qmax; uint32_t low_bits;
    uint64_t payload_length; uint32_t payload_crc32; uint32_t value_map; uint32_t level1_511;
    uint32_t offset; uint32_t second_bit;
} pcwt_plane_info;
typedef struct pcwt_header_info {
    uint32_t format_version;
    pcwt_profile profile;
    pcwt_image_desc desc;
    uint32_t levels;
    uint32_t group_rows, group_cols;
    uint32_t colour_transform;
    uint32_t columns_first;
    uint32_t plane_count;
    pcwt_plane_info planes[6];
    size_t header_length;
    size_t codestream_length;
} pcwt_header_info;
pcwt_status pcwt_read_header(const void *src, size_t src_size, pcwt_header_info *info);
uint64_t pcwt_decode_memory_bound(const pcwt_header_info *info);
uint64_t pcwt_default_memory_limit(void);

pcwt_decoder *pcwt_decoder_create(void);
void pcwt_decoder_destroy(pcwt_decoder *dec);
const char *pcwt_decoder_last_error(const pcwt_decoder *dec);
pcwt_status pcwt_decode(pcwt_decoder *dec, const void *src, size_t src_size, void *dst,
                        size_t dst_capacity);
typedef struct pcwt_decode_job {
    const void *src; size_t src_size; void *dst; size_t dst_capacity; pcwt_status status;
} pcwt_decode_job;
pcwt_status pcwt_decode_batch(pcwt_decoder *dec, pcwt_decode_job *jobs, size_t count);
pcwt_backend pcwt_encoder_backend(const pcwt_encoder *enc);
pcwt_backend pcwt_decoder_backend(const pcwt_decoder *dec);
int pcwt_has_cuda(void);
"""
