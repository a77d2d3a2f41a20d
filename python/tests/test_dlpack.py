"""DLPack round trips with numpy 1.24 and torch 1.13, and who owns the memory."""
import gc

import numpy as np
import pytest

import plexus as px

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="python3-torch is not installed")

# plexus dtype -> (numpy dtype or None, torch dtype name)
DTYPES = {
    px.bool: (None, "bool"),  # numpy 1.24 cannot exchange bool through DLPack
    px.uint8: (np.uint8, "uint8"),
    px.int8: (np.int8, "int8"),
    px.int16: (np.int16, "int16"),
    px.int32: (np.int32, "int32"),
    px.int64: (np.int64, "int64"),
    px.float16: (np.float16, "float16"),
    px.bfloat16: (None, "bfloat16"),
    px.float32: (np.float32, "float32"),
    px.float64: (np.float64, "float64"),
}


def layouts(dtype):
    """Contiguous, transposed, offset (a slice), size-0 and size-1 tensors."""
    base = px.tensor([(i * 5) % 7 for i in range(24)]).to(dtype).reshape(4, 6)
    return {
        "contiguous": base,
        "transposed": base.T,
        "offset": base[1:3, 2:5],
        "size0": base[2:2],
        "size1": base[1:2, 3:4],
    }


def values(t):
    return t.to(px.float64).tolist()


@pytest.mark.parametrize("dtype", [d for d, (n, _) in DTYPES.items() if n is not None],
                         ids=lambda d: repr(d))
def test_numpy_reads_plexus_and_plexus_reads_numpy(dtype):
    for name, t in layouts(dtype).items():
        # numpy 1.24's from_dlpack gives a read-only array, which numpy then
        # refuses to export again: each direction is checked on its own.
        a = np.from_dlpack(t)
        assert a.dtype == DTYPES[dtype][0], name
        assert a.shape == tuple(t.shape), name
        np.testing.assert_array_equal(a.astype(np.float64), np.array(values(t)).reshape(a.shape))
        writable = np.array(values(t)).astype(DTYPES[dtype][0]).reshape(a.shape)
        view = writable.T.T if name != "transposed" else writable.T.copy().T
        back = px.from_dlpack(view)
        assert back.shape == t.shape and back.dtype == dtype, name
        assert values(back) == values(t), name
        assert back.stride() == tuple(s // view.itemsize for s in view.strides) or t.numel() <= 1


def test_memory_is_shared_not_copied():
    t = px.zeros(2, 3)
    a = np.from_dlpack(t)
    t[1, 2] = 5.0
    assert a[1, 2] == 5  # a view of the tensor's memory
    b = np.zeros((2, 3), dtype=np.float32)
    u = px.from_dlpack(b[:, 1:])
    u[0, 0] = 3.0
    assert b[0, 1] == 3.0


@needs_torch
@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != px.bool], ids=lambda d: repr(d))
def test_torch_round_trips(dtype):
    # bool is left out: plexus exports it as kDLBool (DLPack 0.8), which torch
    # 1.13 (DLPack 0.6) does not read.
    for name, t in layouts(dtype).items():
        tt = torch.from_dlpack(t)
        assert str(tt.dtype) == "torch." + DTYPES[dtype][1], name
        assert tuple(tt.shape) == tuple(t.shape), name
        assert tt.to(torch.float64).flatten().tolist() == np.array(values(t)).flatten().tolist()
        back = px.from_dlpack(tt)
        assert back.dtype == dtype and values(back) == values(t), name


@needs_torch
def test_memory_outlives_the_producer():
    t = px.arange(10, dtype=px.float32)
    tt = torch.from_dlpack(t)
    del t
    gc.collect()
    assert tt.tolist() == list(map(float, range(10)))  # plexus's storage is still alive
    src = torch.arange(5, dtype=torch.float32)
    u = px.from_dlpack(src)
    del src
    gc.collect()
    assert u.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_capsules_are_consumed_once_and_freed_when_never_consumed():
    t = px.ones(3)
    cap = t.__dlpack__()
    u = px.from_dlpack(cap)
    assert u.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="already consumed"):
        px.from_dlpack(cap)
    for _ in range(1000):  # never consumed: each capsule's deleter frees its export
        t.__dlpack__()
    versioned = t.__dlpack__(max_version=(1, 0))
    assert px.from_dlpack(versioned).tolist() == [1.0, 1.0, 1.0]


def test_device_and_copy_requests():
    t = px.ones(2)
    assert t.__dlpack_device__() == (1, 0)
    copy = px.from_dlpack(t.__dlpack__(copy=True))
    copy[0] = 9.0
    assert t[0].item() == 1.0  # a copy, not a view
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="no __dlpack__"):
        px.from_dlpack([1, 2])


def has_device(kind):
    return any(kind in p["device_types"] and p["state"] == "loaded" for p in px.plugins()) and \
        f"{kind}:0" in px.runtime().explain()


@pytest.mark.skipif(not has_device("vulkan"), reason="no vulkan device")
def test_vulkan_memory_leaves_only_as_a_host_copy():
    t = px.arange(4.0, device="vulkan:0")
    assert t.__dlpack_device__() == (7, 0)  # kDLVulkan
    with pytest.raises(BufferError, match="allocation handle"):
        t.__dlpack__()
    with pytest.raises(BufferError, match="allocation handle"):
        np.from_dlpack(t)
    host = px.from_dlpack(t.__dlpack__(dl_device=(1, 0)))
    assert host.device.type == "cpu" and host.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match=r"to DLPack device \(2, 0\)"):
        t.__dlpack__(dl_device=(2, 0))
    same = px.from_dlpack(t)  # plexus to plexus: the same memory, on any device
    same[0] = 7.0
    assert t.cpu().tolist()[0] == 7.0


@pytest.mark.skipif(not has_device("simt"), reason="no simt device")
def test_a_device_without_a_dlpack_code_gives_host_copies_only():
    t = px.ones(2, device="simt:0")
    with pytest.raises(BufferError, match="no DLPack device type"):
        t.__dlpack__()
    assert px.from_dlpack(t.__dlpack__(dl_device=(1, 0))).tolist() == [1.0, 1.0]


class Producer:
    """A DLPack producer on another device that notes the stream it is asked for."""

    def __init__(self, device):
        self.device, self.streams = device, []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None):
        self.streams.append(stream)
        return px.arange(3.0).__dlpack__(max_version=max_version)


def test_streams_follow_the_array_api():
    t = px.ones(2)
    with pytest.raises(BufferError, match="cpu tensors take stream=None"):
        t.__dlpack__(stream=5)
    assert px.from_dlpack(t.__dlpack__(stream=-1)).tolist() == [1.0, 1.0]
    # As a consumer plexus names the stream its work will be on: for CUDA the
    # legacy default stream (1) while no StreamGuard is active, for ROCm 0,
    # and none for the cpu.
    for device, stream in [((2, 0), 1), ((10, 0), 0), ((1, 0), None)]:
        p = Producer(device)
        assert px.from_dlpack(p).tolist() == [0.0, 1.0, 2.0]
        assert p.streams == [stream]
