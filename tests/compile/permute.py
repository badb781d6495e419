# Axes permuted in tensors of rank 3 and 4 (tests/run.sh): an exchange that involves a loop axis
# is a view, which a transfer addresses in place (runtime/back/permute.c); each kernel is run on
# the NKI stand-in against NumPy, which refuses np.swapaxes applied to an off-chip tensor.
import numpy as np


# attention with the heads in the middle axis, as a model's projections leave them
def head_scores(Q: "f32[S,H,D]", K: "f32[S,H,D]"):
    return np.transpose(Q, (1, 0, 2)) @ np.transpose(K, (1, 2, 0))


def head_attention(Q: "f32[S,H,D]", K: "f32[S,H,D]", V: "f32[S,H,D]"):
    s = np.transpose(Q, (1, 0, 2)) @ np.transpose(K, (1, 2, 0))
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.transpose(p @ np.transpose(V, (1, 0, 2)), (1, 0, 2))


# a view read next to a tensor of its own layout
def swapped_sum(X: "f32[B,M,N]", Y: "f32[M,B,N]"):
    return np.swapaxes(X, 0, 1) + Y


# a loop axis exchanged with the last axis: a transpose on chip and views around it
def loop_with_last(X: "f32[B,M,N]"):
    return np.swapaxes(X, 0, 2) - 1.0


def channels_last(X: "f32[A,B,M,N]"):
    return np.transpose(X, (0, 2, 3, 1)) * 2.0


def batched_then_swapped(X: "f32[B,M,K]", W: "f32[B,K,N]"):
    return np.swapaxes(X @ W, 0, 1)


# results permuting a tensor the kernel does not make alone: copied into place off chip
def heads_first(X: "f32[A,B,M,N]"):
    return np.transpose(X, (2, 0, 1, 3))


def swapped_and_shifted(X: "f32[B,M,N]"):
    return np.swapaxes(X, 0, 1), X + 1.0
