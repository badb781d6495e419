# W1 is [N,K] on the left and [K,N] on the right: a different layout, not a
# renaming of sizes.  The sizes rule makes it an error (exit 2), never a proof.
# expect: error
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[N,K]", W2: "f32[N,P]"):
    return np.maximum(X @ W1.T, 0) @ W2


def rhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[N,P]"):
    return np.maximum(X @ W1, 0) @ W2
