# Attention with an additive mask input (a causal mask is -1e9 above the diagonal), as model
# code writes it (issue 18): compiled by tests/run.sh at S=1024, D=128 and run on the stand-in.
import numpy as np


def masked_attention(Q: "f32[S,D]", K: "f32[S,D]", V: "f32[S,D]", mask: "f32[S,S]", scale=0.125):
    s = (Q @ K.T) * scale + mask
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return p @ V


# scores scaled by the head size as model code writes it: a number made from a size, then viewed
# as a [1, 1] tensor; a variant takes the square root of that view, which no kernel wrote off chip
# (every fused candidate failed with "expand_dims reads node 4 before it is written")
def scaled_scores(Q: "f32[S,D]", K: "f32[S,D]"):
    return (Q @ K.T) / np.sqrt(Q.shape[1])


# the same number beside the scores of several heads [H, S, S] (multi-head attention)
def head_scores(Q: "f32[H,S,D]", K: "f32[H,S,D]"):
    return Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[2])
