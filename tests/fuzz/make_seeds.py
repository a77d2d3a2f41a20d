#!/usr/bin/env python3
"""Writes the seed corpus (corpus/safetensors/seed-*) from the format's description.
Run from this folder; only needed to regenerate the seeds, never by the build."""
import json, os, struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "safetensors")
SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "I32": 4, "I64": 8,
         "F16": 2, "BF16": 2, "F32": 4, "F64": 8}


def file_bytes(header: str, data: bytes = b"", pad: bool = True) -> bytes:
    h = header.encode()
    if pad:
        h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def tensors(entries, metadata=None):
    """entries: [(name, dtype, shape)] laid out in order."""
    header, data, offset = {}, b"", 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for i, (name, dtype, shape) in enumerate(entries):
        n = SIZES[dtype]
        for s in shape:
            n *= s
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        data += bytes((i * 7 + k) % 251 if dtype != "BOOL" else k % 2 for k in range(n))
        offset += n
    return json.dumps(header, separators=(",", ":")), data


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "empty": file_bytes("{}"),
        "metadata-only": file_bytes('{"__metadata__":{"format":"pt","k":"v"}}'),
        "every-dtype": file_bytes(*tensors([(f"t{d}", d, [2, 3]) for d in SIZES])),
        "scalar-and-empty": file_bytes(*tensors([("s", "F32", []), ("e", "I64", [0, 4]),
                                                 ("z", "U8", [3, 0])])),
        "mlp-like": file_bytes(*tensors([("fc1.weight", "F32", [4, 3]), ("fc1.bias", "F32", [4]),
                                         ("fc2.weight", "F16", [1, 4])], {"format": "pt"})),
        "unpadded": file_bytes(*tensors([("a", "BF16", [5])]), pad=False),
        "unsupported-dtype": file_bytes('{"a":{"dtype":"U16","shape":[1],"data_offsets":[0,2]}}',
                                        b"\0\0"),
        "overlap": file_bytes('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},'
                              '"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}', bytes(6)),
        "hole": file_bytes('{"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', bytes(4)),
        "huge-shape": file_bytes('{"a":{"dtype":"F64","shape":[4611686018427387904,4],'
                                 '"data_offsets":[0,8]}}', bytes(8)),
        "length-past-end": struct.pack("<Q", 1 << 40) + b"{}",
        "short": b"\x02\0\0",
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, f"seed-{name}"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
