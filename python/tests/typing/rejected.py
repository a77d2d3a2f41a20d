"""Calls the stubs must reject: python.stubs expects a mypy error on every line
marked `# error` and on no other line. A stub that typed these as Any would
pass everything; this file fails then."""
import plexus as px

x = px.ones(2)
name: str = x.relu()  # error
px.relu(x, 1, 2)  # error
x.sum(dim="rows")  # error
px.Tensor.frobnicate  # error
px.nn.Linear(2, 2).weight.numpy().tolist()
px.optim.Adam([x], lr="fast")  # error
flag: bool = x.is_leaf
count: str = x.numel()  # error
px.gelu(x, approximate=1)  # error
px.manual_seed("seven")  # error
px.float32.is_floating_point
px.float32.nope  # error
