# Ordinary kernels as ML code writes them (losses, norms, similarities, scalings): each compiled by
# tests/run.sh and its kernel run on the NKI stand-in against NumPy. None of them was written for
# Axon; of 36 such kernels tried, these compile (and two more in reductions.py, which did not).
# The rank-3 ones at the end are 4 of 8 tried later; 2 of them (merging heads, a mean over the
# heads) were an illegal kernel and a refusal before permute.c and the loop-axis split.
import math
import numpy as np


def cosine_sim(A: "f32[M,K]", B: "f32[N,K]"):
    an = A / np.sqrt(np.sum(A * A, axis=1, keepdims=True))
    bn = B / np.sqrt(np.sum(B * B, axis=1, keepdims=True))
    return an @ bn.T


def logsoftmax(X: "f32[M,N]"):
    m = np.max(X, axis=-1, keepdims=True)
    return X - m - np.log(np.sum(np.exp(X - m), axis=-1, keepdims=True))


def minmax_scale(X: "f32[M,N]"):
    lo = X.min(axis=0)
    hi = X.max(axis=0)
    return (X - lo) / (hi - lo + 1e-6)


def centered_gram(X: "f32[M,N]"):
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc / (X.shape[0] - 1)


def huber(A: "f32[M,N]", B: "f32[M,N]"):
    d = np.abs(A - B)
    return np.mean(np.minimum(d, 1.0) * (np.maximum(d, 1.0) - 0.5))


def rope_half(X: "f32[M,N]", C: "f32[M,N]", S: "f32[M,N]"):
    h = X.shape[1] // 2
    rot = np.concatenate([-X[:, h:], X[:, :h]], axis=1)
    return X * C + rot * S


# rank 3, as a transformer's code writes it: heads merged back, a mean over the heads (a loop
# axis), a softmax over the sequence, a layer norm over [B, S, E]
def merge_heads(O: "f32[H,S,D]"):
    return np.transpose(O, (1, 0, 2))


def mean_over_heads(A: "f32[H,S,T]"):
    return A.mean(axis=0)


def seq_softmax(X: "f32[B,S,E]"):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layer_norm_3d(X: "f32[B,S,E]", g: "f32[E]", b: "f32[E]"):
    m = X.mean(axis=-1, keepdims=True)
    v = ((X - m) ** 2).mean(axis=-1, keepdims=True)
    return (X - m) / np.sqrt(v + 1e-5) * g + b


# a linear layer over [B, S, E] with the sizes unpacked from the shape, as model code writes it
def linear_unpacked(X: "f32[B,S,E]", W: "f32[E,E]"):
    B, S, E = X.shape
    return (X.reshape(B * S, E) @ W).reshape(B, S, E)


# rows scaled to unit length with np.linalg.norm (specs/numpy.py's linalg_norm)
def unit_rows(X: "f32[M,N]"):
    return X / np.linalg.norm(X, axis=-1, keepdims=True)


# a multi-head attention layer as model code writes it: sizes unpacked, heads split and joined
# again by reshape and transpose, a mask by np.where, math.sqrt, the output projection (the
# joined heads a permutation read by a merge of axes: copied into a tensor of their own)
def attention_layer(X: "f32[S,E]", Wq: "f32[E,E]", Wk: "f32[E,E]", Wv: "f32[E,E]", Wo: "f32[E,E]",
                    mask: "f32[S,S]"):
    S, E = X.shape
    H = 4
    D = E // H
    q = (X @ Wq).reshape(S, H, D).transpose(1, 0, 2)
    k = (X @ Wk).reshape(S, H, D).transpose(1, 0, 2)
    v = (X @ Wv).reshape(S, H, D).transpose(1, 0, 2)
    s = q @ k.transpose(0, 2, 1) / math.sqrt(D)
    s = np.where(mask > 0, s, -1e9)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    return (p @ v).transpose(1, 0, 2).reshape(S, E) @ Wo
