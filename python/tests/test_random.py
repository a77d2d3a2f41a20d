"""Seeded random tensors drawn on the device: generators, the random ops, Dropout."""
import numpy as np
import pytest

import plexus as px


def test_a_seed_gives_one_stream_that_draws_continue():
    a, b = px.Generator(42), px.Generator(42)
    first = np.concatenate([px.rand(7, generator=a).numpy(), px.rand(5, generator=a).numpy()])
    np.testing.assert_array_equal(first, px.rand(12, generator=b).numpy())
    assert a.offset == 12 and a.initial_seed() == 42
    a.offset = 7  # replays from a position
    np.testing.assert_array_equal(px.rand(5, generator=a).numpy(), first[7:])


def test_manual_seed_seeds_the_default_generators():
    px.manual_seed(11)
    x = px.randn(100).numpy()
    px.manual_seed(11)
    np.testing.assert_array_equal(px.randn(100).numpy(), x)
    assert px.default_generator().initial_seed() == 11
    px.manual_seed(0)


def test_random_ops_fill_in_place_with_their_distributions():
    gen = px.Generator(3)
    t = px.empty(1 << 18, dtype=px.float64)
    px.uniform_(t, -1.0, 3.0, generator=gen)
    v = t.numpy()
    assert v.min() >= -1 and v.max() < 3 and abs(v.mean() - 1) < 0.02
    px.normal_(t, 2.0, 0.5, generator=gen)
    v = t.numpy()
    assert abs(v.mean() - 2) < 0.01 and abs(v.std() - 0.5) < 0.01
    px.bernoulli_(t, 0.2, generator=gen)
    v = t.numpy()
    assert set(np.unique(v)) <= {0.0, 1.0} and abs(v.mean() - 0.2) < 0.01
    with pytest.raises(ValueError, match="probability"):
        px.bernoulli_(t, 2.0)


def test_dropout_masks_repeat_for_a_seed():
    ones = px.ones(64, 32)
    a = px.nn.Dropout(0.5, generator=px.Generator(9))(ones).numpy()
    b = px.nn.Dropout(0.5, generator=px.Generator(9))(ones).numpy()
    np.testing.assert_array_equal(a, b)
    assert abs((a == 0).mean() - 0.5) < 0.05

