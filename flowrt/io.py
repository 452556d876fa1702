"""``fr.io``: the ``tf.io`` names TF1 programs use for files, records and parsing.

Re-exports only.
"""

from . import gfile  # noqa: F401  (fr.io.gfile: TF2's name; its page is fr.gfile's)
from .ops.codec_ops import (
    decode_base64,
    decode_compressed,
    decode_json_example,
    encode_base64,
    parse_tensor,
    serialize_tensor,
)
from .ops.csv_ops import decode_csv
from .ops.image_codecs import (
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from .ops.io_ops import matching_files, read_file, write_file
from .ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    decode_raw,
    parse_example,
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
)
from .python_io import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from .train.input import match_filenames_once
from .train.training_util import write_graph

__all__ = [
    "decode_base64",
    "decode_compressed",
    "decode_json_example",
    "encode_base64",
    "parse_tensor",
    "serialize_tensor",
    "decode_and_crop_jpeg",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "is_jpeg",
    "decode_csv",
    "matching_files",
    "match_filenames_once",
    "read_file",
    "write_file",
    "write_graph",
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "VarLenFeature",
    "decode_raw",
    "parse_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_sequence_example",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "tf_record_iterator",
]
