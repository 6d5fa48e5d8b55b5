"""Byte-reproducible .npz writing for the data and reference generators.

numpy.savez stamps every archive member with the current time, so the same
arrays give different files (and checksums) on every run. save_npz writes the
same layout (uncompressed members, zip64 local headers, .npy format 1.0) with
a fixed timestamp. numpy only.
"""

import zipfile

import numpy as np


def save_npz(path, arrays):
    """Writes {name: array} to path as an uncompressed .npz, members in the
    given order, every member dated 1980-01-01 00:00:00."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(name + ".npy",
                                   date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            with zf.open(info, "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(array),
                                          allow_pickle=False)
