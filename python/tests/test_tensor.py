"""Tensors, ops and numpy interop from Python, checked against numpy."""
import numpy as np
import pytest

import plexus as px


def test_tensor_from_lists_infers_dtype_and_shape():
    assert px.tensor([[1.0, 2.0], [3.0, 4.0]]).dtype == px.float32
    assert px.tensor([1, 2, 3]).dtype == px.int64
    assert px.tensor([True, False]).dtype == px.bool
    t = px.tensor([[1, 2, 3], [4, 5, 6]], dtype=px.float64)
    assert t.shape == (2, 3) and t.dtype == px.float64
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert px.tensor(2 ** 60).item() == 2 ** 60  # int64 stays exact


def test_ragged_and_bad_data_are_refused():
    with pytest.raises(ValueError, match="ragged"):
        px.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="expected numbers"):
        px.tensor(["a"])


def test_operators_and_ops_match_numpy():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    b = np.linspace(-1, 1, 4, dtype=np.float32)
    x, y = px.tensor(a), px.tensor(b)
    np.testing.assert_allclose((x + y * 2 - 1).numpy(), a + b * 2 - 1, rtol=1e-6)
    np.testing.assert_allclose((1 / (x + 1)).numpy(), 1 / (a + 1), rtol=1e-6)
    np.testing.assert_allclose((x @ x.T).numpy(), a @ a.T, rtol=1e-5)
    np.testing.assert_allclose(x.relu().sum(dim=[1]).numpy(), np.maximum(a, 0).sum(1), rtol=1e-6)
    np.testing.assert_allclose(px.tanh(x).numpy(), np.tanh(a), rtol=2e-6)
    np.testing.assert_allclose(px.add(x, y, alpha=3).numpy(), a + 3 * b, rtol=1e-6)
    assert (x > 0.5).dtype == px.bool
    assert (x > 0.5).numpy().tolist() == (a > 0.5).tolist()


def test_in_place_ops_change_the_tensor():
    x = px.zeros(3)
    x += 2
    x.mul_(px.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [2.0, 4.0, 6.0]


def test_unknown_ops_and_wrong_arguments_say_what_was_wrong():
    x = px.ones(2)
    with pytest.raises(AttributeError, match="no attribute 'frobnicate'"):
        x.frobnicate()
    with pytest.raises(TypeError, match="no overload of sum"):
        px.sum(x, "rows")
    with pytest.raises(ValueError, match="broadcast|shape"):
        x + px.ones(3)


def test_indexing_gives_views():
    x = px.arange(24, dtype=px.float32).reshape(2, 3, 4)
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for key in [1, (0, 2), (slice(None), 1), (..., 1), (None, 1, ..., slice(1, 3)),
                (slice(0, 2), slice(None, None, 2)), -1]:
        np.testing.assert_array_equal(x[key].numpy(), a[key])
    v = x[0, 1]
    v[...] = 100.0  # a view: writes reach x
    assert x[0, 1, 3].item() == 100.0
    with pytest.raises(IndexError):
        x[5]


def test_numpy_interop_shares_cpu_memory():
    x = px.ones(4)
    arr = np.asarray(x)
    arr[0] = 5.0
    assert x[0].item() == 5.0  # no copy either way
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = px.from_numpy(a)
    a[1, 2] = -7
    assert t[1, 2].item() == -7
    assert t.T.is_contiguous() is False
    np.testing.assert_array_equal(np.asarray(t.T), a.T)
    with pytest.raises(TypeError, match="bfloat16"):
        px.ones(2, dtype=px.bfloat16).numpy()


def test_repr_looks_like_torch():
    assert repr(px.tensor([1.0, 2.5])) == "tensor([1. , 2.5])"
    r = repr(px.ones(2, dtype=px.float64, requires_grad=True))
    assert r.startswith("tensor([1., 1.]") and "dtype=plexus.float64" in r and "requires_grad=True" in r


def test_runtime_and_plugins():
    rt = px.runtime()
    assert "cpu" in rt.explain()
    assert any(p["name"] == "cpu" and p["state"] == "loaded" for p in px.plugins())


def test_every_catalog_op_is_reachable():
    names = dir(px)
    for op in ["add", "add_", "mm", "softmax", "layer_norm", "conv2d", "mse_loss", "where"]:
        assert op in names
        assert callable(getattr(px, op))
