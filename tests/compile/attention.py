# Attention with an additive mask input (a causal mask is -1e9 above the diagonal), as model
# code writes it (issue 18): compiled by tests/run.sh at S=1024, D=128 and run on the stand-in.
import numpy as np


def masked_attention(Q: "f32[S,D]", K: "f32[S,D]", V: "f32[S,D]", mask: "f32[S,S]", scale=0.125):
    s = (Q @ K.T) * scale + mask
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return p @ V
