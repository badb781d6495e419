# QKV Projection: Q = X @ Wq, K = X @ Wk, V = X @ Wv; three outputs.
# sizes: M,N,K in 2048 4096 8192
# X is [M,K] (M tokens, hidden size K), each weight is [K,N], each output is [M,N].
# The paper reports QKV Projection on the same 27 M x N x K triples as the other
# multi-operator kernels (its multi-operator table); it gives no separate sizes.
import numpy as np


def kernel(X: "f32[M,K]", Wq: "f32[K,N]", Wk: "f32[K,N]", Wv: "f32[K,N]"):
    q = X @ Wq
    k = X @ Wk
    v = X @ Wv
    return q, k, v
