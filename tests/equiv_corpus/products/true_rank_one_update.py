# (A + u v^T) w is A w + u (v . w)
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", u: "f32[M]", v: "f32[N]", w: "f32[N]"):
    return (A + np.outer(u, v)) @ w


def rhs(A: "f32[M,N]", u: "f32[M]", v: "f32[N]", w: "f32[N]"):
    return A @ w + u * (v @ w)
